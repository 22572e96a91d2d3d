/**
 * Steps 3 and 4, additional settings of the source or the destination: the form is the system's
 * settings schema for that role in the connector catalogue, rendered by SettingsFields. Values
 * are checked against the same schema before they are sent, and the server checks them again.
 */
import { useState } from 'react';
import { Alert, Stack, Text } from '@mantine/core';
import { connectorFor } from '../../../domain/connectors/catalogue.ts';
import { defaultValues, formFields, validateSettings, type SettingsValues } from '../../../domain/connectors/fields.ts';
import { SettingsFields } from '../../../ui/SettingsFields.tsx';
import { StepActions, type StepProps } from '../step.tsx';
import { announceSaved, endOf, systemLabel, useFormulaUpdate, useReportDirty, withObject, type Role } from './shared.tsx';

export function AdditionalSettingsStep(props: StepProps & { role: Role }) {
  const { formula, role, canEdit, onDirtyChange, onBack } = props;
  const end = endOf(formula, role);
  const schema = end ? connectorFor(end.system).additionalSettings[role] : undefined;
  const initial: SettingsValues = schema && end ? withObject(end.system, role, { ...defaultValues(schema), ...end.settings }, end.object) : {};
  const update = useFormulaUpdate(props);
  const [values, setValues] = useState<SettingsValues>(initial);
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);

  const dirty = Object.keys({ ...initial, ...values }).some((k) => (initial[k] ?? '') !== (values[k] ?? ''));
  useReportDirty(dirty, onDirtyChange);

  if (!end || !schema) {
    return (
      <Stack>
        <Text>{end ? `${systemLabel(end.system)} has no settings as a ${role}.` : `The formula has no ${role} yet.`}</Text>
        <StepActions onBack={onBack} onSave={() => props.onSaved()} saving={false} label="Continue" />
      </Stack>
    );
  }

  const checked = validateSettings(schema, values);
  const namesObject = formFields(schema).some((f) => f.key === 'object');
  const local = checked.success ? {} : checked.errors;
  // the server's messages come keyed by role ('destination.settings.onMatch')
  const prefix = `${role}.settings.`;
  const server = Object.fromEntries(Object.entries(update.fieldErrors).filter(([k]) => k.startsWith(prefix)).map(([k, m]) => [k.slice(prefix.length), m]));
  const errors = Object.fromEntries(Object.entries({ ...server, ...local }).filter(([k]) => submitted || touched.has(k)));

  async function save() {
    setSubmitted(true);
    if (!checked.success) return;
    if (!dirty) return announceSaved(props);
    // a system whose settings name the object (Salesforce's top-level object) changes the end's
    // object with it, so the server asks before wiping what depends on the old one
    const object = namesObject ? checked.values.object ?? end!.object : end!.object;
    await update.send({ [role]: { dataSourceId: end!.dataSourceId, object, settings: checked.values } });
  }

  return (
    <form onSubmit={(e) => { e.preventDefault(); void save(); }} noValidate aria-label={`${role === 'source' ? 'Source' : 'Destination'} settings`}>
      <Stack>
        <Text size="sm">
          How this formula {role === 'source' ? 'reads from' : 'writes to'} {end.displayName} ({systemLabel(end.system)}){end.object === '*' ? ', every file' : `, object ${end.object}`}.
        </Text>
        {submitted && !checked.success && (
          <Alert color="red" role="alert" title="Some settings need attention">
            <Text size="sm">Correct the fields marked below.</Text>
          </Alert>
        )}
        <SettingsFields
          schema={schema} values={values} errors={errors} disabled={!canEdit} idPrefix={`additional-${role}`}
          onChange={(key, value) => setValues((v) => ({ ...v, [key]: value }))}
          onBlur={(key) => setTouched((t) => new Set(t).add(key))}
        />
        <StepActions
          onBack={onBack}
          onSave={() => { if (canEdit) void save(); else props.onSaved(); }}
          saving={update.saving}
          label={canEdit ? 'Save and continue' : 'Next'}
        />
      </Stack>
      {update.dialog}
    </form>
  );
}
