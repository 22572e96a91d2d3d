/**
 * Add or edit a data source, in a drawer. The fields come from the system's catalogue schema; a
 * saved secret shows behind a shield and stays saved unless the user types a new one.
 */
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { Alert, Button, Drawer, Group, Loader, Select, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { connectorFor, SYSTEM_OPTIONS } from '../../domain/connectors/catalogue.ts';
import { fieldApplies, formFields } from '../../domain/connectors/fields.ts';
import type { SystemId } from '../../domain/connectors/types.ts';
import type { connectionFormMachine } from '../../machines/connectionForm.ts';
import { settingsToSend } from '../../machines/connectionForm.ts';
import type { connectionTestMachine } from '../../machines/connectionTest.ts';
import { SettingsFields } from '../../ui/SettingsFields.tsx';
import { ConnectionTestControl } from './ConnectionTestControl.tsx';

export interface ConnectionFormProps {
  actor: ActorRefFrom<typeof connectionFormMachine>;
  testMachine?: typeof connectionTestMachine;
}

export function ConnectionForm({ actor, testMachine }: ConnectionFormProps) {
  const state = useSelector(actor, (s) => s);
  const c = state.context;
  const def = c.system ? connectorFor(c.system) : null;
  const fields = def ? formFields(def.settings).filter((f) => fieldApplies(f, c.values)) : [];
  const showError = (key: string) => (c.submitted || c.touched.includes(key) ? c.errors[key] : undefined);
  const saving = state.matches('saving');
  const title = c.mode === 'create' ? 'Add data source' : `Edit ${c.displayName || 'data source'}`;

  return (
    <Drawer opened onClose={() => actor.send({ type: 'form.cancel' })} title={title} position="right" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
      {(state.matches('loading') || state.matches('starting')) && <Group><Loader size="sm" /><Text>Loading the data source…</Text></Group>}
      {state.matches('loadFailed') && <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />}>{c.saveError}</Alert>}
      {(state.matches('editing') || saving) && (
        <form
          noValidate
          aria-label={title}
          onSubmit={(e) => { e.preventDefault(); actor.send({ type: 'form.submit' }); }}
        >
          <Stack>
            {c.mode === 'create'
              ? (
                <Select
                  label="System" required searchable data={SYSTEM_OPTIONS} value={c.system} allowDeselect={false}
                  placeholder="Choose the system to connect" error={c.submitted ? c.errors.system : undefined} disabled={saving}
                  onChange={(value) => value && actor.send({ type: 'system.select', system: value as SystemId })}
                  data-field="system"
                />
              )
              : <Text size="sm">System: <b>{def?.name}</b></Text>}
            <TextInput
              label="Display name" required value={c.displayName} disabled={saving} data-field="displayName"
              error={showError('displayName')}
              onChange={(e) => actor.send({ type: 'name.change', value: e.currentTarget.value })}
              onBlur={() => actor.send({ type: 'field.blur', key: 'displayName' })}
            />
            {def && fields.length === 0 && <Text size="sm" c="dimmed">{def.name} needs no credentials.</Text>}
            {def && (
              <SettingsFields
                schema={def.settings} values={c.values} savedSecrets={c.savedSecrets} disabled={saving} idPrefix="connection-settings"
                errors={Object.fromEntries(fields.map((f) => [f.key, showError(f.key)]))}
                onChange={(key, value) => actor.send({ type: 'field.change', key, value })}
                onBlur={(key) => actor.send({ type: 'field.blur', key })}
              />
            )}
            {c.saveError && <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title="Not saved">{c.saveError}</Alert>}
            {def && (
              <ConnectionTestControl
                machine={testMachine}
                disabled={saving}
                resetOn={JSON.stringify([c.system, c.values])}
                target={() => ({ kind: 'settings', system: def.system, settings: settingsToSend(def.system, c.values), ...(c.dataSourceId ? { dataSourceId: c.dataSourceId } : {}) })}
              />
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => actor.send({ type: 'form.cancel' })} disabled={saving}>Cancel</Button>
              <Button type="submit" loading={saving}>Save</Button>
            </Group>
          </Stack>
        </form>
      )}
    </Drawer>
  );
}
