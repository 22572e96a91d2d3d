/**
 * The custom-routing step's form: rules as the user edits them (each with a key that survives
 * reordering) and the bodies it saves. A rule's action and target are one choice; a condition
 * keeps what was typed while its operator changes, and saves only the values the operator takes.
 */
import { LIST_OPERATORS, ROUTE_TARGETS, VALUELESS_OPERATORS, type RouteTarget, type RoutingOperator, type SourceType } from './constants.ts';
import type { CustomRouting, CustomRoutingRule } from './parts.ts';

/** Until a formula has rules, every record stops for review. */
export const DEFAULT_CUSTOM_ROUTING: CustomRouting = { kind: 'custom', rules: [], otherwise: 'needs-attention' };

export type RuleAction = 'omit' | `route:${RouteTarget}`;
export const RULE_ACTIONS: { value: RuleAction; label: string }[] = [
  { value: 'omit', label: 'Omit records' },
  { value: 'route:ready', label: `Route to ${ROUTE_TARGETS.ready}` },
  { value: 'route:needs-attention', label: `Route to ${ROUTE_TARGETS['needs-attention']}` },
];

export interface ConditionForm { key: number; sourceType: SourceType; field: string; operator: RoutingOperator; values: string[] }
export interface RuleForm { key: number; action: RuleAction; conditions: ConditionForm[] }
export interface CustomRoutingForm { rules: RuleForm[]; otherwise: RouteTarget; autosend: boolean }

let nextKey = 1;
const newKey = () => nextKey++;

/** How many values an operator compares with. */
export type ValueShape = 'none' | 'list' | 'one';
export const valueShape = (operator: RoutingOperator): ValueShape =>
  (VALUELESS_OPERATORS.includes(operator) ? 'none' : LIST_OPERATORS.includes(operator) ? 'list' : 'one');

export const blankCondition = (): ConditionForm => ({ key: newKey(), sourceType: 'matching', field: '', operator: 'equals', values: [] });
export const blankRule = (): RuleForm => ({ key: newKey(), action: 'route:needs-attention', conditions: [blankCondition()] });

export function customRoutingForm(part: CustomRouting, autosend: boolean): CustomRoutingForm {
  return {
    rules: part.rules.map((r) => ({
      key: newKey(),
      action: r.action === 'omit' ? 'omit' : `route:${r.target}`,
      conditions: r.conditions.map((c) => ({ key: newKey(), ...c })),
    })),
    otherwise: part.otherwise,
    autosend,
  };
}

const conditionBody = (c: ConditionForm) => {
  const shape = valueShape(c.operator);
  return { sourceType: c.sourceType, field: c.field, operator: c.operator, values: shape === 'none' ? [] : shape === 'list' ? c.values : [c.values[0] ?? ''] };
};

function ruleBody(r: RuleForm): CustomRoutingRule {
  const conditions = r.conditions.map(conditionBody);
  return r.action === 'omit' ? { action: 'omit', conditions } : { action: 'route', target: r.action.slice('route:'.length) as RouteTarget, conditions };
}

export function customRoutingBodies(f: CustomRoutingForm) {
  return {
    routing: { kind: 'custom' as const, rules: f.rules.map(ruleBody), otherwise: f.otherwise },
    autosend: { enabled: f.autosend },
  };
}
