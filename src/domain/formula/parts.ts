/**
 * A formula's parts (SPEC.md section 3): mapping, matching, routing, validation, schedule, summary
 * fields, autosend and transform. Each is a valibot schema, so the wizard's forms, the part
 * endpoints and the engine read one definition, with the messages of SPEC.md section 5.
 */
import * as v from 'valibot';
import { DateText } from '../dateTime.ts';
import {
  ADVANCED_MATCHING_MIN_SCENARIOS, CASINGS, CONCATENATE_MAX_FIELDS, CONCATENATE_MIN_FIELDS, DATE_UNITS, FIELD_SELECTION_REQUIRED_ABOVE, LIST_OPERATORS,
  MAX_CONFIDENCE_SCORE, MAX_SEARCH_SCENARIOS, PLACE_VALUE_NAMES, ROUNDING_MODES, ROUTE_TARGET_NAMES, ROUTING_OPERATOR_NAMES,
  RUN_ONCE_MAX_DAYS, SEPARATOR_NAMES, SOURCE_TYPE_NAMES, VALUELESS_OPERATORS, WEEKDAYS,
} from './constants.ts';
import {
  MAX_AUTO_PICK_CONDITIONS, MAX_ROUTING_RULES, MAX_RULE_CONDITIONS, MAX_SCENARIO_CRITERIA, SINGLE_MATCH_ROUTE_NAMES,
} from './constants.ts';
import { PART_LABELS } from './partLabels.ts';
import { isMatchingField } from './routingFields.ts';
import { CUSTOM_BUCKET_PATTERN } from './statuses.ts';

/** SPEC.md section 5 words these; the others are ours, in the same plain voice. */
export const PART_MESSAGES = {
  noScenario: 'You need to define at least one scenario',
  incompleteScenario: 'Unable to save Record Match Search',
  advancedNeedsTwo: `Advanced Matching Settings need at least ${ADVANCED_MATCHING_MIN_SCENARIOS} scenarios`,
  /** SPEC.md shows this limit as {limit} */
  tooManyScenarios: `You can define up to ${MAX_SEARCH_SCENARIOS} scenarios`,
  tooManyCriteria: `A scenario has at most ${MAX_SCENARIO_CRITERIA} criteria`,
  duplicateAutoPick: 'Two Auto Pick conditions use the same fields',
  autoPickFields: 'Choose at least one field',
  tooManyAutoPicks: `A formula has at most ${MAX_AUTO_PICK_CONDITIONS} Auto Pick conditions`,
  exactFields: 'Choose the fields that must match exactly',
  sourceType: 'Choose what the condition reads',
  operator: 'Choose an operator',
  matchingField: 'Choose one of the matching data fields',
  noCondition: 'Add at least one condition',
  tooManyConditions: `A rule has at most ${MAX_RULE_CONDITIONS} conditions`,
  tooManyRules: `A formula has at most ${MAX_ROUTING_RULES} routing rules`,
  oneValue: 'This operator compares with one value',
  noValue: 'This operator compares with no value',
  nothingMapped: 'Map at least one field',
  noFieldSelected: 'Select at least one field',
  selectionRequired: `Select the fields to map: the destination has more than ${FIELD_SELECTION_REQUIRED_ABOVE} fields`,
  mappedTwice: 'A destination field can be mapped only once',
  transformedTwice: 'A destination field has one list of transforms',
  concatenateCount: `Concatenation needs ${CONCATENATE_MIN_FIELDS} to ${CONCATENATE_MAX_FIELDS} fields`,
  shortenLimit: 'Shorten needs a numeric character limit',
  splitSplitter: 'Split needs a splitter',
  splitPosition: 'Split position must be greater than 0',
  adjustAmount: 'Date adjustment must be greater than 0',
  definedValue: 'A defined value accepts only digits, periods and hyphens',
  definedValueEmpty: 'Enter a defined value',
  runOnceRange: `Run once covers at most ${RUN_ONCE_MAX_DAYS} days`,
  runOnceOrder: 'The start date must be earlier than the end date',
  customBucket: 'A bucket name has at most 40 letters, digits, spaces, dashes or underscores',
  bucketRequired: 'Name the bucket failing records go to',
  lengthBound: 'Give a minimum or a maximum length',
  lengthOrder: 'The minimum length must not exceed the maximum',
  lengthNumber: 'A length is a whole number of characters',
  oneOfValues: 'List at least one allowed value',
  time: 'Enter a time as HH:MM',
  timeZone: 'Choose a time zone',
  weekday: 'Choose a day of the week',
  operatorValue: 'Enter a value to compare with',
  score: `A score runs from 0 to ${MAX_CONFIDENCE_SCORE}`,
} as const;

