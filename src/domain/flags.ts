/**
 * Feature flags (SPEC.md sections 1, 3, 5, 8 and 9; DESIGN.md section 8): the Flipt-compatible
 * snapshot the server serves, the definitions administrators edit, and the evaluator the browser
 * runs locally.
 *
 * The evaluator reproduces Flipt's client-side engine (the wasm engine inside
 * @flipt-io/flipt-client-js, which tests/unit/flagsDifferential.test.ts uses as the oracle),
 * including its corner cases:
 * - boolean flags: `enabled` is the default value, not an off switch; rollouts are tried in order;
 *   a threshold rollout matches when `crc32(entityId + flagKey) % 100 < percentage`;
 * - variant flags: a disabled flag answers FLAG_DISABLED; the first rule whose segments match picks
 *   a variant by `crc32(flagKey + entityId) % 1000` against cumulative buckets (the rule's
 *   rollouts scaled to 1000 and rounded), found as Rust's `binary_search(bucket + 1)` finds it;
 * - segments match ALL or ANY of their constraints; a rule or segment rollout combines its segments
 *   with OR or AND; a constraint type the engine does not know makes its segment not match;
 * - a constraint whose value cannot be parsed (a number, boolean, date-time or JSON list) does not
 *   match, it is not an error.
 * Numbers behave as Rust's f32 and i32 do there.
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
const Distribution = v.object({
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

// ---------------------------------------------------------------------------------------------
// Evaluation requests and responses (as @flipt-io/flipt-client-js answers them, minus timing).

export interface EvaluationRequest {
  flagKey: string;
  entityId: string;
  context?: Record<string, string>;
}

export interface BooleanEvaluation {
  enabled: boolean;
  flagKey: string;
  reason: EvaluationReason;
  segmentKeys: string[];
}

export interface VariantEvaluation {
  match: boolean;
  segmentKeys: string[];
  reason: EvaluationReason;
  flagKey: string;
  variantKey: string;
  variantAttachment: string;
}

/** An evaluation Flipt's client refuses: an empty key or entity id, an unknown flag, the wrong type. */
export class FlagEvaluationError extends Error {
  override name = 'FlagEvaluationError';
}

// ---------------------------------------------------------------------------------------------
// Hashing and number semantics of the engine.

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** UTF-8 bytes of a string; a lone surrogate becomes U+FFFD, as it does on its way into the engine. */
function utf8(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    let cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
    if (cp < 0x80) out.push(cp);
    else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return out;
}

/** CRC-32 (IEEE 802.3), as Go's crc32.ChecksumIEEE and Rust's crc32fast compute it, over UTF-8. */
export function crc32(s: string): number {
  let c = 0xffffffff;
  for (const b of utf8(s)) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const f32 = Math.fround;
/** Rust's f32::round: half away from zero. */
const roundHalfAway = (x: number) => (x < 0 ? -Math.round(-x) : Math.round(x));

/** Rust's `slice::binary_search` (1.82+): the last index of an equal element, else the insertion point. */
function rustBinarySearch(sorted: number[], target: number): number {
  let size = sorted.length;
  if (size === 0) return 0;
  let base = 0;
  while (size > 1) {
    const half = size >>> 1;
    const mid = base + half;
    if (!(sorted[mid]! > target)) base = mid;
    size -= half;
  }
  const at = sorted[base]!;
  if (at === target) return base;
  return base + (at < target ? 1 : 0);
}

const I32_MIN = -2147483648;
const I32_MAX = 2147483647;

/** Rust's `str::parse::<i32>`. */
function parseI32(s: string): number | null {
  if (!/^[+-]?\d+$/.test(s)) return null;
  const n = Number(s);
  return n >= I32_MIN && n <= I32_MAX ? n + 0 : null;
}

/** serde_json's `from_str::<Vec<&str>>`: a JSON list of strings without escapes (they cannot be borrowed). */
function parseStringList(s: string): string[] | null {
  if (s.includes('\\')) return null;
  try {
    const list: unknown = JSON.parse(s);
    return Array.isArray(list) && list.every((x) => typeof x === 'string') ? list as string[] : null;
  } catch {
    return null;
  }
}

/** serde_json's `from_str::<Vec<i32>>`: a JSON list of integer literals in i32 range (-0 is a float there). */
function parseI32List(s: string): number[] | null {
  if (/[.eE]|-0(?!\d)/.test(s)) return null;
  try {
    const list: unknown = JSON.parse(s);
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'number' && x >= I32_MIN && x <= I32_MAX)) return null;
    return list as number[];
  } catch {
    return null;
  }
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
/** Days since 1970-01-01 of a proleptic Gregorian date. */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
/** chrono's `DateTime::parse_from_rfc3339(..).timestamp()`: whole seconds since the epoch, or null. */
export function rfc3339Seconds(s: string): number | null {
  const m = RFC3339.exec(s);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12) return null;
  const maxDay = month === 2 && isLeap(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
  if (day < 1 || day > maxDay || hour > 23 || minute > 59 || second > 60) return null;
  let offset = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  // a leap second (:60) is the last second of its minute plus one second of nanoseconds
  const sec = Math.min(second, 59);
  return daysFromCivil(year, month, day) * 86400 + hour * 3600 + minute * 60 + sec - offset;
}

