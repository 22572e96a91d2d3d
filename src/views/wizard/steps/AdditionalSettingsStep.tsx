/**
 * Steps 3 and 4, additional settings of the source or the destination: the form is the system's
 * settings schema for that role in the connector catalogue, rendered by SettingsFields. Values
 * are checked against the same schema before they are sent, and the server checks them again;
 * the step editor saves them (src/machines/wizardSteps.ts), asking first when a changed object
 * would remove parts of the formula.
 */
import { useState } from 'react';
import { useSelector } from '@xstate/react';
import { Alert, Stack, Text } from '@mantine/core';
import { objectLabel } from '../../../domain/connectors/catalogue.ts';
import { validateSettings, type SettingsValues } from '../../../domain/connectors/fields.ts';
import type { StepEditorRef } from '../../../machines/stepEditor.ts';
import { savedSettingsOf, settingsDiffer, settingsSchemaOf } from '../../../machines/wizardSteps.ts';
import { SettingsFields } from '../../../ui/SettingsFields.tsx';
import { StepActions, useStepAnnouncements, type StepProps } from '../step.tsx';
import { endOf, systemLabel, WipeConfirmation, type Role } from './shared.tsx';

export function AdditionalSettingsStep(props: StepProps & { role: Role }) {
  const { formula, role, onBack, editor } = props;
  const end = endOf(formula, role);
  if (!end || !settingsSchemaOf(formula, role) || !editor) {
    return (
      <Stack>
        <Text>{end ? `${systemLabel(end.system)} has no settings as a ${role}.` : `The formula has no ${role} yet.`}</Text>
        <StepActions onBack={onBack} onSave={() => props.onSaved()} saving={false} label="Continue" />
      </Stack>
    );
  }
  return <SettingsForm {...props} editor={editor} />;
}

function SettingsForm(props: StepProps & { role: Role; editor: StepEditorRef }) {
  const { formula, role, canEdit, onBack, editor } = props;
  useStepAnnouncements(editor);
  const end = endOf(formula, role)!;
  const schema = settingsSchemaOf(formula, role)!;
  const [initial] = useState(() => savedSettingsOf(formula, role));
  const [values, setValues] = useState<SettingsValues>(initial);
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const saving = useSelector(editor, (s) => s.matches('saving'));
  const fieldErrors = useSelector(editor, (s) => s.context.fieldErrors);
  const wipes = useSelector(editor, (s) => (s.matches('confirmingWipe') ? s.context.wipes : null));

  /** each change is the editor's draft; settings as saved (a blank being no value) are the saved copy itself */
  const change = (key: string, value: string) => {
    const next = { ...values, [key]: value };
    setValues(next);
    editor.send({ type: 'draft.change', draft: settingsDiffer(next, initial) ? next : initial });
  };

  const checked = validateSettings(schema, values);
  const local = checked.success ? {} : checked.errors;
  // the server's messages come keyed by role ('destination.settings.onMatch')
  const prefix = `${role}.settings.`;
  const server = Object.fromEntries(Object.entries(fieldErrors).filter(([k]) => k.startsWith(prefix)).map(([k, m]) => [k.slice(prefix.length), m]));
  const errors = Object.fromEntries(Object.entries({ ...server, ...local }).filter(([k]) => submitted || touched.has(k)));

  const save = () => {
    if (!canEdit) { props.onSaved(); return; }
    setSubmitted(true);
    if (!checked.success) return;
    editor.send({ type: 'step.save' });
  };

  return (
    <form onSubmit={(e) => { e.preventDefault(); save(); }} noValidate aria-label={`${role === 'source' ? 'Source' : 'Destination'} settings`}>
      <Stack>
        <Text size="sm">
          How this formula {role === 'source' ? 'reads from' : 'writes to'} {end.displayName} ({systemLabel(end.system)}){end.object === '*' ? ', every file' : `: ${objectLabel(end.system, end.object)}`}.
        </Text>
        {submitted && !checked.success && (
          <Alert color="red" role="alert" title="Some settings need attention">
            <Text size="sm">Correct the fields marked below.</Text>
          </Alert>
        )}
        <SettingsFields
          schema={schema} values={values} errors={errors} disabled={!canEdit} idPrefix={`additional-${role}`}
          onChange={change}
          onBlur={(key) => setTouched((t) => new Set(t).add(key))}
        />
        <StepActions onBack={onBack} onSave={save} saving={saving} label={canEdit ? 'Save and continue' : 'Next'} />
      </Stack>
      <WipeConfirmation wipes={wipes} onConfirm={() => editor.send({ type: 'wipe.confirm' })} onCancel={() => editor.send({ type: 'wipe.cancel' })} />
    </form>
  );
}
