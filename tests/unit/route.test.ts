/**
 * The routing step (src/domain/formula/route.ts): every operator with blanks, lists, capitals,
 * spaces and numbers; conditions read only the record's own fields of the source type they name;
 * the default triage over every combination of bucket, confidence, exact match and settings; and
 * custom rules in order, `otherwise`, and the guard that keeps uncertain matches out of Ready.
 */
import { describe, expect, it } from 'vitest';
import { ROUTE_TARGET_NAMES, ROUTING_OPERATOR_NAMES, SINGLE_MATCH_ROUTE_NAMES, type RoutingOperator, type SourceType } from '../../src/domain/formula/constants.ts';
import type { CustomRoutingRule, DefaultRouting, Routing, RoutingCondition } from '../../src/domain/formula/parts.ts';
import { evaluateCondition, fieldText, ROUTE_REASONS, routeRecord, type RoutableRecord } from '../../src/domain/formula/route.ts';

const BUCKETS = ['new', 'one-to-one-match', 'one-to-many-match'] as const;

const record = (over: Partial<RoutableRecord> = {}): RoutableRecord => ({
  raw: {}, transformed: {}, matching: {}, bucket: 'new', confident: true, exactMatch: false, ...over,
});
const cond = (operator: RoutingOperator, values: string[] = [], field = 'Name', sourceType: SourceType = 'raw'): RoutingCondition =>
  ({ sourceType, field, operator, values });
/** the operator applied to a raw field holding `value` (undefined: the field is missing) */
const holds = (operator: RoutingOperator, value: unknown, values: string[] = []) =>
  evaluateCondition(cond(operator, values), record({ raw: value === undefined ? {} : { Name: value } }));