// ---------------------------------------------------------------------------------------------
// Constraint matching.

function matchesString(c: SnapshotConstraint, value: string): boolean {
  if (c.operator === 'empty') return value === '';
  if (c.operator === 'notempty') return value !== '';
  if (value === '') return false;
  switch (c.operator) {
    case 'eq': return value === c.value;
    case 'neq': return value !== c.value;
    case 'prefix': return value.startsWith(c.value);
    case 'suffix': return value.endsWith(c.value);
    case 'contains': return value.includes(c.value);
    case 'notcontains': return !value.includes(c.value);
    case 'isoneof': return parseStringList(c.value)?.includes(value) ?? false;
    case 'isnotoneof': return !(parseStringList(c.value)?.includes(value) ?? false);
    default: return false;
  }
}

function matchesNumber(c: SnapshotConstraint, value: string): boolean {
  if (c.operator === 'notpresent') return value === '';
  if (c.operator === 'present') return value !== '';
  if (value === '') return false;
  const n = parseI32(value);
  if (n === null) return false;
  if (c.operator === 'isoneof' || c.operator === 'isnotoneof') {
    const list = parseI32List(c.value);
    if (list === null) return false; // an unreadable list fails both operators
    return list.includes(n) === (c.operator === 'isoneof');
  }
  const want = parseI32(c.value);
  if (want === null) return false;
  switch (c.operator) {
    case 'eq': return n === want;
    case 'neq': return n !== want;
    case 'lt': return n < want;
    case 'lte': return n <= want;
    case 'gt': return n > want;
    case 'gte': return n >= want;
    default: return false;
  }
}

function matchesBoolean(c: SnapshotConstraint, value: string): boolean {
  if (c.operator === 'notpresent') return value === '';
  if (c.operator === 'present') return value !== '';
  if (value !== 'true' && value !== 'false') return false;
  const b = value === 'true';
  if (c.operator === 'true') return b;
  if (c.operator === 'false') return !b;
  return false;
}

function matchesDateTime(c: SnapshotConstraint, value: string): boolean {
  if (c.operator === 'notpresent') return value === '';
  if (c.operator === 'present') return value !== '';
  if (value === '') return false;
  const at = rfc3339Seconds(value);
  const want = rfc3339Seconds(c.value);
  if (at === null || want === null) return false;
  switch (c.operator) {
    case 'eq': return at === want;
    case 'neq': return at !== want;
    case 'lt': return at < want;
    case 'lte': return at <= want;
    case 'gt': return at > want;
    case 'gte': return at >= want;
    default: return false;
  }
}

function matchesSegment(segment: SnapshotSegment, entityId: string, context: Record<string, string>): boolean {
  const any = segment.matchType === 'ANY_SEGMENT_MATCH_TYPE';
  let matches = 0;
  for (const c of segment.constraints) {
    const value = Object.hasOwn(context, c.property) ? context[c.property]! : '';
    let matched: boolean;
    switch (c.type) {
      case 'STRING_CONSTRAINT_COMPARISON_TYPE': matched = matchesString(c, value); break;
      case 'NUMBER_CONSTRAINT_COMPARISON_TYPE': matched = matchesNumber(c, value); break;
      case 'BOOLEAN_CONSTRAINT_COMPARISON_TYPE': matched = matchesBoolean(c, value); break;
      case 'DATETIME_CONSTRAINT_COMPARISON_TYPE': matched = matchesDateTime(c, value); break;
      case 'ENTITY_ID_CONSTRAINT_COMPARISON_TYPE': matched = matchesString(c, entityId); break;
      default: return false; // an unknown type: the whole segment does not match
    }
    if (matched) {
      matches++;
      if (any) break;
    } else if (!any) {
      break;
    }
  }
  return any ? segment.constraints.length === 0 || matches > 0 : matches === segment.constraints.length;
}

