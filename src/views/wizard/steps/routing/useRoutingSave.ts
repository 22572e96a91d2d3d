/**
 * What both routing steps (default and custom) do with their form: check the routing and autosend
 * bodies against their schemas, report unsaved changes, and save both parts in order.
 */
import { useMemo, useState } from 'react';
import { AutosendSchema, RoutingSchema, type Autosend, type Routing } from '../../../../domain/formula/parts.ts';
import { useStepSave, useWizardServices, type StepProps } from '../../step.tsx';
import { sameBody, verdict } from '../matching/stepForm.tsx';
import { useReportDirty } from '../shared.tsx';

export function useRoutingSave<F>(props: StepProps, form: F, bodiesOf: (form: F) => { routing: unknown; autosend: unknown }) {
  const services = useWizardServices();
  const [saved, setSaved] = useState(() => bodiesOf(form));
  const [submitted, setSubmitted] = useState(false);
  const { saving, run } = useStepSave(props);
  const bodies = useMemo(() => bodiesOf(form), [form, bodiesOf]);
  const check = useMemo(() => verdict(RoutingSchema, bodies.routing), [bodies]);
  const autosendCheck = useMemo(() => verdict(AutosendSchema, bodies.autosend), [bodies]);
  useReportDirty(!sameBody(bodies, saved), props.onDirtyChange);

  const save = () => {
    setSubmitted(true);
    if (!check.ok || !autosendCheck.ok) return;
    const [routing, autosend]: [Routing, Autosend] = [check.output, autosendCheck.output];
    void run(async () => {
      await services.formulas.putPart(props.formula.id, 'routing', routing);
      await services.formulas.putPart(props.formula.id, 'autosend', autosend);
      setSaved(bodies);
    });
  };
  /** the schema's messages by field, once the user has tried to save */
  const at = submitted ? check.at : {};
  return { check, autosendCheck, at, submitted, saving, save };
}
