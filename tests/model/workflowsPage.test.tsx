/**
 * The Workflows screen (issue 7) in jsdom, with the real registry, graph code and ELK layout.
 *
 * 1. Every registered machine, and the viewer's own machines, is drawn: a test per machine
 *    renders the screen on it and checks each state and each transition label is drawn, that
 *    selecting a state (keyboard) lists its outgoing events, and that the paths panel lists the
 *    generated paths.
 * 2. Model-based tests of the workflows machine itself: paths from its graph, each state mapped
 *    to what the screen shows, each event to a user action or the answer of a fake actor.
 */
import fs from 'node:fs';
import path from 'node:path';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { afterEach, describe, expect, it } from 'vitest';
import { fromPromise, type SnapshotFrom } from 'xstate';
import type { LaidOutChart, Statechart } from '../../src/devtools/statechart.ts';
import { pathsOf, statechartOf } from '../../src/devtools/graph.ts';
import type { MachineEntry } from '../../src/devtools/machineList.ts';
import { registry } from '../../src/devtools/registry.ts';
import { workflowsMachine, type WorkflowsEvent } from '../../src/devtools/machines/workflows.ts';
import type { StatelyOutcome } from '../../src/devtools/inspection.ts';
import { layoutStatechart } from '../../src/devtools/layout.ts';
import { WorkflowsPage, stepText } from '../../src/devtools/views/WorkflowsPage.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';
import { VIEWER_MACHINES } from '../support/viewerMachines.ts';

afterEach(() => cleanup());

const diagram = (id: string) => screen.findByRole('group', { name: `Statechart of ${id}` }, { timeout: 10_000 });
const stateButton = (svg: HTMLElement, id: string) => svg.querySelector<SVGGElement>(`[data-state-id="${CSS.escape(id)}"]`);

function renderPage(props: Parameters<typeof WorkflowsPage>[0]) {
  const user = userEvent.setup({ delay: null });
  render(<MantineProvider><WorkflowsPage {...props} /></MantineProvider>);
  return user;
}

// ---------------------------------------------------------------------------------------------