/** A field name of a source or destination object. */
const FieldName = v.pipe(v.string(), v.trim(), v.minLength(1, 'Choose a field'), v.maxLength(200, 'A field name has at most 200 characters'));
const Score = v.pipe(v.number(), v.integer(PART_MESSAGES.score), v.minValue(0, PART_MESSAGES.score), v.maxValue(MAX_CONFIDENCE_SCORE, PART_MESSAGES.score));

// ------------------------------------------------------------------------------------- mapping

/** Digits, periods and hyphens only (SPEC.md section 5). */
export const DEFINED_VALUE = /^[0-9.-]*$/;

/** No destination field twice in one list. */
const unique = (names: string[]) => new Set(names).size === names.length;

export const FieldMappingSchema = v.variant('kind', [
  v.object({ destination: FieldName, kind: v.literal('ignored') }),
  v.object({ destination: FieldName, kind: v.literal('source'), source: FieldName }),
  v.object({
    destination: FieldName, kind: v.literal('defined'),
    value: v.pipe(v.string(), v.minLength(1, PART_MESSAGES.definedValueEmpty), v.maxLength(200), v.regex(DEFINED_VALUE, PART_MESSAGES.definedValue)),
  }),
]);
export type FieldMapping = v.InferOutput<typeof FieldMappingSchema>;

export const MappingSchema = v.pipe(
  v.object({
    fields: v.pipe(v.array(FieldMappingSchema), v.maxLength(2000)),
    /** the field picker's selection of destination fields to show; required above 200 fields (checked against the metadata) */
    selectedFields: v.optional(v.pipe(v.array(FieldName), v.minLength(1, PART_MESSAGES.noFieldSelected), v.maxLength(2000))),
  }),
  v.check((m) => m.fields.some((f) => f.kind !== 'ignored'), PART_MESSAGES.nothingMapped),
  v.check((m) => unique(m.fields.map((f) => f.destination)), PART_MESSAGES.mappedTwice),
  v.examples([{ fields: [{ destination: 'email', kind: 'source' as const, source: 'Email' }] }]),
);
export type Mapping = v.InferOutput<typeof MappingSchema>;

/**
 * Mapped fields the destination sets itself (FieldInfo.readOnly): a record id, the date it was
 * added or changed. Writing them would be refused or ignored by the destination, so a mapping
 * that fills one is refused; ignoring one is fine. Null when none is.
 */
export function readOnlyMappingProblem(mapping: Pick<Mapping, 'fields'>, destination: readonly { name: string; label: string; readOnly?: boolean }[]): string | null {
  const readOnly = new Map(destination.filter((f) => f.readOnly).map((f) => [f.name, f.label]));
  const hit = mapping.fields.filter((f) => f.kind !== 'ignored' && readOnly.has(f.destination)).map((f) => readOnly.get(f.destination)!);
  if (!hit.length) return null;
  return `${hit.join(', ')} ${hit.length === 1 ? 'is' : 'are'} set by the destination itself and cannot be mapped.`;
}

/**
 * The field picker's rule (SPEC.md section 5), which needs the destination's metadata: a selection
 * names at least one field, and a destination of more than 200 fields needs one. Null when fine.
 */
export function fieldSelectionProblem(destinationFieldCount: number, selectedFields: readonly string[] | null | undefined): string | null {
  if (selectedFields) return selectedFields.length ? null : PART_MESSAGES.noFieldSelected;
  return destinationFieldCount > FIELD_SELECTION_REQUIRED_ABOVE ? PART_MESSAGES.selectionRequired : null;
}

// ----------------------------------------------------------------------------------- transform

