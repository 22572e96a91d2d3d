/**
 * Add or edit a data source, in a drawer. The fields come from the system's catalogue schema; a
 * saved secret shows behind a shield and stays saved unless the user types a new one.
 */
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { Alert, Button, Drawer, Group, Loader, PasswordInput, Select, Stack, Text, Textarea, TextInput } from '@mantine/core';
import { IconAlertTriangle, IconShieldLock } from '@tabler/icons-react';
import { connectorFor, SYSTEM_OPTIONS } from '../../domain/connectors/catalogue.ts';
import { fieldApplies, formFields, type FieldMeta } from '../../domain/connectors/fields.ts';
import type { SystemId } from '../../domain/connectors/types.ts';
import type { connectionFormMachine } from '../../machines/connectionForm.ts';
import { settingsToSend } from '../../machines/connectionForm.ts';
import type { connectionTestMachine } from '../../machines/connectionTest.ts';
import { ConnectionTestControl } from './ConnectionTestControl.tsx';

const SAVED_PLACEHOLDER = 'Saved. Leave empty to keep it.';

export function SavedShield({ label }: { label: string }) {
  return <IconShieldLock size={16} aria-label={`${label} is saved`} role="img" data-testid="saved-secret-shield" />;
}

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

  const input = (f: FieldMeta) => {
    const saved = c.savedSecrets.includes(f.key);
    const common = {
      label: f.label,
      description: f.description,
      required: f.required && !f.requiredWhen ? true : undefined,
      value: c.values[f.key] ?? '',
      error: showError(f.key),
      disabled: saving,
      onChange: (e: { currentTarget: { value: string } }) => actor.send({ type: 'field.change', key: f.key, value: e.currentTarget.value }),
      onBlur: () => actor.send({ type: 'field.blur', key: f.key }),
      'data-field': f.key,
    };
    switch (f.kind) {
      case 'select':
        return (
          <Select
            key={f.key} label={f.label} description={f.description} required data={f.options ?? []} value={c.values[f.key] ?? null}
            allowDeselect={false} error={showError(f.key)} disabled={saving} data-field={f.key}
            onChange={(value) => value !== null && actor.send({ type: 'field.change', key: f.key, value })}
          />
        );
      case 'secret':
        return (
          <PasswordInput
            key={f.key} {...common} autoComplete="new-password"
            required={saved ? undefined : common.required}
            placeholder={saved ? SAVED_PLACEHOLDER : f.placeholder}
            leftSection={saved ? <SavedShield label={f.label} /> : undefined}
          />
        );
      case 'key':
        return (
          <Textarea
            key={f.key} {...common} autosize minRows={3} maxRows={10} spellCheck={false} ff="monospace"
            required={saved ? undefined : common.required}
            placeholder={saved ? SAVED_PLACEHOLDER : '-----BEGIN OPENSSH PRIVATE KEY-----'}
            leftSection={saved ? <SavedShield label={f.label} /> : undefined}
          />
        );
      default:
        return <TextInput key={f.key} {...common} type={f.kind === 'email' ? 'email' : f.kind === 'url' ? 'url' : 'text'} inputMode={f.kind === 'port' ? 'numeric' : undefined} placeholder={f.placeholder} />;
    }
  };

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
            {fields.map(input)}
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
