/**
 * The Workflows screen (issue 7) in jsdom, with the real registry, graph code and ELK layout.
 *
 * 1. Every registered machine is drawn: a test per registry entry renders the screen on it and
 *    checks each state and each transition label is drawn, that selecting a state (keyboard)
 *    lists its outgoing events, and that the paths panel lists the generated paths.
 * 2. Model-based tests of the workflows machine itself: paths from its graph, each state mapped
 *    to what the screen shows, each event to a user action or the answer of a fake actor.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { TestModel } from '@xstate/graph';
import { afterEach, describe, expect, it } from 'vitest';
import { fromPromise, type SnapshotFrom } from 'xstate';
import type { LaidOutChart, Statechart } from '../../src/domain/statechart.ts';
import { pathsOf, statechartOf } from '../../src/machines/graph.ts';
import type { MachineEntry } from '../../src/machines/machineList.ts';
import { registry } from '../../src/machines/registry.ts';
import { workflowsMachine, type WorkflowsEvent } from '../../src/machines/workflows.ts';
import type { StatelyOutcome } from '../../src/services/inspection.ts';
import { layoutStatechart } from '../../src/services/layout.ts';
import { WorkflowsPage, stepText } from '../../src/views/workflows/WorkflowsPage.tsx';

afterEach(() => cleanup());

const diagram = (id: string) => screen.findByRole('group', { name: `Statechart of ${id}` }, { timeout: 10_000 });
const stateButton = (svg: HTMLElement, id: string) => svg.querySelector<SVGGElement>(`[data-state-id="${CSS.escape(id)}"]`);

function renderPage(props: Parameters<typeof WorkflowsPage>[0]) {
  const user = userEvent.setup();
  render(<MantineProvider><WorkflowsPage {...props} /></MantineProvider>);
  return user;
}

// ---------------------------------------------------------------------------------------------

describe('the registry', () => {
  it('holds every machine of src/machines, helpers excluded', () => {
    const ids = registry.map((m) => m.id);
    for (const id of ['auth', 'routeAccess', 'workflows', 'inspectorReceiver']) expect(ids).toContain(id);
    expect(registry.map((m) => m.file)).not.toContain('session.ts');
    expect(registry.map((m) => m.file)).not.toContain('graph.ts');
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('the Workflows screen draws every registered machine', () => {
  it.each(registry.map((m) => [m.id, m] as const))('%s', async (id, entry) => {
    const chart = statechartOf(entry.machine);
    const paths = pathsOf(entry.machine);
    renderPage({ initialMachineId: id });
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
    const user2 = renderPage({ initialMachineId: 'workflows' });
    await diagram('workflows');
    const panel2 = screen.getByLabelText('Paths');
    await user2.click(within(panel2).getByRole('tab', { name: /Simple paths/ }));
    expect(panel2.textContent).toContain('Simple paths are not listed: there are more than');
  });
});

// ---------------------------------------------------------------------------------------------
// Model-based tests of the workflows machine on the real screen.

/** A fake actor the test answers by hand: each start waits until `resolve` or `reject`. */
function fakeActor<I, O>() {
  const calls: I[] = [];
  let pending: { input: I; resolve(o: O): void; reject(e: unknown): void } | null = null;
  return {
    calls,
    logic: fromPromise<O, I>(({ input }) => new Promise<O>((resolve, reject) => { calls.push(input); pending = { input, resolve, reject }; })),
    get pending() { return pending; },
    resolve(output: O) { const p = pending!; pending = null; p.resolve(output); },
    reject(error: unknown) { const p = pending!; pending = null; p.reject(error); },
  };
}

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

function modelOf(machine: typeof workflowsMachine, events: (s: Snapshot) => ModelEvent[]) {
  return new TestModel(machine, {
    input: { machines: MACHINES },
    events: ((s: Snapshot) => events(s)) as never,
    serializeState: (s: unknown) => serializeState(s as Snapshot),
    stateMatcher: (s: unknown, key: string) => (s as Snapshot).matches(key as never),
  } as never);
}

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
    layout: fakeActor<Statechart, LaidOutChart>(),
    start: fakeActor<unknown, void>(),
    stop: fakeActor<unknown, void>(),
    stately: fakeActor<unknown, StatelyOutcome>(),
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
  const answer = async <I, O>(fake: ReturnType<typeof fakeActor<I, O>>, how: (p: NonNullable<typeof fake.pending>) => Promise<void> | void) => {
    await waitFor(() => expect(fake.pending).not.toBeNull());
    await act(async () => { await how(fake.pending!); });
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
      'xstate.done.actor.layoutChart': async () => answer(f.layout, async (p) => p.resolve(await layoutStatechart(p.input))),
      'xstate.error.actor.layoutChart': async () => answer(f.layout, (p) => p.reject(new Error('ELK gave up'))),
      'inspect.enable': async () => { await user.click(inspectSwitch()); },
      'inspect.disable': async () => { await user.click(inspectSwitch()); },
      'xstate.done.actor.startInspection': async () => answer(f.start, (p) => p.resolve()),
      'xstate.error.actor.startInspection': async () => answer(f.start, (p) => p.reject(new Error('no inspector'))),
      'xstate.done.actor.stopInspection': async () => answer(f.stop, (p) => p.resolve()),
      'stately.open': async () => { await user.click(screen.getByRole('button', { name: 'Open in Stately' })); },
      'xstate.done.actor.connectStately': async ({ event }: { event: { type: string } }) =>
        answer(f.stately, (p) => p.resolve((event as unknown as { output: StatelyOutcome }).output)),
    },
  };
}

