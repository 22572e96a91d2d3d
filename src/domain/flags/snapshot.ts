/**
 * Feature flags (SPEC.md sections 1, 3, 5, 8 and 9; DESIGN.md section 8): their keys and types,
 * and the Flipt-compatible snapshot the server serves and the browser evaluates
 * (src/domain/flags/evaluator.ts).
 */
import * as v from 'valibot';

export const DEFAULT_FLAG_NAMESPACE = 'default';
/** SPEC.md section 9: flags refresh every 5 minutes. */
export const FLAG_REFRESH_INTERVAL_MS = 5 * 60_000;
/** SPEC.md sections 1 and 2: queried per formula; on means the wizard shows the custom-routing step. */
export const CUSTOM_ROUTING_FLAG = 'custom-routing';
/** The context property the custom-routing rule matches (the formula id is also the entity id). */
export const FORMULA_ID_PROPERTY = 'formulaId';
/** SPEC.md section 8: the flag client's failure, followed by the HTTP status text (as Flipt's client words it). */
export const FLAG_FETCH_FAILED = 'Failed to fetch data';
export const flagFetchFailedMessage = (statusText: string): string => `${FLAG_FETCH_FAILED}: ${statusText}`;
/** SPEC.md section 5: the flag client rejects an empty flag key or entity id (Flipt's client words). */
export const FLAG_KEY_REQUIRED = 'flagKey cannot be empty';
export const ENTITY_ID_REQUIRED = 'entityId cannot be empty';

/** Flipt's key syntax for namespaces, flags, segments and variants. */
export const FLIPT_KEY = /^[-_,A-Za-z0-9]+$/;
export const MAX_KEY_LENGTH = 100;

export const FLAG_TYPES = ['BOOLEAN_FLAG_TYPE', 'VARIANT_FLAG_TYPE'] as const;
export type FlagType = (typeof FLAG_TYPES)[number];
export const SEGMENT_OPERATORS = ['OR_SEGMENT_OPERATOR', 'AND_SEGMENT_OPERATOR'] as const;
export type SegmentOperator = (typeof SEGMENT_OPERATORS)[number];
export const MATCH_TYPES = ['ALL_SEGMENT_MATCH_TYPE', 'ANY_SEGMENT_MATCH_TYPE'] as const;
export type SegmentMatchType = (typeof MATCH_TYPES)[number];

/** Constraint types and the operators Flipt's engine implements for each. */
export const CONSTRAINT_OPERATORS = {
  STRING_CONSTRAINT_COMPARISON_TYPE: ['eq', 'neq', 'empty', 'notempty', 'prefix', 'suffix', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
  NUMBER_CONSTRAINT_COMPARISON_TYPE: ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent', 'isoneof', 'isnotoneof'],
  BOOLEAN_CONSTRAINT_COMPARISON_TYPE: ['true', 'false', 'present', 'notpresent'],
  DATETIME_CONSTRAINT_COMPARISON_TYPE: ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent'],
  ENTITY_ID_CONSTRAINT_COMPARISON_TYPE: ['eq', 'neq', 'empty', 'notempty', 'prefix', 'suffix', 'isoneof', 'isnotoneof', 'contains', 'notcontains'],
} as const;
export type ConstraintType = keyof typeof CONSTRAINT_OPERATORS;
export const CONSTRAINT_TYPES = Object.keys(CONSTRAINT_OPERATORS) as ConstraintType[];

export type EvaluationReason =
  | 'UNKNOWN_EVALUATION_REASON' | 'FLAG_DISABLED_EVALUATION_REASON' | 'MATCH_EVALUATION_REASON' | 'DEFAULT_EVALUATION_REASON';

// ---------------------------------------------------------------------------------------------
// The snapshot (GET /internal/v1/evaluation/snapshot/namespace/{namespace}), camelCase as Flipt
// serves it. Fields the engine ignores (ids, ranks, timestamps) are allowed and optional.

const Constraint = v.object({
  id: v.optional(v.string()),
  /** any string: a type the engine does not know makes its segment not match */
  type: v.string(),
  property: v.string(),
  operator: v.string(),
  value: v.string(),
});
const Segment = v.object({
  key: v.string(),
  name: v.optional(v.string()),
  description: v.optional(v.string()),
  matchType: v.picklist(MATCH_TYPES),
  constraints: v.array(Constraint),
});
export const Distribution = v.object({
  id: v.optional(v.string()),
  ruleId: v.optional(v.string()),
  variantId: v.optional(v.string()),
  variantKey: v.string(),
  variantAttachment: v.optional(v.nullable(v.string())),
  rollout: v.number(),
});
const Rule = v.object({
  id: v.optional(v.string()),
  rank: v.optional(v.number()),
  segments: v.optional(v.nullable(v.array(Segment))),
  segmentOperator: v.picklist(SEGMENT_OPERATORS),
  distributions: v.array(Distribution),
});
const Rollout = v.object({
  type: v.optional(v.string()),
  rank: v.optional(v.number()),
  description: v.optional(v.nullable(v.string())),
  segment: v.optional(v.nullable(v.object({
    value: v.boolean(),
    segmentOperator: v.optional(v.nullable(v.picklist(SEGMENT_OPERATORS))),
    segments: v.array(Segment),
  }))),
  threshold: v.optional(v.nullable(v.object({ percentage: v.number(), value: v.boolean() }))),
});
const Variant = v.object({
  id: v.string(),
  key: v.string(),
  name: v.optional(v.string()),
  description: v.optional(v.string()),
  attachment: v.optional(v.nullable(v.string())),
});
const SnapshotFlagSchema = v.object({
  key: v.string(),
  name: v.string(),
  description: v.optional(v.nullable(v.string())),
  /** absent means a variant flag, as in Flipt */
  type: v.optional(v.nullable(v.picklist(FLAG_TYPES))),
  enabled: v.boolean(),
  createdAt: v.optional(v.string()),
  updatedAt: v.optional(v.string()),
  rules: v.optional(v.nullable(v.array(Rule))),
  rollouts: v.optional(v.nullable(v.array(Rollout))),
  defaultVariant: v.optional(v.nullable(Variant)),
});
export const FlagSnapshotSchema = v.object({
  namespace: v.object({ key: v.string(), name: v.optional(v.string()) }),
  flags: v.array(SnapshotFlagSchema),
});
export type FlagSnapshot = v.InferOutput<typeof FlagSnapshotSchema>;
export type SnapshotFlag = v.InferOutput<typeof SnapshotFlagSchema>;
export type SnapshotSegment = v.InferOutput<typeof Segment>;
export type SnapshotConstraint = v.InferOutput<typeof Constraint>;

export class FlagSnapshotError extends Error {
  override name = 'FlagSnapshotError';
}

/** Checks a snapshot received from the server; a malformed one is a failure like any other. */
export function parseFlagSnapshot(data: unknown, namespace: string): FlagSnapshot {
  const result = v.safeParse(FlagSnapshotSchema, data);
  if (!result.success) throw new FlagSnapshotError(`The flag snapshot is not valid: ${v.summarize(result.issues).split('\n')[0]}`);
  if (result.output.namespace.key !== namespace) {
    throw new FlagSnapshotError(`snapshot namespace '${result.output.namespace.key}' does not match engine namespace '${namespace}'`);
  }
  return result.output;
}
