/**
 * Model-based tests of the object picker machine (SPEC.md section 4: refreshing, complete) on
 * the real Connections screen: selecting a data source opens its picker, which reads the objects;
 * Refresh reads them from the system again; an object is picked from the list. The list call is
 * a fake the test answers.
 */
import { cleanup, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { objectPickerMachine, type ObjectPickerEvent } from '../../src/machines/objectPicker.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { ObjectList } from '../../src/services/integrations.ts';
import { FAKE_SOURCES, pickerArea, renderConnections, selectSource } from '../support/connectionsScreen.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const SOURCE = FAKE_SOURCES[1]!; // the Sandbox CRM
const BOTH: ObjectList = { objects: [{ name: 'constituents', label: 'Constituents' }, { name: 'gifts', label: 'Gifts' }], refreshedOn: '2026-11-22T10:00:00.000Z' };
const ONE: ObjectList = { objects: [{ name: 'constituents', label: 'Constituents' }], refreshedOn: '2026-11-22T11:00:00.000Z' };
const DOWN = new ApiError(502, { title: 'connection-error', code: 'processing-error', detail: 'The system answered with a server error (HTTP 503).' }, { silent: true });

type Event = ObjectPickerEvent | { type: 'xstate.done.actor.loadObjects'; output: ObjectList } | { type: 'xstate.error.actor.loadObjects'; error: unknown };
const EVENTS: Event[] = [
  { type: 'xstate.done.actor.loadObjects', output: BOTH },
  { type: 'xstate.done.actor.loadObjects', output: ONE },
  { type: 'xstate.error.actor.loadObjects', error: DOWN },
  { type: 'objects.refresh' },
  { type: 'object.select', name: 'gifts' },
  { type: 'object.select', name: 'constituents' },
];

type Snapshot = SnapshotFrom<typeof objectPickerMachine>;
const serializeState = (s: Snapshot) => JSON.stringify([s.value, s.context.objects.length, s.context.selected, s.context.fromSystem]);

const TRAVERSAL = {
  input: { dataSourceId: SOURCE.id },
  serializeState: (s: unknown) => serializeState(s as Snapshot),
  serializeEvent: (e: unknown) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}:${v.problem.code}` : v)),
};

const model = testModel<typeof objectPickerMachine, Event>(objectPickerMachine, { ...TRAVERSAL, events: EVENTS });

type Fake = FakeCall<{ dataSourceId: string; fromSystem: boolean }, ObjectList>;

function pathParams(fake: Fake, user: Awaited<ReturnType<typeof renderConnections>>) {
  const area = () => pickerArea(SOURCE.displayName);
  return {
    states: {
      refreshing: async (s: Snapshot) => {
        await area().findByText('Refreshing objects…');
        await waitFor(() => expect(fake.waiting).toBe(true));
        // the first read takes the kept list; a refresh asks the system
        expect(fake.calls.at(-1)).toEqual({ dataSourceId: SOURCE.id, fromSystem: s.context.fromSystem });
        expect(area().queryByRole('radiogroup')).toBeNull();
      },
      complete: async (s: Snapshot) => {
        const group = await area().findByRole('radiogroup', { name: 'Objects' });
        const radios = Array.from(group.querySelectorAll<HTMLInputElement>('input[type="radio"]'));
        expect(radios.map((r) => r.value)).toEqual(s.context.objects.map((o) => o.name));
        expect(radios.filter((r) => r.checked).map((r) => r.value)).toEqual(s.context.selected ? [s.context.selected] : []);
        expect(area().queryByText('Refreshing objects…')).toBeNull();
        expect(area().queryByRole('alert')).toBeNull();
      },
      failed: async (s: Snapshot) => {
        const alert = await area().findByRole('alert');
        expect(alert.textContent).toContain('Objects could not be read');
        expect(alert.textContent).toContain(s.context.error!);
      },
    },
    events: {
      'objects.refresh': async () => { await user.click(area().getByRole('button', { name: 'Refresh objects' })); },
      'object.select': async ({ event }: { event: { type: string } }) => {
        const name = (event as unknown as { name: string }).name;
        const label = [...BOTH.objects, ...ONE.objects].find((o) => o.name === name)!.label;
        await user.click(area().getByRole('radio', { name: label }));
      },
      'xstate.done.actor.loadObjects': ({ event }: { event: { type: string } }) => fake.answer(event),
      'xstate.error.actor.loadObjects': ({ event }: { event: { type: string } }) => fake.answer(event),
    },
  };
}

/** the Connections screen with the source selected; its list call is a fake the path answers */
const view: ModelView<typeof objectPickerMachine, { fake: Fake; user: Awaited<ReturnType<typeof renderConnections>> }> = {
  async render(machine) {
    const fake: Fake = fakeCall('loadObjects');
    const user = await renderConnections({ objectPicker: machine.provide({ actors: { loadObjects: fake.logic } }) });
    await selectSource(user, SOURCE.displayName);
    return { fake, user };
  },
  params: ({ fake, user }) => pathParams(fake, user),
};

const shortest = model.getShortestPaths();

describe('object picker machine: shortest paths on the Connections screen', () => {
  it('reaches refreshing, complete (with and without a selection) and failed', () => {
    expect([...reachedStates(shortest)].sort()).toEqual(['"complete"', '"failed"', '"refreshing"']);
    expect(shortest.some((p) => p.state.matches('complete') && p.state.context.selected === 'gifts')).toBe(true);
  });
  it.each(named(shortest))('%s', async (_d, path) => runPath(path, objectPickerMachine, view));
});

describe('object picker machine: journeys', () => {
  const done = (list: ObjectList) => EVENTS.find((e) => e.type === 'xstate.done.actor.loadObjects' && e.output === list)!;
  const byType = (type: string, name?: string) => EVENTS.find((e) => e.type === type && (!name || (e as { name?: string }).name === name))!;
  const journeys: [string, Event[]][] = [
    ['a picked object that is gone after a refresh is no longer picked', [done(BOTH), byType('object.select', 'gifts'), byType('objects.refresh'), done(ONE)]],
    ['a failed read is refreshed and then picked from', [byType('xstate.error.actor.loadObjects'), byType('objects.refresh'), done(BOTH), byType('object.select', 'constituents')]],
  ];
  it.each(journeys)('%s', async (_d, events) => {
    // getPathsFromEvents does not pass the input to its default start state: give it the start state
    const fromState = createActor(objectPickerMachine, { input: TRAVERSAL.input }).getSnapshot();
    const [path] = model.getPathsFromEvents(events, { ...TRAVERSAL, fromState });
    expect(path!.steps.length).toBe(events.length + 1);
    await runPath(path!, objectPickerMachine, view);
  });
});

describe('the suite can fail', () => {
  it('finds a machine whose object guard is broken on purpose', async () => {
    const picking = shortest.filter((p) => p.state.matches('complete') && p.state.context.selected !== null);
    await expectBrokenGuardToFail(objectPickerMachine, 'isListedObject', { paths: picking, view, every: true });
  });
});
