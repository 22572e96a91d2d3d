/**
 * Step 1, data sources: the formula's name, the data source it reads (a system that can be a
 * source) and the one it writes (a system that can be a destination). A new data source starts
 * with its first object, which the next step lets the user choose; a system whose settings in
 * that role cannot start from defaults asks for them here, since the server accepts no end
 * without them. Changing a data source of a formula with mapping, matching or routing asks first.
 */
import { useMemo, useState } from 'react';
import { useSelector } from '@xstate/react';
import { Alert, Button, Fieldset, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import { connectorFor } from '../../../domain/connectors/catalogue.ts';
import { validateSettings, type SettingsValues } from '../../../domain/connectors/fields.ts';
import { additionalSettingsFor, type DataSourceListItem } from '../../../domain/connectors/types.ts';
import type { UploadSummary } from '../../../domain/upload.ts';
import type { StepEditorRef } from '../../../machines/stepEditor.ts';
import { NO_UPLOAD_MESSAGE, UPLOADS_UNREADABLE_MESSAGE, type DataSourcesDraft } from '../../../machines/wizardSteps.ts';
import { SettingsFields } from '../../../ui/SettingsFields.tsx';
import { StepActions, useStepAnnouncements, type StepProps } from '../step.tsx';
import { AppLink, baseSettings, endOf, ROLES, systemLabel, UploadSampleButton, WipeConfirmation, type Role } from './shared.tsx';

export { NO_UPLOAD_MESSAGE, UPLOADS_UNREADABLE_MESSAGE };

const ROLE_LABEL: Record<Role, string> = { source: 'Source', destination: 'Destination' };
export const NO_SOURCE_MESSAGE = 'No data source can be a source yet. Add one in Connections first.';

/** The form's own state: what is typed and chosen, and a file uploaded here. */
interface Form {
  name: string;
  chosen: Record<Role, string>;
  // settings a newly chosen system needs before it can be saved in its role
  needed: Record<Role, SettingsValues>;
  upload: UploadSummary | null;
}

/** The draft a form stands for: settings and an upload count only for a role whose data source changed. */
function draftOf(formula: StepProps['formula'], form: Form): DataSourcesDraft {
  const draft: DataSourcesDraft = { name: form.name, source: form.chosen.source, destination: form.chosen.destination };
  const changed = ROLES.filter((role) => form.chosen[role] && form.chosen[role] !== (endOf(formula, role)?.dataSourceId ?? ''));
  const needed = Object.fromEntries(changed.filter((role) => Object.keys(form.needed[role]).length).map((role) => [role, form.needed[role]]));
  if (Object.keys(needed).length) draft.needed = needed;
  if (form.upload && changed.includes('source')) draft.uploadId = form.upload.id;
  return draft;
}

export function DataSourcesStep(props: StepProps) {
  return props.editor ? <DataSourcesEditor {...props} editor={props.editor} /> : null;
}

/** The data sources as the step editor reads them, the form, and the confirmation a wiping change needs. */
function DataSourcesEditor(props: StepProps & { editor: StepEditorRef }) {
  const { formula, canEdit, onBack, editor } = props;
  useStepAnnouncements(editor);
  const dataSources = useSelector(editor, (s) => (s.context.data as DataSourceListItem[] | undefined) ?? null);
  const loadError = useSelector(editor, (s) => (s.matches('failed') && s.context.data === undefined ? s.context.error : null));
  const saving = useSelector(editor, (s) => s.matches('saving'));
  const fieldErrors = useSelector(editor, (s) => s.context.fieldErrors);
  const wipes = useSelector(editor, (s) => (s.matches('confirmingWipe') ? s.context.wipes : null));
  const [form, setForm] = useState<Form>(() => ({
    name: formula.name ?? '',
    chosen: { source: formula.sourceDataSource?.dataSourceId ?? '', destination: formula.firstDestinationDataSource?.dataSourceId ?? '' },
    needed: { source: {}, destination: {} },
    upload: null,
  }));
  // messages the user has since dealt with (a data source chosen again, a file uploaded), until the next save
  const [cleared, setCleared] = useState<Record<string, string>>({});
  const { name, chosen, needed, upload } = form;

  /** each change of the form is the editor's draft */
  const change = (patch: Partial<Form>) => {
    const next = { ...form, ...patch };
    setForm(next);
    editor.send({ type: 'draft.change', draft: draftOf(formula, next) });
  };
  const save = () => {
    if (!canEdit) { props.onSaved(); return; }
    setCleared({});
    editor.send({ type: 'step.save' });
  };

  const options = useMemo(() => Object.fromEntries(ROLES.map((role) => [role,
    (dataSources ?? []).filter((d) => connectorFor(d.system).roles[role]).map((d) => ({ value: d.id, label: `${d.displayName} (${systemLabel(d.system)})` })),
  ])) as Record<Role, { value: string; label: string }[]>, [dataSources]);

  const byId = (id: string) => dataSources?.find((d) => d.id === id);
  /** the data source chosen for a role, when it differs from the saved one */
  const changed = (role: Role) => {
    const ds = byId(chosen[role]);
    return ds && ds.id !== endOf(formula, role)?.dataSourceId ? ds : undefined;
  };
  /** a changed data source whose settings in this role cannot start from their defaults */
  const needsSettings = (role: Role) => {
    const ds = changed(role);
    const object = ds ? connectorFor(ds.system).objects[0]?.name ?? '' : '';
    const schema = ds && additionalSettingsFor(connectorFor(ds.system), role, object);
    if (!ds || !schema) return null;
    const start = baseSettings(ds.system, role, object);
    return validateSettings(schema, start).success ? null : { ds, schema, values: { ...start, ...needed[role] } };
  };

  const shown = { ...fieldErrors, ...cleared };
  const sourceDs = byId(chosen.source);
  const noUpload = sourceDs?.system === 'file-upload' && (shown.source === NO_UPLOAD_MESSAGE || shown.source === UPLOADS_UNREADABLE_MESSAGE);

  if (loadError) {
    return (
      <Alert color="red" role="alert" title="The data sources could not be read">
        <Text size="sm">{loadError}</Text>
        <Button size="xs" mt="sm" onClick={() => editor.send({ type: 'retry' })}>Try again</Button>
      </Alert>
    );
  }

  return (
    <form onSubmit={(e) => { e.preventDefault(); save(); }} noValidate aria-label="Data sources">
      <Stack>
        <TextInput
          label="Formula name" required value={name} onChange={(e) => change({ name: e.currentTarget.value })}
          error={shown.name} disabled={!canEdit} maxLength={200} description="Shown on the formula's card and in the activity history."
        />
        {dataSources && options.source.length === 0 && (
          <Alert color="yellow" role="status" title="No source yet">
            <Text size="sm">{NO_SOURCE_MESSAGE}</Text>
            <AppLink to="/connections">Go to Connections</AppLink>
          </Alert>
        )}
        {ROLES.map((role) => {
          const need = needsSettings(role);
          const roleErrors = Object.fromEntries(Object.entries(shown).filter(([k]) => k.startsWith(`${role}.settings.`)).map(([k, m]) => [k.slice(`${role}.settings.`.length), m]));
          return (
            <Stack key={role} gap="xs">
              <NativeSelect
                label={ROLE_LABEL[role]} required disabled={!canEdit || !dataSources}
                description={role === 'source' ? 'Where the records come from.' : 'Where the records go.'}
                data={[{ value: '', label: dataSources ? 'Choose a data source' : 'Loading data sources…', disabled: true }, ...options[role]]}
                value={chosen[role]}
                onChange={(e) => {
                  const value = e.currentTarget.value;
                  change({ chosen: { ...chosen, [role]: value } });
                  setCleared((x) => ({ ...x, [role]: '' }));
                }}
                error={shown[role] || undefined}
              />
              {need && (
                <Fieldset legend={`${need.ds.displayName} needs these settings as a ${role}`}>
                  <Text size="sm" c="dimmed" mb="xs">They can be changed later in the {role} settings step.</Text>
                  <SettingsFields
                    schema={need.schema} values={need.values} errors={roleErrors} disabled={!canEdit} idPrefix={`${role}-needed`}
                    onChange={(key, value) => change({ needed: { ...needed, [role]: { ...needed[role], [key]: value } } })}
                  />
                </Fieldset>
              )}
            </Stack>
          );
        })}
        {noUpload && (
          <UploadSampleButton
            disabled={!canEdit}
            onUploaded={(u) => { change({ upload: u }); setCleared((x) => ({ ...x, source: '' })); }}
          />
        )}
        {upload && <Text size="sm" role="status">{upload.fileName} is uploaded; it becomes the formula's sample.</Text>}
        <StepActions
          onBack={onBack}
          onSave={save}
          saving={saving}
          disabled={!dataSources}
          label={canEdit ? 'Save and continue' : 'Next'}
        />
      </Stack>
      <WipeConfirmation wipes={wipes} onConfirm={() => editor.send({ type: 'wipe.confirm' })} onCancel={() => editor.send({ type: 'wipe.cancel' })} />
    </form>
  );
}
