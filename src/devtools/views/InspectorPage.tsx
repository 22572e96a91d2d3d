/**
 * The local inspector, /workflows/inspector (issue 7): what running actors of this origin report
 * while live inspection is on, when Stately's visualiser cannot be reached. Lists each actor with
 * its current state, and the latest events. A thin renderer of the inspector-receiver machine.
 * Its own actor is created without inspection (its reports would come back to it).
 */
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { inspectorReceiverMachine } from '../machines/inspectorReceiver.ts';

export interface InspectorPageProps {
  /** the machine to run; tests provide one whose listener is a fake */
  machine?: typeof inspectorReceiverMachine;
}

const time = (at: number) => new Date(at).toLocaleTimeString(undefined, { hour12: false });

export function InspectorPage({ machine = inspectorReceiverMachine }: InspectorPageProps) {
  const actor = useActorRef(machine);
  const state = useSelector(actor, (s) => s);
  const { actors, events, error } = state.context;
  const paused = state.matches('paused');

  return (
    <Stack>
      <Title order={1}>Inspector</Title>
      <Text>
        Live inspection of this site’s open tabs. Switch “Inspect live” on in Workflows (or open the app
        with <code>?inspect</code>); each running actor and its events appear here.
      </Text>
      {state.matches('unsupported') && <Alert color="red" title="Cannot receive">{error}</Alert>}
      <Group>
        <Text role="status" fw={600}>{paused ? 'Paused' : state.matches('listening') ? 'Listening' : 'Not listening'}</Text>
        <Button size="xs" variant="default" disabled={state.matches('unsupported')}
          onClick={() => actor.send({ type: paused ? 'listening.resume' : 'listening.pause' })}>
          {paused ? 'Resume' : 'Pause'}
        </Button>
        <Button size="xs" variant="default" onClick={() => actor.send({ type: 'events.clear' })}>Clear</Button>
      </Group>

      <Title order={2} size="h4">Actors ({actors.length})</Title>
      {actors.length === 0 ? <Text c="dimmed">No actor has reported yet.</Text> : (
        <Table striped aria-label="Actors">
          <Table.Thead><Table.Tr><Table.Th>Actor</Table.Th><Table.Th>State</Table.Th><Table.Th>Status</Table.Th><Table.Th>Session</Table.Th></Table.Tr></Table.Thead>
          <Table.Tbody>
            {actors.map((a) => (
              <Table.Tr key={a.sessionId}>
                <Table.Td>{a.name}</Table.Td>
                <Table.Td ff="monospace">{a.state}</Table.Td>
                <Table.Td>{a.status}</Table.Td>
                <Table.Td ff="monospace" c="dimmed">{a.sessionId}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}

      <Title order={2} size="h4">Events ({events.length})</Title>
      {events.length === 0 ? <Text c="dimmed">No events yet.</Text> : (
        <Table striped aria-label="Events">
          <Table.Thead><Table.Tr><Table.Th>Time</Table.Th><Table.Th>Actor</Table.Th><Table.Th>What</Table.Th><Table.Th>Event</Table.Th><Table.Th>State after</Table.Th></Table.Tr></Table.Thead>
          <Table.Tbody>
            {events.map((e, i) => (
              <Table.Tr key={`${e.at}-${i}`}>
                <Table.Td>{time(e.at)}</Table.Td>
                <Table.Td>{e.actor}</Table.Td>
                <Table.Td>{e.kind}</Table.Td>
                <Table.Td ff="monospace">{e.event}</Table.Td>
                <Table.Td ff="monospace">{e.state ?? ''}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
