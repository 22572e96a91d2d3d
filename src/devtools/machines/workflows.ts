/**
 * The Workflows screen (issue 7): product owners pick a machine of the registry, see it drawn as
 * a statechart (laid out by ELK), select a state to see its outgoing events, read the shortest
 * and simple paths @xstate/graph generates, download the definition for Stately Studio, and
 * switch live inspection on or off.
 *
 * Two regions: `diagram` (which machine, its layout, the selected state) and `inspection`
 * (unavailable in builds without it; off; on, reporting to the local receiver, and to Stately's
 * visualiser once asked and reached).
 */
import { assign, fromPromise, setup } from 'xstate';
import type { LaidOutChart, Statechart } from '../statechart.ts';
import {
  downloadText, inspectionBuiltIn, inspectionWanted, openStatelyInspector, setInspection, type StatelyOutcome,
} from '../inspection.ts';
import { layoutStatechart } from '../layout.ts';
import { definitionJson, delaysOf, pathsOf, statechartOf, type MachinePaths } from '../graph.ts';
import type { MachineEntry } from '../machineList.ts';

export interface WorkflowsInput {
  /** the machines to show: the registry (src/devtools/registry.ts) */
  machines: MachineEntry[];
  /** the machine shown first (the first one by id otherwise) */
  selectedId?: string | null;
}

export interface WorkflowsContext {
  machines: MachineEntry[];
  selectedId: string | null;
  chart: Statechart | null;
  /** named delays in milliseconds, for labels such as "after 5m" */
  delays: Record<string, number | null>;
  paths: MachinePaths | null;
  layout: LaidOutChart | null;
  /** the state whose outgoing events are shown */
  selectedState: string | null;
  error: string | null;
  /** what the last attempt to open Stately's visualiser gave */
  stately: StatelyOutcome | null;
}

export type WorkflowsEvent =
  | { type: 'machine.select'; id: string }
  | { type: 'state.select'; id: string }
  | { type: 'state.clear' }
  | { type: 'definition.download' }
  | { type: 'inspect.enable' }
  | { type: 'inspect.disable' }
  | { type: 'stately.open' };

const entryOf = (context: WorkflowsContext, id: string | null) => context.machines.find((m) => m.id === id) ?? null;

/** chart, paths and delays of the machine with this id (all empty when there is none) */
function readMachine(context: WorkflowsContext, id: string | null): Partial<WorkflowsContext> {
  const entry = entryOf(context, id);
  if (!entry) return { selectedId: null, chart: null, paths: null, delays: {}, layout: null, selectedState: null, error: null };
  return {
    selectedId: entry.id,
    chart: statechartOf(entry.machine),
    delays: delaysOf(entry.machine),
    paths: pathsOf(entry.machine),
    layout: null,
    selectedState: null,
    error: null,
  };
}

export const workflowsMachine = setup({
  types: {
    context: {} as WorkflowsContext,
    input: {} as WorkflowsInput,
    events: {} as WorkflowsEvent,
  },
  actors: {
    layoutChart: fromPromise<LaidOutChart, Statechart>(({ input }) => layoutStatechart(input)),
    startInspection: fromPromise<void>(() => setInspection(true)),
    stopInspection: fromPromise<void>(() => setInspection(false)),
    connectStately: fromPromise<StatelyOutcome>(() => openStatelyInspector()),
  },
  guards: {
    hasMachineToShow: ({ context }) => context.machines.length > 0,
    isRegisteredMachine: ({ context, event }) => event.type === 'machine.select' && entryOf(context, event.id) !== null,
    isStateOfChart: ({ context, event }) => event.type === 'state.select' && !!context.chart?.nodes.some((n) => n.id === event.id),
    isInspectionUnavailable: () => !inspectionBuiltIn(),
    isInspectionWanted: () => inspectionWanted(),
    isStatelyConnected: ({ event }) => (event as { output?: StatelyOutcome }).output === 'connected',
  },
  actions: {
    showFirstMachine: assign(({ context }) => readMachine(context, entryOf(context, context.selectedId)?.id ?? context.machines[0]?.id ?? null)),
    showMachine: assign(({ context, event }) => readMachine(context, event.type === 'machine.select' ? event.id : null)),
    selectState: assign({ selectedState: ({ event }) => (event.type === 'state.select' ? event.id : null) }),
    clearState: assign({ selectedState: null }),
    downloadDefinition: ({ context }) => {
      const entry = entryOf(context, context.selectedId);
      if (entry) downloadText(`${entry.id}.json`, definitionJson(entry.machine));
    },
  },
}).createMachine({
  id: 'workflows',
  type: 'parallel',
  context: ({ input }) => ({
    machines: input.machines,
    selectedId: input.selectedId ?? null,
    chart: null,
    delays: {},
    paths: null,
    layout: null,
    selectedState: null,
    error: null,
    stately: null,
  }),
  states: {
    diagram: {
      initial: 'starting',
      on: {
        'machine.select': { guard: 'isRegisteredMachine', target: '.layingOut', actions: 'showMachine' },
      },
      states: {
        starting: {
          always: [
            { guard: 'hasMachineToShow', target: 'layingOut', actions: 'showFirstMachine' },
            { target: 'empty' },
          ],
        },
        /** no machine is registered */
        empty: {},
        layingOut: {
          invoke: {
            id: 'layoutChart',
            src: 'layoutChart',
            input: ({ context }) => context.chart!,
            onDone: { target: 'ready', actions: assign({ layout: ({ event }) => event.output }) },
            onError: { target: 'failed', actions: assign({ error: ({ event }) => `The statechart could not be laid out: ${(event.error as Error)?.message ?? event.error}` }) },
          },
        },
        ready: {
          on: {
            'state.select': { guard: 'isStateOfChart', actions: 'selectState' },
            'state.clear': { actions: 'clearState' },
            'definition.download': { actions: 'downloadDefinition' },
          },
        },
        failed: {
          on: { 'definition.download': { actions: 'downloadDefinition' } },
        },
      },
    },
    inspection: {
      initial: 'deciding',
      states: {
        deciding: {
          always: [
            { guard: 'isInspectionUnavailable', target: 'unavailable' },
            { guard: 'isInspectionWanted', target: 'starting' },
            { target: 'off' },
          ],
        },
        /** a production build without VITE_INSPECT=1 */
        unavailable: {},
        off: {
          on: { 'inspect.enable': 'starting' },
        },
        starting: {
          invoke: { id: 'startInspection', src: 'startInspection', onDone: 'on', onError: 'off' },
        },
        on: {
          initial: 'local',
          on: { 'inspect.disable': 'stopping' },
          states: {
            /** actors report to the local receiver page */
            local: {
              on: { 'stately.open': 'connecting' },
            },
            connecting: {
              invoke: {
                id: 'connectStately',
                src: 'connectStately',
                onDone: [
                  { guard: 'isStatelyConnected', target: 'stately', actions: assign({ stately: ({ event }) => event.output }) },
                  { target: 'local', actions: assign({ stately: ({ event }) => event.output }) },
                ],
                onError: { target: 'local', actions: assign({ stately: 'unreachable' as const }) },
              },
            },
            /** and to Stately's visualiser */
            stately: {},
          },
        },
        stopping: {
          entry: assign({ stately: null }),
          invoke: { id: 'stopInspection', src: 'stopInspection', onDone: 'off', onError: 'off' },
        },
      },
    },
  },
});