/** Segments keyed as the engine keys them: a repeated key replaces the earlier segment. */
function segmentsByKey(segments: readonly SnapshotSegment[] | null | undefined): Map<string, SnapshotSegment> {
  const map = new Map<string, SnapshotSegment>();
  for (const s of segments ?? []) map.set(s.key, s);
  return map;
}

/** The keys of the matching segments, or null when the segments do not satisfy the operator. */
function matchSegments(
  segments: Map<string, SnapshotSegment>, operator: SegmentOperator, entityId: string, context: Record<string, string>,
): string[] | null {
  const matched: string[] = [];
  for (const [key, segment] of segments) if (matchesSegment(segment, entityId, context)) matched.push(key);
  if (operator === 'OR_SEGMENT_OPERATOR') return matched.length > 0 ? matched : null;
  return matched.length === segments.size ? matched : null;
}

// ---------------------------------------------------------------------------------------------
// The evaluator.

interface CompiledFlag {
  flag: SnapshotFlag;
  type: FlagType;
  rules: { segments: Map<string, SnapshotSegment>; operator: SegmentOperator; distributions: v.InferOutput<typeof Distribution>[] }[];
  rollouts: (
    | { kind: 'threshold'; percentage: number; value: boolean }
    | { kind: 'segment'; value: boolean; operator: SegmentOperator; segments: Map<string, SnapshotSegment> }
    | { kind: 'none' }
  )[];
}

export interface FlagEvaluator {
  readonly namespace: string;
  readonly flagKeys: string[];
  evaluateBoolean(request: EvaluationRequest): BooleanEvaluation;
  evaluateVariant(request: EvaluationRequest): VariantEvaluation;
}

function checkRequest(request: EvaluationRequest): void {
  if (!request.flagKey || request.flagKey.trim() === '') throw new FlagEvaluationError(FLAG_KEY_REQUIRED);
  if (!request.entityId || request.entityId.trim() === '') throw new FlagEvaluationError(ENTITY_ID_REQUIRED);
}

/** Builds an evaluator over one snapshot (validate it first with parseFlagSnapshot). */
export function createFlagEvaluator(snapshot: FlagSnapshot): FlagEvaluator {
  const namespace = snapshot.namespace.key;
  const flags = new Map<string, CompiledFlag>();
  for (const flag of snapshot.flags) {
    flags.set(flag.key, {
      flag,
      type: flag.type ?? 'VARIANT_FLAG_TYPE',
      rules: (flag.rules ?? []).map((r) => ({ segments: segmentsByKey(r.segments), operator: r.segmentOperator, distributions: r.distributions })),
      rollouts: (flag.rollouts ?? []).map((r) => {
        if (r.threshold) return { kind: 'threshold' as const, percentage: f32(r.threshold.percentage), value: r.threshold.value };
        if (r.segment) {
          return {
            kind: 'segment' as const, value: r.segment.value,
            operator: r.segment.segmentOperator ?? 'OR_SEGMENT_OPERATOR', segments: segmentsByKey(r.segment.segments),
          };
        }
        return { kind: 'none' as const };
      }),
    });
  }

  const lookup = (request: EvaluationRequest, type: FlagType): CompiledFlag => {
    checkRequest(request);
    const found = flags.get(request.flagKey);
    if (!found) throw new FlagEvaluationError(`invalid request: failed to get flag information ${namespace}/${request.flagKey}`);
    if (found.type !== type) {
      throw new FlagEvaluationError(`invalid request: ${request.flagKey} is not a ${type === 'BOOLEAN_FLAG_TYPE' ? 'boolean' : 'variant'} flag`);
    }
    return found;
  };

  return {
    namespace,
    flagKeys: [...flags.keys()],

    evaluateBoolean(request) {
      const { flag, rollouts } = lookup(request, 'BOOLEAN_FLAG_TYPE');
      const context = request.context ?? {};
      for (const rollout of rollouts) {
        if (rollout.kind === 'threshold') {
          if (crc32(request.entityId + request.flagKey) % 100 < rollout.percentage) {
            return { enabled: rollout.value, flagKey: flag.key, reason: 'MATCH_EVALUATION_REASON', segmentKeys: [] };
          }
        } else if (rollout.kind === 'segment') {
          const matched = matchSegments(rollout.segments, rollout.operator, request.entityId, context);
          if (matched) return { enabled: rollout.value, flagKey: flag.key, reason: 'MATCH_EVALUATION_REASON', segmentKeys: matched };
        }
      }
      return { enabled: flag.enabled, flagKey: flag.key, reason: 'DEFAULT_EVALUATION_REASON', segmentKeys: [] };
    },

    evaluateVariant(request) {
      const { flag, rules } = lookup(request, 'VARIANT_FLAG_TYPE');
      const context = request.context ?? {};
      const response: VariantEvaluation = {
        match: false, segmentKeys: [], reason: 'UNKNOWN_EVALUATION_REASON', flagKey: flag.key, variantKey: '', variantAttachment: '',
      };
      if (flag.defaultVariant) {
        response.reason = 'DEFAULT_EVALUATION_REASON';
        response.variantKey = flag.defaultVariant.key;
        response.variantAttachment = flag.defaultVariant.attachment ?? '';
      }
      if (!flag.enabled) return { ...response, reason: 'FLAG_DISABLED_EVALUATION_REASON' };

      for (const rule of rules) {
        const matched = matchSegments(rule.segments, rule.operator, request.entityId, context);
        if (!matched) continue;
        response.segmentKeys = matched;

        const valid = rule.distributions.filter((d) => f32(d.rollout) > 0);
        if (valid.length === 0) return { ...response, match: true, reason: 'MATCH_EVALUATION_REASON' };

        // cumulative buckets, scaled so that the rule's rollouts fill all 1000 buckets
        let total = 0;
        for (const d of valid) total = f32(total + f32(d.rollout));
        let cumulative = 0;
        const buckets = valid.map((d) => {
          cumulative = f32(cumulative + f32(d.rollout));
          return roundHalfAway(f32(f32(cumulative / total) * 1000));
        }).sort((a, b) => a - b);

        const bucket = crc32(request.flagKey + request.entityId) % 1000;
        const index = rustBinarySearch(buckets, bucket + 1);
        if (index >= valid.length) return { ...response, match: false };
        const d = valid[index]!;
        return {
          ...response, match: true, reason: 'MATCH_EVALUATION_REASON', variantKey: d.variantKey, variantAttachment: d.variantAttachment ?? '',
        };
      }
      return response;
    },
  };
}

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