describe('the registry', () => {
  it('holds every application machine of src/machines, helpers and the viewer\'s own machines excluded', () => {
    const ids = registry.map((m) => m.id);
    for (const id of ['auth', 'routeAccess', 'upload', 'connectionForm']) expect(ids).toContain(id);
    for (const id of ['workflows', 'inspectorReceiver']) expect(ids).not.toContain(id);
    expect(registry.map((m) => m.file)).not.toContain('session.ts');
    // every entry comes from a module of src/machines
    const files = fs.readdirSync(path.resolve(import.meta.dirname, '../../src/machines'));
    for (const entry of registry) expect(files, entry.id).toContain(entry.file);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

/** the application's machines, then the viewer's own: the screen draws whatever machines it is handed */
const DRAWN = [...registry, ...VIEWER_MACHINES];

describe('the Workflows screen draws every registered machine, and its own', () => {
  it('draws the viewer\'s own machines too', () => {
    expect(VIEWER_MACHINES.map((m) => m.id).sort()).toEqual(['inspectorReceiver', 'workflows']);
  });

  it.each(DRAWN.map((m) => [m.id, m] as const))('%s', async (id, entry) => {
    const chart = statechartOf(entry.machine);
    const paths = pathsOf(entry.machine);
    renderPage({ initialMachineId: id, machines: DRAWN });
    const svg = await diagram(id);

    // every state is drawn, as a focusable button named after it
    for (const node of chart.nodes) {
      const g = stateButton(svg, node.id);
      expect(g, node.id).not.toBeNull();
      expect(g!.getAttribute('tabindex')).toBe('0');
      expect(g!.getAttribute('aria-label')).toContain(`State ${node.key}`);
    }
    // every transition is drawn with its label ("event [guard]", "after 5m")
    const drawnLabels = [...svg.querySelectorAll('[data-edge] text')].map((t) => t.textContent);
    for (const edge of chart.edges) expect(drawnLabels, edge.label).toContain(edge.label);
    // nested states sit inside their parents
    const box = (nodeId: string) => {
      const r = stateButton(svg, nodeId)!.querySelector('rect')!;
      return { x: +r.getAttribute('x')!, y: +r.getAttribute('y')!, w: +r.getAttribute('width')!, h: +r.getAttribute('height')! };
    };
    for (const node of chart.nodes.filter((n) => n.parentId)) {
      const inner = box(node.id);
      const outer = box(node.parentId!);
      expect(inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.w <= outer.x + outer.w + 0.5 && inner.y + inner.h <= outer.y + outer.h + 0.5, node.id).toBe(true);
    }
    // each compound state marks its initial child
    for (const node of chart.nodes.filter((n) => n.initial)) expect(svg.querySelector(`[data-initial-of="${CSS.escape(node.id)}"]`), node.id).not.toBeNull();

    // selecting a state with the keyboard shows its outgoing events
    const source = chart.nodes.find((n) => chart.edges.some((e) => e.source === n.id && n.parentId)) ?? chart.nodes[0]!;
    const g = stateButton(svg, source.id)!;
    g.focus();
    fireEvent.keyDown(g, { key: 'Enter' });
    const details = await screen.findByLabelText('Selected state');
    expect(details.textContent).toContain(`State ${source.key}`);
    const listed = within(details).getByRole('list', { name: 'Outgoing events' }).textContent!;
    for (const edge of chart.edges.filter((e) => e.source === source.id)) expect(listed).toContain(edge.label);
    expect(g.getAttribute('aria-pressed')).toBe('true');

    // the paths panel lists the shortest paths @xstate/graph generates
    const panel = screen.getByLabelText('Paths');
    if (paths.error) {
      expect(panel.textContent).toContain(paths.error);
    } else {
      expect(within(panel).getByRole('tab', { name: `Shortest paths (${paths.shortest.length})` })).toBeTruthy();
      const items = within(within(panel).getByRole('list', { name: 'Shortest paths' })).getAllByRole('listitem');
      expect(items).toHaveLength(paths.shortest.length);
      const longest = paths.shortest.at(-1)!;
      expect(items.at(-1)!.textContent).toContain(longest.target);
      for (const step of longest.steps) expect(items.at(-1)!.textContent).toContain(stepText(step, statechartDelays(entry)));
      expect(within(panel).getByRole('tab', { name: `Simple paths (${paths.simple ? paths.simple.length : 'not listed'})` })).toBeTruthy();
    }
  });
});

function statechartDelays(entry: MachineEntry): Record<string, number | null> {
  const delays = (entry.machine.implementations?.delays ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(delays).map(([k, v]) => [k, typeof v === 'number' ? v : null]));
}

describe('the simple paths tab', () => {
  it('lists simple paths, or says why they are not listed', async () => {
    const user = renderPage({ initialMachineId: 'flags' });
    await diagram('flags');
    const panel = screen.getByLabelText('Paths');
    await user.click(within(panel).getByRole('tab', { name: /Simple paths/ }));
    const flags = pathsOf(registry.find((m) => m.id === 'flags')!.machine);
    expect(within(panel).getAllByRole('listitem')).toHaveLength(flags.simple!.length);

    cleanup();
    // the viewer's own machine is the one with more simple paths than are listed
    const user2 = renderPage({ initialMachineId: 'workflows', machines: DRAWN });
    await diagram('workflows');
    const panel2 = screen.getByLabelText('Paths');
    await user2.click(within(panel2).getByRole('tab', { name: /Simple paths/ }));
    expect(panel2.textContent).toContain('Simple paths are not listed: there are more than');
  });
});

// ---------------------------------------------------------------------------------------------
// Model-based tests of the workflows machine on the real screen.

/** two small machines, so that each path renders quickly */
const MACHINES = registry.filter((m) => m.id === 'connectionTest' || m.id === 'objectPicker');
const [FIRST, SECOND] = MACHINES as [MachineEntry, MachineEntry];
/** the state each machine's paths select */
const chartOf = (id: string | null) => statechartOf(MACHINES.find((m) => m.id === id)!.machine);
const selectableState = (id: string | null) => chartOf(id).nodes.find((n) => n.parentId && chartOf(id).edges.some((e) => e.source === n.id))!;

type Snapshot = SnapshotFrom<typeof workflowsMachine>;
type ModelEvent = WorkflowsEvent
  | { type: 'xstate.done.actor.layoutChart' } | { type: 'xstate.error.actor.layoutChart' }
  | { type: 'xstate.done.actor.startInspection' } | { type: 'xstate.error.actor.startInspection' }
  | { type: 'xstate.done.actor.stopInspection' }
  | { type: 'xstate.done.actor.connectStately'; output: StatelyOutcome };

const serializeState = (s: Snapshot) => JSON.stringify([s.value, s.context.selectedId, s.context.selectedState !== null, s.context.stately]);

const modelWith = (events: (s: Snapshot) => ModelEvent[]) => testModel<typeof workflowsMachine, ModelEvent>(workflowsMachine, {
  input: { machines: MACHINES },
  events,
  serializeState,
});

/** the diagram's events: pick the other machine, select and clear a state, and the layout's answers */
const diagramEvents = (s: Snapshot): ModelEvent[] => [
  { type: 'machine.select', id: s.context.selectedId === FIRST.id ? SECOND.id : FIRST.id },
  { type: 'state.select', id: selectableState(s.context.selectedId).id },
  { type: 'state.clear' },
  { type: 'xstate.done.actor.layoutChart' },
  { type: 'xstate.error.actor.layoutChart' },
];

/** the inspection switch's events (the diagram is only laid out) */
const inspectionEvents = (): ModelEvent[] => [
  { type: 'xstate.done.actor.layoutChart' },
  { type: 'inspect.enable' },
  { type: 'xstate.done.actor.startInspection' },
  { type: 'xstate.error.actor.startInspection' },
  { type: 'inspect.disable' },
  { type: 'xstate.done.actor.stopInspection' },
  { type: 'stately.open' },
  { type: 'xstate.done.actor.connectStately', output: 'connected' },
  { type: 'xstate.done.actor.connectStately', output: 'unreachable' },
  { type: 'xstate.done.actor.connectStately', output: 'blocked' },
];

function fakes() {
  return {
    layout: fakeCall<Statechart, LaidOutChart>('layoutChart'),
    start: fakeCall<unknown, void>('startInspection'),
    stop: fakeCall<unknown, void>('stopInspection'),
    stately: fakeCall<unknown, StatelyOutcome>('connectStately'),
  };
}
type Fakes = ReturnType<typeof fakes>;

const inspectSwitch = () => screen.getByRole('switch', { name: /^Inspect live/ }) as HTMLInputElement;
const STATELY_TEXT: Record<StatelyOutcome, string> = {
  connected: 'Reporting to Stately’s visualiser as well.',
  blocked: 'The browser blocked the popup',
  unreachable: 'Stately’s visualiser could not be reached. The local inspector receives the events.',
};

function pathParams(f: Fakes, user: ReturnType<typeof userEvent.setup>) {
  /** the layout the real ELK code gives the chart the machine asked for */
  const layOut = async (fake: FakeCall<Statechart, LaidOutChart>) => {
    const chart = await fake.called();
    await act(async () => fake.resolve(await layoutStatechart(chart)));
  };
  return {
    states: {
      'diagram.layingOut': async (s: Snapshot) => {
        await screen.findByText('Laying out the statechart…');
        expect(f.layout.calls.at(-1)!.id).toBe(s.context.selectedId);
        expect(screen.queryByRole('group', { name: /Statechart of/ })).toBeNull();
      },
      'diagram.ready': async (s: Snapshot) => {
        const svg = await diagram(s.context.selectedId!);
        const nav = screen.getByRole('navigation', { name: 'Machines' });
        expect(within(nav).getByRole('button', { current: true }).textContent).toContain(s.context.selectedId!);
        if (s.context.selectedState) {
          const details = screen.getByLabelText('Selected state');
          expect(details.textContent).toContain(`State ${selectableState(s.context.selectedId).key}`);
          expect(stateButton(svg, s.context.selectedState)!.getAttribute('aria-pressed')).toBe('true');
        } else {
          expect(screen.queryByLabelText('Selected state')).toBeNull();
          expect(screen.getByText(/Select a state/)).toBeTruthy();
        }
      },
      'diagram.failed': async () => {
        const alert = await screen.findByRole('alert');
        expect(alert.textContent).toContain('The statechart cannot be drawn');
      },
      'inspection.off': async () => {
        await waitFor(() => expect(inspectSwitch().checked).toBe(false));
        expect(inspectSwitch().disabled).toBe(false);
        expect(screen.queryByRole('button', { name: 'Open in Stately' })).toBeNull();
      },
      'inspection.starting': async () => {
        await waitFor(() => expect(inspectSwitch().checked).toBe(true));
        expect(inspectSwitch().disabled).toBe(true);
      },
      'inspection.on.local': async (s: Snapshot) => {
        await waitFor(() => expect(inspectSwitch().checked).toBe(true));
        expect(screen.getByRole('link', { name: 'Open the local inspector' }).getAttribute('href')).toBe('/workflows/inspector');
        expect(screen.getByRole('button', { name: 'Open in Stately' }).hasAttribute('disabled')).toBe(false);
        if (s.context.stately) expect(screen.getByRole('status').textContent).toContain(STATELY_TEXT[s.context.stately]);
        else expect(screen.queryByRole('status')).toBeNull();
      },
      'inspection.on.connecting': async () => {
        await waitFor(() => expect(screen.getByRole('button', { name: 'Open in Stately' }).getAttribute('data-loading')).toBe('true'));
      },
      'inspection.on.stately': async () => {
        await waitFor(() => expect(screen.getByRole('status').textContent).toContain(STATELY_TEXT.connected));
        expect(screen.getByRole('button', { name: 'Open in Stately' }).hasAttribute('disabled')).toBe(true);
      },
      'inspection.stopping': async () => {
        await waitFor(() => expect(inspectSwitch().checked).toBe(false));
        expect(inspectSwitch().disabled).toBe(true);
      },
    },
    events: {
      'machine.select': async ({ event }: { event: { type: string } }) => {
        const nav = screen.getByRole('navigation', { name: 'Machines' });
        await user.click(within(nav).getByRole('button', { name: new RegExp(`^${(event as unknown as { id: string }).id}`) }));
      },
      'state.select': async ({ event }: { event: { type: string } }) => {
        const svg = await diagram(registryIdOf(event));
        await user.click(stateButton(svg, (event as unknown as { id: string }).id)!);
      },
      'state.clear': async () => { await user.click(screen.getByRole('button', { name: 'Clear selection' })); },
      'xstate.done.actor.layoutChart': () => layOut(f.layout),
      'xstate.error.actor.layoutChart': ({ event }: { event: { type: string } }) => f.layout.answer({ ...event, error: new Error('ELK gave up') }),
      'inspect.enable': async () => { await user.click(inspectSwitch()); },
      'inspect.disable': async () => { await user.click(inspectSwitch()); },
      'xstate.done.actor.startInspection': ({ event }: { event: { type: string } }) => f.start.answer(event),
      'xstate.error.actor.startInspection': ({ event }: { event: { type: string } }) => f.start.answer({ ...event, error: new Error('no inspector') }),
      'xstate.done.actor.stopInspection': ({ event }: { event: { type: string } }) => f.stop.answer(event),
      'stately.open': async () => { await user.click(screen.getByRole('button', { name: 'Open in Stately' })); },
      'xstate.done.actor.connectStately': ({ event }: { event: { type: string } }) => f.stately.answer(event),
    },
  };
}

/** the machine a state.select event belongs to */
const registryIdOf = (event: { type: string }) => MACHINES.find((m) => statechartOf(m.machine).nodes.some((n) => n.id === (event as { id?: string }).id))!.id;

/** the screen on the two small machines, its actors fakes the path answers, inspection built in and off */
const view: ModelView<typeof workflowsMachine, { f: Fakes; user: ReturnType<typeof userEvent.setup> }> = {
  render(machine) {
    const f = fakes();
    const user = userEvent.setup({ delay: null });
    const provided = machine.provide({
      actors: { layoutChart: f.layout.logic, startInspection: f.start.logic, stopInspection: f.stop.logic, connectStately: f.stately.logic },
      guards: { isInspectionWanted: () => false, isInspectionUnavailable: () => false },
    });
    render(<MantineProvider><WorkflowsPage machine={provided} machines={MACHINES} /></MantineProvider>);
    return { f, user };
  },
  params: ({ f, user }) => pathParams(f, user),
};

/** a short name for a path: where it ends, and the events on the way */
const nameOf = (p: { state: unknown; steps: { event: { type: string } }[] }) =>
  `${serializeState(p.state as Snapshot)}: ${p.steps.map((s) => { const { type, ...rest } = s.event; return Object.keys(rest).length ? `${type} ${JSON.stringify(rest)}` : type; }).join(' → ')}`;

const diagramPaths = modelWith(diagramEvents).getShortestPaths();
const inspectionPaths = modelWith(() => inspectionEvents()).getShortestPaths();

describe('workflows machine: the diagram (shortest paths on the screen)', () => {
  it('reaches laying out, ready with and without a selected state for both machines, and failed', () => {
    const reached = reachedStates(diagramPaths, (s) => JSON.stringify([s.value.diagram, s.context.selectedId, s.context.selectedState !== null]));
    for (const id of [FIRST.id, SECOND.id]) {
      for (const expected of [['layingOut', id, false], ['ready', id, false], ['ready', id, true], ['failed', id, false]]) {
        expect(reached.has(JSON.stringify(expected)), JSON.stringify(expected)).toBe(true);
      }
    }
  });
  it.each(named(diagramPaths, nameOf))('%s', async (_d, path) => runPath(path, workflowsMachine, view));
});

describe('workflows machine: the inspection switch (shortest paths on the screen)', () => {
  it('reaches off, starting, on (local, connecting, Stately), stopping, and each Stately outcome', () => {
    const reached = reachedStates(inspectionPaths, (s) => JSON.stringify([s.value.inspection, s.context.stately]));
    for (const expected of [
      ['off', null], ['starting', null], [{ on: 'local' }, null], [{ on: 'connecting' }, null], [{ on: 'stately' }, 'connected'],
      [{ on: 'local' }, 'unreachable'], [{ on: 'local' }, 'blocked'], ['stopping', null],
    ]) expect(reached.has(JSON.stringify(expected)), JSON.stringify(expected)).toBe(true);
  });
  it.each(named(inspectionPaths, nameOf))('%s', async (_d, path) => runPath(path, workflowsMachine, view));
});

describe('workflows machine: download and the suite can fail', () => {
  it('downloads the selected machine\'s definition as JSON', async () => {
    const saved: string[] = [];
    const machine = workflowsMachine.provide({
      actors: { layoutChart: fromPromise(({ input }: { input: Statechart }) => layoutStatechart(input)) },
      actions: { downloadDefinition: ({ context }) => { saved.push(context.selectedId!); } },
      guards: { isInspectionWanted: () => false },
    });
    const user = userEvent.setup({ delay: null });
    render(<MantineProvider><WorkflowsPage machine={machine} machines={MACHINES} /></MantineProvider>);
    await diagram(FIRST.id);
    await user.click(screen.getByRole('button', { name: 'Download JSON' }));
    expect(saved).toEqual([FIRST.id]);
  });

  it('finds a machine whose state-selection guard is broken on purpose', async () => {
    const toSelected = diagramPaths.filter((p) => p.state.context.selectedState !== null);
    await expectBrokenGuardToFail(workflowsMachine, 'isStateOfChart', { paths: toSelected, view, every: true });
  });
});
