/**
 * The Workflows screen (issue 7): every machine of the registry, the selected one drawn as a
 * statechart, the outgoing events of the selected state, the paths @xstate/graph generates, the
 * definition as JSON for Stately Studio, and the "Inspect live" switch. A thin renderer of the
 * workflows machine (src/devtools/machines/workflows.ts). Available in non-production builds, and to
 * Administrators in production (the route decides).
 */
import { useActorRef, useSelector } from '@xstate/react';
import {
  Alert, Anchor, Badge, Button, Flex, Group, List, NavLink, Paper, ScrollArea, Stack, Switch, Tabs, Text, Title,
} from '@mantine/core';
import { IconDownload, IconExternalLink } from '@tabler/icons-react';
import { ancestry, eventName, outgoing, type Statechart } from '../statechart.ts';
import { sizeOf, type PathStep, type PathSummary } from '../graph.ts';
import type { MachineEntry } from '../machineList.ts';
import { registry } from '../registry.ts';
import { workflowsMachine } from '../machines/workflows.ts';
import { StatechartDiagram } from './StatechartDiagram.tsx';

export const INSPECTOR_PATH = '/workflows/inspector';

export interface WorkflowsPageProps {
  /** the machines to list (the registry by default) */
  machines?: MachineEntry[];
  /** the machine to run; tests provide one whose actors are fakes */
  machine?: typeof workflowsMachine;
  /** the machine shown first */
  initialMachineId?: string;
}

export function stepText(step: PathStep, delays: Record<string, number | null>): string {
  return `${eventName(step.type, delays)}${step.guard ? ` [${step.guard}]` : ''}`;
}

function PathList({ paths, delays, label }: { paths: PathSummary[]; delays: Record<string, number | null>; label: string }) {
  if (!paths.length) return <Text c="dimmed">No paths.</Text>;
  return (
    // long state and event names break anywhere rather than widen a phone's page
    <List type="ordered" size="sm" spacing={4} aria-label={label} style={{ overflowWrap: 'anywhere' }}>
      {paths.map((p, i) => (
        <List.Item key={i}>
          <Text span fw={600}>{p.target}</Text>
          {': '}
          <Text span ff="monospace" size="sm">{p.steps.length ? p.steps.map((s) => stepText(s, delays)).join(' → ') : '(initial state)'}</Text>
        </List.Item>
      ))}
    </List>
  );
}

function StateDetails({ chart, stateId, onClear }: { chart: Statechart; stateId: string; onClear(): void }) {
  const byId = new Map(chart.nodes.map((n) => [n.id, n]));
  const node = byId.get(stateId);
  if (!node) return null;
  const own = outgoing(chart, stateId);
  const inherited = ancestry(chart, stateId).slice(0, -1).reverse()
    .map((id) => ({ id, ...outgoing(chart, id) }))
    .filter((a) => a.edges.length || a.internal.length);
  const targetName = (id: string) => byId.get(id)?.key ?? id;
  const nothing = !own.edges.length && !own.internal.length;
  return (
    <Paper withBorder p="sm" aria-label="Selected state">
      <Group justify="space-between" wrap="nowrap">
        <Title order={3} size="h5">State {node.key}</Title>
        <Button size="compact-xs" variant="subtle" onClick={onClear}>Clear selection</Button>
      </Group>
      <Text size="xs" c="dimmed" ff="monospace">#{node.id}{node.kind !== 'atomic' ? ` · ${node.kind}` : ''}{node.invokes.length ? ` · invokes ${node.invokes.join(', ')}` : ''}</Text>
      <Text size="sm" fw={600} mt="xs">Outgoing events</Text>
      {nothing && <Text size="sm" c="dimmed">No events leave this state itself.</Text>}
      <List size="sm" spacing={2} aria-label="Outgoing events">
        {own.edges.map((e) => (
          <List.Item key={e.id}><Text span ff="monospace" size="sm">{e.label}</Text> → {targetName(e.target)}</List.Item>
        ))}
        {own.internal.map((label, i) => (
          <List.Item key={`internal-${i}`}><Text span ff="monospace" size="sm">{label}</Text> (stays)</List.Item>
        ))}
      </List>
      {inherited.map((a) => (
        <Stack key={a.id} gap={2} mt="xs">
          <Text size="xs" c="dimmed">Also handled by the enclosing state {targetName(a.id)}:</Text>
          <List size="sm" spacing={2}>
            {a.edges.map((e) => <List.Item key={e.id}><Text span ff="monospace" size="sm">{e.label}</Text> → {targetName(e.target)}</List.Item>)}
            {a.internal.map((label, i) => <List.Item key={`i-${i}`}><Text span ff="monospace" size="sm">{label}</Text> (stays)</List.Item>)}
          </List>
        </Stack>
      ))}
    </Paper>
  );
}

const STATELY_TEXT = {
  connected: 'Reporting to Stately’s visualiser as well.',
  blocked: 'The browser blocked the popup for Stately’s visualiser. Allow popups for this site and try again.',
  unreachable: 'Stately’s visualiser could not be reached. The local inspector receives the events.',
} as const;