// ---------------------------------------------------------------------------------------------
// The custom-routing flag: off by default, on for the formulas its rule names.

/** The segment key of the rule that turns a boolean flag on for chosen formulas. */
export const FORMULA_RULE_SEGMENT = 'chosen-formulas';

/** A boolean flag, off by default, on for the given formula ids through one rule on the formula id. */
export function formulaRuleFlag(name: string, description: string, formulaIds: string[]): FlagDefinition {
  return {
    name, description, type: 'BOOLEAN_FLAG_TYPE', enabled: false, variants: [], rules: [], defaultVariant: null,
    rollouts: [formulaRollout(formulaIds)],
  };
}

function formulaRollout(formulaIds: string[]): RolloutDef {
  return {
    segment: {
      value: true, segmentOperator: 'OR_SEGMENT_OPERATOR',
      segments: [{
        key: FORMULA_RULE_SEGMENT, name: 'Chosen formulas', matchType: 'ALL_SEGMENT_MATCH_TYPE',
        constraints: [{ type: 'STRING_CONSTRAINT_COMPARISON_TYPE', property: FORMULA_ID_PROPERTY, operator: 'isoneof', value: JSON.stringify(formulaIds) }],
      }],
    },
  };
}

/** The formula ids of a flag's formula-id rule, or null when the flag has no such rule. */
export function formulaRuleIds(def: Pick<FlagDefinition, 'type' | 'rollouts'>): string[] | null {
  if (def.type !== 'BOOLEAN_FLAG_TYPE') return null;
  for (const r of def.rollouts) {
    if (!('segment' in r)) continue;
    const c = r.segment.segments.find((s) => s.key === FORMULA_RULE_SEGMENT)?.constraints[0];
    if (c && c.property === FORMULA_ID_PROPERTY && c.operator === 'isoneof') return parseStringList(c.value) ?? [];
  }
  return null;
}

/** The definition with its formula-id rule naming these formulas (the rule is added when missing). */
export function withFormulaRuleIds<T extends FlagDefinition>(def: T, formulaIds: string[]): T {
  const ids = [...new Set(formulaIds.map((x) => x.trim()).filter(Boolean))];
  let replaced = false;
  const rollouts = def.rollouts.map((r) => {
    if (replaced || !('segment' in r) || !r.segment.segments.some((s) => s.key === FORMULA_RULE_SEGMENT)) return r;
    replaced = true;
    return formulaRollout(ids);
  });
  return { ...def, rollouts: replaced ? rollouts : [formulaRollout(ids), ...rollouts] };
}

/** The evaluation request for a flag queried per formula (SPEC.md section 1): the formula id is both entity id and context. */
export function formulaRequest(flagKey: string, formulaId: string): EvaluationRequest {
  return { flagKey, entityId: formulaId, context: { [FORMULA_ID_PROPERTY]: formulaId } };
}
