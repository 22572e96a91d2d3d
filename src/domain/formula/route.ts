/**
 * The routing step of the engine (SPEC.md sections 4 and 9): where a matched record goes, Ready,
 * Needs Attention or nowhere (omitted), with a short reason a reviewer reads.
 *
 * Conditions (custom routing):
 * - A condition reads one field of the record by name: its matching data, its transformed values
 *   or its raw source row, own properties only (a field called 'constructor' reads nothing).
 * - Values compare as text (valueText; a raw value through toFieldValue first). A missing field
 *   is '', so 'is blank' holds for it.
 * - Both sides are trimmed, put in Unicode normal form C and lower-cased (locale-independent):
 *   by default routing does not count capitalisation or surrounding spaces as a difference, the
 *   same way users read them. Text of only spaces is blank.
 * - Blank entries of a list ('is not one of', 'does not contain one of') are ignored: they are
 *   empty rows of the form, and '' would be contained in every value. 'is blank' tests blanks.
 * - A blank field does not equal, start with, end with or contain a non-blank value; so it
 *   'does not equal', 'is not one of' and 'does not contain one of' anything non-blank.
 *
 * Decisions:
 * - Default routing is the triage of SPEC.md section 4: no match goes where `unmatched` says;
 *   several matches are always reviewed; a single match that is not confident is always reviewed
 *   (a match that is not certain is never sent without review); a confident one follows
 *   `singleMatch`, where 'ready-if-exact' reads `exactMatch` (the engine compared the exact
 *   fields with the picked candidate).
 * - Custom routing: the first rule whose conditions all hold decides, else `otherwise`. A rule (or
 *   `otherwise`) may omit any record, but it never routes an uncertain record (several matches,
 *   or a single match that is not confident) to Ready: that record goes to Needs Attention, the
 *   reason says why, and `rule` still names the rule that applied.
 */
import type { CustomRouting, DefaultRouting, Routing, RoutingCondition } from './parts.ts';
import { toFieldValue, valueText, type FieldValue } from './transforms.ts';

/** What routing reads of a record once it is transformed and matched. */
export interface RoutableRecord {
  raw: Record<string, unknown>;
  transformed: Record<string, FieldValue>;
  /** the matching data fields of routingFields.ts, already as text */
  matching: Record<string, string>;
  bucket: 'new' | 'one-to-one-match' | 'one-to-many-match';
  /** whether the single match is certain enough to send without review */
  confident: boolean;
  /** the default routing's exactFields equal the picked candidate's */
  exactMatch: boolean;
}

export type RouteState = 'ready' | 'needs-attention' | 'omitted';

export interface RouteDecision {
  state: RouteState;
  /** a short sentence a reviewer reads */
  reason: string;
  /** the 1-based number of the custom rule that applied; null when none did (or default routing) */
  rule: number | null;
}

/** The reasons routing gives, in one place so the buckets and tests read the same words. */
export const ROUTE_REASONS = {
  unmatchedReady: 'No match: added to Ready',
  unmatchedReview: 'No match: review',
  severalMatches: 'Several matches: review',
  uncertainMatch: 'Match not certain: review',
  singleReady: 'Single match: added to Ready',
  exactReady: 'Exact match: added to Ready',
  notExact: 'Selected fields differ: review',
  singleReview: 'Single match: review',
  ruleOmitted: (n: number) => `Rule ${n} omitted it`,
  ruleReady: (n: number) => `Rule ${n} added it to Ready`,
  ruleReview: (n: number) => `Rule ${n}: review`,
  ruleUncertain: (n: number, why: string) => `Rule ${n} would add it to Ready, but ${why}: review`,
  otherwiseReady: 'No rule applied: added to Ready',
  otherwiseReview: 'No rule applied: review',
  otherwiseUncertain: (why: string) => `No rule applied, and ${why}: review`,
} as const;

// ------------------------------------------------------------------------------ conditions

const own = (row: Record<string, unknown>, field: string): unknown => (Object.hasOwn(row, field) ? row[field] : undefined);

