/**
 * Differential test (DESIGN.md section 8): our evaluator against Flipt's own client-side engine,
 * @flipt-io/flipt-client-js, fed the same generated snapshots offline through a custom fetcher.
 * Every generated entity id and context must get identical answers (value, reason, variant,
 * attachment, matched segments) or the identical error.
 */
import { FliptClient } from '@flipt-io/flipt-client-js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { crc32 } from '../../src/domain/flags/engineNumbers.ts';
import { createFlagEvaluator, type EvaluationRequest } from '../../src/domain/flags/evaluator.ts';
import { parseFlagSnapshot, type FlagSnapshot } from '../../src/domain/flags/snapshot.ts';

type Oracle = Awaited<ReturnType<typeof FliptClient.init>>;

async function oracleFor(snapshot: FlagSnapshot): Promise<Oracle> {
  const body = JSON.parse(JSON.stringify(snapshot));
  return FliptClient.init({
    namespace: snapshot.namespace.key,
    fetcher: async () => ({ ok: true, status: 200, statusText: 'OK', headers: { get: () => null }, json: async () => body }),
  });
}

type Outcome = Record<string, unknown>;
function run(fn: () => object): Outcome {
  try {
    const r = { ...fn() } as Record<string, unknown>;
    delete r.timestamp;
    delete r.requestDurationMillis;
    if ('variantKey' in r) r.variantAttachment = r.variantAttachment ?? '';
    r.segmentKeys = [...(r.segmentKeys as string[] ?? [])].sort();
    return r;
  } catch (err) {
    return { error: (err as Error).message };
  }
}

// ---- generators ------------------------------------------------------------------------------

const PROPERTIES = ['formulaId', 'tier', 'when'];
const STRINGS = ['a', 'abc', 'b', 'formula-1', 'formula-2', 'x"y', 'ä', ' ', 'prefix-1', '1-suffix', 'bc'];
const NUMBERS = ['1', '-5', '42', '0', '-0', '+3', '007', '1.5', '1e2', '2147483647', '2147483648', '-2147483649', 'abc', '+', '-', ' 1'];
const BOOLEANS = ['true', 'false', 'TRUE', 'yes', '1'];
const DATES = [
  '2026-01-02T15:04:05Z', '2026-01-02T15:04:05.999Z', '2026-01-02t15:04:05z', '2026-01-02 15:04:05Z',
  '2026-01-02T17:04:05+02:00', '2026-01-02T10:04:05-05:00', '2026-01-02T15:04:06Z', '2025-12-31T23:59:59Z',
  '2024-02-29T00:00:00Z', '2023-02-29T00:00:00Z', '2026-01-02', '2026-01-02T15:04:05', '2026-01-02T15:04:05+0200',
  '2026-13-01T00:00:00Z', '2026-01-02T24:00:00Z', '1969-12-31T23:59:59.5Z', '0001-01-01T00:00:00Z', '9999-12-31T23:59:59Z',
  '2026-01-02T15:04:60Z', '2026-01-02T15:04:59Z', '2026-01-02T15:05:00Z', '2026-01-02T15:04:05.123456789123Z', '2026-01-02T15:04:05.Z',
];
const STRING_LISTS = ['["a", "abc"]', '["formula-1","formula-2"]', '[]', '["x\\"y", "a"]', '["a", 1]', 'a', '  [ "b" ]  ', '["a",]', 'null', '["ä","bc"]'];
const NUMBER_LISTS = ['[1, 2, 42]', '[1, 2.5]', '[-5, 0]', '[2147483648]', '[1e1]', '[7, 42 ]', '[]', '["1"]', '[-0]', '1'];
const VALUES = [...STRINGS, ...NUMBERS, ...BOOLEANS, ...DATES, ...STRING_LISTS, ...NUMBER_LISTS, ''];
const OPERATORS = [
  'eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'empty', 'notempty', 'present', 'notpresent', 'prefix', 'suffix',
  'isoneof', 'isnotoneof', 'contains', 'notcontains', 'true', 'false', 'bogus',
];
/** each constraint type with the operators and values that exercise it (plus, rarely, anything) */
const KINDS = {
  STRING_CONSTRAINT_COMPARISON_TYPE: { ops: ['eq', 'neq', 'empty', 'notempty', 'prefix', 'suffix', 'isoneof', 'isnotoneof', 'contains', 'notcontains'], values: [...STRINGS, ...STRING_LISTS, ''] },
  ENTITY_ID_CONSTRAINT_COMPARISON_TYPE: { ops: ['eq', 'neq', 'empty', 'notempty', 'prefix', 'suffix', 'isoneof', 'isnotoneof', 'contains', 'notcontains'], values: [...STRINGS, ...STRING_LISTS, ''] },
  NUMBER_CONSTRAINT_COMPARISON_TYPE: { ops: ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent', 'isoneof', 'isnotoneof'], values: [...NUMBERS, ...NUMBER_LISTS, ''] },
  BOOLEAN_CONSTRAINT_COMPARISON_TYPE: { ops: ['true', 'false', 'present', 'notpresent', 'eq'], values: [...BOOLEANS, ''] },
  DATETIME_CONSTRAINT_COMPARISON_TYPE: { ops: ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'present', 'notpresent'], values: [...DATES, ''] },
  UNKNOWN_CONSTRAINT_COMPARISON_TYPE: { ops: ['eq'], values: STRINGS },
  SOMETHING_ELSE: { ops: ['eq'], values: STRINGS },
} as const;
const TYPES = Object.keys(KINDS) as (keyof typeof KINDS)[];

