/**
 * The matching and routing parts (SPEC.md sections 4, 5 and 9): every rule of their schemas with
 * the exact message it gives and where it points, the Auto Pick duplicate warning, the fields a
 * matching-data condition may read, and the recommended search scenarios per destination.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  LIST_OPERATORS, MAX_AUTO_PICK_CONDITIONS, MAX_ROUTING_RULES, MAX_RULE_CONDITIONS, MAX_SCENARIO_CRITERIA, MAX_SEARCH_SCENARIOS,
  ROUTING_OPERATOR_NAMES, VALUELESS_OPERATORS, type RoutingOperator,
} from '../../src/domain/formula/constants.ts';
import {
  AutosendSchema, duplicateAutoPicks, MatchingSchema, PART_MESSAGES, RoutingSchema,
  type AutoPickCondition, type CustomRoutingRule, type Matching, type RoutingCondition, type SearchScenario,
} from '../../src/domain/formula/parts.ts';
import { bestField, nameWords, recommendedMatching, recommendedScenarios, type ConceptName, type FieldRef } from '../../src/domain/formula/recommendedScenarios.ts';
import { isMatchingField, MATCHING_FIELD_NAMES, MATCHING_FIELDS } from '../../src/domain/formula/routingFields.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import { SANDBOX_CONSTITUENT_FIELDS } from '../support/matchEvaluation.ts';

/** each issue as 'path: message' ('' for the root) */
function issues(schema: v.GenericSchema, input: unknown): string[] {
  const result = v.safeParse(schema, input);
  return result.success ? [] : result.issues.map((i) => `${v.getDotPath(i) ?? ''}: ${i.message}`);
}