describe('operators', () => {
  it('cover every operator of SPEC.md section 9', () => {
    // each operator below has its own block; this fails when one is added without tests
    expect(ROUTING_OPERATOR_NAMES).toEqual([
      'equals', 'not-equals', 'is-blank', 'is-not-blank', 'not-one-of', 'starts-with', 'ends-with', 'contains', 'not-contains-one-of',
    ]);
  });

  it('equals: same text, ignoring capitals and surrounding spaces', () => {
    expect(holds('equals', 'Gold', ['Gold'])).toBe(true);
    expect(holds('equals', 'GOLD', ['gold'])).toBe(true);
    expect(holds('equals', '  gold ', ['Gold  '])).toBe(true);
    expect(holds('equals', 'Gold', ['Golden'])).toBe(false);
    expect(holds('equals', 'Go ld', ['Gold'])).toBe(false);
    expect(holds('equals', undefined, ['Gold'])).toBe(false);
    expect(holds('equals', null, ['Gold'])).toBe(false);
    expect(holds('equals', '', ['Gold'])).toBe(false);
  });

  it('not-equals is the opposite of equals, so a blank field does not equal a value', () => {
    for (const [value, other] of [['Gold', 'gold'], ['Gold', 'Silver'], [undefined, 'Gold'], ['', 'Gold'], ['   ', 'x'], [' x ', 'X']] as const) {
      expect(holds('not-equals', value, [other])).toBe(!holds('equals', value, [other]));
    }
    expect(holds('not-equals', undefined, ['Gold'])).toBe(true);
    expect(holds('not-equals', 'GOLD', [' gold'])).toBe(false);
  });

  it('is-blank: missing, null, empty or only spaces', () => {
    expect(holds('is-blank', undefined)).toBe(true);
    expect(holds('is-blank', null)).toBe(true);
    expect(holds('is-blank', '')).toBe(true);
    expect(holds('is-blank', ' \t\n ')).toBe(true);
    expect(holds('is-blank', 'x')).toBe(false);
    expect(holds('is-blank', 0)).toBe(false);
    expect(holds('is-blank', false)).toBe(false);
  });

  it('is-not-blank is the opposite of is-blank', () => {
    for (const value of [undefined, null, '', '  ', 'x', 0, false, ' a ']) {
      expect(holds('is-not-blank', value)).toBe(!holds('is-blank', value));
    }
  });

  it('not-one-of: the field is none of the listed values; blank entries of the list are ignored', () => {
    expect(holds('not-one-of', 'Gold', ['Silver', 'Bronze'])).toBe(true);
    expect(holds('not-one-of', 'Gold', ['Silver', 'gold'])).toBe(false);
    expect(holds('not-one-of', ' SILVER ', ['Silver', 'Bronze'])).toBe(false);
    // a blank field is not one of the non-blank values
    expect(holds('not-one-of', undefined, ['Silver'])).toBe(true);
    expect(holds('not-one-of', '', ['Silver', ''])).toBe(true);
    expect(holds('not-one-of', '   ', ['Silver', '  '])).toBe(true);
    // whole values only, not parts of them
    expect(holds('not-one-of', 'Gold', ['Gol', 'Golden'])).toBe(true);
  });

  it('starts-with', () => {
    expect(holds('starts-with', 'Dr. Ada', ['dr.'])).toBe(true);
    expect(holds('starts-with', '  Dr. Ada', ['DR'])).toBe(true);
    expect(holds('starts-with', 'Ada, Dr.', ['Dr'])).toBe(false);
    expect(holds('starts-with', 'Dr', ['Dr. Ada'])).toBe(false);
    expect(holds('starts-with', undefined, ['Dr'])).toBe(false);
    expect(holds('starts-with', '', ['Dr'])).toBe(false);
  });

  it('ends-with', () => {
    expect(holds('ends-with', 'ada@example.ORG', ['.org'])).toBe(true);
    expect(holds('ends-with', 'ada@example.org  ', ['  EXAMPLE.ORG'])).toBe(true);
    expect(holds('ends-with', 'ada@example.org.uk', ['.org'])).toBe(false);
    expect(holds('ends-with', undefined, ['.org'])).toBe(false);
  });

  it('contains', () => {
    expect(holds('contains', 'The Lovelace Trust', ['lovelace'])).toBe(true);
    expect(holds('contains', 'The Lovelace Trust', ['TRUST'])).toBe(true);
    expect(holds('contains', 'The Lovelace Trust', ['Foundation'])).toBe(false);
    expect(holds('contains', undefined, ['Trust'])).toBe(false);
    expect(holds('contains', null, ['Trust'])).toBe(false);
  });

  it('not-contains-one-of: contains none of the values; blank entries are ignored', () => {
    expect(holds('not-contains-one-of', 'ada@example.org', ['test', 'spam'])).toBe(true);
    expect(holds('not-contains-one-of', 'TEST-ada@example.org', ['test', 'spam'])).toBe(false);
    expect(holds('not-contains-one-of', 'ada@spam.example', ['test', 'SPAM'])).toBe(false);
    // '' would be contained in every value
    expect(holds('not-contains-one-of', 'ada@example.org', ['test', ''])).toBe(true);
    expect(holds('not-contains-one-of', 'ada@example.org', ['  ', 'spam'])).toBe(true);
    // a blank field contains none of them
    expect(holds('not-contains-one-of', undefined, ['test'])).toBe(true);
    expect(holds('not-contains-one-of', '  ', ['test'])).toBe(true);
  });

  it('compare numbers, yes/no and other values as text', () => {
    expect(holds('equals', 10, ['10'])).toBe(true);
    expect(holds('equals', 10.5, ['10.50'])).toBe(false);
    expect(holds('equals', 1e21, ['1000000000000000000000'])).toBe(true);
    expect(holds('starts-with', -0.000001, ['-0.0000'])).toBe(true);
    expect(holds('equals', true, ['TRUE'])).toBe(true);
    expect(holds('contains', { tier: 'gold' }, ['gold'])).toBe(true);
    expect(holds('equals', new Date('2026-03-01T00:00:00Z'), ['2026-03-01t00:00:00.000z'])).toBe(true);
    const transformed = record({ transformed: { Amount: 25 } });
    expect(evaluateCondition(cond('equals', ['25'], 'Amount', 'transformed'), transformed)).toBe(true);
  });

  it('compare composed and decomposed accents alike', () => {
    expect(holds('equals', 'Zoe\u0301', ['Zo\u00e9'])).toBe(true);
    expect(holds('starts-with', 'E\u0301cole', ['\u00c9c'])).toBe(true);
  });

  it('never let a list operator fail on an empty list, nor an unknown operator apply', () => {
    expect(holds('not-one-of', 'Gold', [])).toBe(true);
    expect(holds('not-contains-one-of', 'Gold', [])).toBe(true);
    expect(holds('nope' as RoutingOperator, 'Gold', ['Gold'])).toBe(false);
  });
});

