/**
 * Model-based tests of the step editor (src/machines/stepEditor.ts) on the wizard's data sources
 * step, whose screen reads the data sources and saves the formula's name and ends through it. The
 * paths walk the editor's graph with a save the server refuses until the user confirms that it
 * removes mapping, matching and routing (`confirmingWipe`): a confirmation saves the same draft
 * again with confirmWipe, cancelling goes back to the draft. The load and save are fakes the paths
 * answer; each state asserts what the screen shows and what the wizard was told. A broken wipe
 * guard makes the paths that cross the confirmation fail, and a broken guard of the step's own
 * refusal (a message under the field, nothing sent) the paths that cross that.
 */
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { Notifications, notifications } from '@mantine/notifications';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, setup, type SnapshotFrom } from 'xstate';
import type { DataSourceListItem, SystemId } from '../../src/domain/connectors/types.ts';
import type { WizardStep } from '../../src/domain/formula/wizard.ts';
import { stepEditorMachine, type SaveInput, type StepEditorEvent } from '../../src/machines/stepEditor.ts';
import { dataSourcesDraftOf, StepRefused, type DataSourcesDraft, type StepLoad } from '../../src/machines/wizardSteps.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { StepProps } from '../../src/views/wizard/step.tsx';
import { DataSourcesStep } from '../../src/views/wizard/steps/DataSourcesStep.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => {
  cleanup();
  notifications.clean();
});

const FORMULA_ID = '3f6c8a52-0c1e-4d1a-9a57-6c0f8e2b7d10';
const ds = (id: string, system: SystemId, displayName: string): DataSourceListItem => ({
  id, system, displayName, createdOn: '2026-11-01T09:00:00.000Z', createdBy: null, modifiedOn: '2026-11-01T09:00:00.000Z', modifiedBy: null, usedByCount: 0,
});
const CRM = ds('22222222-2222-4222-8222-222222222222', 'sandbox-crm', 'Sandbox CRM');
const SALESFORCE = ds('44444444-4444-4444-8444-444444444444', 'salesforce', 'Org Salesforce');
const end = { dataSourceId: CRM.id, object: 'constituents', settings: {}, system: 'sandbox-crm' as const, displayName: 'Sandbox CRM', hasAdditionalSettings: false };
const FORMULA: FormulaView = {
  id: FORMULA_ID, name: 'Spring appeal', isDraft: true, usesFileUpload: false, sourceDataSource: end, firstDestinationDataSource: end,
  sampleUploadId: null, status: 'inactive', jobStatus: null, needsReprocess: false, archivedOn: null, parts: ['mapping', 'matching', 'routing'],
  createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-01T00:00:00Z',
};

const AS_SAVED = dataSourcesDraftOf(FORMULA);
const CHANGED: DataSourcesDraft = { ...AS_SAVED, source: SALESFORCE.id };
const LOADED: StepLoad = { data: [CRM, SALESFORCE], saved: AS_SAVED, draft: AS_SAVED };
const DOWN = new ApiError(502, { title: 'connection-error', code: 'processing-error', detail: 'The service did not answer.' }, { silent: true });
const WIPES = new ApiError(409, { title: 'formula-wipe-unconfirmed', detail: 'Confirm to go on.', wipes: ['mapping', 'matching', 'routing'] } as never, { silent: true });
const REFUSED = new ApiError(400, { title: 'validation', detail: 'The source was refused.' }, { silent: true });
/** the step's own refusal, before anything is sent: a message under the field */
const NOT_SENT = new StepRefused({ source: 'The objects of Org Salesforce could not be read: try again.' });
const WIPE_DIALOG = 'Changing the object wipes the mapping, matching and routing.';

type Event = StepEditorEvent
  | { type: 'xstate.done.actor.loadStep'; output: StepLoad } | { type: 'xstate.error.actor.loadStep'; error: unknown }
  | { type: 'xstate.done.actor.saveStep'; output: FormulaView } | { type: 'xstate.error.actor.saveStep'; error: unknown };
