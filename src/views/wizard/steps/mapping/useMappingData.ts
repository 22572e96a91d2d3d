/**
 * The mapping step's sample rows for the preview: as the step editor read them with the rest of
 * the step, and read again on their own, since the mapping can go on without the preview.
 */
import { useCallback, useEffect, useState } from 'react';
import type { FormulaSample, FormulaView } from '../../../../domain/api/formulas.ts';
import { useWizardServices } from '../../step.tsx';

export type SampleState = { status: 'loading' } | { status: 'failed' } | { status: 'ready'; sample: FormulaSample };

export function useSample(formula: FormulaView, loaded: FormulaSample | null) {
  const { formulas } = useWizardServices();
  const [sample, setSample] = useState<SampleState>(loaded ? { status: 'ready', sample: loaded } : { status: 'failed' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (attempt === 0) return;
    let current = true;
    setSample({ status: 'loading' });
    formulas.sample(formula.id, { silent: true }).then(
      (s) => { if (current) setSample({ status: 'ready', sample: s }); },
      () => { if (current) setSample({ status: 'failed' }); },
    );
    return () => { current = false; };
  }, [attempt, formula.id, formulas]);

  const retrySample = useCallback(() => setAttempt((n) => n + 1), []);
  return { sample, retrySample };
}