export const TransformStepSchema = v.variant('kind', [
  v.object({
    kind: v.literal('concatenate'),
    fields: v.pipe(v.array(FieldName), v.minLength(CONCATENATE_MIN_FIELDS, PART_MESSAGES.concatenateCount), v.maxLength(CONCATENATE_MAX_FIELDS, PART_MESSAGES.concatenateCount)),
    separator: v.picklist(SEPARATOR_NAMES),
  }),
  v.object({ kind: v.literal('shorten'), limit: v.pipe(v.number(PART_MESSAGES.shortenLimit), v.integer(PART_MESSAGES.shortenLimit), v.minValue(1, PART_MESSAGES.shortenLimit)) }),
  v.object({
    kind: v.literal('split'),
    splitter: v.pipe(v.string(PART_MESSAGES.splitSplitter), v.minLength(1, PART_MESSAGES.splitSplitter), v.maxLength(20)),
    position: v.pipe(v.number(PART_MESSAGES.splitPosition), v.integer(PART_MESSAGES.splitPosition), v.minValue(1, PART_MESSAGES.splitPosition)),
  }),
  v.object({
    kind: v.literal('adjust-date'),
    amount: v.pipe(v.number(PART_MESSAGES.adjustAmount), v.integer(PART_MESSAGES.adjustAmount), v.minValue(1, PART_MESSAGES.adjustAmount)),
    unit: v.picklist(DATE_UNITS),
    direction: v.picklist(['add', 'subtract']),
  }),
  v.object({ kind: v.literal('round'), mode: v.picklist(ROUNDING_MODES), place: v.picklist(PLACE_VALUE_NAMES) }),
  v.object({ kind: v.literal('case'), to: v.picklist(CASINGS) }),
]);
export type TransformStep = v.InferOutput<typeof TransformStepSchema>;

/** Per destination field, the steps applied in order to its mapped value. */
export const TransformSchema = v.object({
  fields: v.pipe(
    v.array(v.object({ destination: FieldName, steps: v.pipe(v.array(TransformStepSchema), v.maxLength(20)) })),
    v.maxLength(2000),
    v.check((fields) => unique(fields.map((f) => f.destination)), PART_MESSAGES.transformedTwice),
  ),
});
export type Transform = v.InferOutput<typeof TransformSchema>;

// ---------------------------------------------------------------------------------- validation

export const CustomBucketName = v.pipe(
  v.string(PART_MESSAGES.bucketRequired), v.trim(), v.minLength(1, PART_MESSAGES.bucketRequired),
  // an empty name gets the one message above, not this one too
  v.check((s) => s === '' || CUSTOM_BUCKET_PATTERN.test(s), PART_MESSAGES.customBucket),
);
const Length = v.pipe(v.number(PART_MESSAGES.lengthNumber), v.integer(PART_MESSAGES.lengthNumber));

export const ValidationRuleSchema = v.variant('rule', [
  v.object({ destination: FieldName, rule: v.literal('required'), bucket: CustomBucketName }),
  v.object({ destination: FieldName, rule: v.literal('email'), bucket: CustomBucketName }),
  v.object({ destination: FieldName, rule: v.literal('phone'), bucket: CustomBucketName }),
  v.pipe(
    v.object({
      destination: FieldName, rule: v.literal('length'), bucket: CustomBucketName,
      min: v.optional(v.pipe(Length, v.minValue(0, PART_MESSAGES.lengthNumber))), max: v.optional(v.pipe(Length, v.minValue(1, PART_MESSAGES.lengthNumber))),
    }),
    v.check((r) => r.min !== undefined || r.max !== undefined, PART_MESSAGES.lengthBound),
    v.check((r) => r.min === undefined || r.max === undefined || r.min <= r.max, PART_MESSAGES.lengthOrder),
  ),
  v.object({
    destination: FieldName, rule: v.literal('one-of'), bucket: CustomBucketName,
    values: v.pipe(v.array(v.pipe(v.string(), v.maxLength(200))), v.minLength(1, PART_MESSAGES.oneOfValues), v.maxLength(500)),
  }),
]);
export type ValidationRule = v.InferOutput<typeof ValidationRuleSchema>;

export const ValidationSchema = v.object({ rules: v.pipe(v.array(ValidationRuleSchema), v.maxLength(500)) });
export type Validation = v.InferOutput<typeof ValidationSchema>;

// ------------------------------------------------------------------------------------ matching

/** Every missing piece of a scenario says SPEC's one message: the scenario cannot be saved. */
const ScenarioText = (max: number) => v.pipe(
  v.string(PART_MESSAGES.incompleteScenario), v.trim(), v.minLength(1, PART_MESSAGES.incompleteScenario), v.maxLength(max, PART_MESSAGES.incompleteScenario),
);