const scenario = (over: Partial<Record<keyof SearchScenario, unknown>> = {}) => ({
  name: 'E-mail', criteria: [{ source: 'Email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true, ...over,
});
const matching = (over: Partial<Record<keyof Matching, unknown>> = {}) => ({ scenarios: [scenario()], advanced: false, autoPick: [], ...over });
const pick = (fields: string[], minScore?: number): AutoPickCondition => ({ fields, exact: true, ...(minScore === undefined ? {} : { minScore }) });

describe('the messages', () => {
  it('are SPEC.md section 5\'s words where it gives them', () => {
    expect(PART_MESSAGES.noScenario).toBe('You need to define at least one scenario');
    expect(PART_MESSAGES.incompleteScenario).toBe('Unable to save Record Match Search');
    expect(PART_MESSAGES.advancedNeedsTwo).toBe('Advanced Matching Settings need at least 2 scenarios');
    // the limit SPEC.md shows as {limit}
    expect(PART_MESSAGES.tooManyScenarios).toBe(`You can define up to ${MAX_SEARCH_SCENARIOS} scenarios`);
  });
});

describe('matching', () => {
  it('accepts the valid part, with advanced and autoPick defaulted', () => {
    expect(issues(MatchingSchema, VALID_PARTS.matching)).toEqual([]);
    expect(v.parse(MatchingSchema, { scenarios: [scenario()] })).toEqual(matching());
  });

  it('needs at least one scenario', () => {
    expect(issues(MatchingSchema, matching({ scenarios: [] }))).toEqual(['scenarios: You need to define at least one scenario']);
  });

  it(`takes up to ${MAX_SEARCH_SCENARIOS} scenarios`, () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => scenario({ name: `S${i}` }));
    expect(issues(MatchingSchema, matching({ scenarios: many(MAX_SEARCH_SCENARIOS) }))).toEqual([]);
    expect(issues(MatchingSchema, matching({ scenarios: many(MAX_SEARCH_SCENARIOS + 1) }))).toEqual([`scenarios: You can define up to ${MAX_SEARCH_SCENARIOS} scenarios`]);
  });

  it.each([
    ['no name', { name: '' }, 'scenarios.0.name'],
    ['a blank name', { name: '   ' }, 'scenarios.0.name'],
    ['no name at all', { name: undefined }, 'scenarios.0.name'],
    ['no criteria', { criteria: [] }, 'scenarios.0.criteria'],
    ['a criterion without a source field', { criteria: [{ source: '', destination: 'email' }] }, 'scenarios.0.criteria.0.source'],
    ['a criterion without a destination field', { criteria: [{ source: 'Email', destination: ' ' }] }, 'scenarios.0.criteria.0.destination'],
    ['a second criterion half filled', { criteria: [{ source: 'Email', destination: 'email' }, { source: 'Zip' }] }, 'scenarios.0.criteria.1.destination'],
    ['no match reason', { matchReason: '' }, 'scenarios.0.matchReason'],
    ['no tier', { isPrimary: undefined }, 'scenarios.0.isPrimary'],
    ['a criterion that is not a pair of fields', { criteria: ['Email'] }, 'scenarios.0.criteria.0'],
  ])('refuses a scenario with %s: \'Unable to save Record Match Search\'', (_name, over, path) => {
    expect(issues(MatchingSchema, matching({ scenarios: [scenario(over)] }))).toEqual([`${path}: Unable to save Record Match Search`]);
  });

  it(`takes up to ${MAX_SCENARIO_CRITERIA} criteria in a scenario`, () => {
    const criteria = (n: number) => Array.from({ length: n }, (_, i) => ({ source: `s${i}`, destination: `d${i}` }));
    expect(issues(MatchingSchema, matching({ scenarios: [scenario({ criteria: criteria(MAX_SCENARIO_CRITERIA) })] }))).toEqual([]);
    expect(issues(MatchingSchema, matching({ scenarios: [scenario({ criteria: criteria(MAX_SCENARIO_CRITERIA + 1) })] })))
      .toEqual([`scenarios.0.criteria: A scenario has at most ${MAX_SCENARIO_CRITERIA} criteria`]);
  });

  it('trims what it saves', () => {
    const out = v.parse(MatchingSchema, matching({ scenarios: [scenario({ name: ' E-mail ', criteria: [{ source: ' Email', destination: 'email ' }] })] }));
    expect(out.scenarios[0]).toMatchObject({ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email' }] });
  });

  it('needs two scenarios for Advanced Matching Settings, and says so on the setting', () => {
    expect(issues(MatchingSchema, matching({ advanced: true }))).toEqual(['advanced: Advanced Matching Settings need at least 2 scenarios']);
    expect(issues(MatchingSchema, matching({ advanced: true, scenarios: [scenario(), scenario({ name: 'Phone', isPrimary: false })] }))).toEqual([]);
    // one incomplete scenario: both are said at once
    expect(issues(MatchingSchema, matching({ advanced: true, scenarios: [scenario({ matchReason: '' })] }))).toEqual([
      'scenarios.0.matchReason: Unable to save Record Match Search',
      'advanced: Advanced Matching Settings need at least 2 scenarios',
    ]);
  });

  it('needs a field in every Auto Pick condition, and a score from 0 to 100', () => {
    expect(issues(MatchingSchema, matching({ autoPick: [pick(['email']), pick(['email', 'lastName'], 90), pick(['email'], 0), pick(['phone'], 100)] }))).toEqual([]);
    expect(issues(MatchingSchema, matching({ autoPick: [pick([])] }))).toEqual(['autoPick.0.fields: Choose at least one field']);
    for (const score of [-1, 101, 50.5]) {
      expect(issues(MatchingSchema, matching({ autoPick: [pick(['email'], score)] })), String(score)).toEqual(['autoPick.0.minScore: A score runs from 0 to 100']);
    }
    expect(issues(MatchingSchema, matching({ autoPick: [{ fields: ['email'], exact: false }] }))).toHaveLength(1);
    const many = Array.from({ length: MAX_AUTO_PICK_CONDITIONS + 1 }, (_, i) => pick([`f${i}`]));
    expect(issues(MatchingSchema, matching({ autoPick: many }))).toEqual([`autoPick: A formula has at most ${MAX_AUTO_PICK_CONDITIONS} Auto Pick conditions`]);
  });

  it('warns of duplicate Auto Pick configurations (the same fields in any order or case) and still saves them', () => {
    const conditions = [pick(['email', 'lastName']), pick(['phone']), pick(['LastName', 'email', 'email'], 80), pick([]), pick([]), pick(['phone', 'postalCode'])];
    expect(duplicateAutoPicks(conditions)).toEqual([2]);
    expect(duplicateAutoPicks([pick(['email']), pick(['email']), pick(['email'])])).toEqual([1, 2]);
    expect(duplicateAutoPicks([])).toEqual([]);
    expect(issues(MatchingSchema, matching({ autoPick: [pick(['email']), pick(['email'])] }))).toEqual([]);
    expect(PART_MESSAGES.duplicateAutoPick).toBe('Two Auto Pick conditions use the same fields');
  });
});

describe('default routing (the triage)', () => {
  const triage = (over: Record<string, unknown> = {}) => ({ ...VALID_PARTS.routing, ...over });

  it('accepts the valid part and fills its defaults', () => {
    expect(issues(RoutingSchema, VALID_PARTS.routing)).toEqual([]);
    expect(v.parse(RoutingSchema, { kind: 'default', unmatched: 'needs-attention', singleMatch: 'ready' })).toEqual({
      kind: 'default', unmatched: 'needs-attention', singleMatch: 'ready', exactFields: [], discardBelow: null, capitalizationIsDifference: false,
    });
  });

  it('sends an unmatched record to Ready or Needs Attention, and nowhere else', () => {
    for (const unmatched of ['ready', 'needs-attention']) expect(issues(RoutingSchema, triage({ unmatched }))).toEqual([]);
    expect(issues(RoutingSchema, triage({ unmatched: 'new' }))).toHaveLength(1);
  });

  it('needs the fields that must match exactly to send a single match to Ready on them', () => {
    expect(issues(RoutingSchema, triage({ singleMatch: 'ready-if-exact', exactFields: [] }))).toEqual(['exactFields: Choose the fields that must match exactly']);
    expect(issues(RoutingSchema, triage({ singleMatch: 'ready-if-exact', exactFields: ['email', 'lastName'] }))).toEqual([]);
    // the other choices keep what was chosen, unused
    expect(issues(RoutingSchema, triage({ singleMatch: 'ready', exactFields: ['email'] }))).toEqual([]);
    expect(issues(RoutingSchema, triage({ singleMatch: 'sometimes' }))).toHaveLength(1);
  });

  it('discards candidates below a score from 0 to 100, or none', () => {
    for (const discardBelow of [null, 0, 40, 100]) expect(issues(RoutingSchema, triage({ discardBelow })), String(discardBelow)).toEqual([]);
    for (const discardBelow of [-5, 101, 12.5]) expect(issues(RoutingSchema, triage({ discardBelow })), String(discardBelow)).toEqual(['discardBelow: A score runs from 0 to 100']);
  });

  it('says whether capitalization counts as a data difference', () => {
    expect(v.parse(RoutingSchema, triage({ capitalizationIsDifference: true }))).toMatchObject({ capitalizationIsDifference: true });
    expect(issues(RoutingSchema, triage({ capitalizationIsDifference: 'yes' }))).toHaveLength(1);
  });

  it('holds Ready records for review or sends them automatically (autosend)', () => {
    expect(issues(AutosendSchema, { enabled: true })).toEqual([]);
    expect(issues(AutosendSchema, { enabled: false })).toEqual([]);
    expect(issues(AutosendSchema, {})).toHaveLength(1);
  });
});

describe('custom routing', () => {
  const condition = (over: Partial<RoutingCondition> = {}): RoutingCondition => ({ sourceType: 'raw', field: 'Email', operator: 'equals', values: ['a@b.org'], ...over });
  const rule = (over: Partial<Record<keyof CustomRoutingRule | 'target', unknown>> = {}) => ({ action: 'route', target: 'ready', conditions: [condition()], ...over });
  const custom = (rules: unknown[], otherwise = 'needs-attention') => ({ kind: 'custom', rules, otherwise });
  const conditionIssues = (c: Partial<RoutingCondition>) => issues(RoutingSchema, custom([rule({ conditions: [condition(c)] })]));

  it('accepts rules that omit records or route them to Ready or Needs Attention, and no rules at all', () => {
    expect(issues(RoutingSchema, custom([rule(), rule({ target: 'needs-attention' }), { action: 'omit', conditions: [condition()] }]))).toEqual([]);
    expect(issues(RoutingSchema, custom([]))).toEqual([]);
    expect(issues(RoutingSchema, custom([rule({ target: 'new' })]))).toHaveLength(1);
    expect(issues(RoutingSchema, custom([], 'omit'))).toHaveLength(1);
  });

  it('needs a condition in every rule', () => {
    expect(issues(RoutingSchema, custom([rule(), { action: 'omit', conditions: [] }]))).toEqual(['rules.1.conditions: Add at least one condition']);
    const many = Array.from({ length: MAX_RULE_CONDITIONS + 1 }, () => condition());
    expect(issues(RoutingSchema, custom([rule({ conditions: many })]))).toEqual([`rules.0.conditions: A rule has at most ${MAX_RULE_CONDITIONS} conditions`]);
    const rules = Array.from({ length: MAX_ROUTING_RULES + 1 }, () => rule());
    expect(issues(RoutingSchema, custom(rules))).toEqual([`rules: A formula has at most ${MAX_ROUTING_RULES} routing rules`]);
  });

  it('needs a field, and for matching data one of its fields', () => {
    expect(conditionIssues({ field: '' })).toEqual(['rules.0.conditions.0.field: Choose a field']);
    expect(conditionIssues({ sourceType: 'matching', field: 'Email' })).toEqual(['rules.0.conditions.0.field: Choose one of the matching data fields']);
    for (const field of MATCHING_FIELD_NAMES) expect(conditionIssues({ sourceType: 'matching', field, values: ['1'] }), field).toEqual([]);
    expect(conditionIssues({ sourceType: 'transformed', field: 'email' })).toEqual([]);
    expect(conditionIssues({ sourceType: 'raw-ish' as never })).toEqual(['rules.0.conditions.0.sourceType: Choose what the condition reads']);
    expect(conditionIssues({ operator: 'matches' as never })).toEqual(['rules.0.conditions.0.operator: Choose an operator']);
  });

  it.each(ROUTING_OPERATOR_NAMES.map((o) => [o]))('compares %s with the values it takes', (operator: RoutingOperator) => {
    const at = 'rules.0.conditions.0.values';
    if (VALUELESS_OPERATORS.includes(operator)) {
      expect(conditionIssues({ operator, values: [] })).toEqual([]);
      expect(conditionIssues({ operator, values: ['x'] })).toEqual([`${at}: This operator compares with no value`]);
    } else {
      expect(conditionIssues({ operator, values: [] })).toEqual([`${at}: Enter a value to compare with`]);
      expect(conditionIssues({ operator, values: [''] })).toEqual([`${at}: Enter a value to compare with`]);
      expect(conditionIssues({ operator, values: ['x'] })).toEqual([]);
      expect(conditionIssues({ operator, values: ['x', 'y'] })).toEqual(LIST_OPERATORS.includes(operator) ? [] : [`${at}: This operator compares with one value`]);
    }
  });

  it('has a field list for matching data, each with its label and what it holds', () => {
    expect(MATCHING_FIELD_NAMES).toEqual(['candidateCount', 'bestScore', 'matchReasons', 'matchedScenario', 'searchTier', 'autoPicked']);
    for (const name of MATCHING_FIELD_NAMES) {
      expect(MATCHING_FIELDS[name].label).toMatch(/^[A-Z]/);
      expect(MATCHING_FIELDS[name].description.length).toBeGreaterThan(20);
    }
    expect(isMatchingField('bestScore')).toBe(true);
    expect(isMatchingField('email')).toBe(false);
  });
});

// ------------------------------------------------------------------------------ recommended scenarios

const headers = (...names: string[]): FieldRef[] => names.map((name) => ({ name }));
const constituents = (sourceFields: FieldRef[], destinationFields = SANDBOX_CONSTITUENT_FIELDS) =>
  recommendedScenarios({ system: 'sandbox-crm', object: 'constituents', destinationFields, sourceFields });
/** a scenario in one line: name, tier and criteria */
const brief = (s: SearchScenario) => `${s.isPrimary ? 'primary' : 'secondary'} ${s.name}: ${s.criteria.map((c) => `${c.source}=${c.destination}`).join(', ')}`;

describe('recommended scenarios', () => {
  it('for Sandbox CRM constituents from a typical CSV: e-mail first, then last name with postal code, phone, name with address, and keys that survive a mistyped or swapped name', () => {
    const scenarios = constituents(headers('First name', 'Last name', 'Email', 'Phone', 'Address', 'City', 'Zip'));
    expect(scenarios.map(brief)).toEqual([
      'primary E-mail: Email=email',
      'secondary Last name and postal code: Last name=lastName, Zip=postalCode',
      'secondary Phone: Phone=phone',
      'secondary Name and address: First name=firstName, Last name=lastName, Address=addressLine1',
      'secondary Address and postal code: Address=addressLine1, Zip=postalCode',
      // the source's last name searched as a first name, and its first name as a last name
      'secondary Swapped names and postal code: Last name=firstName, First name=lastName, Zip=postalCode',
      'secondary Name and city: First name=firstName, Last name=lastName, City=city',
    ]);
    expect(scenarios.map((s) => s.matchReason)).toEqual([
      'Same e-mail', 'Same last name and postal code', 'Same phone', 'Same name and address', 'Same address and postal code',
      'Same name written the other way round, and postal code', 'Same name and city',
    ]);
    expect(issues(MatchingSchema, { scenarios, advanced: true })).toEqual([]);
  });

  const PERSON: ConceptName[] = ['lookupId', 'email', 'firstName', 'lastName', 'postalCode', 'phone', 'addressLine1'];
  it.each([
    ['E-mail address', 'email'], ['Email', 'email'], ['EMAIL', 'email'], ['email_address', 'email'], ['Primary e-mail', 'email'], ['Home Email', 'email'],
    ['Last name', 'lastName'], ['Surname', 'lastName'], ['LastName', 'lastName'], ['family_name', 'lastName'], ['Nom de famille', null],
    ['Zip', 'postalCode'], ['Postcode', 'postalCode'], ['ZIP code', 'postalCode'], ['Postal/Zip code', 'postalCode'], ['MailingPostalCode', 'postalCode'],
    ['Telephone', 'phone'], ['Home phone', 'phone'], ['Mobile', 'phone'], ['Phone (home)', 'phone'],
    ['Forename', 'firstName'], ['Given name', 'firstName'], ['Street address', 'addressLine1'], ['Address line 1', 'addressLine1'], ['Address line 2', null],
    ['Constituent lookup ID', 'lookupId'], ['Lookup ID', 'lookupId'], ['Név', null], ['Home', null], ['Name', null],
    // payment and event systems name the person by their part in it
    ['customer_email', 'email'], ['Customer first name', 'firstName'], ['customer_last_name', 'lastName'], ['Registrant phone', 'phone'], ['Customer', null],
  ])('reads the header %j as %s', (header, concept) => {
    expect(PERSON.filter((c) => bestField(headers(header), c))).toEqual(concept ? [concept] : []);
  });

  it('reads a field by its name or its label, and prefers an exact spelling to one found by dropping words', () => {
    expect(bestField([{ name: 'c_17', label: 'E-mail address' }], 'email')?.name).toBe('c_17');
    expect(bestField(headers('Work email', 'Email', 'Home email'), 'email')?.name).toBe('Email');
    expect(bestField(headers('Work email', 'Home email'), 'email')?.name).toBe('Work email');
    expect(bestField(headers('Emailing list'), 'email')).toBeNull();
    expect(nameWords('ÉmailAddress_2')).toEqual(['email', 'address', '2']);
  });

  it('recommends the lookup ID first when the source carries it', () => {
    expect(constituents(headers('Lookup ID', 'Email')).map(brief)).toEqual(['primary Lookup ID: Lookup ID=lookupId', 'primary E-mail: Email=email']);
  });

  it('makes every scenario primary when none of the primary ones applies', () => {
    const scenarios = constituents(headers('Surname', 'Postcode', 'Telephone'));
    expect(scenarios.map(brief)).toEqual([
      'primary Last name and postal code: Surname=lastName, Postcode=postalCode',
      'primary Phone: Telephone=phone',
    ]);
    expect(recommendedMatching({ system: 'sandbox-crm', object: 'constituents', destinationFields: SANDBOX_CONSTITUENT_FIELDS, sourceFields: headers('Surname', 'Postcode') }))
      .toEqual({ scenarios: [scenarios[0]], advanced: false, autoPick: [] });
  });

  it('turns Advanced Matching Settings on when the scenarios come in two tiers', () => {
    const part = recommendedMatching({ system: 'sandbox-crm', object: 'constituents', destinationFields: SANDBOX_CONSTITUENT_FIELDS, sourceFields: headers('Email', 'Last name', 'Zip') });
    expect(part.advanced).toBe(true);
    expect(issues(MatchingSchema, part)).toEqual([]);
  });

  it('only searches destination fields the destination can be searched by, and recommends nothing it cannot fill', () => {
    const unsearchablePostalCode = SANDBOX_CONSTITUENT_FIELDS.map((f) => (f.name === 'postalCode' ? { ...f, searchable: false } : f));
    expect(constituents(headers('Email', 'Last name', 'Zip'), unsearchablePostalCode).map((s) => s.name)).toEqual(['E-mail']);
    expect(constituents(headers('Amount', 'Notes'))).toEqual([]);
    expect(constituents(headers('Email'), [])).toEqual([]);
  });

  it('never lets one source field stand for two concepts of a scenario', () => {
    // 'Phone' cannot be both the last name and the phone, whatever its label says: it searches as a phone alone
    expect(constituents([{ name: 'Phone', label: 'Last name' }]).map(brief)).toEqual(['primary Phone: Phone=phone']);
    // nor can 'Name' be both names of the swapped scenario
    const scenarios = constituents([{ name: 'Name', label: 'First name' }, { name: 'Surname' }, { name: 'Zip' }, { name: 'Nom', label: 'Last name' }]);
    for (const s of scenarios) expect(new Set(s.criteria.map((c) => c.source)).size, brief(s)).toBe(s.criteria.length);
  });

  it('for Sandbox CRM gifts: the gift lookup ID, then constituent, amount and date', () => {
    const gifts = [
      { name: 'lookupId', label: 'Lookup ID', searchable: true }, { name: 'constituentLookupId', label: 'Constituent lookup ID', searchable: true },
      { name: 'amount', label: 'Amount', searchable: true }, { name: 'date', label: 'Gift date', searchable: true },
    ];
    const scenarios = recommendedScenarios({ system: 'sandbox-crm', object: 'gifts', destinationFields: gifts, sourceFields: headers('Constituent Lookup ID', 'Gift amount', 'Gift date', 'Lookup ID') });
    expect(scenarios.map(brief)).toEqual([
      'primary Gift lookup ID: Lookup ID=lookupId',
      'secondary Constituent, amount and date: Constituent Lookup ID=constituentLookupId, Gift amount=amount, Gift date=date',
    ]);
  });

  it('for another destination: the constituent scenarios on its searchable fields, found by similarity', () => {
    const contact = [
      { name: 'Id', label: 'Contact ID', searchable: true }, { name: 'FirstName', label: 'First Name', searchable: true },
      { name: 'LastName', label: 'Last Name', searchable: true }, { name: 'Email', label: 'Email', searchable: true },
      { name: 'MailingPostalCode', label: 'Mailing Zip/Postal Code', searchable: true }, { name: 'Phone', label: 'Business Phone', searchable: true },
      { name: 'MailingStreet', label: 'Mailing Street', searchable: true }, { name: 'Description', label: 'Description' },
    ];
    const scenarios = recommendedScenarios({ system: 'salesforce', object: 'Contact', destinationFields: contact, sourceFields: headers('E-mail address', 'Surname', 'Postcode', 'Lookup ID') });
    expect(scenarios.map(brief)).toEqual([
      'primary E-mail: E-mail address=Email',
      'secondary Last name and postal code: Surname=LastName, Postcode=MailingPostalCode',
    ]);
    // the swapped scenario finds the destination's first and last name fields by what they are
    expect(recommendedScenarios({ system: 'salesforce', object: 'Contact', destinationFields: contact, sourceFields: headers('Forename', 'Surname', 'Postcode') }).map(brief)).toEqual([
      'primary Last name and postal code: Surname=LastName, Postcode=MailingPostalCode',
      'primary Swapped names and postal code: Surname=FirstName, Forename=LastName, Postcode=MailingPostalCode',
    ]);
  });

  it('is a pure function: the same input gives the same scenarios, and the input is left as it was', () => {
    const sourceFields = Object.freeze(headers('Email', 'Last name', 'Zip', 'Phone').map((f) => Object.freeze(f)));
    const input = { system: 'sandbox-crm', object: 'constituents', destinationFields: SANDBOX_CONSTITUENT_FIELDS, sourceFields };
    expect(recommendedScenarios(input)).toEqual(recommendedScenarios(input));
    expect(recommendedScenarios(input).length).toBeLessThanOrEqual(MAX_SEARCH_SCENARIOS);
  });
});
