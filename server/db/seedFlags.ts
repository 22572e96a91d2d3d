/**
 * Demo feature flags: every tenant gets `custom-routing`, off by default and on, through one
 * rule on the formula id, for chosen formulas: those passed in, else the tenant's first formula
 * by name when the demo seed has already created formulas. Administrators change the list on the
 * Feature Flags screen (or through PUT /web-api/v1/flags/custom-routing).
 */
import { asc, eq } from 'drizzle-orm';
import { CUSTOM_ROUTING_FLAG, formulaRuleFlag } from '../../src/domain/flags.ts';
import { putFlag, type Writer } from './flags.ts';
import { formulas } from './schema/formulas.ts';

export const CUSTOM_ROUTING_NAME = 'Custom routing';
export const CUSTOM_ROUTING_DESCRIPTION =
  'Shows the Custom Routing Rules step instead of Routing in the Formula Wizard, for the formulas the rule names.';

export async function seedFlags(db: Writer, tenantIds: string[], chosenFormulaIds?: Record<string, string[]>): Promise<void> {
  for (const tenantId of tenantIds) {
    let ids = chosenFormulaIds?.[tenantId];
    if (!ids) {
      const [first] = await db.select({ id: formulas.id }).from(formulas)
        .where(eq(formulas.tenantId, tenantId)).orderBy(asc(formulas.name), asc(formulas.id)).limit(1);
      ids = first ? [first.id] : [];
    }
    await putFlag(db, tenantId, 'default', CUSTOM_ROUTING_FLAG, formulaRuleFlag(CUSTOM_ROUTING_NAME, CUSTOM_ROUTING_DESCRIPTION, ids));
  }
}