/** One criterion: the record's source field must match the destination field (a field the destination can be searched by). */
export const ScenarioCriterionSchema = v.object({ source: ScenarioText(200), destination: ScenarioText(200) }, PART_MESSAGES.incompleteScenario);
export type ScenarioCriterion = v.InferOutput<typeof ScenarioCriterionSchema>;

/**
 * A search scenario (SPEC.md section 3) finds the destination records whose fields match all of
 * its criteria. Primary scenarios search first; if a primary search finds a record, secondary
 * searches are skipped (SPEC.md section 4).
 */
export const SearchScenarioSchema = v.object({
  name: ScenarioText(100),
  criteria: v.pipe(
    v.array(ScenarioCriterionSchema, PART_MESSAGES.incompleteScenario),
    v.minLength(1, PART_MESSAGES.incompleteScenario),
    v.maxLength(MAX_SCENARIO_CRITERIA, PART_MESSAGES.tooManyCriteria),
  ),
  /** shown with each record the scenario finds, in the buckets */
  matchReason: ScenarioText(200),
  isPrimary: v.boolean(PART_MESSAGES.incompleteScenario),
}, PART_MESSAGES.incompleteScenario);
export type SearchScenario = v.InferOutput<typeof SearchScenarioSchema>;

/**
 * Among several candidates, the one candidate whose `fields` (destination fields) all equal the
 * record's values exactly, scoring at least `minScore` when given, is picked and the record is
 * treated as a single match. Conditions are tried in order; the first that picks decides.
 */
export const AutoPickConditionSchema = v.object({
  fields: v.pipe(v.array(FieldName), v.minLength(1, PART_MESSAGES.autoPickFields), v.maxLength(20)),
  /** exact match on those fields (SPEC.md section 3) */
  exact: v.literal(true),
  minScore: v.optional(Score),
});
export type AutoPickCondition = v.InferOutput<typeof AutoPickConditionSchema>;

/** The same set of fields twice (in any order) is a duplicate configuration: warned, not refused. */
export function duplicateAutoPicks(conditions: Pick<AutoPickCondition, 'fields'>[]): number[] {
  const seen = new Map<string, number>();
  const duplicates: number[] = [];
  conditions.forEach((c, i) => {
    const fields = [...new Set(c.fields.map((f) => f.toLowerCase()))];
    if (!fields.length) return;
    const key = fields.sort().join('\u0000');
    if (seen.has(key)) duplicates.push(i); else seen.set(key, i);
  });
  return duplicates;
}

export const MatchingSchema = v.pipe(
  v.object({
    scenarios: v.pipe(
      v.array(SearchScenarioSchema, PART_MESSAGES.noScenario),
      v.minLength(1, PART_MESSAGES.noScenario),
      v.maxLength(MAX_SEARCH_SCENARIOS, PART_MESSAGES.tooManyScenarios),
    ),
    /**
     * Advanced Matching Settings: the scenarios search in two tiers, primary then secondary, which
     * takes at least two scenarios. Without it the wizard keeps every scenario primary, so all of
     * them search and their candidates are pooled. The engine reads `isPrimary` alone.
     */
    advanced: v.optional(v.boolean(), false),
    autoPick: v.optional(v.pipe(v.array(AutoPickConditionSchema), v.maxLength(MAX_AUTO_PICK_CONDITIONS, PART_MESSAGES.tooManyAutoPicks)), []),
  }),
  v.forward(
    v.partialCheck([['advanced'], ['scenarios']], (m) => !m.advanced || m.scenarios.length >= ADVANCED_MATCHING_MIN_SCENARIOS, PART_MESSAGES.advancedNeedsTwo),
    ['advanced'],
  ),
  v.examples([{ scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }], advanced: false, autoPick: [] }]),
);
export type Matching = v.InferOutput<typeof MatchingSchema>;

// ------------------------------------------------------------------------------------- routing

/**
 * A condition reads one field of the record: of its matching data (src/domain/formula/routingFields.ts),
 * of its transformed data (a destination field) or of its raw source (a source field), and compares
 * it with the operator's values: none for is blank / is not blank, a list for is not one of / does
 * not contain one of, one value otherwise. Values compare as text.
 */
