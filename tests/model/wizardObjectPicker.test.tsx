/**
 * Model-based tests of the object picker machine (src/machines/objectPicker.ts) as the wizard's
 * formula type step uses it, in its object field: the kept list is read when the field opens and
 * from the system on Refresh; a read that fails keeps the list read before, or else offers the
 * connector's standard objects, and says why (a refused read in its own words); a file just
 * uploaded is listed first. The list call is a fake the paths answer.
 */
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Button, MantineProvider } from '@mantine/core';
import { useState } from 'react';
import { useActorRef } from '@xstate/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise, type SnapshotFrom } from 'xstate';
import { connectorFor } from '../../src/domain/connectors/catalogue.ts';
import type { ObjectInfo, SystemId } from '../../src/domain/connectors/types.ts';
import { listedObjects, objectPickerMachine, type ObjectPickerEvent } from '../../src/machines/objectPicker.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { ObjectList } from '../../src/services/integrations.ts';
import type { StepEditorChildren } from '../../src/machines/stepEditor.ts';
import { OBJECTS_FORBIDDEN_MESSAGE, OBJECTS_UNREACHABLE_MESSAGE, objectPickerInputOf, type StepCalls } from '../../src/machines/wizardSteps.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import { startStepEditor } from '../support/stepEditors.ts';
import { ObjectField } from '../../src/views/wizard/steps/ObjectField.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const SOURCE = { id: '44444444-4444-4444-8444-444444444444', displayName: 'Org Salesforce', system: 'salesforce' as const };
const STANDARD = connectorFor(SOURCE.system).objects;
const KEPT: ObjectList = { objects: [{ name: 'Contact', label: 'Contacts' }, { name: 'Custom__c', label: 'Custom things' }], refreshedOn: '2026-11-22T10:00:00.000Z' };
const ONE: ObjectList = { objects: [{ name: 'Contact', label: 'Contacts' }], refreshedOn: '2026-11-22T11:00:00.000Z' };
const UPLOADED: ObjectInfo = { name: 'just-uploaded', label: 'donations.csv (2026-11-22)' };
const DOWN = new ApiError(502, { title: 'connection-error', code: 'processing-error', detail: 'The system answered with a server error (HTTP 503).' }, { silent: true });
const NO_DETAIL = new ApiError(502, { title: 'connection-error' }, { silent: true });
const REFUSED = new ApiError(403, { title: 'forbidden', detail: 'You need datasource edit permission.' }, { silent: true });

type Event = ObjectPickerEvent | { type: 'xstate.done.actor.loadObjects'; output: ObjectList } | { type: 'xstate.error.actor.loadObjects'; error: unknown };
const EVENTS: Event[] = [
  { type: 'xstate.done.actor.loadObjects', output: KEPT },
  { type: 'xstate.done.actor.loadObjects', output: ONE },
  { type: 'xstate.error.actor.loadObjects', error: DOWN },
  { type: 'xstate.error.actor.loadObjects', error: NO_DETAIL },
  { type: 'xstate.error.actor.loadObjects', error: REFUSED },
  { type: 'objects.refresh' },
  { type: 'objects.add', object: UPLOADED },
];

type Snapshot = SnapshotFrom<typeof objectPickerMachine>;
const serializeState = (s: Snapshot) => JSON.stringify([
  s.value, s.context.objects.map((o) => o.name), s.context.added.length, s.context.fromSystem, s.context.hasRead, s.context.error,
]);