const constraint = fc.constantFrom(...TYPES).chain((type) => fc.record({
  type: fc.constant(type),
  property: fc.constantFrom(...PROPERTIES),
  operator: fc.oneof({ arbitrary: fc.constantFrom(...KINDS[type].ops), weight: 9 }, { arbitrary: fc.constantFrom(...OPERATORS), weight: 1 }),
  value: fc.oneof({ arbitrary: fc.constantFrom(...KINDS[type].values), weight: 9 }, { arbitrary: fc.constantFrom(...VALUES), weight: 1 }),
}));
const segment = fc.record({
  key: fc.constantFrom('s1', 's2', 's3', 's4'),
  matchType: fc.constantFrom('ALL_SEGMENT_MATCH_TYPE', 'ANY_SEGMENT_MATCH_TYPE'),
  constraints: fc.array(constraint, { maxLength: 3 }),
});
const operator = fc.constantFrom('OR_SEGMENT_OPERATOR', 'AND_SEGMENT_OPERATOR');
const percentage = fc.oneof(
  fc.constantFrom(0, 100, 50, 33.3, 12.5, 99.9, 0.01, 50.000001, 1, 10, 25, 75),
  fc.float({ min: 0, max: 100, noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: 0, max: 100 }),
);
const rollout = fc.oneof(
  fc.record({ threshold: fc.record({ percentage, value: fc.boolean() }) }),
  fc.record({
    segment: fc.record({ value: fc.boolean(), segmentOperator: operator, segments: fc.array(segment, { maxLength: 3 }) }, { requiredKeys: ['value', 'segments'] }),
  }),
);
const distribution = fc.record({
  variantKey: fc.constantFrom('v1', 'v2', 'v3', 'blue', 'green'),
  rollout: fc.oneof(
    fc.constantFrom(0, 0.01, 0.05, 0.1, 10, 20, 33.3, 33.4, 50, 60, 100, 12.25),
    fc.float({ min: 0, max: 100, noNaN: true, noDefaultInfinity: true }),
    fc.integer({ min: 0, max: 100 }),
  ),
  variantAttachment: fc.constantFrom('', '{"colour":"blue"}', 'plain'),
}, { requiredKeys: ['variantKey', 'rollout'] });
const rule = fc.record({
  segmentOperator: operator,
  segments: fc.option(fc.array(segment, { maxLength: 3 }), { nil: undefined }),
  distributions: fc.array(distribution, { maxLength: 4 }),
}, { requiredKeys: ['segmentOperator', 'distributions'] });
const flagKey = fc.constantFrom('custom-routing', 'beta', 'colour', 'limit', 'f1', 'f2', 'f3', 'f4');
const booleanFlag = fc.record({
  key: flagKey,
  name: fc.constant('A boolean flag'),
  type: fc.constant('BOOLEAN_FLAG_TYPE' as const),
  enabled: fc.boolean(),
  rollouts: fc.array(rollout, { maxLength: 4 }),
});
const variantFlag = fc.record({
  key: flagKey,
  name: fc.constant('A variant flag'),
  type: fc.option(fc.constant('VARIANT_FLAG_TYPE' as const), { nil: undefined }),
  enabled: fc.boolean(),
  rules: fc.array(rule, { maxLength: 3 }),
  defaultVariant: fc.option(fc.record({ id: fc.constant('dv'), key: fc.constantFrom('v1', 'control'), attachment: fc.constantFrom('', '{"d":1}') }), { nil: undefined }),
});
const snapshotArb = fc.uniqueArray(fc.oneof(booleanFlag, variantFlag), { minLength: 1, maxLength: 6, selector: (f) => f.key })
  .map((flags): FlagSnapshot => ({ namespace: { key: 'default' }, flags: flags as FlagSnapshot['flags'] }));

