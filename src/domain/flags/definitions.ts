/** Feature flags: the definitions administrators edit, and their snapshot form (src/domain/flags/snapshot.ts). */
import * as v from 'valibot';
import { parseI32, parseI32List, parseStringList, rfc3339Seconds } from './engineNumbers.ts';
import { CONSTRAINT_OPERATORS, CONSTRAINT_TYPES, type ConstraintType, FLAG_TYPES, FLIPT_KEY, MATCH_TYPES, MAX_KEY_LENGTH, SEGMENT_OPERATORS, type SnapshotFlag, type SnapshotSegment } from './snapshot.ts';

// ---------------------------------------------------------------------------------------------
// Flag definitions as administrators edit them (the web API's bodies and the database rows).
// The server turns a definition into the snapshot's flag (see toSnapshotFlag).

const key = (what: string) => v.pipe(
  v.string(`${what} must be text.`),
  v.minLength(1, `${what} is required.`),
  v.maxLength(MAX_KEY_LENGTH, `${what} can be ${MAX_KEY_LENGTH} characters at most.`),
  v.regex(FLIPT_KEY, `${what} may contain only letters, digits, dashes, underscores and commas.`),
);
export const FlagKeySchema = key('A flag key');
export const NamespaceKeySchema = key('A namespace key');

const text = (what: string, max: number) => v.pipe(v.string(`${what} must be text.`), v.maxLength(max, `${what} can be ${max} characters at most.`));

export const ConstraintDefinition = v.pipe(
  v.object({
    type: v.picklist(CONSTRAINT_TYPES, 'A constraint type must be one of Flipt\'s comparison types.'),
    property: v.pipe(text('A constraint property', 200), v.minLength(1, 'A constraint property is required.')),
    operator: v.string('A constraint operator must be text.'),
    value: v.optional(text('A constraint value', 10_000), ''),
  }),
  v.check((c) => (CONSTRAINT_OPERATORS[c.type] as readonly string[]).includes(c.operator), 'A constraint operator must be one its type supports.'),
  v.check((c) => isReadableConstraintValue(c), 'A constraint value must be readable for its type and operator (a JSON list for isoneof and isnotoneof, an integer for numbers, an RFC 3339 date-time for dates).'),
);

/** Whether the engine can read a constraint's value; an unreadable one would silently never match. */
export function isReadableConstraintValue(c: { type: ConstraintType; operator: string; value: string }): boolean {
  if (['empty', 'notempty', 'present', 'notpresent', 'true', 'false'].includes(c.operator)) return true;
  const list = c.operator === 'isoneof' || c.operator === 'isnotoneof';
  switch (c.type) {
    case 'STRING_CONSTRAINT_COMPARISON_TYPE':
    case 'ENTITY_ID_CONSTRAINT_COMPARISON_TYPE': return !list || parseStringList(c.value) !== null;
    case 'NUMBER_CONSTRAINT_COMPARISON_TYPE': return list ? parseI32List(c.value) !== null : parseI32(c.value) !== null;
    case 'DATETIME_CONSTRAINT_COMPARISON_TYPE': return rfc3339Seconds(c.value) !== null;
    default: return false;
  }
}
export const SegmentDefinition = v.object({
  key: key('A segment key'),
  name: v.optional(text('A segment name', 200), ''),
  matchType: v.optional(v.picklist(MATCH_TYPES, 'A match type must be ALL or ANY.'), 'ALL_SEGMENT_MATCH_TYPE'),
  constraints: v.pipe(v.array(ConstraintDefinition, 'Constraints must be a list.'), v.maxLength(50, 'A segment has at most 50 constraints.')),
});
const SegmentList = v.pipe(v.array(SegmentDefinition, 'Segments must be a list.'), v.minLength(1, 'A rule needs at least one segment.'), v.maxLength(20, 'At most 20 segments.'));
const Percent = (what: string) => v.pipe(v.number(`${what} must be a number.`), v.minValue(0, `${what} must be 0 to 100.`), v.maxValue(100, `${what} must be 0 to 100.`));

export const RolloutDefinition = v.union([
  v.object({ threshold: v.object({ percentage: Percent('A threshold percentage'), value: v.boolean('A rollout value must be true or false.') }) }),
  v.object({
    segment: v.object({
      value: v.boolean('A rollout value must be true or false.'),
      segmentOperator: v.optional(v.picklist(SEGMENT_OPERATORS, 'A segment operator must be OR or AND.'), 'OR_SEGMENT_OPERATOR'),
      segments: SegmentList,
    }),
  }),
], 'A rollout has either a threshold or a segment.');
export const RuleDefinition = v.object({
  segmentOperator: v.optional(v.picklist(SEGMENT_OPERATORS, 'A segment operator must be OR or AND.'), 'OR_SEGMENT_OPERATOR'),
  segments: SegmentList,
  distributions: v.pipe(
    v.array(v.object({ variantKey: key('A variant key'), rollout: Percent('A distribution rollout') }), 'Distributions must be a list.'),
    v.maxLength(20, 'At most 20 distributions.'),
    v.check((ds) => ds.reduce((sum, d) => sum + d.rollout, 0) <= 100.0001, 'A rule\'s distributions add up to 100 at most.'),
  ),
});
export const VariantDefinition = v.object({
  key: key('A variant key'),
  name: v.optional(text('A variant name', 200), ''),
  attachment: v.optional(text('A variant attachment', 10_000), ''),
});