/** The text a condition reads of a record: '' when the field is missing. */
export function fieldText(condition: Pick<RoutingCondition, 'sourceType' | 'field'>, record: RoutableRecord): string {
  switch (condition.sourceType) {
    case 'matching': {
      const value = own(record.matching, condition.field);
      return typeof value === 'string' ? value : valueText(toFieldValue(value));
    }
    case 'transformed': return valueText(toFieldValue(own(record.transformed, condition.field)));
    case 'raw': return valueText(toFieldValue(own(record.raw, condition.field)));
  }
}

/** Text as routing compares it: no surrounding spaces, one Unicode form, no capitals. */
export const routingText = (text: string): string => text.trim().normalize('NFC').toLowerCase();

export function evaluateCondition(condition: RoutingCondition, record: RoutableRecord): boolean {
  const field = routingText(fieldText(condition, record));
  const values = condition.values.map(routingText);
  const one = values[0] ?? '';
  const list = values.filter((x) => x !== '');
  switch (condition.operator) {
    case 'equals': return field === one;
    case 'not-equals': return field !== one;
    case 'is-blank': return field === '';
    case 'is-not-blank': return field !== '';
    case 'not-one-of': return !list.includes(field);
    case 'starts-with': return field.startsWith(one);
    case 'ends-with': return field.endsWith(one);
    case 'contains': return field.includes(one);
    case 'not-contains-one-of': return !list.some((x) => field.includes(x));
    // an operator this version does not know never applies
    default: return false;
  }
}

// --------------------------------------------------------------------------------- routing

export function routeRecord(routing: Routing, record: RoutableRecord): RouteDecision {
  return routing.kind === 'default' ? routeByDefault(routing, record) : routeByRules(routing, record);
}

const decide = (state: RouteState, reason: string, rule: number | null = null): RouteDecision => ({ state, reason, rule });

function routeByDefault(routing: DefaultRouting, record: RoutableRecord): RouteDecision {
  switch (record.bucket) {
    case 'new':
      return routing.unmatched === 'ready' ? decide('ready', ROUTE_REASONS.unmatchedReady) : decide('needs-attention', ROUTE_REASONS.unmatchedReview);
    case 'one-to-many-match':
      return decide('needs-attention', ROUTE_REASONS.severalMatches);
    case 'one-to-one-match':
      if (!record.confident) return decide('needs-attention', ROUTE_REASONS.uncertainMatch);
      switch (routing.singleMatch) {
        case 'ready': return decide('ready', ROUTE_REASONS.singleReady);
        case 'ready-if-exact': return record.exactMatch ? decide('ready', ROUTE_REASONS.exactReady) : decide('needs-attention', ROUTE_REASONS.notExact);
        case 'needs-attention': return decide('needs-attention', ROUTE_REASONS.singleReview);
      }
  }
}

/** Why a record must not reach Ready without review, in words; null when it may. */
function uncertainty(record: RoutableRecord): string | null {
  if (record.bucket === 'one-to-many-match') return 'it has several matches';
  if (record.bucket === 'one-to-one-match' && !record.confident) return 'its match is not certain';
  return null;
}

function routeByRules(routing: CustomRouting, record: RoutableRecord): RouteDecision {
  const why = uncertainty(record);
  const index = routing.rules.findIndex((r) => r.conditions.every((c) => evaluateCondition(c, record)));
  if (index >= 0) {
    const rule = routing.rules[index]!;
    const n = index + 1;
    if (rule.action === 'omit') return decide('omitted', ROUTE_REASONS.ruleOmitted(n), n);
    if (rule.target === 'needs-attention') return decide('needs-attention', ROUTE_REASONS.ruleReview(n), n);
    return why ? decide('needs-attention', ROUTE_REASONS.ruleUncertain(n, why), n) : decide('ready', ROUTE_REASONS.ruleReady(n), n);
  }
  if (routing.otherwise === 'needs-attention') return decide('needs-attention', ROUTE_REASONS.otherwiseReview);
  return why ? decide('needs-attention', ROUTE_REASONS.otherwiseUncertain(why)) : decide('ready', ROUTE_REASONS.otherwiseReady);
}
