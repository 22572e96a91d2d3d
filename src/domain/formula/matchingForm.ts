/**
 * The matching step's form: the matching part as the user edits it (each item with a key that
 * survives reordering), and the body it saves.
 */
import type { Matching } from './parts.ts';

export interface CriterionForm { key: number; source: string; destination: string }
export interface ScenarioForm { key: number; name: string; criteria: CriterionForm[]; matchReason: string; isPrimary: boolean }
export interface AutoPickForm { key: number; fields: string[]; minScore: number | '' }
export interface MatchingForm { scenarios: ScenarioForm[]; advanced: boolean; autoPick: AutoPickForm[] }

let nextKey = 1;
export const newKey = () => nextKey++;

export const blankCriterion = (): CriterionForm => ({ key: newKey(), source: '', destination: '' });
export const blankScenario = (isPrimary: boolean): ScenarioForm => ({ key: newKey(), name: '', criteria: [blankCriterion()], matchReason: '', isPrimary });
export const blankAutoPick = (): AutoPickForm => ({ key: newKey(), fields: [], minScore: '' });

export function matchingForm(part: Matching): MatchingForm {
  return {
    scenarios: part.scenarios.length
      ? part.scenarios.map((s) => ({ key: newKey(), name: s.name, matchReason: s.matchReason, isPrimary: s.isPrimary, criteria: s.criteria.map((c) => ({ key: newKey(), ...c })) }))
      // nothing to recommend: one scenario to fill in
      : [blankScenario(true)],
    advanced: part.advanced,
    autoPick: part.autoPick.map((a) => ({ key: newKey(), fields: a.fields, minScore: a.minScore ?? '' })),
  };
}

/**
 * The body the form saves. Without Advanced Matching Settings every scenario is primary; the
 * form keeps each scenario's tier meanwhile, so turning the setting back on restores them.
 */
export function matchingBody(form: MatchingForm) {
  return {
    scenarios: form.scenarios.map((s) => ({
      name: s.name,
      criteria: s.criteria.map((c) => ({ source: c.source, destination: c.destination })),
      matchReason: s.matchReason,
      isPrimary: form.advanced ? s.isPrimary : true,
    })),
    advanced: form.advanced,
    autoPick: form.autoPick.map((a) => ({ fields: a.fields, exact: true as const, ...(a.minScore === '' ? {} : { minScore: a.minScore }) })),
  };
}