/** What an administrator sends to create or replace a flag (PUT /web-api/v1/flags/{key}). */
export const FlagDefinitionSchema = v.pipe(
  v.object({
    name: v.pipe(text('A flag name', 200), v.minLength(1, 'A flag name is required.')),
    description: v.optional(text('A flag description', 1000), ''),
    type: v.picklist(FLAG_TYPES, 'A flag type must be BOOLEAN_FLAG_TYPE or VARIANT_FLAG_TYPE.'),
    enabled: v.boolean('enabled must be true or false.'),
    rollouts: v.optional(v.pipe(v.array(RolloutDefinition, 'Rollouts must be a list.'), v.maxLength(20, 'At most 20 rollouts.')), []),
    variants: v.optional(v.pipe(v.array(VariantDefinition, 'Variants must be a list.'), v.maxLength(20, 'At most 20 variants.')), []),
    rules: v.optional(v.pipe(v.array(RuleDefinition, 'Rules must be a list.'), v.maxLength(20, 'At most 20 rules.')), []),
    defaultVariant: v.optional(v.nullable(key('A default variant key')), null),
  }, 'A flag definition must be an object.'),
  v.check((f) => f.type === 'VARIANT_FLAG_TYPE' || (f.variants.length === 0 && f.rules.length === 0 && f.defaultVariant === null),
    'A boolean flag has rollouts, not variants or rules.'),
  v.check((f) => f.type === 'BOOLEAN_FLAG_TYPE' || f.rollouts.length === 0, 'A variant flag has rules, not rollouts.'),
  v.check((f) => new Set(f.variants.map((x) => x.key)).size === f.variants.length, 'Variant keys must be unique.'),
  v.check((f) => {
    const keys = new Set(f.variants.map((x) => x.key));
    return (f.defaultVariant === null || keys.has(f.defaultVariant)) && f.rules.every((r) => r.distributions.every((d) => keys.has(d.variantKey)));
  }, 'Distributions and the default variant must name one of the flag\'s variants.'),
);
export type FlagDefinition = v.InferOutput<typeof FlagDefinitionSchema>;
export type RolloutDef = v.InferOutput<typeof RolloutDefinition>;

/** The enabled switch alone (PATCH /web-api/v1/flags/{key}). */
export const FlagEnabledSchema = v.object({ enabled: v.boolean('enabled must be true or false.') }, 'The body must be an object.');

/** A stored flag as the administration API lists it. */
export interface StoredFlag extends FlagDefinition {
  key: string;
  namespace: string;
  createdOn: string;
  updatedOn: string;
}

/** The snapshot's flag for a definition: what Flipt would serve for the same flag. */
export function toSnapshotFlag(key: string, def: FlagDefinition, times?: { createdAt: string; updatedAt: string }): SnapshotFlag {
  const segment = (s: FlagDefinition['rules'][number]['segments'][number]): SnapshotSegment => ({
    key: s.key, name: s.name || s.key, matchType: s.matchType,
    constraints: s.constraints.map((c) => ({ type: c.type, property: c.property, operator: c.operator, value: c.value })),
  });
  const variants = new Map(def.variants.map((x) => [x.key, x]));
  const base: SnapshotFlag = {
    key, name: def.name, description: def.description, enabled: def.enabled, type: def.type, ...(times ?? {}),
  };
  if (def.type === 'BOOLEAN_FLAG_TYPE') {
    return {
      ...base,
      rules: [],
      rollouts: def.rollouts.map((r, i) => ('threshold' in r
        ? { type: 'THRESHOLD_ROLLOUT_TYPE', rank: i + 1, threshold: { percentage: r.threshold.percentage, value: r.threshold.value } }
        : {
          type: 'SEGMENT_ROLLOUT_TYPE', rank: i + 1,
          segment: { value: r.segment.value, segmentOperator: r.segment.segmentOperator, segments: r.segment.segments.map(segment) },
        })),
    };
  }
  const dv = def.defaultVariant ? variants.get(def.defaultVariant) : undefined;
  return {
    ...base,
    rules: def.rules.map((r, i) => ({
      id: `${key}-${i + 1}`, rank: i + 1, segmentOperator: r.segmentOperator, segments: r.segments.map(segment),
      distributions: r.distributions.map((d) => ({
        variantKey: d.variantKey, variantAttachment: variants.get(d.variantKey)?.attachment ?? '', rollout: d.rollout,
      })),
    })),
    rollouts: [],
    ...(dv ? { defaultVariant: { id: dv.key, key: dv.key, attachment: dv.attachment } } : {}),
  };
}
