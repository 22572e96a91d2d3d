/**
 * Add or edit a data source, in a drawer. The fields come from the system's catalogue schema; a
 * saved secret shows behind a shield and stays saved unless the user types a new one. A system
 * that signs in with OAuth shows whether it is connected and offers "Connect to <system>"; its
 * refresh token field is offered to Administrators only.
 */
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { Alert, Badge, Button, Drawer, Group, Loader, Modal, Paper, Select, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconPlugConnected } from '@tabler/icons-react';
import { connectorFor, SYSTEM_OPTIONS } from '../../domain/connectors/catalogue.ts';
import { fieldApplies, formFields } from '../../domain/connectors/fields.ts';
import { oauthVendorFor, tokenFields, usesOAuth } from '../../domain/connectors/oauth.ts';
import type { SystemId } from '../../domain/connectors/types.ts';
import type { connectionFormMachine } from '../../machines/connectionForm.ts';
import { SettingsFields } from '../../ui/SettingsFields.tsx';
import { ConnectionTestPanel } from './ConnectionTestControl.tsx';

export interface ConnectionFormProps {
  actor: ActorRefFrom<typeof connectionFormMachine>;
}

export function ConnectionForm({ actor }: ConnectionFormProps) {
  const state = useSelector(actor, (s) => s);
  const c = state.context;
  const def = c.system ? connectorFor(c.system) : null;
  const hidden = c.mayPasteTokens ? [] : tokenFields(c.system);
  const fields = def ? formFields(def.settings).filter((f) => fieldApplies(f, c.values) && !hidden.includes(f.key)) : [];
  const showError = (key: string) => (c.submitted || c.touched.includes(key) ? c.errors[key] : undefined);
  const connecting = state.matches('savingToConnect') || state.matches('authorizing') || state.matches('redirecting');
  const saving = state.matches('saving') || connecting;
  const oauth = def && usesOAuth(def.system, c.values) ? oauthVendorFor(def.system)! : null;
  const connected = !!oauth && (c.savedSecrets.includes(oauth.grantField) || !!c.values[oauth.grantField]);
  // a grant the vendor revoked reads as such until a Connect succeeds
  const reconnect = !!c.needsReconnecting && !c.outcome?.connected;
  const title = c.mode === 'create' ? 'Add data source' : `Edit ${c.displayName || 'data source'}`;

  return (
    <Drawer opened onClose={() => actor.send({ type: 'form.cancel' })} title={title} position="right" size="lg" closeButtonProps={{ 'aria-label': 'Close' }}>
      {(state.matches('loading') || state.matches('starting')) && <Group><Loader size="sm" /><Text>Loading the data source…</Text></Group>}
      {state.matches('loadFailed') && <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />}>{c.saveError}</Alert>}
      {(state.matches('editing') || state.matches('confirmingSave') || saving) && (
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
                schema={def.settings} values={c.values} savedSecrets={c.savedSecrets} disabled={saving} idPrefix="connection-settings" hidden={hidden}
                errors={Object.fromEntries(fields.map((f) => [f.key, showError(f.key)]))}
                onChange={(key, value) => actor.send({ type: 'field.change', key, value })}
                onBlur={(key) => actor.send({ type: 'field.blur', key })}
              />
            )}
            {c.saveError && <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title="Not saved">{c.saveError}</Alert>}
            {def && oauth && (
              <Paper withBorder p="sm" data-testid="oauth-connect">
                <Stack gap="xs">
                  <Group gap="xs">
                    <Text size="sm" fw={600}>Connection with {def.name}</Text>
                    {reconnect
                      ? <Badge color="red" variant="light">Needs reconnecting</Badge>
                      : connected ? <Badge color="green" variant="light">Connected</Badge> : <Badge color="gray" variant="light">Not connected</Badge>}
                  </Group>
                  {reconnect && <Text size="sm" c="red">{c.needsReconnecting}</Text>}
                  {c.outcome && (
                    c.outcome.connected
                      ? <Alert role="status" color="green" icon={<IconCircleCheck aria-hidden />}>{c.outcome.message}</Alert>
                      : <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title="Not connected">{c.outcome.message}</Alert>
                  )}
                  <Text size="xs" c="dimmed">
                    Connect saves this data source and takes you to {def.name}, where an administrator of your account gives Tributary access; you come back here.
                  </Text>
                  <Button
                    variant={connected && !reconnect ? 'default' : 'filled'} w="fit-content" leftSection={<IconPlugConnected size={16} aria-hidden />}
                    loading={connecting} disabled={saving && !connecting}
                    onClick={() => actor.send({ type: 'oauth.connect' })}
                  >
                    Connect to {def.name}
                  </Button>
                  {state.matches('redirecting') && <Text size="sm" role="status">Taking you to {def.name}…</Text>}
                </Stack>
              </Paper>
            )}
            {def && (
              <ConnectionTestPanel
                state={state.matches({ editing: 'testing' }) ? 'testing' : c.testResult ? 'success' : c.testFailure ? 'failure' : 'idle'}
                testing={state.matches({ editing: 'testing' })}
                result={c.testResult}
                failure={c.testFailure}
                disabled={saving}
                onTest={() => actor.send({ type: 'test.start' })}
                onDismiss={() => actor.send({ type: 'test.reset' })}
              />
            )}
            <Group justify="flex-end">
              <Button variant="default" onClick={() => actor.send({ type: 'form.cancel' })} disabled={saving}>Cancel</Button>
              <Button type="submit" loading={saving}>Save</Button>
            </Group>
          </Stack>
        </form>
      )}
      <Modal opened={state.matches('confirmingSave')} onClose={() => actor.send({ type: 'save.keepEditing' })} title="Save anyway?" centered>
        <Stack>
          <Text>The connection test failed. Save anyway?</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => actor.send({ type: 'save.keepEditing' })}>Keep editing</Button>
            <Button onClick={() => actor.send({ type: 'save.anyway' })}>Save anyway</Button>
          </Group>
        </Stack>
      </Modal>
    </Drawer>
  );
}
