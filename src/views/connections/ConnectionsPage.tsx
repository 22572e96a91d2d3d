/**
 * Connections (SPEC.md section 2): the Data Sources list (display name, system, last modified),
 * add, edit, select and delete. The selected data source shows its connection test and its
 * objects; the test and a refresh of the objects are offered only with datasource edit, as are
 * importing constituents into a Sandbox CRM and emptying it. A thin renderer of the connections machine and the
 * machines it starts.
 */
import { useContext, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import {
  ActionIcon, Alert, Anchor, Badge, Button, Grid, Group, Loader, Modal, Paper, Stack, Table, Text, Title, Tooltip, VisuallyHidden,
} from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconDatabaseImport, IconDatabaseOff, IconDatabaseX, IconPencil, IconPlus, IconRefresh, IconTrash } from '@tabler/icons-react';
import { systemName } from '../../domain/connectors/catalogue.ts';
import { readConnectReturn, type ConnectReturn } from '../../domain/connectors/oauth.ts';
import { can, type Policies } from '../../domain/roles.ts';
import { connectionFormMachine } from '../../machines/connectionForm.ts';
import { connectionsMachine } from '../../machines/connections.ts';
import { connectionTestMachine } from '../../machines/connectionTest.ts';
import { objectPickerMachine } from '../../machines/objectPicker.ts';
import { sandboxEmptyMachine } from '../../machines/sandboxEmpty.ts';
import { sandboxImportMachine } from '../../machines/sandboxImport.ts';
import { ActorsContext, type AppActors } from '../shell/actors.tsx';
import { TableSkeleton } from '../../ui/Skeletons.tsx';
import { useReturnFocus } from '../../ui/useReturnFocus.ts';
import { ConnectionForm } from './ConnectionForm.tsx';
import { ConnectionTestControl } from './ConnectionTestControl.tsx';
import { ObjectPicker } from './ObjectPicker.tsx';
import { SandboxEmptyDialog } from './SandboxEmptyDialog.tsx';
import { SandboxImportDialog } from './SandboxImportDialog.tsx';

export interface ConnectionMachines {
  connections: typeof connectionsMachine;
  connectionTest: typeof connectionTestMachine;
  objectPicker: typeof objectPickerMachine;
  sandboxImport: typeof sandboxImportMachine;
  sandboxEmpty: typeof sandboxEmptyMachine;
}

export interface ConnectionsPageProps {
  /** the signed-in user's policies; by default read from the app shell's authentication actor */
  policies?: Policies;
  /** the machines to run; tests provide ones whose actors are fakes */
  machines?: Partial<ConnectionMachines>;
  /** a vendor's answer to Connect, brought back by the callback; by default read from the address */
  connectReturn?: ConnectReturn | null;
}

const DEFAULT_MACHINES: ConnectionMachines = {
  connections: connectionsMachine, connectionTest: connectionTestMachine, objectPicker: objectPickerMachine, sandboxImport: sandboxImportMachine,
  sandboxEmpty: sandboxEmptyMachine,
};
const NO_POLICIES: Policies = {};

const TABLE_COLUMNS = ['Display name', 'System', 'Last modified'];

const dateTime = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The page; inside the app shell it reads the policies of the signed-in user's active tenant, and starts afresh when the tenant changes. */
export function ConnectionsPage(props: ConnectionsPageProps) {
  const actors = useContext(ActorsContext);
  if (props.policies || !actors) return <ConnectionsScreen {...props} policies={props.policies ?? NO_POLICIES} />;
  return <WithShellUser auth={actors.auth} {...props} />;
}

function WithShellUser({ auth, ...props }: ConnectionsPageProps & { auth: AppActors['auth'] }) {
  const user = useSelector(auth, (s) => s.context.user);
  const [search, setSearch] = useSearchParams();
  // the vendor's answer is taken once and leaves the address at once (it holds a code); it is
  // completed once, by the screen of the signed-in user (a screen started again for another tenant does not repeat it)
  const [connectReturn, setConnectReturn] = useState(() => readConnectReturn(search));
  useEffect(() => { if (connectReturn) setSearch({}, { replace: true }); }, [connectReturn, setSearch]);
  useEffect(() => { if (user && connectReturn) setConnectReturn(null); }, [user, connectReturn]);
  return <ConnectionsScreen key={user?.activeTenantId ?? 'none'} {...props} connectReturn={user ? connectReturn : null} policies={(user?.policies ?? NO_POLICIES) as Policies} />;
}