describe('what a condition reads', () => {
  const r = record({
    raw: { Tier: 'raw gold', Count: 3 },
    transformed: { Tier: 'transformed gold', Amount: null },
    matching: { Tier: 'matching gold', candidateCount: '2', matchReasons: 'Same e-mail; Same name' },
  });

  it('reads the field of the source type it names', () => {
    expect(fieldText({ sourceType: 'raw', field: 'Tier' }, r)).toBe('raw gold');
    expect(fieldText({ sourceType: 'transformed', field: 'Tier' }, r)).toBe('transformed gold');
    expect(fieldText({ sourceType: 'matching', field: 'Tier' }, r)).toBe('matching gold');
    expect(fieldText({ sourceType: 'raw', field: 'Count' }, r)).toBe('3');
    expect(fieldText({ sourceType: 'transformed', field: 'Amount' }, r)).toBe('');
    expect(evaluateCondition(cond('equals', ['2'], 'candidateCount', 'matching'), r)).toBe(true);
    expect(evaluateCondition(cond('contains', ['same name'], 'matchReasons', 'matching'), r)).toBe(true);
  });

  it('a field of one source type is missing in the others', () => {
    expect(fieldText({ sourceType: 'transformed', field: 'Count' }, r)).toBe('');
    expect(fieldText({ sourceType: 'raw', field: 'candidateCount' }, r)).toBe('');
    expect(evaluateCondition(cond('is-blank', [], 'candidateCount', 'transformed'), r)).toBe(true);
  });

  it('reads own fields only: Object\'s properties are missing fields', () => {
    for (const field of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      for (const sourceType of ['raw', 'transformed', 'matching'] as const) {
        expect(fieldText({ sourceType, field }, record()), `${sourceType}.${field}`).toBe('');
        expect(evaluateCondition(cond('is-blank', [], field, sourceType), record())).toBe(true);
        expect(evaluateCondition(cond('contains', ['function'], field, sourceType), record())).toBe(false);
      }
    }
  });

  it('reads an own field with such a name, and records without a prototype', () => {
    const parsed = JSON.parse('{"__proto__":"proto value","constructor":"ctor value"}') as Record<string, unknown>;
    expect(fieldText({ sourceType: 'raw', field: '__proto__' }, record({ raw: parsed }))).toBe('proto value');
    expect(fieldText({ sourceType: 'raw', field: 'constructor' }, record({ raw: parsed }))).toBe('ctor value');
    const bare = Object.assign(Object.create(null) as Record<string, string>, { Tier: 'gold' });
    expect(fieldText({ sourceType: 'matching', field: 'Tier' }, record({ matching: bare }))).toBe('gold');
    expect(fieldText({ sourceType: 'matching', field: 'Other' }, record({ matching: bare }))).toBe('');
  });
});

