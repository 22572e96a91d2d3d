/** The flag domain: requests the client refuses, the custom-routing rule, definitions and their snapshot. */
import { FliptClient } from '@flipt-io/flipt-client-js';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { formulaRequest, formulaRuleFlag, formulaRuleIds, withFormulaRuleIds } from '../../src/domain/flags/customRouting.ts';
import { FlagDefinitionSchema, toSnapshotFlag } from '../../src/domain/flags/definitions.ts';
import { crc32, rfc3339Seconds } from '../../src/domain/flags/engineNumbers.ts';
import { FlagEvaluationError, createFlagEvaluator } from '../../src/domain/flags/evaluator.ts';
import { CUSTOM_ROUTING_FLAG, ENTITY_ID_REQUIRED, FLAG_KEY_REQUIRED, FlagSnapshotError, flagFetchFailedMessage, parseFlagSnapshot, type FlagSnapshot } from '../../src/domain/flags/snapshot.ts';

const routing = (ids: string[], enabled = false): FlagSnapshot => ({
  namespace: { key: 'default' },
  flags: [toSnapshotFlag(CUSTOM_ROUTING_FLAG, { ...formulaRuleFlag('Custom routing', '', ids), enabled })],
});

describe('flag evaluation requests', () => {
  const evaluator = createFlagEvaluator(routing(['f-1']));
  it('rejects an empty flag key or entity id with a clear error (SPEC.md section 5)', () => {
    expect(() => evaluator.evaluateBoolean({ flagKey: '', entityId: 'f-1' })).toThrow(new FlagEvaluationError(FLAG_KEY_REQUIRED));
    expect(() => evaluator.evaluateBoolean({ flagKey: '  ', entityId: 'f-1' })).toThrow(FLAG_KEY_REQUIRED);
    expect(() => evaluator.evaluateBoolean({ flagKey: CUSTOM_ROUTING_FLAG, entityId: '' })).toThrow(ENTITY_ID_REQUIRED);
    expect(() => evaluator.evaluateVariant({ flagKey: CUSTOM_ROUTING_FLAG, entityId: ' \t' })).toThrow(ENTITY_ID_REQUIRED);
  });
  it('refuses an unknown flag and the wrong type as Flipt does', () => {
    expect(() => evaluator.evaluateBoolean({ flagKey: 'nope', entityId: 'x' })).toThrow('failed to get flag information default/nope');
    expect(() => evaluator.evaluateVariant({ flagKey: CUSTOM_ROUTING_FLAG, entityId: 'x' })).toThrow('custom-routing is not a variant flag');
  });
  it('words a fetch failure as the flag client does (SPEC.md section 8)', () => {
    expect(flagFetchFailedMessage('Service Unavailable')).toBe('Failed to fetch data: Service Unavailable');
  });
});

