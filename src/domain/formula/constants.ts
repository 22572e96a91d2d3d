/**
 * Business constants and limits of SPEC.md section 9 (and section 5's numbers), named once. Where
 * SPEC.md says a value is "not shown", the value here is ours and the README says so.
 */

/** Concatenation separators, by name, with the text each puts between values. */
export const SEPARATORS = {
  none: '',
  space: ' ',
  comma: ',',
  dash: '-',
  period: '.',
  underscore: '_',
  'forward-slash': '/',
  semicolon: ';',
  colon: ':',
  crlf: '\r\n',
} as const;
export type Separator = keyof typeof SEPARATORS;
export const SEPARATOR_NAMES = Object.keys(SEPARATORS) as Separator[];

export const ROUNDING_MODES = ['up', 'down', 'half-up'] as const;
export type RoundingMode = (typeof ROUNDING_MODES)[number];

/** Place values a number is rounded to, with their number of decimals. */
export const PLACE_VALUES = { ones: 0, tenths: 1, hundredths: 2, thousandths: 3 } as const;
export type PlaceValue = keyof typeof PLACE_VALUES;
export const PLACE_VALUE_NAMES = Object.keys(PLACE_VALUES) as PlaceValue[];

export const DATE_UNITS = ['year', 'month', 'week', 'day', 'hour', 'minute'] as const;
export type DateUnit = (typeof DATE_UNITS)[number];

/** SPEC.md leaves the casing options "not shown": these four are ours. */
export const CASINGS = ['upper', 'lower', 'title', 'sentence'] as const;
export type Casing = (typeof CASINGS)[number];

/** Custom routing operators (SPEC.md section 9), with the labels users read. */
export const ROUTING_OPERATORS = {
  equals: 'equals',
  'not-equals': 'does not equal',
  'is-blank': 'is blank',
  'is-not-blank': 'is not blank',
  'not-one-of': 'is not one of',
  'starts-with': 'starts with',
  'ends-with': 'ends with',
  contains: 'contains',
  'not-contains-one-of': 'does not contain one of',
} as const;
export type RoutingOperator = keyof typeof ROUTING_OPERATORS;
export const ROUTING_OPERATOR_NAMES = Object.keys(ROUTING_OPERATORS) as RoutingOperator[];
/** operators that compare with no value */
export const VALUELESS_OPERATORS: readonly RoutingOperator[] = ['is-blank', 'is-not-blank'];
/** operators that compare with a list of values */
export const LIST_OPERATORS: readonly RoutingOperator[] = ['not-one-of', 'not-contains-one-of'];

/** What a custom routing condition reads. */
export const SOURCE_TYPES = { matching: 'matching data', transformed: 'transformed data', raw: 'raw source' } as const;
export type SourceType = keyof typeof SOURCE_TYPES;
export const SOURCE_TYPE_NAMES = Object.keys(SOURCE_TYPES) as SourceType[];

/** Where routing sends a record. */
export const ROUTE_TARGETS = { ready: 'Ready', 'needs-attention': 'Needs Attention' } as const;
export type RouteTarget = keyof typeof ROUTE_TARGETS;
export const ROUTE_TARGET_NAMES = Object.keys(ROUTE_TARGETS) as RouteTarget[];

/** Where the default triage sends a record with a single (or auto-picked) match (SPEC.md section 4). */
export const SINGLE_MATCH_ROUTES = {
  ready: 'Add to Ready',
  'ready-if-exact': 'Add to Ready if the selected fields match exactly',
  'needs-attention': 'Review in Needs Attention',
} as const;
export type SingleMatchRoute = keyof typeof SINGLE_MATCH_ROUTES;
export const SINGLE_MATCH_ROUTE_NAMES = Object.keys(SINGLE_MATCH_ROUTES) as SingleMatchRoute[];

/** A custom routing rule omits the records it matches, or routes them to a target. */
export const ROUTING_ACTIONS = ['omit', 'route'] as const;
export type RoutingAction = (typeof ROUTING_ACTIONS)[number];

/** Transient failures are retried up to this many attempts (SPEC.md sections 4 and 9). */
export const MAX_RETRY_ATTEMPTS = 10;
/** Run once covers a date range of at most 30 days. */
export const RUN_ONCE_MAX_DAYS = 30;
/** Continuous collection polls this often. */
export const CONTINUOUS_POLL_MINUTES = 5;
export const CONCATENATE_MIN_FIELDS = 2;
export const CONCATENATE_MAX_FIELDS = 10;
/** Above this many destination fields the field picker's selection is required. */
export const FIELD_SELECTION_REQUIRED_ABOVE = 200;
/** SPEC.md shows the search-scenario limit as {limit} without its value: ours. */
export const MAX_SEARCH_SCENARIOS = 10;
/** Advanced Matching Settings need at least this many scenarios. */
export const ADVANCED_MATCHING_MIN_SCENARIOS = 2;
/** Criteria (source field matches destination field) of one search scenario. */
export const MAX_SCENARIO_CRITERIA = 10;
export const MAX_AUTO_PICK_CONDITIONS = 20;
/** Custom routing rules of a formula, and conditions of one rule. */
export const MAX_ROUTING_RULES = 50;
export const MAX_RULE_CONDITIONS = 20;
export const QUERY_SEARCH_MIN_LENGTH = 3;
export const MAX_TABS = 5;
export const MAX_TAB_NAME_LENGTH = 40;
/** An export can be downloaded for this long. */
export const EXPORT_DOWNLOAD_HOURS = 24;
/** Match confidence scores run from 0 to 100. */
export const MAX_CONFIDENCE_SCORE = 100;

export const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