function ConnectionsScreen({ policies: effective, machines = {}, connectReturn = null }: ConnectionsPageProps & { policies: Policies }) {
  const m = { ...DEFAULT_MACHINES, ...machines };
  const actor = useActorRef(m.connections, { input: { policies: effective, connectReturn } });
  const importActor = useActorRef(m.sandboxImport);
  const emptyActor = useActorRef(m.sandboxEmpty);
  const state = useSelector(actor, (s) => s);
  const { dataSources, selectedId, deleting, refusal, error, notice, connectFailure } = state.context;
  const formActor = state.children.connectionForm as ActorRefFrom<typeof connectionFormMachine> | undefined;
  const mayCreate = can(effective, 'datasource', 'create');
  const mayEdit = can(effective, 'datasource', 'edit');
  const mayDelete = can(effective, 'datasource', 'delete');
  const selected = dataSources.find((d) => d.id === selectedId) ?? null;
  const loading = state.matches('loading');
  useReturnFocus(formActor !== undefined);

  return (
    <Stack maw={1200} data-testid="connections-page" data-state={typeof state.value === 'string' ? state.value : JSON.stringify(state.value)}>
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1}>Connections</Title>
          <Text c="dimmed">The systems your formulas read from and send to.</Text>
        </div>
        {mayCreate && (
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => actor.send({ type: 'source.add' })} disabled={!state.matches('ready')}>
            Add data source
          </Button>
        )}
      </Group>

      {notice && (
        <Alert role="status" color="green" icon={<IconCircleCheck aria-hidden />} withCloseButton closeButtonLabel="Dismiss" onClose={() => actor.send({ type: 'notice.dismiss' })}>
          {notice}
        </Alert>
      )}
      {error && !state.matches('loadFailed') && <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />}>{error}</Alert>}
      {state.matches('completingConnect') && <Group><Loader size="sm" /><Text>Completing the connection…</Text></Group>}
      {connectFailure && <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title="Not connected">{connectFailure}</Alert>}

      <Group gap="xs">
        <Title order={2} size="h3">Data Sources</Title>
        {state.matches('ready') && (
          <Tooltip label="Reload the list">
            <ActionIcon variant="subtle" aria-label="Reload data sources" onClick={() => actor.send({ type: 'list.reload' })}>
              <IconRefresh size={18} aria-hidden />
            </ActionIcon>
          </Tooltip>
        )}
      </Group>

      {loading && dataSources.length === 0 && <TableSkeleton columns={TABLE_COLUMNS} caption="Loading data sources…" />}

      {state.matches('loadFailed') && (
        <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title="The data sources could not be loaded">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{error}</Text>
            <Button size="xs" variant="light" onClick={() => actor.send({ type: 'list.reload' })}>Try again</Button>
          </Stack>
        </Alert>
      )}

      {!loading && state.matches('ready') && dataSources.length === 0 && (
        <Paper withBorder p="xl" data-testid="connections-empty">
          <Stack align="center" gap="xs">
            <IconDatabaseOff size={40} stroke={1.5} aria-hidden />
            <Text fw={600}>No data sources yet</Text>
            <Text size="sm" c="dimmed" ta="center">
              {mayCreate
                ? 'Add the systems your formulas will read from and send to.'
                : 'A colleague whose role may manage connections adds the systems your formulas read from and send to.'}
            </Text>
            {mayCreate && <Button variant="light" onClick={() => actor.send({ type: 'source.add' })}>Add your first data source</Button>}
          </Stack>
        </Paper>
      )}

      {dataSources.length > 0 && (
        <Grid>
          <Grid.Col span={{ base: 12, md: selected ? 7 : 12 }}>
            {/* a narrow screen scrolls the table, not the page; positioned, so the visually hidden
                header stays inside it */}
            <Table.ScrollContainer minWidth={560} type="native" pos="relative">
              <Table highlightOnHover withTableBorder aria-label="Data Sources" aria-busy={loading}>
                <Table.Thead>
                  <Table.Tr>
                    {TABLE_COLUMNS.map((c) => <Table.Th key={c}>{c}</Table.Th>)}
                    <Table.Th><VisuallyHidden>Actions</VisuallyHidden></Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {dataSources.map((d) => {
                    const isSelected = d.id === selectedId;
                    return (
                      <Table.Tr key={d.id} aria-selected={isSelected} bg={isSelected ? 'var(--mantine-primary-color-light)' : undefined} data-testid={`data-source-${d.id}`}>
                        <Table.Td>
                          <Anchor component="button" type="button" fw={isSelected ? 700 : 500} onClick={() => actor.send({ type: 'source.select', id: d.id })}>
                            {d.displayName}
                          </Anchor>
                          {d.usedByCount > 0 && <Badge ml="xs" size="sm" variant="light">in use</Badge>}
                          {d.needsReconnecting && <Badge ml="xs" size="sm" color="red" variant="light">Needs reconnecting</Badge>}
                          {d.builtIn && <Badge ml="xs" size="sm" color="gray" variant="light">built in</Badge>}
                        </Table.Td>
                        <Table.Td>{systemName(d.system)}</Table.Td>
                        <Table.Td>
                          <Text size="sm">{dateTime(d.modifiedOn)}</Text>
                          {d.modifiedBy && <Text size="xs" c="dimmed">by {d.modifiedBy}</Text>}
                        </Table.Td>
                        <Table.Td>
                          <Group gap={4} justify="flex-end" wrap="nowrap">
                            {mayEdit && (
                              <Tooltip label="Edit">
                                <ActionIcon variant="subtle" aria-label={`Edit ${d.displayName}`} onClick={() => actor.send({ type: 'source.edit', id: d.id })} disabled={!state.matches('ready')}>
                                  <IconPencil size={18} aria-hidden />
                                </ActionIcon>
                              </Tooltip>
                            )}
                            {/* the organisation's own file upload source stays (the server refuses too) */}
                            {mayDelete && !d.builtIn && (
                              <Tooltip label="Delete">
                                <ActionIcon variant="subtle" color="red" aria-label={`Delete ${d.displayName}`} onClick={() => actor.send({ type: 'source.delete', id: d.id })} disabled={!state.matches('ready')}>
                                  <IconTrash size={18} aria-hidden />
                                </ActionIcon>
                              </Tooltip>
                            )}
                          </Group>
                        </Table.Td>
                      </Table.Tr>
                    );
                  })}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Grid.Col>
          {selected && (
            <Grid.Col span={{ base: 12, md: 5 }}>
              <Paper withBorder p="md" key={selected.id} aria-label={`${selected.displayName} details`} role="region">
                <Stack>
                  <div>
                    <Title order={3}>{selected.displayName}</Title>
                    <Text size="sm" c="dimmed">{systemName(selected.system)} · last modified {dateTime(selected.modifiedOn)}{selected.modifiedBy ? ` by ${selected.modifiedBy}` : ''}</Text>
                    {selected.usedByCount > 0 && <Text size="sm">Used by {selected.usedByCount} formula{selected.usedByCount === 1 ? '' : 's'}.</Text>}
                  </div>
                  {selected.needsReconnecting && (
                    <Alert color="red" icon={<IconAlertTriangle aria-hidden />} title="Needs reconnecting" data-testid="needs-reconnecting">
                      <Text size="sm">{selected.needsReconnecting.reason}</Text>
                      <Text size="xs" c="dimmed">Since {dateTime(selected.needsReconnecting.since)}. Runs of the formulas that use it stop with this reason until it is connected again.</Text>
                      {mayEdit
                        ? (
                          <Button mt="xs" size="xs" variant="light" leftSection={<IconPencil size={14} aria-hidden />} onClick={() => actor.send({ type: 'source.edit', id: selected.id })} disabled={!state.matches('ready')}>
                            Reconnect
                          </Button>
                        )
                        : <Text size="xs" mt="xs">A colleague whose role may edit connections can connect it again.</Text>}
                    </Alert>
                  )}
                  {/* both call the system with the saved credentials: the server refuses them without edit */}
                  {mayEdit && <ConnectionTestControl machine={m.connectionTest} target={() => ({ kind: 'saved', dataSourceId: selected.id })} />}
                  <ObjectPicker dataSourceId={selected.id} machine={m.objectPicker} mayRefresh={mayEdit} />
                  {mayEdit && selected.system === 'sandbox-crm' && (
                    <Group gap="xs">
                      <Button
                        variant="light"
                        leftSection={<IconDatabaseImport size={16} aria-hidden />}
                        onClick={() => importActor.send({ type: 'import.open', dataSourceId: selected.id, name: selected.displayName })}
                      >
                        Import constituents
                      </Button>
                      <Button
                        variant="light"
                        color="red"
                        leftSection={<IconDatabaseX size={16} aria-hidden />}
                        onClick={() => emptyActor.send({ type: 'empty.ask', dataSourceId: selected.id, name: selected.displayName })}
                      >
                        Empty Sandbox CRM
                      </Button>
                    </Group>
                  )}
                </Stack>
              </Paper>
            </Grid.Col>
          )}
        </Grid>
      )}

      {formActor && <ConnectionForm actor={formActor} />}
      <SandboxImportDialog actor={importActor} />
      <SandboxEmptyDialog actor={emptyActor} />

      <Modal
        opened={state.matches('confirmingDelete') || state.matches('deleting')}
        onClose={() => actor.send({ type: 'delete.cancel' })}
        title="Delete data source"
        centered
      >
        <Stack>
          <Text>Delete <b>{deleting?.displayName}</b>? Formulas can no longer use it, and its saved credentials are removed.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => actor.send({ type: 'delete.cancel' })} disabled={state.matches('deleting')}>Cancel</Button>
            <Button color="red" loading={state.matches('deleting')} onClick={() => actor.send({ type: 'delete.confirm' })}>Delete</Button>
          </Group>
        </Stack>
      </Modal>

      <Modal opened={state.matches('deleteRefused')} onClose={() => actor.send({ type: 'delete.dismiss' })} title="This data source cannot be deleted" centered>
        <Stack>
          <Alert role="alert" color="orange" icon={<IconAlertTriangle aria-hidden />}>{refusal}</Alert>
          <Group justify="flex-end"><Button onClick={() => actor.send({ type: 'delete.dismiss' })}>OK</Button></Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
