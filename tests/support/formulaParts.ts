/** A valid body for every formula part, as the wizard would save it for a CSV of supporters into the Sandbox CRM. */
import type { FormulaPartBody, FormulaPartName } from '../../src/domain/formula/parts.ts';

/** Every part but the gift, which only a formula writing the Sandbox CRM's constituents has (VALID_GIFT). */
export const VALID_PARTS: { [P in Exclude<FormulaPartName, 'gift'>]: FormulaPartBody[P] } = {
  mapping: {
    fields: [
      { destination: 'firstName', kind: 'source', source: 'First name' },
      { destination: 'lastName', kind: 'source', source: 'Last name' },
      { destination: 'email', kind: 'source', source: 'Email' },
      { destination: 'title', kind: 'ignored' },
    ],
  },
  transform: { fields: [{ destination: 'lastName', steps: [{ kind: 'case', to: 'title' }] }] },
  validation: { rules: [{ destination: 'email', rule: 'email', bucket: 'Bad e-mail' }] },
  'summary-fields': { fields: ['firstName', 'lastName', 'email'] },
  matching: {
    scenarios: [{ name: 'E-mail', criteria: [{ source: 'Email', destination: 'email' }], matchReason: 'Same e-mail', isPrimary: true }],
    advanced: false,
    autoPick: [],
  },
  routing: { kind: 'default', unmatched: 'ready', singleMatch: 'needs-attention', exactFields: [], discardBelow: null, capitalizationIsDifference: false },
  schedule: { mode: 'scheduled', frequency: 'weekly', day: 'monday', time: '06:30', timeZone: 'Europe/London' },
  autosend: { enabled: false },
};

/** A gift from each row of a supporters file that carries one (src/domain/formula/companion.ts). */
export const VALID_GIFT: FormulaPartBody['gift'] = {
  fields: [
    { destination: 'amount', kind: 'source', source: 'Gift amount' },
    { destination: 'date', kind: 'source', source: 'Gift date' },
    { destination: 'fund', kind: 'source', source: 'Fund' },
  ],
};

/** A valid body of every part, by name. */
export const ALL_PARTS: { [P in FormulaPartName]: FormulaPartBody[P] } = { ...VALID_PARTS, gift: VALID_GIFT };