const TRAVERSAL = {
  // the input the formula type step's editor gives each end's picker (objectPickerInputOf)
  input: { dataSourceId: SOURCE.id, standard: STANDARD, forbiddenMessage: OBJECTS_FORBIDDEN_MESSAGE, failedMessage: OBJECTS_UNREACHABLE_MESSAGE },
  serializeState: (s: unknown) => serializeState(s as Snapshot),
  serializeEvent: (e: unknown) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}:${v.problem.detail ?? ''}` : v)),
};

const model = testModel<typeof objectPickerMachine, Event>(objectPickerMachine, { ...TRAVERSAL, events: EVENTS });

type Fake = FakeCall<{ dataSourceId: string; fromSystem: boolean }, ObjectList>;
type User = ReturnType<typeof userEvent.setup>;

/** the field as the formula type step shows it (its picker started as the step's editor starts it), with an upload that adds a file and chooses it */
function Field({ machine }: { machine: typeof objectPickerMachine }) {
  const [value, setValue] = useState('');
  const picker = useActorRef(machine, { input: objectPickerInputOf({ dataSourceId: SOURCE.id, system: SOURCE.system }) });
  return (
    <ObjectField
      label="Source object" picker={picker} displayName={SOURCE.displayName} canEdit
      value={value} onChange={setValue}
      upload={(add) => <Button onClick={() => { add(UPLOADED); setValue(UPLOADED.name); }}>Upload a new file</Button>}
    />
  );
}

const select = () => screen.getByRole('combobox', { name: /^Source object/ }) as HTMLSelectElement;
const offered = () => Array.from(select().options).filter((o) => o.value).map((o) => o.textContent);

function pathParams(fake: Fake, user: User) {
  return {
    states: {
      refreshing: async (s: Snapshot) => {
        await waitFor(() => expect(fake.waiting).toBe(true));
        // the first read takes the kept list; a refresh asks the system
        expect(fake.calls.at(-1)).toEqual({ dataSourceId: SOURCE.id, fromSystem: s.context.fromSystem });
        expect(!!screen.queryByText('Refreshing objects…')).toBe(s.context.fromSystem);
        // nothing to choose from before the first answer; the list stays while it is read again
        expect(select().disabled).toBe(!s.context.hasRead);
        if (!s.context.hasRead) expect(select().options[0]!.textContent).toBe('Loading objects…');
        expect(screen.queryByRole('alert')).toBeNull();
      },
      complete: async (s: Snapshot) => {
        await waitFor(() => expect(screen.queryByText('Refreshing objects…')).toBeNull());
        expect(select().disabled).toBe(false);
        expect(offered()).toEqual(listedObjects(s.context).map((o) => o.label));
        expect(screen.queryByRole('alert')).toBeNull();
      },
      failed: async (s: Snapshot) => {
        const alert = await screen.findByRole('alert');
        expect(alert.textContent).toContain(`The objects of ${SOURCE.displayName} could not be read`);
        expect(alert.textContent).toContain(s.context.error!);
        // the list read before stays on offer, or else the connector's standard objects
        expect(select().disabled).toBe(false);
        expect(offered()).toEqual(listedObjects({ added: s.context.added, objects: s.context.hasRead ? s.context.objects : STANDARD }).map((o) => o.label));
      },
    },
    events: {
      'objects.refresh': async () => { await user.click(screen.getByRole('button', { name: `Refresh the objects of ${SOURCE.displayName}` })); },
      'objects.add': async () => {
        await user.click(screen.getByRole('button', { name: 'Upload a new file' }));
        expect(select().value).toBe(UPLOADED.name);
      },
      'xstate.done.actor.loadObjects': ({ event }: { event: { type: string } }) => fake.answer(event),
      'xstate.error.actor.loadObjects': ({ event }: { event: { type: string } }) => fake.answer(event),
    },
  };
}

const view: ModelView<typeof objectPickerMachine, { fake: Fake; user: User }> = {
  async render(machine) {
    const fake: Fake = fakeCall('loadObjects');
    render(<MantineProvider><Field machine={machine.provide({ actors: { loadObjects: fake.logic } })} /></MantineProvider>);
    return { fake, user: userEvent.setup() };
  },
  params: ({ fake, user }) => pathParams(fake, user),
};

const shortest = model.getShortestPaths();

describe('object picker machine: shortest paths in the wizard\'s object field', () => {
  it('reaches refreshing, complete and failed, with the standard objects, a kept list and an upload', () => {
    expect([...reachedStates(shortest)].sort()).toEqual(['"complete"', '"failed"', '"refreshing"']);
    const failed = shortest.filter((p) => p.state.matches('failed'));
    expect(failed.some((p) => !p.state.context.hasRead && p.state.context.objects === STANDARD)).toBe(true);
    expect(failed.some((p) => p.state.context.hasRead && p.state.context.objects.length === KEPT.objects.length)).toBe(true);
    expect(failed.some((p) => p.state.context.error === OBJECTS_FORBIDDEN_MESSAGE)).toBe(true);
    expect(failed.some((p) => p.state.context.error === OBJECTS_UNREACHABLE_MESSAGE)).toBe(true);
    expect(shortest.some((p) => p.state.matches('complete') && p.state.context.added.length === 1)).toBe(true);
  });
  it.each(named(shortest))('%s', async (_d, path) => runPath(path, objectPickerMachine, view));
});

describe('object picker machine: journeys in the wizard\'s object field', () => {
  const byEvent = (type: string, match: (e: Event) => boolean = () => true) => EVENTS.find((e) => e.type === type && match(e))!;
  const done = (list: ObjectList) => byEvent('xstate.done.actor.loadObjects', (e) => (e as { output?: ObjectList }).output === list);
  const failed = (error: ApiError) => byEvent('xstate.error.actor.loadObjects', (e) => (e as { error?: unknown }).error === error);
  const journeys: [string, Event[]][] = [
    ['a refused refresh keeps the list read before and says editing data sources is needed', [done(KEPT), byEvent('objects.refresh'), failed(REFUSED)]],
    ['an unreadable list offers the standard objects, then the list once a refresh reads it', [failed(DOWN), byEvent('objects.refresh'), done(ONE)]],
    ['an uploaded file stays listed first across a refresh', [byEvent('objects.add'), done(KEPT), byEvent('objects.refresh'), done(ONE)]],
  ];
  it.each(journeys)('%s', async (_d, events) => {
    const fromState = createActor(objectPickerMachine, { input: TRAVERSAL.input }).getSnapshot();
    const [path] = model.getPathsFromEvents(events, { ...TRAVERSAL, fromState });
    expect(path!.steps.length).toBe(events.length + 1);
    await runPath(path!, objectPickerMachine, view);
  });
});

describe('a list known to be refused', () => {
  it('is not asked for: the standard objects are offered at once, saying editing data sources is needed', () => {
    const end = { dataSourceId: 'crm', system: 'sandbox-crm' as SystemId, objectsKept: false };
    let asked = 0;
    const machine = objectPickerMachine.provide({ actors: { loadObjects: fromPromise(async (): Promise<ObjectList> => { asked++; return { objects: [], refreshedOn: '' }; }) } });
    const refused = createActor(machine, { input: objectPickerInputOf(end, false) }).start();
    expect(refused.getSnapshot().value).toBe('failed');
    expect(refused.getSnapshot().context.objects).toEqual(connectorFor('sandbox-crm').objects);
    expect(refused.getSnapshot().context.error).toBe(OBJECTS_FORBIDDEN_MESSAGE);
    expect(asked).toBe(0);
    // kept, or readable by this user: asked for as before
    for (const input of [objectPickerInputOf({ ...end, objectsKept: true }, false), objectPickerInputOf(end, true)]) {
      createActor(machine, { input }).start();
    }
    expect(asked).toBe(2);
  });
});

describe('the suite can fail', () => {
  it('finds a machine that forgets the list it read when a read fails', async () => {
    const keeping = shortest.filter((p) => p.state.matches('failed') && p.state.context.hasRead);
    await expectBrokenGuardToFail(objectPickerMachine, 'hasReadList', { paths: keeping, view, every: true });
  });
  it('finds a machine that keeps an empty list rather than the standard objects', async () => {
    const standard = shortest.filter((p) => p.state.matches('failed') && !p.state.context.hasRead);
    await expectBrokenGuardToFail(objectPickerMachine, 'hasReadList', { paths: standard, view, holds: true, every: true });
  });
});

describe('the formula type step\'s editor', () => {
  it('runs a picker per end, reading each data source\'s objects through the wizard\'s calls', async () => {
    const DESTINATION = { id: '22222222-2222-4222-8222-222222222222', displayName: 'Sandbox CRM', system: 'sandbox-crm' as const };
    const end = (ds: { id: string; displayName: string; system: SystemId }, object: string) =>
      ({ dataSourceId: ds.id, object, settings: {}, system: ds.system, displayName: ds.displayName, hasAdditionalSettings: false });
    const formula: FormulaView = {
      id: '3f6c8a52-0c1e-4d1a-9a57-6c0f8e2b7d10', name: 'Spring appeal', isDraft: true, usesFileUpload: false,
      sourceDataSource: end(SOURCE, 'Contact'), firstDestinationDataSource: end(DESTINATION, 'constituents'),
      sampleUploadId: null, status: 'inactive', jobStatus: null, needsReprocess: false, archivedOn: null, parts: [], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-01T00:00:00Z',
    };
    const read: string[] = [];
    const calls = {
      formulas: {},
      integrations: { objects: async (id: string) => { read.push(id); return id === SOURCE.id ? KEPT : ONE; }, refreshObjects: async () => ONE },
    } as unknown as StepCalls;
    const editor = startStepEditor('formula-types', formula, calls, { onSaved: () => {}, onDirtyChange: () => {} })!;
    const { sourceObjects, destinationObjects } = editor.getSnapshot().children as StepEditorChildren;
    await waitFor(() => expect(sourceObjects!.getSnapshot().matches('complete')).toBe(true));
    await waitFor(() => expect(destinationObjects!.getSnapshot().matches('complete')).toBe(true));
    expect(read.sort()).toEqual([DESTINATION.id, SOURCE.id].sort());
    expect(sourceObjects!.getSnapshot().context.objects).toEqual(KEPT.objects);
    expect(destinationObjects!.getSnapshot().context.objects).toEqual(ONE.objects);
    // the same input the field's paths above run with
    expect(sourceObjects!.getSnapshot().context.standard).toEqual(TRAVERSAL.input.standard);
    expect(sourceObjects!.getSnapshot().context.forbiddenMessage).toBe(OBJECTS_FORBIDDEN_MESSAGE);
    editor.stop();
  });
});
