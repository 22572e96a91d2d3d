/**
 * All Formulas (SPEC.md section 2): the tenant's formulas with their source, destination, status
 * and last edit; Edit opens the wizard at its review. 'Create a formula' makes a draft and opens
 * the wizard, for roles that may create formulas; 'Go to Connections' when the tenant has no data
 * source that can be a formula's source. The list's loading and the draft's creation are the
 * formula-list machine's (src/machines/formulaList.ts).
 */
import { useEffect, useRef } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Anchor, Badge, Button, Card, Group, Skeleton, Stack, Table, Text, Title, VisuallyHidden } from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import { connectorFor } from '../../domain/connectors/catalogue.ts';
import { formulaDisplayName } from '../../domain/formula/formula.ts';
import { can } from '../../domain/roles.ts';
import { ROUTES } from '../../domain/screens.ts';
import { formulaListMachine, hasSourceFor } from '../../machines/formulaList.ts';
import type { FormulaView } from '../../services/formulas.ts';
import { useAppActors } from '../shell/actors.tsx';
import { wizardSearch } from '../wizard/wizardSearch.ts';

const statusOf = (f: FormulaView) => (f.isDraft ? 'Draft' : f.status.charAt(0).toUpperCase() + f.status.slice(1));
/** An end in words, its object by its label; a file-upload formula reads every file uploaded for it, so its sample's id is no name for it. */
function endOf(end: FormulaView['sourceDataSource']): string {
  if (!end) return 'Not chosen yet';
  const object = end.system === 'file-upload' ? 'uploaded files'
    : connectorFor(end.system).objects.find((o) => o.name === end.object)?.label ?? (end.object === '*' ? 'all files' : end.object);
  return `${end.displayName} (${object})`;
}

export function FormulaList({ title, logic = formulaListMachine }: { title: string; logic?: typeof formulaListMachine }) {
  const { auth } = useAppActors();
  const policies = useSelector(auth, (s) => s.context.user?.policies ?? {});
  const mayCreate = can(policies, 'formula', 'create');
  const mayEdit = can(policies, 'formula', 'edit');
  const list = useActorRef(logic);
  const state = useSelector(list, (s) => s);
  const navigate = useNavigate();
  const location = useLocation();
  const wizardOpen = new URLSearchParams(location.search).has('wizardFormulaId');
  const { formulas, sources, created } = state.context;
  const ready = state.matches('ready') || state.matches('creating');
  const hasSource = ready && hasSourceFor(sources);

  // a new draft opens the wizard at its first step
  useEffect(() => {
    if (created) navigate({ pathname: location.pathname, search: wizardSearch(location.search, created.id, 'data-sources') });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [created]);
  // what the wizard changed shows once it closes
  const wasOpen = useRef(wizardOpen);
  useEffect(() => {
    if (wasOpen.current && !wizardOpen) list.send({ type: 'list.reload' });
    wasOpen.current = wizardOpen;
  }, [wizardOpen, list]);

  return (
    <Stack>
      <Group justify="space-between" wrap="wrap">
        <Title order={1}>{title}</Title>
        {mayCreate && hasSource && (
          <Button leftSection={<IconPlus size={16} aria-hidden />} loading={state.matches('creating')} onClick={() => list.send({ type: 'formula.create' })}>
            Create a formula
          </Button>
        )}
      </Group>
      {state.matches('loading') && <Stack aria-label="Loading formulas"><Skeleton h={36} /><Skeleton h={36} /><Skeleton h={36} /></Stack>}
      {state.matches('failed') && (
        <Alert color="red" role="alert" title="The formulas could not be loaded">
          <Button size="xs" mt="xs" onClick={() => list.send({ type: 'list.reload' })}>Try again</Button>
        </Alert>
      )}
      {ready && state.context.error && <Alert color="red" role="alert">{state.context.error}</Alert>}
      {ready && !hasSource && (
        <Card withBorder>
          <Text>A formula reads from a data source. {can(policies, 'datasource', 'create') ? 'Add one first.' : 'A colleague who manages connections adds one first.'}</Text>
          {can(policies, 'datasource', 'view') && <Button component={Link} to={ROUTES.connections} mt="sm" w="fit-content">Go to Connections</Button>}
        </Card>
      )}
      {ready && formulas.length === 0 && hasSource && (
        <Card withBorder>
          <Text c="dimmed">{mayCreate ? 'No formulas yet. Create one to start moving records.' : 'No formulas yet. A colleague whose role may create formulas starts them.'}</Text>
        </Card>
      )}
      {ready && formulas.length > 0 && (
        <Table.ScrollContainer minWidth={720}>
          <Table striped highlightOnHover aria-label="Formulas">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Name</Table.Th><Table.Th>Source</Table.Th><Table.Th>Destination</Table.Th><Table.Th>Status</Table.Th><Table.Th>Last edited</Table.Th><Table.Th><VisuallyHidden>Actions</VisuallyHidden></Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {formulas.map((f) => (
                <Table.Tr key={f.id}>
                  <Table.Td>{formulaDisplayName(f)}</Table.Td>
                  <Table.Td>{endOf(f.sourceDataSource)}</Table.Td>
                  <Table.Td>{endOf(f.firstDestinationDataSource)}</Table.Td>
                  <Table.Td>
                    <Group gap={4}>
                      <Badge variant="light" color={f.isDraft ? 'gray' : f.status === 'error' ? 'red' : 'green'}>{statusOf(f)}</Badge>
                      {f.needsReprocess && <Badge variant="light" color="orange">Needs reprocess</Badge>}
                    </Group>
                  </Table.Td>
                  <Table.Td>{new Date(f.modifiedOn).toLocaleString()}</Table.Td>
                  <Table.Td>
                    <Anchor component={Link} to={{ pathname: location.pathname, search: wizardSearch(location.search, f.id, 'review') }} aria-label={`${mayEdit ? 'Edit' : 'Open'} ${formulaDisplayName(f)}`}>
                      {mayEdit ? 'Edit' : 'Open'}
                    </Anchor>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}

export function AllFormulasPage() {
  return <FormulaList title="All Formulas" />;
}