describe('custom-routing', () => {
  it('is off by default and on for the formulas its rule names, per formula', () => {
    const evaluator = createFlagEvaluator(routing(['f-1', 'f-2']));
    expect(evaluator.evaluateBoolean(formulaRequest(CUSTOM_ROUTING_FLAG, 'f-1'))).toMatchObject({ enabled: true, reason: 'MATCH_EVALUATION_REASON' });
    expect(evaluator.evaluateBoolean(formulaRequest(CUSTOM_ROUTING_FLAG, 'f-2')).enabled).toBe(true);
    expect(evaluator.evaluateBoolean(formulaRequest(CUSTOM_ROUTING_FLAG, 'f-3'))).toMatchObject({ enabled: false, reason: 'DEFAULT_EVALUATION_REASON' });
  });
  it('treats enabled as the default value of a boolean flag, not an off switch', () => {
    const evaluator = createFlagEvaluator(routing(['f-1'], true));
    expect(evaluator.evaluateBoolean(formulaRequest(CUSTOM_ROUTING_FLAG, 'f-3')).enabled).toBe(true);
    expect(evaluator.evaluateBoolean(formulaRequest(CUSTOM_ROUTING_FLAG, 'f-1')).enabled).toBe(true);
  });
  it('reads and rewrites the formula-id rule', () => {
    const def = formulaRuleFlag('Custom routing', '', ['a']);
    expect(formulaRuleIds(def)).toEqual(['a']);
    const changed = withFormulaRuleIds(def, [' b ', 'c', 'b', '']);
    expect(formulaRuleIds(changed)).toEqual(['b', 'c']);
    expect(changed.rollouts).toHaveLength(1);
    const plain = { ...def, rollouts: [{ threshold: { percentage: 10, value: true } }] };
    expect(formulaRuleIds(plain)).toBeNull();
    expect(formulaRuleIds(withFormulaRuleIds(plain, ['x']))).toEqual(['x']);
    expect(withFormulaRuleIds(plain, ['x']).rollouts).toHaveLength(2);
  });
  it('gives the same answers in @flipt-io/flipt-client-js for the snapshot the server builds', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const snapshot = routing(['f-1']);
    const body = JSON.parse(JSON.stringify(snapshot));
    const client = await FliptClient.init({
      namespace: 'default',
      fetcher: async () => ({ ok: true, status: 200, statusText: 'OK', headers: { get: () => '"x"' }, json: async () => body }),
    });
    for (const id of ['f-1', 'f-2']) {
      expect(client.evaluateBoolean({ flagKey: CUSTOM_ROUTING_FLAG, entityId: id, context: { formulaId: id } }).enabled)
        .toBe(createFlagEvaluator(snapshot).evaluateBoolean(formulaRequest(CUSTOM_ROUTING_FLAG, id)).enabled);
    }
    vi.restoreAllMocks();
  });
});

describe('snapshots and definitions', () => {
  it('accepts only a well-formed snapshot of the expected namespace', () => {
    expect(parseFlagSnapshot(routing([]), 'default').flags).toHaveLength(1);
    expect(() => parseFlagSnapshot({ namespace: { key: 'default' }, flags: [{ key: 'x' }] }, 'default')).toThrow(FlagSnapshotError);
    expect(() => parseFlagSnapshot('<html>', 'default')).toThrow(FlagSnapshotError);
    expect(() => parseFlagSnapshot(routing([]), 'other')).toThrow("snapshot namespace 'default' does not match engine namespace 'other'");
  });
  it('validates definitions: types, operators, readable values, variants', () => {
    const ok = v.safeParse(FlagDefinitionSchema, formulaRuleFlag('n', '', ['a']));
    expect(ok.success).toBe(true);
    const bad = (patch: object) => v.safeParse(FlagDefinitionSchema, { ...formulaRuleFlag('n', '', []), ...patch }).success;
    expect(bad({ type: 'VARIANT_FLAG_TYPE' })).toBe(false); // a variant flag with rollouts
    expect(bad({ rollouts: [{ segment: { value: true, segments: [{ key: 'd', constraints: [{ type: 'DATETIME_CONSTRAINT_COMPARISON_TYPE', property: 'p', operator: 'lt', value: 'tomorrow' }] }] } }] })).toBe(false);
    expect(bad({ rollouts: [{ segment: { value: true, segments: [{ key: 'n', constraints: [{ type: 'NUMBER_CONSTRAINT_COMPARISON_TYPE', property: 'p', operator: 'isoneof', value: '[1, 2.5]' }] }] } }] })).toBe(false);
    expect(bad({ rollouts: [{ segment: { value: true, segments: [{ key: 'n', constraints: [{ type: 'NUMBER_CONSTRAINT_COMPARISON_TYPE', property: 'p', operator: 'gte', value: '18' }] }] } }] })).toBe(true);
  });
  it('hashes as crc32 (IEEE) over UTF-8 and reads RFC 3339 as chrono does', () => {
    expect(crc32('')).toBe(0);
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32('é')).toBe(crc32('\u00e9'));
    expect(rfc3339Seconds('1970-01-01T00:00:00Z')).toBe(0);
    expect(rfc3339Seconds('2006-01-02T17:04:05+02:00')).toBe(rfc3339Seconds('2006-01-02T15:04:05Z'));
    expect(rfc3339Seconds('2006-01-02')).toBeNull();
    expect(rfc3339Seconds('2023-02-29T00:00:00Z')).toBeNull();
    expect(rfc3339Seconds('2024-02-29T00:00:00Z')).not.toBeNull();
  });
});