export const RoutingConditionSchema = v.pipe(
  v.object({
    sourceType: v.picklist(SOURCE_TYPE_NAMES, PART_MESSAGES.sourceType),
    field: FieldName,
    operator: v.picklist(ROUTING_OPERATOR_NAMES, PART_MESSAGES.operator),
    values: v.pipe(v.array(v.pipe(v.string(), v.maxLength(500))), v.maxLength(500)),
  }),
  v.forward(v.partialCheck([['sourceType'], ['field']], (c) => c.sourceType !== 'matching' || isMatchingField(c.field), PART_MESSAGES.matchingField), ['field']),
  v.forward(v.partialCheck([['operator'], ['values']], (c) => VALUELESS_OPERATORS.includes(c.operator) || c.values.some((x) => x !== ''), PART_MESSAGES.operatorValue), ['values']),
  v.forward(v.partialCheck([['operator'], ['values']], (c) => !VALUELESS_OPERATORS.includes(c.operator) || c.values.length === 0, PART_MESSAGES.noValue), ['values']),
  v.forward(v.partialCheck([['operator'], ['values']], (c) => LIST_OPERATORS.includes(c.operator) || VALUELESS_OPERATORS.includes(c.operator) || c.values.length <= 1, PART_MESSAGES.oneValue), ['values']),
);
export type RoutingCondition = v.InferOutput<typeof RoutingConditionSchema>;

const RuleConditions = v.pipe(
  v.array(RoutingConditionSchema), v.minLength(1, PART_MESSAGES.noCondition), v.maxLength(MAX_RULE_CONDITIONS, PART_MESSAGES.tooManyConditions),
);

/** A rule applies to a record when all of its conditions hold. */
export const CustomRoutingRuleSchema = v.variant('action', [
  v.object({ action: v.literal('omit'), conditions: RuleConditions }),
  v.object({ action: v.literal('route'), target: v.picklist(ROUTE_TARGET_NAMES), conditions: RuleConditions }),
]);
export type CustomRoutingRule = v.InferOutput<typeof CustomRoutingRuleSchema>;

/**
 * Routing: the default triage (SPEC.md section 4) when the custom-routing flag is off for the
 * formula, custom rules (applied in order, the first that applies decides) when it is on.
 */
export const RoutingSchema = v.variant('kind', [
  v.pipe(
    v.object({
      kind: v.literal('default'),
      /** an unmatched record: add to Ready, or review in Needs Attention */
      unmatched: v.picklist(ROUTE_TARGET_NAMES),
      /** a single (or auto-picked) match: to Ready, to Ready when the selected fields match exactly, or review */
      singleMatch: v.picklist(SINGLE_MATCH_ROUTE_NAMES),
      /** destination fields compared for 'ready-if-exact' */
      exactFields: v.optional(v.pipe(v.array(FieldName), v.maxLength(50)), []),
      /**
       * multiple matches: candidates scoring below this are discarded; a record whose best
       * candidate scores below it keeps that one candidate, so it still shows for review
       */
      discardBelow: v.optional(v.nullable(Score), null),
      /** whether a difference in capitalisation counts as a data difference (matched records only) */
      capitalizationIsDifference: v.optional(v.boolean(), false),
    }),
    v.forward(v.partialCheck([['singleMatch'], ['exactFields']], (r) => r.singleMatch !== 'ready-if-exact' || r.exactFields.length > 0, PART_MESSAGES.exactFields), ['exactFields']),
  ),
  v.object({
    kind: v.literal('custom'),
    rules: v.pipe(v.array(CustomRoutingRuleSchema), v.maxLength(MAX_ROUTING_RULES, PART_MESSAGES.tooManyRules)),
    /** what happens to a record no rule applies to */
    otherwise: v.picklist(ROUTE_TARGET_NAMES),
  }),
]);
export type Routing = v.InferOutput<typeof RoutingSchema>;
export type DefaultRouting = Extract<Routing, { kind: 'default' }>;
export type CustomRouting = Extract<Routing, { kind: 'custom' }>;

// ------------------------------------------------------------------------------------ schedule

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
const TimeZone = v.pipe(v.string(PART_MESSAGES.timeZone), v.check((tz) => {
  try { new Intl.DateTimeFormat('en', { timeZone: tz }); return tz.length > 0; } catch { return false; }
}, PART_MESSAGES.timeZone));
const IsoDate = DateText('day');