const entityId = fc.oneof(
  fc.uuid(),
  fc.constantFrom(...STRINGS),
  fc.string({ minLength: 1, maxLength: 24 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
  fc.constantFrom('', ' ', '\t', 'a', 'formula-1'),
);
const contextArb = fc.dictionary(fc.constantFrom(...PROPERTIES), fc.oneof(fc.constantFrom(...VALUES), fc.string({ maxLength: 6 })), { maxKeys: 5 });
const requestsArb = fc.array(fc.record({ entityId, context: contextArb }), { minLength: 150, maxLength: 150 });

// ---- the test --------------------------------------------------------------------------------

describe('our evaluator agrees with @flipt-io/flipt-client-js', () => {
  beforeAll(() => {
    // the wasm glue warns about its own initialisation on every client
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  });
  afterAll(() => vi.restoreAllMocks());

  it('on thousands of generated entity ids and contexts across generated snapshots', async () => {
    let evaluations = 0;
    await fc.assert(fc.asyncProperty(snapshotArb, requestsArb, async (snapshot, requests) => {
      const ours = createFlagEvaluator(parseFlagSnapshot(JSON.parse(JSON.stringify(snapshot)), 'default'));
      const oracle = await oracleFor(snapshot);
      const keys = [...snapshot.flags.map((f) => f.key), 'missing-flag', ''];
      for (const { entityId: id, context } of requests) {
        for (const key of keys) {
          const request: EvaluationRequest & { context: Record<string, string> } = { flagKey: key, entityId: id, context };
          expect(run(() => ours.evaluateBoolean(request)), `boolean ${key} for ${JSON.stringify(request)} in ${JSON.stringify(snapshot)}`)
            .toEqual(run(() => oracle.evaluateBoolean(request)));
          expect(run(() => ours.evaluateVariant(request)), `variant ${key} for ${JSON.stringify(request)} in ${JSON.stringify(snapshot)}`)
            .toEqual(run(() => oracle.evaluateVariant(request)));
          evaluations += 2;
        }
      }
    }), { numRuns: 40 });
    expect(evaluations).toBeGreaterThan(10_000);
  }, 120_000);

  it('on every bucket boundary of a few fixed distributions', async () => {
    const dists = [[50, 50], [0, 50, 0, 50, 0], [10, 20], [33.3, 33.3, 33.4], [0.05, 50], [0.1, 0.01, 99.89], [0.1, 0.04, 0.01, 50], [12.25, 87.75], [60, 60]];
    const snapshot: FlagSnapshot = {
      namespace: { key: 'default' },
      flags: dists.map((d, i) => ({
        key: `f${i}`, name: `f${i}`, type: 'VARIANT_FLAG_TYPE', enabled: true,
        rules: [{
          segmentOperator: 'OR_SEGMENT_OPERATOR',
          segments: [{ key: 'everyone', matchType: 'ALL_SEGMENT_MATCH_TYPE', constraints: [] }],
          distributions: d.map((rollout, j) => ({ variantKey: `v${j}`, rollout })),
        }],
      })),
    };
    const ours = createFlagEvaluator(snapshot);
    const oracle = await oracleFor(snapshot);
    const seen = new Set<string>();
    const variants = new Set<string>();
    for (let n = 0; seen.size < dists.length * 1000 && n < 200_000; n++) {
      const id = `entity-${n}`;
      for (let i = 0; i < dists.length; i++) {
        const bucket = crc32(`f${i}${id}`) % 1000;
        if (seen.has(`${i}:${bucket}`)) continue;
        seen.add(`${i}:${bucket}`);
        const request = { flagKey: `f${i}`, entityId: id, context: {} };
        const answer = run(() => ours.evaluateVariant(request));
        expect(answer).toEqual(run(() => oracle.evaluateVariant(request)));
        variants.add(`${i}:${answer.variantKey as string}`);
      }
    }
    expect(seen.size).toBe(dists.length * 1000);
    // every distribution was chosen somewhere, except the zero ones and the two squeezed out by rounding
    expect(variants.size).toBe(dists.flat().filter((r) => r > 0).length - 2);
  }, 60_000);

  it('on every threshold of a boolean rollout', async () => {
    const snapshot: FlagSnapshot = {
      namespace: { key: 'default' },
      flags: [0, 1, 33.3, 49.5, 50, 50.000001, 99, 99.99, 100].map((percentage, i) => ({
        key: `b${i}`, name: `b${i}`, type: 'BOOLEAN_FLAG_TYPE', enabled: i % 2 === 0, rollouts: [{ threshold: { percentage, value: i % 2 === 1 } }],
      })),
    };
    const ours = createFlagEvaluator(snapshot);
    const oracle = await oracleFor(snapshot);
    for (let n = 0; n < 2000; n++) {
      for (const flag of snapshot.flags) {
        const request = { flagKey: flag.key, entityId: `e${n}`, context: {} };
        expect(run(() => ours.evaluateBoolean(request))).toEqual(run(() => oracle.evaluateBoolean(request)));
      }
    }
  });

  it('on every constraint type, operator, constraint value and context value', async () => {
    const flags: FlagSnapshot['flags'] = [];
    const probes: { key: string; type: string; values: readonly string[] }[] = [];
    for (const type of TYPES) {
      for (const operator of [...KINDS[type].ops, 'bogus']) {
        for (const value of KINDS[type].values) {
          const key = `c${flags.length}`;
          flags.push({
            key, name: key, type: 'BOOLEAN_FLAG_TYPE', enabled: false,
            rollouts: [{ segment: { value: true, segments: [{ key: 's', matchType: 'ALL_SEGMENT_MATCH_TYPE', constraints: [{ type, property: 'p', operator, value }] }] } }],
          });
          probes.push({ key, type, values: KINDS[type].values });
        }
      }
    }
    const snapshot: FlagSnapshot = { namespace: { key: 'default' }, flags };
    const ours = createFlagEvaluator(parseFlagSnapshot(snapshot, 'default'));
    const oracle = await oracleFor(snapshot);
    let matches = 0;
    let evaluations = 0;
    for (const { key, type, values } of probes) {
      for (const value of [...values, ...NUMBERS.slice(0, 3)]) {
        const entity = type === 'ENTITY_ID_CONSTRAINT_COMPARISON_TYPE';
        if (entity && value.trim() === '') continue;
        const request = { flagKey: key, entityId: entity ? value : 'someone', context: (!entity && value !== '' ? { p: value } : {}) as Record<string, string> };
        const answer = run(() => ours.evaluateBoolean(request));
        expect(answer, `${JSON.stringify(flags.find((f) => f.key === key)?.rollouts)} with ${JSON.stringify(request)}`)
          .toEqual(run(() => oracle.evaluateBoolean(request)));
        if (answer.enabled) matches++;
        evaluations++;
      }
    }
    expect(evaluations).toBeGreaterThan(10_000);
    expect(matches).toBeGreaterThan(1000);
  }, 60_000);
});
