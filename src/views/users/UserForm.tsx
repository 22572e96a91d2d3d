/**
 * The add/edit user dialog: a thin view of the user-form machine (src/machines/userForm.ts). Per
 * tenant the caller manages: membership, roles, and an optional temporary-access expiry date.
 */
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { Alert, Button, Checkbox, Group, Modal, Stack, Text, TextInput } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { grantableRoles } from '../../domain/roles.ts';
import { membershipError, offeredRoles, type userFormMachine } from '../../machines/userForm.ts';

export function UserForm({ actor }: { actor: ActorRefFrom<typeof userFormMachine> }) {
  const state = useSelector(actor, (s) => s);
  const c = state.context;
  if (state.status === 'done') return null;
  const saving = state.matches('saving');
  const shown = (key: string) => (c.submitted ? c.errors[key] : undefined);
  const title = c.mode === 'create' ? 'Add user' : `Edit ${c.fullName.trim() || 'user'}`;
  const cancel = () => actor.send({ type: 'form.cancel' });

  return (
    <Modal opened onClose={cancel} title={title} size="lg" closeButtonProps={{ 'aria-label': 'Close' }} closeOnClickOutside={!saving} closeOnEscape={!saving}>
      <form noValidate aria-label={title} onSubmit={(e) => { e.preventDefault(); actor.send({ type: 'form.submit' }); }}>
        <Stack>
          <TextInput
            label="Full name" required value={c.fullName} disabled={saving} error={shown('fullName')} autoComplete="off"
            onChange={(e) => actor.send({ type: 'name.change', value: e.currentTarget.value })}
          />
          <TextInput
            label="E-mail" type="email" required value={c.email} disabled={saving} error={shown('email')} autoComplete="off"
            onChange={(e) => actor.send({ type: 'email.change', value: e.currentTarget.value })}
          />
          <fieldset style={{ border: 0, padding: 0, margin: 0 }} aria-describedby={shown('memberships') ? 'user-form-tenants-error' : undefined}>
            <Text component="legend" size="sm" fw={500}>Tenants</Text>
            {shown('memberships') && <Text id="user-form-tenants-error" size="sm" c="red.8" role="alert">{shown('memberships')}</Text>}
            <Stack gap="sm" mt="xs">
              {c.tenants.map((t) => {
                const m = c.memberships.find((x) => x.tenantId === t.tenantId);
                return (
                  <Stack key={t.tenantId} gap="xs" p="sm" style={{ border: '1px solid var(--mantine-color-default-border)', borderRadius: 'var(--mantine-radius-sm)' }}>
                    <Checkbox
                      label={`Member of ${t.name}`} checked={!!m} disabled={saving}
                      onChange={() => actor.send({ type: 'tenant.toggle', tenantId: t.tenantId })}
                    />
                    {m && (
                      <>
                        <Checkbox.Group
                          label={`Roles in ${t.name}`} required
                          description={`Other roles add up; View Only stands alone.${t.roles ? ` You can give the roles you hold here: ${grantableRoles(t.roles).join(', ') || 'none'}.` : ''}`}
                          value={m.roles} error={membershipError(c, t.tenantId, 'roles')}
                        >
                          <Group gap="sm" mt={4}>
                            {offeredRoles(t, c.loadedRoles[t.tenantId]).map((role) => (
                              <Checkbox
                                key={role} value={role} label={role} disabled={saving}
                                onChange={() => actor.send({ type: 'role.toggle', tenantId: t.tenantId, role })}
                              />
                            ))}
                          </Group>
                        </Checkbox.Group>
                        <TextInput
                          type="date" label={`Temporary access until (${t.name})`} description="Leave empty for access that does not end"
                          value={m.accessExpiresOn} disabled={saving} error={membershipError(c, t.tenantId, 'accessExpiresOn')}
                          onChange={(e) => actor.send({ type: 'expiry.change', tenantId: t.tenantId, value: e.currentTarget.value })}
                        />
                      </>
                    )}
                  </Stack>
                );
              })}
            </Stack>
          </fieldset>
          {state.matches('failed') && (
            <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title={c.saveError}>
              {c.saveDetail ?? 'Try again.'}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={cancel} disabled={saving}>Cancel</Button>
            <Button type="submit" loading={saving}>Save</Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
