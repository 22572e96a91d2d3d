/**
 * Step 1, data sources: the formula's name, the data source it reads (a system that can be a
 * source) and the one it writes (a system that can be a destination). A new data source starts
 * with its first object, which the next step lets the user choose; a system whose settings in
 * that role cannot start from defaults asks for them here, since the server accepts no end
 * without them. Changing a data source of a formula with mapping, matching or routing asks first.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Alert, Button, Fieldset, NativeSelect, Stack, Text, TextInput } from '@mantine/core';
import * as v from 'valibot';
import { connectorFor } from '../../../domain/connectors/catalogue.ts';
import { validateSettings, type SettingsValues } from '../../../domain/connectors/fields.ts';
import type { DataSourceListItem } from '../../../domain/connectors/types.ts';
import { FormulaNameSchema, type UpdateFormula } from '../../../domain/formula/formula.ts';
import type { UploadSummary } from '../../../domain/upload.ts';
import { SettingsFields } from '../../../ui/SettingsFields.tsx';
import { StepActions, useWizardServices, type StepProps } from '../step.tsx';
import {
  AppLink, baseSettings, endOf, problemOf, ROLES, systemLabel, UploadSampleButton, useFormulaUpdate, useReportDirty, type Role,
} from './shared.tsx';

const ROLE_LABEL: Record<Role, string> = { source: 'Source', destination: 'Destination' };
export const NO_SOURCE_MESSAGE = 'No data source can be a source yet. Add one in Connections first.';
export const NO_UPLOAD_MESSAGE = 'No file has been uploaded yet. Upload a CSV or Excel file to use as the sample.';
export const UPLOADS_UNREADABLE_MESSAGE = 'The uploaded files could not be listed. Upload the file to use as the sample here.';

export function DataSourcesStep(props: StepProps) {
  const { formula, canEdit, onDirtyChange, onBack } = props;
  const services = useWizardServices();
  const update = useFormulaUpdate(props);
  const [dataSources, setDataSources] = useState<DataSourceListItem[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [name, setName] = useState(formula.name ?? '');
  const [chosen, setChosen] = useState<Record<Role, string>>({
    source: formula.sourceDataSource?.dataSourceId ?? '',
    destination: formula.firstDestinationDataSource?.dataSourceId ?? '',
  });
  // settings a newly chosen system needs before it can be saved in its role
  const [needed, setNeeded] = useState<Record<Role, SettingsValues>>({ source: {}, destination: {} });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [preparing, setPreparing] = useState(false);
  const [upload, setUpload] = useState<UploadSummary | null>(null);

  const load = useCallback(() => {
    setLoadError(null);
    services.integrations.list({ silent: true }).then(setDataSources, (err) => setLoadError(problemOf(err).detail ?? 'Try again.'));
  }, [services]);
  useEffect(load, [load]);

  const dirty = name !== (formula.name ?? '')
    || chosen.source !== (formula.sourceDataSource?.dataSourceId ?? '')
    || chosen.destination !== (formula.firstDestinationDataSource?.dataSourceId ?? '');
  useReportDirty(dirty, onDirtyChange);

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
    const schema = ds && connectorFor(ds.system).additionalSettings[role];
    if (!ds || !schema) return null;
    const start = baseSettings(ds.system, role, connectorFor(ds.system).objects[0]?.name ?? '');
    return validateSettings(schema, start).success ? null : { ds, schema, values: { ...start, ...needed[role] } };
  };

  /** The object a newly chosen data source starts with: its first standard object, else the first it lists. */
  async function firstObject(role: Role, ds: DataSourceListItem): Promise<string | null> {
    if (ds.system === 'file-upload' && upload) return upload.id;
    const standard = connectorFor(ds.system).objects[0]?.name;
    if (standard) return standard;
    try {
      const list = await services.integrations.objects(ds.id, { silent: true });
      const first = list.objects[0]?.name ?? null;
      if (!first) setErrors((e) => ({ ...e, [role]: ds.system === 'file-upload' ? NO_UPLOAD_MESSAGE : `${ds.displayName} lists no objects yet.` }));
      return first;
    } catch (err) {
      // without the list of uploads, a file uploaded here still gives the formula its sample
      const message = ds.system === 'file-upload' ? UPLOADS_UNREADABLE_MESSAGE : `The objects of ${ds.displayName} could not be read: ${problemOf(err).detail ?? 'try again.'}`;
      setErrors((e) => ({ ...e, [role]: message }));
      return null;
    }
  }

  async function save() {
    const found: Record<string, string> = {};
    const parsed = v.safeParse(FormulaNameSchema, name);
    if (!parsed.success) found.name = parsed.issues[0].message;
    for (const role of ROLES) if (!chosen[role]) found[role] = 'Choose a data source';
    setErrors(found);
    if (Object.keys(found).length || !parsed.success) return;

    const body: Partial<UpdateFormula> = { name: parsed.output };
    setPreparing(true);
    try {
      for (const role of ROLES) {
        const ds = changed(role);
        if (!ds) continue;
        const object = await firstObject(role, ds);
        if (!object) return;
        const schema = connectorFor(ds.system).additionalSettings[role];
        let settings = baseSettings(ds.system, role, object);
        if (schema) {
          const checked = validateSettings(schema, { ...settings, ...needed[role] });
          if (!checked.success) {
            setErrors((e) => ({ ...e, ...Object.fromEntries(Object.entries(checked.errors).map(([k, m]) => [`${role}.settings.${k}`, m])) }));
            return;
          }
          settings = checked.values;
        }
        body[role] = { dataSourceId: ds.id, object, settings };
        // a file-upload formula's sample is its upload
        if (role === 'source') body.sampleUploadId = ds.system === 'file-upload' ? object : null;
      }
    } finally {
      setPreparing(false);
    }
    await update.send(body);
  }

  const shown = { ...update.fieldErrors, ...errors };
  const sourceDs = byId(chosen.source);
  const noUpload = sourceDs?.system === 'file-upload' && (shown.source === NO_UPLOAD_MESSAGE || shown.source === UPLOADS_UNREADABLE_MESSAGE);

  if (loadError) {
    return (
      <Alert color="red" role="alert" title="The data sources could not be read">
        <Text size="sm">{loadError}</Text>
        <Button size="xs" mt="sm" onClick={load}>Try again</Button>
      </Alert>
    );
  }

  return (
    <form onSubmit={(e) => { e.preventDefault(); if (canEdit) void save(); else props.onSaved(); }} noValidate aria-label="Data sources">
      <Stack>
        <TextInput
          label="Formula name" required value={name} onChange={(e) => setName(e.currentTarget.value)}
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
                  setChosen((c) => ({ ...c, [role]: value }));
                  setErrors((x) => ({ ...x, [role]: '' }));
                }}
                error={shown[role] || undefined}
              />
              {need && (
                <Fieldset legend={`${need.ds.displayName} needs these settings as a ${role}`}>
                  <Text size="sm" c="dimmed" mb="xs">They can be changed later in the {role} settings step.</Text>
                  <SettingsFields
                    schema={need.schema} values={need.values} errors={roleErrors} disabled={!canEdit} idPrefix={`${role}-needed`}
                    onChange={(key, value) => setNeeded((n) => ({ ...n, [role]: { ...n[role], [key]: value } }))}
                  />
                </Fieldset>
              )}
            </Stack>
          );
        })}
        {noUpload && (
          <UploadSampleButton
            disabled={!canEdit}
            onUploaded={(u) => { setUpload(u); setErrors((x) => ({ ...x, source: '' })); }}
          />
        )}
        {upload && <Text size="sm" role="status">{upload.fileName} is uploaded; it becomes the formula's sample.</Text>}
        <StepActions
          onBack={onBack}
          onSave={() => { if (canEdit) void save(); else props.onSaved(); }}
          saving={update.saving || preparing}
          disabled={!dataSources}
          label={canEdit ? 'Save and continue' : 'Next'}
        />
      </Stack>
      {update.dialog}
    </form>
  );
}
