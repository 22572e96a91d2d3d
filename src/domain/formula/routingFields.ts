/**
 * The fields a custom routing condition can read when its source type is 'matching data' (SPEC.md
 * section 9): what the search scenarios found for a record, not the record itself. The engine
 * fills these for every record before it applies the rules; the wizard offers them by label.
 *
 * Every value is compared as text, the way the operators of section 9 read all fields: a number
 * is written in base ten without grouping, a yes/no as 'true' or 'false', a missing value as ''
 * (so 'is blank' holds), and a list is joined with MATCHING_LIST_SEPARATOR.
 */

export const MATCHING_LIST_SEPARATOR = '; ';

export const MATCHING_FIELDS = {
  candidateCount: {
    label: 'Candidate count',
    kind: 'number',
    description: 'How many destination records the search scenarios found (after candidates below the score threshold are discarded)',
  },
  bestScore: {
    label: 'Best score',
    kind: 'number',
    description: 'The confidence score (0 to 100) of the best candidate; blank without candidates',
  },
  matchReasons: {
    label: 'Match reasons',
    kind: 'list',
    description: 'The match reasons of the scenarios that found the best candidate, in scenario order',
  },
  matchedScenario: {
    label: 'Matched scenario',
    kind: 'text',
    description: 'The name of the first scenario that found the best candidate; blank without candidates',
  },
  searchTier: {
    label: 'Search tier',
    kind: 'text',
    description: "'primary' or 'secondary': the kind of scenario that found the candidates; blank without candidates",
  },
  autoPicked: {
    label: 'Auto picked',
    kind: 'yes-no',
    description: "'true' or 'false': whether an Auto Pick condition chose the match among several candidates",
  },
} as const satisfies Record<string, { label: string; kind: 'number' | 'text' | 'list' | 'yes-no'; description: string }>;

export type MatchingField = keyof typeof MATCHING_FIELDS;
export const MATCHING_FIELD_NAMES = Object.keys(MATCHING_FIELDS) as MatchingField[];
export const isMatchingField = (name: string): name is MatchingField => (MATCHING_FIELD_NAMES as string[]).includes(name);
