/**
 * What both routing steps (default and custom) do with their form: check the routing and autosend
 * bodies against their schemas, and hand the bodies to the step editor as its draft, which saves
 * both parts in order.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { useSelector } from '@xstate/react';
import { AutosendSchema, RoutingSchema } from '../../../../domain/formula/parts.ts';
import type { StepEditorRef } from '../../../../machines/stepEditor.ts';
import { verdict } from '../matching/stepForm.tsx';

export function useRoutingSave<F>(editor: StepEditorRef, form: F, bodiesOf: (form: F) => { routing: unknown; autosend: unknown }) {
  const [submitted, setSubmitted] = useState(false);
  const saving = useSelector(editor, (s) => s.matches('saving'));
  const bodies = useMemo(() => bodiesOf(form), [form, bodiesOf]);
  const check = useMemo(() => verdict(RoutingSchema, bodies.routing), [bodies]);
  const autosendCheck = useMemo(() => verdict(AutosendSchema, bodies.autosend), [bodies]);
  // each change of the form is the editor's draft
  const opened = useRef(bodies);
  useEffect(() => {
    if (bodies !== opened.current) editor.send({ type: 'draft.change', draft: bodies });
  }, [bodies, editor]);

  const save = () => {
    setSubmitted(true);
    if (!check.ok || !autosendCheck.ok) return;
    editor.send({ type: 'step.save' });
  };
  /** the schema's messages by field, once the user has tried to save */
  const at = submitted ? check.at : {};
  return { check, autosendCheck, at, submitted, saving, save };
}
