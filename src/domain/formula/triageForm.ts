/**
 * The routing step's form: Omatic's triage (a default routing part) and autosend as the user
 * edits them, how the form starts from the saved parts, and the two bodies it saves.
 */
import type { RouteTarget, SingleMatchRoute } from './constants.ts';
import { RECOMMENDED_DISCARD_BELOW } from './matchScore.ts';
import type { DefaultRouting } from './parts.ts';

/**
 * Until a formula has its triage, everything stops for review; weak candidates are discarded from
 * the start, since keeping namesakes and household members beside a confident match costs recall
 * (the matching accuracy benchmark).
 */
export const DEFAULT_TRIAGE: DefaultRouting = {
  kind: 'default', unmatched: 'needs-attention', singleMatch: 'needs-attention', exactFields: [], discardBelow: RECOMMENDED_DISCARD_BELOW, capitalizationIsDifference: false,
};

export interface TriageForm {
  unmatched: RouteTarget;
  singleMatch: SingleMatchRoute;
  exactFields: string[];
  discardBelow: number | '';
  capitalizationIsDifference: boolean;
  autosend: boolean;
}

export const triageForm = (routing: DefaultRouting, autosend: boolean): TriageForm => ({
  unmatched: routing.unmatched, singleMatch: routing.singleMatch, exactFields: routing.exactFields,
  discardBelow: routing.discardBelow ?? '', capitalizationIsDifference: routing.capitalizationIsDifference, autosend,
});

/** The two bodies the form saves; the exact-match fields only count for 'ready-if-exact'. */
export function triageBodies(f: TriageForm) {
  return {
    routing: {
      kind: 'default' as const, unmatched: f.unmatched, singleMatch: f.singleMatch,
      exactFields: f.singleMatch === 'ready-if-exact' ? f.exactFields : [],
      discardBelow: f.discardBelow === '' ? null : f.discardBelow,
      capitalizationIsDifference: f.capitalizationIsDifference,
    },
    autosend: { enabled: f.autosend },
  };
}
