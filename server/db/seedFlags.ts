/**
 * Demo feature flags: every tenant gets `custom-routing`, off by default and on, through one
 * rule on the formula id, for chosen formulas: those passed in, else the tenant's first formula
 * by name when the demo seed has already created formulas. Administrators change the list on the
 * Feature Flags screen (or through PUT /web-api/v1/flags/custom-routing).
 */
import { formulaRuleFlag } from '../../src/domain/flags/customRouting.ts';
import { CUSTOM_ROUTING_FLAG } from '../../src/domain/flags/snapshot.ts';
import { forTenant, type Executor } from './tenancy.ts';

export const CUSTOM_ROUTING_NAME = 'Custom routing';
export const CUSTOM_ROUTING_DESCRIPTION =
  'Shows the Custom Routing Rules step instead of Routing in the Formula Wizard, for the formulas the rule names.';

export async function seedFlags(db: Executor, tenantIds: string[], chosenFormulaIds?: Record<string, string[]>): Promise<void> {
  for (const tenantId of tenantIds) {
    const tenant = forTenant(db, tenantId);
    let ids = chosenFormulaIds?.[tenantId];
    if (!ids) {
      const [first] = (await tenant.formulas.list())
        .sort((a, b) => (a.name ?? '').localeCompare(b.name ?? '') || a.id.localeCompare(b.id));
      ids = first ? [first.id] : [];
    }
    await tenant.flags.put('default', CUSTOM_ROUTING_FLAG, formulaRuleFlag(CUSTOM_ROUTING_NAME, CUSTOM_ROUTING_DESCRIPTION, ids));
  }
}