/** the machine a state.select event belongs to */
const registryIdOf = (event: { type: string }) => MACHINES.find((m) => statechartOf(m.machine).nodes.some((n) => n.id === (event as { id?: string }).id))!.id;

async function run(machine: typeof workflowsMachine, path: { test(params: never): Promise<unknown> }) {
  const f = fakes();
  const user = userEvent.setup();
  const provided = machine.provide({
    actors: { layoutChart: f.layout.logic, startInspection: f.start.logic, stopInspection: f.stop.logic, connectStately: f.stately.logic },
    guards: { isInspectionWanted: () => false, isInspectionUnavailable: () => false },
  });
  render(<MantineProvider><WorkflowsPage machine={provided} machines={MACHINES} /></MantineProvider>);
  await path.test(pathParams(f, user) as never);
}

/** a short name for a path: where it ends, and the events on the way */
const nameOf = (p: { state: unknown; steps: { event: { type: string } }[] }) =>
  `${serializeState(p.state as Snapshot)}: ${p.steps.map((s) => { const { type, ...rest } = s.event; return Object.keys(rest).length ? `${type} ${JSON.stringify(rest)}` : type; }).join(' → ')}`;

const diagramModel = modelOf(workflowsMachine, diagramEvents);
const diagramPaths = diagramModel.getShortestPaths();
const inspectionModel = modelOf(workflowsMachine, () => inspectionEvents());
const inspectionPaths = inspectionModel.getShortestPaths();

describe('workflows machine: the diagram (shortest paths on the screen)', () => {
  it('reaches laying out, ready with and without a selected state for both machines, and failed', () => {
    const reached = new Set(diagramPaths.flatMap((p) => [...p.steps.map((x) => x.state as Snapshot), p.state as Snapshot])
      .map((s) => JSON.stringify([s.value.diagram, s.context.selectedId, s.context.selectedState !== null])));
    for (const id of [FIRST.id, SECOND.id]) {
      for (const expected of [['layingOut', id, false], ['ready', id, false], ['ready', id, true], ['failed', id, false]]) {
        expect(reached.has(JSON.stringify(expected)), JSON.stringify(expected)).toBe(true);
      }
    }
  });
  it.each(diagramPaths.map((p) => [nameOf(p), p] as const))('%s', async (_d, path) => run(workflowsMachine, path));
});

describe('workflows machine: the inspection switch (shortest paths on the screen)', () => {
  it('reaches off, starting, on (local, connecting, Stately), stopping, and each Stately outcome', () => {
    const reached = new Set(inspectionPaths.flatMap((p) => [...p.steps.map((x) => x.state as Snapshot), p.state as Snapshot])
      .map((s) => JSON.stringify([s.value.inspection, s.context.stately])));
    for (const expected of [
      ['off', null], ['starting', null], [{ on: 'local' }, null], [{ on: 'connecting' }, null], [{ on: 'stately' }, 'connected'],
      [{ on: 'local' }, 'unreachable'], [{ on: 'local' }, 'blocked'], ['stopping', null],
    ]) expect(reached.has(JSON.stringify(expected)), JSON.stringify(expected)).toBe(true);
  });
  it.each(inspectionPaths.map((p) => [nameOf(p), p] as const))('%s', async (_d, path) => run(workflowsMachine, path));
});

describe('workflows machine: download and the suite can fail', () => {
  it('downloads the selected machine\'s definition as JSON', async () => {
    const saved: string[] = [];
    const machine = workflowsMachine.provide({
      actors: { layoutChart: fromPromise(({ input }: { input: Statechart }) => layoutStatechart(input)) },
      actions: { downloadDefinition: ({ context }) => { saved.push(context.selectedId!); } },
      guards: { isInspectionWanted: () => false },
    });
    const user = userEvent.setup();
    render(<MantineProvider><WorkflowsPage machine={machine} machines={MACHINES} /></MantineProvider>);
    await diagram(FIRST.id);
    await user.click(screen.getByRole('button', { name: 'Download JSON' }));
    expect(saved).toEqual([FIRST.id]);
  });

  it('finds a machine whose state-selection guard is broken on purpose', async () => {
    const broken = workflowsMachine.provide({ guards: { isStateOfChart: () => false } });
    const toSelected = diagramPaths.find((p) => (p.state as Snapshot).context.selectedState !== null)!;
    await expect(run(broken, toSelected)).rejects.toThrow();
  });
});