describe('default routing', () => {
  const defaults = (over: Partial<DefaultRouting> = {}): DefaultRouting => ({
    kind: 'default', unmatched: 'ready', singleMatch: 'ready', exactFields: ['email'], discardBelow: null, capitalizationIsDifference: false, ...over,
  });

  /** a confident single match, by setting and exactness: SPEC.md section 4's three choices */
  const confidentSingle = {
    ready: { exact: ['ready', ROUTE_REASONS.singleReady], inexact: ['ready', ROUTE_REASONS.singleReady] },
    'ready-if-exact': { exact: ['ready', ROUTE_REASONS.exactReady], inexact: ['needs-attention', ROUTE_REASONS.notExact] },
    'needs-attention': { exact: ['needs-attention', ROUTE_REASONS.singleReview], inexact: ['needs-attention', ROUTE_REASONS.singleReview] },
  } as const;

  it('decides every combination of bucket, confidence, exact match and settings', () => {
    let cases = 0;
    for (const bucket of BUCKETS) {
      for (const confident of [true, false]) {
        for (const exactMatch of [true, false]) {
          for (const unmatched of ROUTE_TARGET_NAMES) {
            for (const singleMatch of SINGLE_MATCH_ROUTE_NAMES) {
              const decision = routeRecord(defaults({ unmatched, singleMatch }), record({ bucket, confident, exactMatch }));
              const where = `${bucket} confident=${confident} exact=${exactMatch} unmatched=${unmatched} single=${singleMatch}`;
              let expected: [string, string];
              if (bucket === 'new') expected = unmatched === 'ready' ? ['ready', ROUTE_REASONS.unmatchedReady] : ['needs-attention', ROUTE_REASONS.unmatchedReview];
              else if (bucket === 'one-to-many-match') expected = ['needs-attention', ROUTE_REASONS.severalMatches];
              else if (!confident) expected = ['needs-attention', ROUTE_REASONS.uncertainMatch];
              else expected = [...confidentSingle[singleMatch][exactMatch ? 'exact' : 'inexact']];
              expect(decision, where).toEqual({ state: expected[0], reason: expected[1], rule: null });
              cases++;
            }
          }
        }
      }
    }
    expect(cases).toBe(3 * 2 * 2 * 2 * 3);
  });

  it('words its reasons as SPEC.md section 4 reads', () => {
    expect(routeRecord(defaults(), record({ bucket: 'new' })).reason).toBe('No match: added to Ready');
    expect(routeRecord(defaults(), record({ bucket: 'one-to-many-match' })).reason).toBe('Several matches: review');
  });

  it('never omits, and never sends an uncertain or ambiguous match to Ready', () => {
    for (const bucket of BUCKETS) {
      for (const confident of [true, false]) {
        for (const singleMatch of SINGLE_MATCH_ROUTE_NAMES) {
          const decision = routeRecord(defaults({ singleMatch }), record({ bucket, confident, exactMatch: true }));
          expect(decision.state).not.toBe('omitted');
          if (bucket === 'one-to-many-match' || (bucket === 'one-to-one-match' && !confident)) expect(decision.state).toBe('needs-attention');
        }
      }
    }
  });
});

