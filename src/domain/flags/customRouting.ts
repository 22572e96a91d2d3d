/** Feature flags: the custom-routing flag (SPEC.md sections 1 and 2). */
import { type FlagDefinition, type RolloutDef } from './definitions.ts';
import { parseStringList } from './engineNumbers.ts';
import { type EvaluationRequest } from './evaluator.ts';
import { FORMULA_ID_PROPERTY } from './snapshot.ts';

// ---------------------------------------------------------------------------------------------
// The custom-routing flag: off by default, on for the formulas its rule names.

/** The segment key of the rule that turns a boolean flag on for chosen formulas. */
export const FORMULA_RULE_SEGMENT = 'chosen-formulas';

/** A boolean flag, off by default, on for the given formula ids through one rule on the formula id. */
export function formulaRuleFlag(name: string, description: string, formulaIds: string[]): FlagDefinition {
  return {
    name, description, type: 'BOOLEAN_FLAG_TYPE', enabled: false, variants: [], rules: [], defaultVariant: null,
    rollouts: [formulaRollout(formulaIds)],
  };
}

function formulaRollout(formulaIds: string[]): RolloutDef {
  return {
    segment: {
      value: true, segmentOperator: 'OR_SEGMENT_OPERATOR',
      segments: [{
        key: FORMULA_RULE_SEGMENT, name: 'Chosen formulas', matchType: 'ALL_SEGMENT_MATCH_TYPE',
        constraints: [{ type: 'STRING_CONSTRAINT_COMPARISON_TYPE', property: FORMULA_ID_PROPERTY, operator: 'isoneof', value: JSON.stringify(formulaIds) }],
      }],
    },
  };
}

/** The formula ids of a flag's formula-id rule, or null when the flag has no such rule. */
export function formulaRuleIds(def: Pick<FlagDefinition, 'type' | 'rollouts'>): string[] | null {
  if (def.type !== 'BOOLEAN_FLAG_TYPE') return null;
  for (const r of def.rollouts) {
    if (!('segment' in r)) continue;
    const c = r.segment.segments.find((s) => s.key === FORMULA_RULE_SEGMENT)?.constraints[0];
    if (c && c.property === FORMULA_ID_PROPERTY && c.operator === 'isoneof') return parseStringList(c.value) ?? [];
  }
  return null;
}

/** The definition with its formula-id rule naming these formulas (the rule is added when missing). */
export function withFormulaRuleIds<T extends FlagDefinition>(def: T, formulaIds: string[]): T {
  const ids = [...new Set(formulaIds.map((x) => x.trim()).filter(Boolean))];
  let replaced = false;
  const rollouts = def.rollouts.map((r) => {
    if (replaced || !('segment' in r) || !r.segment.segments.some((s) => s.key === FORMULA_RULE_SEGMENT)) return r;
    replaced = true;
    return formulaRollout(ids);
  });
  return { ...def, rollouts: replaced ? rollouts : [formulaRollout(ids), ...rollouts] };
}

/** The evaluation request for a flag queried per formula (SPEC.md section 1): the formula id is both entity id and context. */
export function formulaRequest(flagKey: string, formulaId: string): EvaluationRequest {
  return { flagKey, entityId: formulaId, context: { [FORMULA_ID_PROPERTY]: formulaId } };
}
