/** The wizard's place in the address, apart from the dialog so a screen that opens it does not load it. */
const WIZARD_QUERY = ['wizardFormulaId', 'wizardStep'] as const;

/** The query of the current address with the wizard's parameters set (or removed, for null). */
export function wizardSearch(search: string, formulaId: string | null, step: string | null): string {
  const query = new URLSearchParams(search);
  for (const k of WIZARD_QUERY) query.delete(k);
  if (formulaId && step) { query.set('wizardFormulaId', formulaId); query.set('wizardStep', step); }
  const text = query.toString();
  return text ? `?${text}` : '';
}