describe('custom routing', () => {
  const custom = (rules: CustomRoutingRule[], otherwise: 'ready' | 'needs-attention' = 'needs-attention'): Routing => ({ kind: 'custom', rules, otherwise });
  const tierIs = (tier: string) => cond('equals', [tier], 'Tier');
  const omit = (...conditions: RoutingCondition[]): CustomRoutingRule => ({ action: 'omit', conditions });
  const to = (target: 'ready' | 'needs-attention', ...conditions: RoutingCondition[]): CustomRoutingRule => ({ action: 'route', target, conditions });
  const gold = record({ raw: { Tier: 'Gold', Country: 'UK' } });

  it('the first rule that applies decides, numbered from 1', () => {
    const routing = custom([to('ready', tierIs('silver')), omit(tierIs('gold')), to('ready', tierIs('gold'))], 'ready');
    expect(routeRecord(routing, gold)).toEqual({ state: 'omitted', reason: 'Rule 2 omitted it', rule: 2 });
    const swapped = custom([to('ready', tierIs('silver')), to('ready', tierIs('gold')), omit(tierIs('gold'))]);
    expect(routeRecord(swapped, gold)).toEqual({ state: 'ready', reason: ROUTE_REASONS.ruleReady(2), rule: 2 });
    const review = custom([to('needs-attention', tierIs('gold'))], 'ready');
    expect(routeRecord(review, gold)).toEqual({ state: 'needs-attention', reason: ROUTE_REASONS.ruleReview(1), rule: 1 });
  });

  it('a rule applies only when all its conditions hold', () => {
    const both = (country: string) => custom([omit(tierIs('gold'), cond('equals', [country], 'Country'))], 'ready');
    expect(routeRecord(both('uk'), gold).state).toBe('omitted');
    expect(routeRecord(both('us'), gold)).toEqual({ state: 'ready', reason: ROUTE_REASONS.otherwiseReady, rule: null });
  });

  it('otherwise decides when no rule applies, or there are none', () => {
    expect(routeRecord(custom([], 'ready'), gold)).toEqual({ state: 'ready', reason: 'No rule applied: added to Ready', rule: null });
    expect(routeRecord(custom([], 'needs-attention'), gold)).toEqual({ state: 'needs-attention', reason: 'No rule applied: review', rule: null });
    expect(routeRecord(custom([omit(tierIs('silver'))], 'needs-attention'), gold).rule).toBeNull();
  });

  it('rules read matching data, transformed and raw fields', () => {
    const matched = record({
      bucket: 'one-to-one-match', raw: { Source: 'web' }, transformed: { email: 'ada@test.example' }, matching: { candidateCount: '1', autoPicked: 'true' },
    });
    const routing = custom([
      omit(cond('ends-with', ['@test.example'], 'email', 'transformed'), cond('equals', ['web'], 'Source', 'raw')),
      to('ready', cond('equals', ['true'], 'autoPicked', 'matching')),
    ]);
    expect(routeRecord(routing, matched)).toMatchObject({ state: 'omitted', rule: 1 });
    expect(routeRecord(routing, { ...matched, raw: { Source: 'import' } })).toMatchObject({ state: 'ready', rule: 2 });
  });

  it('never routes several matches, or an uncertain single match, to Ready', () => {
    const several = record({ bucket: 'one-to-many-match', raw: { Tier: 'Gold' } });
    const unsure = record({ bucket: 'one-to-one-match', confident: false, raw: { Tier: 'Gold' } });
    expect(routeRecord(custom([to('ready', tierIs('gold'))]), several)).toEqual({
      state: 'needs-attention', reason: 'Rule 1 would add it to Ready, but it has several matches: review', rule: 1,
    });
    expect(routeRecord(custom([to('ready', tierIs('gold'))]), unsure)).toEqual({
      state: 'needs-attention', reason: 'Rule 1 would add it to Ready, but its match is not certain: review', rule: 1,
    });
    expect(routeRecord(custom([], 'ready'), several)).toEqual({ state: 'needs-attention', reason: 'No rule applied, and it has several matches: review', rule: null });
    expect(routeRecord(custom([], 'ready'), unsure)).toEqual({ state: 'needs-attention', reason: 'No rule applied, and its match is not certain: review', rule: null });
  });

  it('may omit them, and routes certain records and unmatched ones to Ready', () => {
    const several = record({ bucket: 'one-to-many-match', raw: { Tier: 'Gold' } });
    expect(routeRecord(custom([omit(tierIs('gold'))]), several)).toEqual({ state: 'omitted', reason: 'Rule 1 omitted it', rule: 1 });
    expect(routeRecord(custom([to('ready', tierIs('gold'))]), record({ bucket: 'one-to-one-match', confident: true, raw: { Tier: 'Gold' } })).state).toBe('ready');
    // confidence is about a match: without one it does not hold a record back
    expect(routeRecord(custom([to('ready', tierIs('gold'))]), record({ bucket: 'new', confident: false, raw: { Tier: 'Gold' } })).state).toBe('ready');
    // exactness is the default routing's setting, not a custom rule's
    expect(routeRecord(custom([], 'ready'), record({ bucket: 'one-to-one-match', confident: true, exactMatch: false })).state).toBe('ready');
  });

  it('reaches Ready only with a certain match or none, whatever the rules say', () => {
    const rules: (CustomRoutingRule[])[] = [[], [omit(tierIs('gold'))], [to('ready', tierIs('gold'))], [to('needs-attention', tierIs('gold'))]];
    for (const bucket of BUCKETS) {
      for (const confident of [true, false]) {
        for (const exactMatch of [true, false]) {
          for (const ruleSet of rules) {
            for (const otherwise of ROUTE_TARGET_NAMES) {
              const decision = routeRecord(custom(ruleSet, otherwise), record({ bucket, confident, exactMatch, raw: { Tier: 'Gold' } }));
              const certain = bucket === 'new' || (bucket === 'one-to-one-match' && confident);
              if (!certain) expect(decision.state).not.toBe('ready');
              expect(decision.rule).toBe(ruleSet.length ? 1 : null);
              expect(decision.reason.length).toBeLessThan(80);
            }
          }
        }
      }
    }
  });
});
