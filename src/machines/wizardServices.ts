/**
 * The I/O the wizard's step screens use, in one object the wizard dialog hands them (tests hand in
 * fakes): each step loads and saves its own part through it.
 */
import { formulas } from '../services/formulas.ts';
import { integrations } from '../services/integrations.ts';

export interface WizardServices {
  formulas: Pick<typeof formulas, 'get' | 'update' | 'activate' | 'sample' | 'dryRun' | 'getPart' | 'putPart' | 'deletePart'>;
  integrations: Pick<typeof integrations, 'list' | 'objects' | 'refreshObjects' | 'fields' | 'checkSalesforceReport'>;
}

export const REAL_WIZARD_SERVICES: WizardServices = { formulas, integrations };