export const RunOnceSchema = v.pipe(
  v.object({ from: IsoDate, to: IsoDate }),
  v.check((r) => r.from < r.to, PART_MESSAGES.runOnceOrder),
  v.check((r) => (Date.parse(r.to) - Date.parse(r.from)) / 86_400_000 <= RUN_ONCE_MAX_DAYS, PART_MESSAGES.runOnceRange),
);
export type RunOnce = v.InferOutput<typeof RunOnceSchema>;

/** A missing setting of a schedule is named in words, not as a missing key. */
const scheduleMessage = (issue: v.BaseIssue<unknown>) => ({ '"day"': PART_MESSAGES.weekday, '"time"': PART_MESSAGES.time, '"timeZone"': PART_MESSAGES.timeZone } as Record<string, string>)[issue.expected ?? ''] ?? issue.message;

// nested on frequency, so a weekly schedule without a day is told 'Choose a day of the week'
export const ScheduleSchema = v.variant('mode', [
  v.object({ mode: v.literal('continuous') }),
  v.variant('frequency', [
    v.object({
      mode: v.literal('scheduled'), frequency: v.literal('daily'),
      time: v.pipe(v.string(PART_MESSAGES.time), v.regex(TIME, PART_MESSAGES.time)), timeZone: TimeZone,
    }, scheduleMessage),
    v.object({
      mode: v.literal('scheduled'), frequency: v.literal('weekly'), day: v.picklist(WEEKDAYS, PART_MESSAGES.weekday),
      time: v.pipe(v.string(PART_MESSAGES.time), v.regex(TIME, PART_MESSAGES.time)), timeZone: TimeZone,
    }, scheduleMessage),
  ], 'Choose daily or weekly'),
]);
export type Schedule = v.InferOutput<typeof ScheduleSchema>;

// ------------------------------------------------------------------ summary fields and autosend

/** The destination fields shown for each record in the buckets. */
export const SummaryFieldsSchema = v.object({ fields: v.pipe(v.array(FieldName), v.maxLength(20, 'Choose at most 20 summary fields')) });
export type SummaryFields = v.InferOutput<typeof SummaryFieldsSchema>;

/** Ready records are held for review, or sent automatically (SPEC.md section 4). */
export const AutosendSchema = v.object({ enabled: v.boolean() });
export type Autosend = v.InferOutput<typeof AutosendSchema>;

// ------------------------------------------------------------------------ a gift from each row

/**
 * One row, two objects: a formula whose destination object has a companion (the Sandbox CRM's
 * constituents have gifts: src/domain/formula/companion.ts) may also write one companion record
 * from each row, with its own field mapping: a mapping of the companion's fields, checked by the
 * mapping's schema (the Data Queue loads every part's schema: no second one) and by
 * companionMappingProblem. The engine fills the link to the row's record (the gift's constituent)
 * once that record is sent, so the link field is never mapped.
 */
export type Gift = Mapping;

// ------------------------------------------------------------------------------- the part list

/** Every part with its schema and the name users read; endpoints, titles and the wizard derive from it. */
export const FORMULA_PARTS = {
  mapping: { label: PART_LABELS.mapping, schema: MappingSchema },
  transform: { label: PART_LABELS.transform, schema: TransformSchema },
  validation: { label: PART_LABELS.validation, schema: ValidationSchema },
  'summary-fields': { label: PART_LABELS['summary-fields'], schema: SummaryFieldsSchema },
  matching: { label: PART_LABELS.matching, schema: MatchingSchema },
  routing: { label: PART_LABELS.routing, schema: RoutingSchema },
  schedule: { label: PART_LABELS.schedule, schema: ScheduleSchema },
  autosend: { label: PART_LABELS.autosend, schema: AutosendSchema },
  gift: { label: PART_LABELS.gift, schema: MappingSchema },
} as const satisfies Record<keyof typeof PART_LABELS, { label: string; schema: v.GenericSchema }>;
export type FormulaPartName = keyof typeof FORMULA_PARTS;
export const FORMULA_PART_NAMES = Object.keys(FORMULA_PARTS) as FormulaPartName[];

/** The body of each part, by name. */
export type FormulaPartBody = { [P in FormulaPartName]: v.InferOutput<(typeof FORMULA_PARTS)[P]['schema']> };

// the part problem titles and messages live with the labels, which the error catalogue reads without the schemas
export {
  PART_OPERATIONS, PART_PROBLEM_MESSAGES, partProblemTitle, type PartOperation, type PartProblemTitle,
} from './partLabels.ts';