type Snap = SnapshotFrom<typeof stepEditorMachine>;

const INPUT = { step: 'data-sources' as WizardStep, formula: FORMULA };
const TRAVERSAL = {
  input: INPUT,
  serializeState: (s: unknown) => {
    const { value, context: c } = s as Snap;
    return JSON.stringify([value, c.draft, c.saved, c.data === undefined, c.confirmWipe, c.fieldErrors]);
  },
  serializeEvent: (e: unknown) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}` : v instanceof StepRefused ? 'refused by the step' : v)),
};

/** the events each state offers (a saved step is left by the wizard: nothing follows it) */
function eventsOf(s: Snap): Event[] {
  if (s.matches('loading')) return [{ type: 'xstate.done.actor.loadStep', output: LOADED }, { type: 'xstate.error.actor.loadStep', error: DOWN }];
  if (s.matches('saving')) {
    return [
      { type: 'xstate.done.actor.saveStep', output: FORMULA },
      { type: 'xstate.error.actor.saveStep', error: WIPES },
      { type: 'xstate.error.actor.saveStep', error: REFUSED },
      { type: 'xstate.error.actor.saveStep', error: NOT_SENT },
    ];
  }
  if (s.matches('confirmingWipe')) return [{ type: 'wipe.confirm' }, { type: 'wipe.cancel' }];
  if (s.matches('failed') && s.context.data === undefined) return [{ type: 'retry' }];
  if (s.matches('editing') || s.matches('failed')) return [{ type: 'draft.change', draft: CHANGED }, { type: 'draft.change', draft: AS_SAVED }, { type: 'step.save' }];
  return [];
}

const model = testModel<typeof stepEditorMachine, Event>(stepEditorMachine, { ...TRAVERSAL, events: (s) => eventsOf(s as Snap) });

interface Rendered {
  load: FakeCall<unknown, StepLoad>;
  save: FakeCall<SaveInput, FormulaView>;
  props: StepProps;
  /** saves answered with a refusal other than the wipe's, each announced as failed */
  refusals: { count: number };
  user: ReturnType<typeof userEvent.setup>;
  stop(): void;
}

const dirtyOf = (s: Snap) => JSON.stringify(s.context.draft) !== JSON.stringify(s.context.saved);
const form = () => screen.getByRole('form', { name: 'Data sources' });
const source = () => within(form()).getByRole('combobox', { name: /^Source/ }) as HTMLSelectElement;
const saveButton = () => within(form()).getByRole('button', { name: 'Save and continue' });
/** what the wizard was last told of unsaved changes (a step opens clean) */
const toldDirty = (props: StepProps) => (vi.mocked(props.onDirtyChange).mock.lastCall?.[0] ?? false);

const wizardLogic = setup({ types: { events: {} as { type: 'step.saved'; formula?: FormulaView } | { type: 'step.dirty'; dirty: boolean } } });

/** the data sources step with this machine as its editor over fake calls, a stand-in wizard passing on what it is told */
const view: ModelView<typeof stepEditorMachine, Rendered> = {
  render(machine) {
    const load = fakeCall<unknown, StepLoad>('loadStep');
    const save = fakeCall<SaveInput, FormulaView>('saveStep');
    const props: StepProps = {
      step: 'data-sources', formula: FORMULA, customRouting: false, canEdit: true,
      onDirtyChange: vi.fn(), onSaved: vi.fn(), onFormulaChange: vi.fn(), onBack: vi.fn(), onGoTo: vi.fn(),
    };
    const wizard = createActor(wizardLogic.createMachine({
      on: {
        'step.saved': { actions: ({ event }) => props.onSaved(event.formula) },
        'step.dirty': { actions: ({ event }) => props.onDirtyChange(event.dirty) },
      },
    })).start();
    const editor = createActor(machine.provide({ actors: { loadStep: load.logic as never, saveStep: save.logic as never } }), { input: { ...INPUT, parent: wizard } }).start();
    render(
      <MantineProvider>
        <Notifications />
        <DataSourcesStep {...props} editor={editor} />
      </MantineProvider>,
    );
    return { load, save, props, refusals: { count: 0 }, user: userEvent.setup(), stop() { editor.stop(); wizard.stop(); } };
  },
  params: ({ load, save, props, refusals, user }) => ({
    states: {
      loading: async () => {
        await waitFor(() => expect(load.waiting).toBe(true));
        expect(source().disabled).toBe(true);
        expect(source().options[0]!.textContent).toBe('Loading data sources…');
      },
      editing: async (s: Snap) => {
        await waitFor(() => expect(source().disabled).toBe(false));
        expect(source().value).toBe((s.context.draft as DataSourcesDraft).source);
        // a draft the step refused says why under the field, and was not announced as failed
        const message = s.context.fieldErrors.source;
        if (message) expect(within(form()).getByText(message)).toBeTruthy();
        else expect(within(form()).queryByText(NOT_SENT.errors.source!)).toBeNull();
        await waitFor(() => expect(screen.queryByRole('dialog', { name: WIPE_DIALOG })).toBeNull(), { timeout: 4000 });
        await waitFor(() => expect(saveButton().getAttribute('data-loading')).toBeNull());
        expect(toldDirty(props)).toBe(dirtyOf(s));
        expect(props.onSaved).not.toHaveBeenCalled();
      },
      saving: async (s: Snap) => {
        await waitFor(() => expect(saveButton().getAttribute('data-loading')).not.toBeNull());
        const input = await save.called();
        expect(input.draft).toEqual(s.context.draft);
        // only the save after a confirmation says the parts may go
        expect(input.confirmWipe).toBe(s.context.confirmWipe);
      },
      confirmingWipe: async () => {
        const dialog = await screen.findByRole('dialog', { name: WIPE_DIALOG });
        const listed = within(within(dialog).getByRole('list', { name: 'Parts that will be removed' })).getAllByRole('listitem').map((li) => li.textContent);
        expect(listed).toEqual(['Mapping', 'Record Match Search', 'Routing']);
        // asking is not a failure: nothing more is said to have failed than the refusals before
        expect(screen.queryAllByText('An error occured while saving Data sources')).toHaveLength(refusals.count ? 1 : 0);
        expect(props.onSaved).not.toHaveBeenCalled();
      },
      saved: async () => {
        await screen.findByText('Data sources has been saved');
        await waitFor(() => expect(props.onSaved).toHaveBeenCalledWith(FORMULA));
      },
      failed: async (s: Snap) => {
        if (s.context.data === undefined) {
          const alert = await screen.findByRole('alert');
          expect(alert.textContent).toContain('The data sources could not be read');
          expect(alert.textContent).toContain(DOWN.problem.detail);
          return;
        }
        await screen.findByText('An error occured while saving Data sources');
        expect(screen.getAllByText(s.context.error!).length).toBeGreaterThan(0);
        await waitFor(() => expect(screen.queryByRole('dialog', { name: WIPE_DIALOG })).toBeNull(), { timeout: 4000 });
        await waitFor(() => expect(saveButton().getAttribute('data-loading')).toBeNull());
        expect(toldDirty(props)).toBe(dirtyOf(s));
      },
    },
    events: {
      'xstate.done.actor.loadStep': ({ event }) => load.answer(event),
      'xstate.error.actor.loadStep': ({ event }) => load.answer(event),
      'xstate.done.actor.saveStep': ({ event }) => save.answer(event),
      'xstate.error.actor.saveStep': ({ event }) => {
        const { error } = event as unknown as { error: unknown };
        if (error !== WIPES && error !== NOT_SENT) refusals.count += 1;
        return save.answer(event);
      },
      retry: async () => { await user.click(await screen.findByRole('button', { name: 'Try again' })); },
      'draft.change': async ({ event }) => {
        await user.selectOptions(source(), (event as unknown as { draft: DataSourcesDraft }).draft.source);
      },
      'step.save': async () => { await act(async () => { await user.click(saveButton()); }); },
      'wipe.confirm': async () => {
        await user.click(within(screen.getByRole('dialog', { name: WIPE_DIALOG })).getByRole('button', { name: 'Change and remove them' }));
      },
      'wipe.cancel': async () => {
        await user.click(within(screen.getByRole('dialog', { name: WIPE_DIALOG })).getByRole('button', { name: 'Cancel' }));
      },
    },
  }),
  stop: (r) => r.stop(),
};

const shortest = model.getShortestPaths() as unknown as ModelPath<Snap>[];
const pathName = (p: ModelPath<Snap>) => p.steps.map((s) => {
  const e = s.event as { type: string; draft?: DataSourcesDraft; error?: unknown };
  if (e.type === 'draft.change') return `draft.change ${e.draft!.source === SALESFORCE.id ? 'Salesforce' : 'as saved'}`;
  if (e.error instanceof ApiError) return `${e.type} ${e.error.status}`;
  if (e.error instanceof StepRefused) return `${e.type} (refused by the step)`;
  return e.type;
}).join(' → ');
const passesWipe = (p: ModelPath<Snap>) => [...p.steps.map((s) => s.state), p.state].some((s) => s.matches('confirmingWipe'));

describe('step editor machine: shortest paths on the wizard\'s data sources step', () => {
  it('reaches every state, the wipe confirmation among them, a refusal after confirming, and the step\'s own refusal', () => {
    expect([...reachedStates(shortest)].sort()).toEqual(['"confirmingWipe"', '"editing"', '"failed"', '"loading"', '"saved"', '"saving"']);
    const passed = shortest.flatMap((p) => [...p.steps.map((s) => s.state), p.state]);
    expect(passed.some((s) => s.matches('saving') && s.context.confirmWipe)).toBe(true);
    expect(passed.some((s) => s.matches('failed') && s.context.data !== undefined)).toBe(true);
    expect(passed.some((s) => s.matches('editing') && s.context.fieldErrors.source)).toBe(true);
  });
  it.each(named(shortest, pathName))('%s', async (_d, path) => runPath(path, stepEditorMachine, view));
});

describe('step editor machine: journeys through the wipe confirmation', () => {
  const toWipe: Event[] = [
    { type: 'xstate.done.actor.loadStep', output: LOADED }, { type: 'draft.change', draft: CHANGED }, { type: 'step.save' },
    { type: 'xstate.error.actor.saveStep', error: WIPES },
  ];
  const journeys: [string, Event[]][] = [
    ['cancelled, the change stays unsaved; asked again and confirmed, it saves', [
      ...toWipe, { type: 'wipe.cancel' }, { type: 'step.save' }, { type: 'xstate.error.actor.saveStep', error: WIPES },
      { type: 'wipe.confirm' }, { type: 'xstate.done.actor.saveStep', output: FORMULA },
    ]],
    ['confirmed but refused, the next save asks again', [
      ...toWipe, { type: 'wipe.confirm' }, { type: 'xstate.error.actor.saveStep', error: REFUSED }, { type: 'step.save' },
      { type: 'xstate.error.actor.saveStep', error: WIPES },
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
  it('finds a step editor that never asks before a save removes parts', async () => {
    await expectBrokenGuardToFail(stepEditorMachine, 'isWipeUnconfirmed', { paths: shortest.filter(passesWipe), view, every: true });
  });
  it('finds a step editor that says a draft the step refused failed to save', async () => {
    const refusedHere = shortest.filter((p) => [...p.steps.map((x) => x.state), p.state].some((x) => x.matches('editing') && x.context.fieldErrors.source));
    await expectBrokenGuardToFail(stepEditorMachine, 'isRefusedByStep', { paths: refusedHere, view, every: true });
  });
});
