/**
 * User Management (SPEC.md sections 2, 3, 5 and 6): the users of the active tenant, a page at a
 * time from the server, searched by name or e-mail; adding and editing users (the user-form
 * machine, src/machines/userForm.ts), deactivating, reactivating, deleting, removing from this
 * tenant or from all, and resetting passwords. A role that may see users but not change them
 * sees the list, and each action says it may not.
 */
import { useState, type FormEvent } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { Alert, Badge, Button, Card, Group, Menu, Modal, Stack, Table, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { IconDots, IconUserPlus } from '@tabler/icons-react';
import type { CurrentUser, UserListItem } from '../../domain/api/accountManagement.ts';
import { can, policiesFor } from '../../domain/roles.ts';
import type { userFormMachine } from '../../machines/userForm.ts';
import { CONFIRMED_ACTIONS, confirmationOf, userListMachine, type UserAction, type UserListInput } from '../../machines/userList.ts';
import { TableSkeleton } from '../../ui/Skeletons.tsx';
import { useAppActors } from '../shell/actors.tsx';
import { UserForm } from './UserForm.tsx';

const COLUMNS = ['Name', 'E-mail', 'Roles', 'Tenants', 'Status', 'Temporary access until', 'Actions'];

const dateOf = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString(undefined, { timeZone: 'UTC', dateStyle: 'medium' }) : null);

/** The list machine's input from the signed-in session: its organisation, tenant and policies. */
export function userListInput(user: CurrentUser | null, orgId: string | null): UserListInput {
  const activeTenantId = user?.activeTenantId ?? null;
  return {
    orgId: orgId ?? '',
    policies: user?.policies ?? {},
    activeTenantId,
    tenantName: user?.tenants.find((t) => t.tenantId === activeTenantId)?.name ?? 'this tenant',
    // the tenants where the caller may give access, with the caller's roles there: the form offers only these, and only the roles the caller may give
    tenants: (user?.tenants ?? []).filter((t) => can(policiesFor(t.roles), 'usermanagement', 'edit')).map((t) => ({ tenantId: t.tenantId, name: t.name, roles: t.roles })),
    me: user?.auth0Id,
  };
}

/** The route's element: the signed-in session's organisation and tenant. `logic` and `input` let a test give its own. */
export function UserManagementPage({ logic = userListMachine, input }: { logic?: typeof userListMachine; input?: Partial<UserListInput> } = {}) {
  const { auth } = useAppActors();
  const user = useSelector(auth, (s) => s.context.user);
  const orgId = useSelector(auth, (s) => s.context.orgId);
  const actor = useActorRef(logic, { input: { ...userListInput(user, orgId), ...input } });
  return <UserList actor={actor} />;
}