export function WorkflowsPage({ machines = registry, machine = workflowsMachine, initialMachineId }: WorkflowsPageProps) {
  const actor = useActorRef(machine, { input: { machines, selectedId: initialMachineId ?? null } });
  const state = useSelector(actor, (s) => s);
  const { chart, paths, layout, selectedState, selectedId, error, delays, stately } = state.context;
  const inspectionOn = state.matches({ inspection: 'on' }) || state.matches({ inspection: 'starting' });
  const unavailable = state.matches({ inspection: 'unavailable' });
  const connecting = state.matches({ inspection: { on: 'connecting' } });
  const size = chart ? sizeOf(chart) : null;

  return (
    <Stack>
      <Title order={1}>Workflows</Title>
      <Text>
        Every workflow of the app is a statechart. Pick one to see its states and transitions, select a state
        for its outgoing events, and read the paths the model-based tests walk.
      </Text>

      {state.matches({ diagram: 'empty' }) && <Alert color="gray">No machines are registered.</Alert>}

      {/* side by side where there is room; on a phone the list of machines comes first */}
      <Flex direction={{ base: 'column', sm: 'row' }} align={{ base: 'stretch', sm: 'flex-start' }} gap="lg">
        <Paper withBorder p={4} miw={220} component="nav" aria-label="Machines">
          {machines.map((m) => (
            <NavLink
              key={`${m.file}:${m.exportName}`}
              component="button"
              label={m.id}
              description={m.file}
              active={m.id === selectedId}
              aria-current={m.id === selectedId ? 'true' : undefined}
              onClick={() => actor.send({ type: 'machine.select', id: m.id })}
            />
          ))}
        </Paper>

        <Stack style={{ flex: 1, minWidth: 0 }}>
          {chart && (
            <Group justify="space-between" align="center">
              <Group gap="xs">
                <Title order={2} size="h3">{chart.id}</Title>
                {size && <Badge variant="light">{size.states} states</Badge>}
                {size && <Badge variant="light">{size.transitions} transitions</Badge>}
              </Group>
              <Button
                variant="default" leftSection={<IconDownload size={16} />}
                onClick={() => actor.send({ type: 'definition.download' })}
              >
                Download JSON
              </Button>
            </Group>
          )}

          <Paper withBorder p="sm">
            <Group justify="space-between">
              <Switch
                label="Inspect live"
                description={unavailable
                  ? 'Live inspection is not part of this build (build with VITE_INSPECT=1).'
                  : 'Running actors report to the local inspector, and to Stately’s visualiser when it can be reached.'}
                checked={inspectionOn}
                disabled={unavailable || state.matches({ inspection: 'starting' }) || state.matches({ inspection: 'stopping' })}
                onChange={(e) => actor.send({ type: e.currentTarget.checked ? 'inspect.enable' : 'inspect.disable' })}
              />
              {state.matches({ inspection: 'on' }) && (
                <Group gap="xs">
                  <Anchor href={INSPECTOR_PATH} target="_blank" rel="noopener">Open the local inspector</Anchor>
                  <Button
                    size="xs" variant="light" rightSection={<IconExternalLink size={14} />}
                    loading={connecting}
                    disabled={state.matches({ inspection: { on: 'stately' } })}
                    onClick={() => actor.send({ type: 'stately.open' })}
                  >
                    Open in Stately
                  </Button>
                </Group>
              )}
            </Group>
            {stately && <Text size="sm" mt="xs" role="status">{STATELY_TEXT[stately]}</Text>}
          </Paper>

          {state.matches({ diagram: 'layingOut' }) && <Text c="dimmed">Laying out the statechart…</Text>}
          {error && <Alert color="red" title="The statechart cannot be drawn">{error}</Alert>}

          {layout && chart && (
            <ScrollArea type="auto" offsetScrollbars style={{ border: '1px solid var(--mantine-color-gray-3)', borderRadius: 4 }}>
              <StatechartDiagram
                layout={layout}
                machineId={chart.id}
                selectedState={selectedState}
                onSelectState={(id) => actor.send({ type: 'state.select', id })}
              />
            </ScrollArea>
          )}

          <Group align="flex-start" grow>
            {chart && (selectedState
              ? <StateDetails chart={chart} stateId={selectedState} onClear={() => actor.send({ type: 'state.clear' })} />
              : <Paper withBorder p="sm"><Text size="sm" c="dimmed">Select a state (click it, or focus it and press Enter) to see its outgoing events.</Text></Paper>)}

            {paths && (
              <Paper withBorder p="sm" aria-label="Paths">
                <Title order={3} size="h5">Paths</Title>
                <Text size="xs" c="dimmed">
                  Generated by @xstate/graph as the model-based tests use them; {paths.reachableStates} reachable
                  configurations, {paths.reachableTransitions} transitions between them. A step written
                  “event [guard]” is the event when that guard holds.
                </Text>
                {paths.error ? <Alert color="yellow" mt="xs">{paths.error}</Alert> : (
                  <Tabs defaultValue="shortest" mt="xs" keepMounted={false}>
                    <Tabs.List>
                      <Tabs.Tab value="shortest">Shortest paths ({paths.shortest.length})</Tabs.Tab>
                      <Tabs.Tab value="simple">Simple paths ({paths.simple ? paths.simple.length : 'not listed'})</Tabs.Tab>
                    </Tabs.List>
                    <Tabs.Panel value="shortest" pt="xs">
                      <PathList paths={paths.shortest} delays={delays} label="Shortest paths" />
                    </Tabs.Panel>
                    <Tabs.Panel value="simple" pt="xs">
                      {paths.simple
                        ? <PathList paths={paths.simple} delays={delays} label="Simple paths" />
                        : <Alert color="yellow">{paths.simpleSkipped}</Alert>}
                    </Tabs.Panel>
                  </Tabs>
                )}
              </Paper>
            )}
          </Group>
        </Stack>
      </Flex>
    </Stack>
  );
}
