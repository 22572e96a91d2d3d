/**
 * Model-based tests of the step editor (src/machines/stepEditor.ts: loading, editing, saving,
 * saved, failed) on the real wizard dialog open at its scheduling step, whose screen loads and
 * saves through it. The editor's load and save are fakes the paths answer; each state asserts what
 * the screen shows, and whether leaving the page would ask first (the wizard's unsaved changes,
 * which the editor tells it of). A broken dirty guard makes the paths that change the draft fail.
 */
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { Notifications, notifications } from '@mantine/notifications';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise, setup, type SnapshotFrom } from 'xstate';
import type { Schedule } from '../../src/domain/formula/parts.ts';
import type { WizardStep } from '../../src/domain/formula/wizard.ts';
import { policiesFor } from '../../src/domain/roles.ts';
import { flagsMachine } from '../../src/machines/flags.ts';
import { stepEditorMachine, type LoadInput, type StepEditorEvent } from '../../src/machines/stepEditor.ts';
import { wizardMachine } from '../../src/machines/wizard.ts';
import { scheduleFormOf, scheduleOf, type StepLoad } from '../../src/machines/wizardSteps.ts';
import type { SnapshotRequest, SnapshotResult } from '../../src/services/flags.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { ActorsContext, FlagsActorContext } from '../../src/views/shell/actors.tsx';
import { WizardHost } from '../../src/views/wizard/WizardDialog.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { VALID_PARTS } from '../support/formulaParts.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => {
  cleanup();
  notifications.clean();
});

const FORMULA_ID = '3f6c8a52-0c1e-4d1a-9a57-6c0f8e2b7d10';
const end = { dataSourceId: 'd1', object: 'constituents', settings: {}, system: 'sandbox-crm' as const, displayName: 'Sandbox CRM', hasAdditionalSettings: false };
const FORMULA: FormulaView = {
  id: FORMULA_ID, name: 'Spring appeal', isDraft: true, usesFileUpload: false, sourceDataSource: end, firstDestinationDataSource: end,
  sampleUploadId: null, status: 'inactive', jobStatus: null, needsReprocess: false, archivedOn: null, parts: ['schedule'], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-01T00:00:00Z',
};

const SAVED: Schedule = VALID_PARTS.schedule;
const AS_SAVED = scheduleOf(scheduleFormOf(SAVED));
const LOADED: StepLoad = { data: SAVED, saved: AS_SAVED, draft: AS_SAVED };
const CONTINUOUS = { mode: 'continuous' };
const DOWN = new ApiError(502, { title: 'connection-error', code: 'processing-error', detail: 'The service did not answer.' }, { silent: true });
const REFUSED = new ApiError(400, { title: 'invalid-part', code: 'validation', detail: 'The schedule was refused.' }, { silent: true });

type Event = StepEditorEvent
  | { type: 'xstate.done.actor.loadStep'; output: StepLoad } | { type: 'xstate.error.actor.loadStep'; error: unknown }
  | { type: 'xstate.done.actor.saveStep'; output: FormulaView } | { type: 'xstate.error.actor.saveStep'; error: unknown };
type Snap = SnapshotFrom<typeof stepEditorMachine>;