function UserList({ actor }: { actor: ActorRefFrom<typeof userListMachine> }) {
  const state = useSelector(actor, (s) => s);
  const c = state.context;
  const [draft, setDraft] = useState('');
  const form = state.children.userForm as ActorRefFrom<typeof userFormMachine> | undefined;
  const page = c.result;
  const shown = page && !state.matches('loading') && !state.matches('failed');
  const pages = page ? Math.max(1, Math.ceil(page.total / page.pageSize)) : 1;
  const busy = state.matches('acting');
  const pending = c.pending;
  const asking = pending && CONFIRMED_ACTIONS.includes(pending.action) ? confirmationOf(pending.action, pending.user, c.tenantName) : null;

  const search = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'search', q: draft });
  };
  const act = (action: UserAction, u: UserListItem) => actor.send({ type: 'user.act', action, user: u });

  return (
    <Stack>
      <Group justify="space-between" align="flex-end" wrap="wrap">
        <Stack gap={4}>
          <Title order={1}>User Management</Title>
          <Text c="dimmed" size="sm">Users of {c.tenantName}</Text>
        </Stack>
        <Button leftSection={<IconUserPlus size={16} aria-hidden />} onClick={() => actor.send({ type: 'user.add' })}>Add user</Button>
      </Group>

      <form role="search" aria-label="Search users" onSubmit={search}>
        <Group align="flex-end" wrap="wrap">
          <TextInput label="Search by name or e-mail" value={draft} onChange={(e) => setDraft(e.currentTarget.value)} maw={360} w="100%" />
          <Button type="submit" variant="default">Search</Button>
          {c.q && <Button variant="subtle" onClick={() => { setDraft(''); actor.send({ type: 'search', q: '' }); }}>Clear search</Button>}
        </Group>
      </form>

      {c.notice && (
        <Alert
          color={c.notice.tone === 'done' ? 'green' : c.notice.tone === 'failed' ? 'red' : 'orange'} title={c.notice.title}
          role={c.notice.tone === 'done' ? 'status' : 'alert'} withCloseButton closeButtonLabel="Dismiss" onClose={() => actor.send({ type: 'notice.dismiss' })}
        >
          {c.notice.text}
        </Alert>
      )}

      {state.matches('loading') && <TableSkeleton columns={COLUMNS} caption="Loading users" />}
      {state.matches('failed') && (
        <Alert color="red" role="alert" title="The users could not be loaded">
          <Button size="xs" mt="xs" onClick={() => actor.send({ type: 'list.reload' })}>Try again</Button>
        </Alert>
      )}
      {shown && page.users.length === 0 && (
        <Card withBorder>
          <Text c="dimmed">{c.q ? `No user's name or e-mail contains "${c.q}".` : `${c.tenantName} has no users yet.`}</Text>
        </Card>
      )}
      {shown && page.users.length > 0 && (
        <Table.ScrollContainer minWidth={900}>
          <Table striped aria-label="Users">
            <Table.Thead>
              <Table.Tr>{COLUMNS.map((col) => <Table.Th key={col}>{col === 'Actions' ? <VisuallyHidden>Actions</VisuallyHidden> : col}</Table.Th>)}</Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {page.users.map((u) => (
                <Table.Tr key={u.auth0Id}>
                  <Table.Td>
                    <Group gap={6} wrap="nowrap">
                      <Text size="sm" fw={500}>{u.fullName}</Text>
                      {u.internal && <Badge size="sm" variant="filled" color="grape.9">Internal</Badge>}
                    </Group>
                  </Table.Td>
                  <Table.Td><Text size="sm">{u.email}</Text></Table.Td>
                  <Table.Td><Text size="sm">{u.roles.length ? u.roles.join(', ') : 'No role'}</Text></Table.Td>
                  <Table.Td><Text size="sm">{u.tenants.map((t) => t.name).join(', ')}</Text></Table.Td>
                  <Table.Td>
                    <Badge size="sm" variant="filled" color={u.active ? 'teal.9' : 'gray.7'}>{u.active ? 'Active' : 'Deactivated'}</Badge>
                  </Table.Td>
                  <Table.Td><Text size="sm">{dateOf(u.accessExpiresOn) ?? 'No end'}</Text></Table.Td>
                  <Table.Td>
                    <Menu position="bottom-end" withinPortal>
                      <Menu.Target>
                        <Button variant="subtle" size="xs" aria-label={`Actions for ${u.fullName}`} disabled={busy}><IconDots size={16} aria-hidden /></Button>
                      </Menu.Target>
                      <Menu.Dropdown>
                        <Menu.Item onClick={() => actor.send({ type: 'user.edit', user: u })}>Edit</Menu.Item>
                        <Menu.Item onClick={() => act(u.active ? 'deactivate' : 'reactivate', u)}>{u.active ? 'Deactivate' : 'Reactivate'}</Menu.Item>
                        <Menu.Item onClick={() => act('resetPassword', u)}>Reset password</Menu.Item>
                        <Menu.Divider />
                        <Menu.Item onClick={() => act('removeHere', u)}>Remove from {c.tenantName}</Menu.Item>
                        <Menu.Item onClick={() => act('removeAll', u)}>Remove from all tenants</Menu.Item>
                        <Menu.Item color="red" onClick={() => act('delete', u)}>Delete</Menu.Item>
                      </Menu.Dropdown>
                    </Menu>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {shown && page.total > 0 && (
        <nav aria-label="Pages of users">
          <Group gap="sm" wrap="wrap">
            <Button variant="default" size="xs" disabled={page.page <= 1} onClick={() => actor.send({ type: 'page.go', page: page.page - 1 })}>Previous page</Button>
            <Text size="sm">Page {page.page} of {pages} ({page.total === 1 ? '1 user' : `${page.total} users`})</Text>
            <Button variant="default" size="xs" disabled={page.page >= pages} onClick={() => actor.send({ type: 'page.go', page: page.page + 1 })}>Next page</Button>
          </Group>
        </nav>
      )}

      {form && <UserForm actor={form} />}

      <Modal
        opened={(state.matches('confirming') || busy) && asking !== null}
        onClose={() => actor.send({ type: 'confirm.cancel' })} title={asking?.title ?? ''} centered closeButtonProps={{ 'aria-label': 'Close' }}
      >
        {asking && (
          <Stack>
            <Text size="sm">{asking.text}</Text>
            <Group justify="flex-end">
              <Button variant="default" onClick={() => actor.send({ type: 'confirm.cancel' })} disabled={busy}>Cancel</Button>
              <Button color="red" loading={busy} onClick={() => actor.send({ type: 'confirm' })}>{asking.button}</Button>
            </Group>
          </Stack>
        )}
      </Modal>
    </Stack>
  );
}