const INPUT = { step: 'scheduling' as WizardStep, formula: FORMULA };
const TRAVERSAL = {
  input: INPUT,
  serializeState: (s: unknown) => JSON.stringify([(s as Snap).value, (s as Snap).context.draft, (s as Snap).context.saved, (s as Snap).context.data === undefined]),
  serializeEvent: (e: unknown) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}` : v)),
};

/** the events each state offers (a saved step is left by the wizard: nothing follows it) */
function eventsOf(s: Snap): Event[] {
  if (s.matches('loading')) return [{ type: 'xstate.done.actor.loadStep', output: LOADED }, { type: 'xstate.error.actor.loadStep', error: DOWN }];
  if (s.matches('saving')) return [{ type: 'xstate.done.actor.saveStep', output: FORMULA }, { type: 'xstate.error.actor.saveStep', error: REFUSED }];
  if (s.matches('failed') && s.context.data === undefined) return [{ type: 'retry' }];
  if (s.matches('editing') || s.matches('failed')) return [{ type: 'draft.change', draft: CONTINUOUS }, { type: 'draft.change', draft: AS_SAVED }, { type: 'step.save' }];
  return [];
}

const model = testModel<typeof stepEditorMachine, Event>(stepEditorMachine, { ...TRAVERSAL, events: (s) => eventsOf(s as Snap) });

interface Rendered {
  load: FakeCall<unknown, StepLoad>;
  save: FakeCall<{ draft: unknown }, FormulaView>;
  user: ReturnType<typeof userEvent.setup>;
  stop(): void;
}

/** whether leaving the page now would ask first */
function leavingAsks(): boolean {
  const e = new Event('beforeunload', { cancelable: true });
  window.dispatchEvent(e);
  return e.defaultPrevented;
}

const dirtyOf = (s: Snap) => JSON.stringify(s.context.draft) !== JSON.stringify(s.context.saved);
const form = () => screen.getByRole('form', { name: 'Scheduling' });
const saveButton = () => within(form()).getByRole('button', { name: 'Save and continue' });

const authLogic = setup({}).createMachine({ context: { user: { policies: policiesFor(['Formula Producer']) } } });

/** the wizard dialog open at scheduling, its step editor this machine over fake calls */
const view: ModelView<typeof stepEditorMachine, Rendered> = {
  render(machine) {
    const load = fakeCall<unknown, StepLoad>('loadStep');
    const save = fakeCall<{ draft: unknown }, FormulaView>('saveStep');
    const flags = createActor(flagsMachine.provide({
      actors: { fetchSnapshot: fromPromise<SnapshotResult, SnapshotRequest>(async () => ({ status: 'fetched', snapshot: { namespace: { key: 'default' }, flags: [] }, etag: '"1"' })) },
    }), { input: {} }).start();
    const auth = createActor(authLogic).start();
    const editor = machine.provide({ actors: { loadStep: load.logic as never, saveStep: save.logic as never } });
    const wizard = wizardMachine.provide({ actors: { loadFormula: fromPromise(async () => FORMULA), stepEditor: editor } });
    const router = createMemoryRouter([{ path: '*', element: <WizardHost logic={wizard} /> }], {
      initialEntries: [`/integrations-formulas?wizardFormulaId=${FORMULA_ID}&wizardStep=scheduling`],
    });
    render(
      <MantineProvider>
        <Notifications />
        <ActorsContext.Provider value={{ auth, routeAccess: null } as never}>
          <FlagsActorContext.Provider value={flags}>
            <RouterProvider router={router} />
          </FlagsActorContext.Provider>
        </ActorsContext.Provider>
      </MantineProvider>,
    );
    return { load, save, user: userEvent.setup(), stop() { flags.stop(); auth.stop(); } };
  },
  params: ({ load, save, user }) => ({
    states: {
      loading: async () => {
        await screen.findByLabelText('Loading the schedule');
        await waitFor(() => expect(load.waiting).toBe(true));
      },
      editing: async (s: Snap) => {
        await screen.findByRole('form', { name: 'Scheduling' });
        const continuous = within(form()).getByRole('radio', { name: /^Continuously/ }) as HTMLInputElement;
        expect(continuous.checked).toBe(JSON.stringify(s.context.draft) === JSON.stringify(CONTINUOUS));
        await waitFor(() => expect(leavingAsks()).toBe(dirtyOf(s)));
      },
      saving: async (s: Snap) => {
        await waitFor(() => expect(saveButton().getAttribute('data-loading')).not.toBeNull());
        expect((await save.called()).draft).toEqual(s.context.draft);
      },
      saved: async () => {
        await screen.findByText('Scheduling has been saved');
        // the wizard moves on, and nothing is left unsaved
        const dialog = screen.getByTestId('formula-wizard');
        await waitFor(() => expect(within(dialog).getAllByRole('heading', { level: 3 }).map((h) => h.textContent)).toContain('Review'));
        expect(leavingAsks()).toBe(false);
      },
      failed: async (s: Snap) => {
        if (s.context.data === undefined) {
          const alert = await screen.findByRole('alert');
          expect(alert.textContent).toContain('The schedule could not be read');
          expect(alert.textContent).toContain(DOWN.problem.detail);
          return;
        }
        await screen.findByText('An error occured while saving Scheduling');
        expect(screen.getByText(REFUSED.problem.detail!)).toBeTruthy();
        await waitFor(() => expect(saveButton().getAttribute('data-loading')).toBeNull());
        await waitFor(() => expect(leavingAsks()).toBe(dirtyOf(s)));
      },
    },
    events: {
      'xstate.done.actor.loadStep': ({ event }) => load.answer(event),
      'xstate.error.actor.loadStep': ({ event }) => load.answer(event),
      'xstate.done.actor.saveStep': ({ event }) => save.answer(event),
      'xstate.error.actor.saveStep': ({ event }) => save.answer(event),
      retry: async () => { await user.click(await screen.findByRole('button', { name: 'Try again' })); },
      'draft.change': async ({ event }) => {
        const to = JSON.stringify((event as unknown as { draft: unknown }).draft) === JSON.stringify(CONTINUOUS) ? /^Continuously/ : /^On a schedule/;
        await user.click(within(form()).getByRole('radio', { name: to }));
      },
      'step.save': async () => { await act(async () => { await user.click(saveButton()); }); },
    },
  }),
  stop: (r) => r.stop(),
};

const shortest = model.getShortestPaths() as unknown as ModelPath<Snap>[];
const pathName = (p: ModelPath<Snap>) => p.steps.map((s) => (s.event.type === 'draft.change' ? `draft.change ${(s.event as unknown as { draft: { mode: string } }).draft.mode}` : s.event.type)).join(' → ');

describe('step editor machine: shortest paths on the wizard\'s scheduling step', () => {
  it('reaches loading, editing, saving, saved and failed (unread, and not saved)', () => {
    expect([...reachedStates(shortest)].sort()).toEqual(['"editing"', '"failed"', '"loading"', '"saved"', '"saving"']);
    const passed = shortest.flatMap((p) => [...p.steps.map((s) => s.state), p.state]);
    expect(passed.some((s) => s.matches('failed') && s.context.data !== undefined)).toBe(true);
    expect(passed.some((s) => s.matches('editing') && dirtyOf(s))).toBe(true);
  });
  it.each(named(shortest, pathName))('%s', async (_d, path) => runPath(path, stepEditorMachine, view));
});

describe('step editor machine: journeys', () => {
  const journeys: [string, Event[]][] = [
    ['a change undone is no longer unsaved', [
      { type: 'xstate.done.actor.loadStep', output: LOADED }, { type: 'draft.change', draft: CONTINUOUS }, { type: 'draft.change', draft: AS_SAVED },
    ]],
    ['a refused save keeps the change, which saves on a second try', [
      { type: 'xstate.done.actor.loadStep', output: LOADED }, { type: 'draft.change', draft: CONTINUOUS }, { type: 'step.save' },
      { type: 'xstate.error.actor.saveStep', error: REFUSED }, { type: 'step.save' }, { type: 'xstate.done.actor.saveStep', output: FORMULA },
    ]],
  ];
  it.each(journeys)('%s', async (_d, events) => {
    const fromState = createActor(stepEditorMachine, { input: INPUT }).getSnapshot();
    const [path] = model.getPathsFromEvents(events, { ...TRAVERSAL, fromState } as never);
    expect(path!.steps.length).toBe(events.length + 1);
    await runPath(path as unknown as ModelPath<Snap>, stepEditorMachine, view);
  });
});

describe('the suite can fail', () => {
  it('finds a step editor whose dirty guard is broken on purpose', async () => {
    const changing = shortest.filter((p) => [...p.steps.map((s) => s.state), p.state].some((s) => (s.matches('editing') || s.matches('failed')) && dirtyOf(s)));
    await expectBrokenGuardToFail(stepEditorMachine, 'isDirty', { paths: changing, view, every: true });
  });
});

describe('a change typed while the step still loads', () => {
  it('is kept and told to the wizard as unsaved once the load answers, so leaving asks first', async () => {
    let answer!: (load: StepLoad) => void;
    const told: boolean[] = [];
    const wizard = createActor(setup({}).createMachine({
      on: { 'step.dirty': { actions: ({ event }) => { told.push((event as unknown as { dirty: boolean }).dirty); } } },
    }));
    wizard.start();
    const editor = createActor(stepEditorMachine.provide({
      actors: { loadStep: fromPromise<StepLoad, LoadInput>(() => new Promise((resolve) => { answer = resolve; })) },
    }), { input: { ...INPUT, parent: wizard } });
    editor.start();
    expect(editor.getSnapshot().matches('loading')).toBe(true);
    editor.send({ type: 'draft.change', draft: CONTINUOUS });
    answer(LOADED);
    await waitFor(() => expect(editor.getSnapshot().matches('editing')).toBe(true));
    expect(editor.getSnapshot().context.draft).toEqual(CONTINUOUS);
    expect(told).toEqual([true]);
    editor.stop();
    wizard.stop();
  });
});
