/**
 * Model-based tests of the Formula Wizard (src/machines/wizard.ts) on the rendered wizard dialog
 * (src/views/wizard/WizardDialog.tsx), with each step's screen replaced by a small form that can
 * change, save and go back (the real step screens have tests of their own).
 *
 * For every one of the 32 combinations of the five conditions (source and destination additional
 * settings, the custom-routing flag, file upload, draft), a path generated from the machine walks
 * the wizard from its first step to its last by saving each step: each state asserts the open
 * step's title, the stepper's steps (exactly SPEC's sequence for that combination), which of them
 * it marks done (those set up: the fake steps save no part, so the steps walked past stay unmarked)
 * and the address (wizardStep follows the step). For one combination the shortest paths over unsaved changes,
 * going back, closing and the unsaved-changes question are run too. Each suite is proven able to
 * fail by breaking a guard.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise, getInitialSnapshot, setup, waitFor as settled, type SnapshotFrom } from 'xstate';
import { formulaRuleFlag } from '../../src/domain/flags/customRouting.ts';
import { toSnapshotFlag } from '../../src/domain/flags/definitions.ts';
import { CUSTOM_ROUTING_FLAG, type FlagSnapshot } from '../../src/domain/flags/snapshot.ts';
import { isStepMarkedDone, WIZARD_STEP_TITLES, WIZARD_STEPS, type WizardStep } from '../../src/domain/formula/wizard.ts';
import { policiesFor } from '../../src/domain/roles.ts';
import { flagsMachine } from '../../src/machines/flags.ts';
import { stepEditorMachine, type LoadInput, type SaveInput, type StepEditorRef } from '../../src/machines/stepEditor.ts';
import { stepsOf, wizardMachine, type WizardEvent } from '../../src/machines/wizard.ts';
import type { StepLoad } from '../../src/machines/wizardSteps.ts';
import type { FormulaView } from '../../src/services/formulas.ts';
import type { SnapshotRequest, SnapshotResult } from '../../src/services/flags.ts';
import { ActorsContext, FlagsActorContext } from '../../src/views/shell/actors.tsx';
import type { StepProps } from '../../src/views/wizard/step.tsx';
import { WizardHost } from '../../src/views/wizard/WizardDialog.tsx';
import { expectingFailure, named, testModel, withBrokenGuard, type ModelPath } from '../support/modelPaths.ts';

afterEach(() => cleanup());

type Snap = SnapshotFrom<typeof wizardMachine>;
interface Combination { sourceHasSettings: boolean; destinationHasSettings: boolean; customRouting: boolean; usesFileUpload: boolean; isDraft: boolean }
const KEYS = ['sourceHasSettings', 'destinationHasSettings', 'customRouting', 'usesFileUpload', 'isDraft'] as const;
const COMBINATIONS: Combination[] = Array.from({ length: 32 }, (_, n) => Object.fromEntries(KEYS.map((k, i) => [k, Boolean(n & (1 << i))])) as unknown as Combination);
const nameOf = (c: Combination) => KEYS.filter((k) => c[k]).join(', ') || 'no conditions';

const FORMULA_ID = '3f6c8a52-0c1e-4d1a-9a57-6c0f8e2b7d10';
const end = (hasAdditionalSettings: boolean) => ({ dataSourceId: 'd1', object: 'constituents', settings: {}, system: 'sandbox-crm' as const, displayName: 'Sandbox CRM', hasAdditionalSettings });
const formulaFor = (c: Combination): FormulaView => ({
  id: FORMULA_ID, name: 'Spring appeal', isDraft: c.isDraft, usesFileUpload: c.usesFileUpload,
  sourceDataSource: end(c.sourceHasSettings), firstDestinationDataSource: end(c.destinationHasSettings),
  sampleUploadId: null, status: 'inactive', jobStatus: null, needsReprocess: false, archivedOn: null, parts: [], createdOn: '2026-11-01T00:00:00Z', modifiedOn: '2026-11-01T00:00:00Z',
});

/** the flag snapshot: custom-routing on for the formula, or for nobody */
const snapshotFor = (on: boolean): FlagSnapshot => ({
  namespace: { key: 'default' },
  flags: [toSnapshotFlag(CUSTOM_ROUTING_FLAG, formulaRuleFlag('Custom routing', '', on ? [FORMULA_ID] : []))],
});

/** A step's screen as the paths drive it: a field to change, Save and Back; it shows which editor it was given. */
function FakeStep(props: StepProps) {
  return (
    <div data-testid="fake-step" data-editor={props.editor ? `${props.editor.getSnapshot().context.step} ${props.editor.getSnapshot().status}` : 'none'}>
      <label>Value of {props.step}<input aria-label="Fake value" onChange={(e) => props.onDirtyChange(e.currentTarget.value !== '')} /></label>
      {props.onBack && <button type="button" onClick={props.onBack}>Back</button>}
      <button type="button" onClick={() => props.onSaved()}>Save and continue</button>
    </div>
  );
}
const FAKE_SCREENS = Object.fromEntries(WIZARD_STEPS.map((s) => [s, FakeStep])) as Record<WizardStep, typeof FakeStep>;

const authLogic = setup({}).createMachine({ context: { user: { policies: policiesFor(['Formula Producer']) } } });

function renderWizard(c: Combination, logic: typeof wizardMachine, screens = FAKE_SCREENS, startAt: WizardStep = 'data-sources') {
  const flags = createActor(flagsMachine.provide({
    actors: { fetchSnapshot: fromPromise<SnapshotResult, SnapshotRequest>(async () => ({ status: 'fetched', snapshot: snapshotFor(c.customRouting), etag: '"1"' })) },
  }), { input: {} }).start();
  const auth = createActor(authLogic).start();
  const machine = logic.provide({ actors: { loadFormula: fromPromise(async () => formulaFor(c)) } });
  const router = createMemoryRouter([{ path: '*', element: <WizardHost screens={screens} logic={machine} /> }], {
    initialEntries: [`/integrations-formulas?wizardFormulaId=${FORMULA_ID}&wizardStep=${startAt}`],
  });
  render(
    <MantineProvider>
      <ActorsContext.Provider value={{ auth, routeAccess: null } as never}>
        <FlagsActorContext.Provider value={flags}>
          <RouterProvider router={router} />
        </FlagsActorContext.Provider>
      </ActorsContext.Provider>
    </MantineProvider>,
  );
  const query = () => new URLSearchParams(router.state.location.search);
  return {
    router,
    stop() { flags.stop(); auth.stop(); },
    params: {
      states: {
        loading: async () => { /* the fake answers at once: the open state shows next */ },
        'open.idle': async (s: Snap) => {
          const dialog = await screen.findByTestId('formula-wizard');
          await waitFor(() => expect(within(dialog).getByRole('heading', { level: 3 }).textContent).toBe(WIZARD_STEP_TITLES[s.context.step]));
          const stepper = within(dialog).getByLabelText('Wizard steps');
          const labels = WIZARD_STEPS.filter((step) => within(stepper).queryByText(WIZARD_STEP_TITLES[step]) !== null);
          expect(labels).toEqual(stepsOf(s.context));
          // marked done: the steps set up, not every step before the open one
          const marked = labels.filter((step) => {
            const button = within(stepper).getByText(WIZARD_STEP_TITLES[step]).closest('button')!;
            expect(button.textContent?.endsWith(', set up'), step).toBe(button.dataset.setUp === 'true');
            return button.dataset.setUp === 'true';
          });
          expect(marked).toEqual(labels.filter((step) => isStepMarkedDone(step, s.context.formula!)));
          await waitFor(() => expect(query().get('wizardStep')).toBe(s.context.step));
          expect(screen.queryByText(/has changes that are not saved/)).toBeNull();
        },
        'open.confirmingLeave': async () => {
          await screen.findByText(/has changes that are not saved/);
        },
        // whether asking or not, the open step's screen has the wizard's running editor of that step
        open: async (s: Snap) => {
          await waitFor(() => expect(screen.getByTestId('fake-step').dataset.editor).toBe(`${s.context.step} active`));
        },
        closed: async () => {
          await waitFor(() => expect(query().has('wizardFormulaId'), router.state.location.search).toBe(false));
          await waitFor(() => expect(screen.queryByTestId('formula-wizard')).toBeNull());
          expect(query().has('wizardFormulaId')).toBe(false);
          expect(query().has('wizardStep')).toBe(false);
        },
        failed: async () => { await screen.findByText('The formula could not be opened'); },
      },
      events: {
        'xstate.done.actor.loadFormula': async () => { /* answered by the fake */ },
        'step.saved': async () => { fireEvent.click(await within(await screen.findByTestId('fake-step')).findByRole('button', { name: 'Save and continue' })); },
        'step.back': async () => { fireEvent.click(within(await screen.findByTestId('fake-step')).getByRole('button', { name: 'Back' })); },
        'step.dirty': async ({ event }: { event: WizardEvent }) => {
          const input = within(await screen.findByTestId('fake-step')).getByLabelText('Fake value');
          fireEvent.change(input, { target: { value: (event as { dirty: boolean }).dirty ? 'changed' : '' } });
        },
        'wizard.close': async () => { fireEvent.click(screen.getByRole('button', { name: 'Close the wizard' })); },
        'leave.confirm': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Leave without saving' })); },
        'leave.cancel': async () => { fireEvent.click(await screen.findByRole('button', { name: 'Stay' })); },
      },
    },
  };
}

const modelFor = (c: Combination, events: (s: Snap) => WizardEvent[]) => testModel(wizardMachine, {
  input: { formulaId: FORMULA_ID, step: 'data-sources', customRouting: c.customRouting },
  events: (s) => (s.matches('loading') ? [{ type: 'xstate.done.actor.loadFormula', output: formulaFor(c) } as never] : events(s as Snap)),
  serializeState: (s) => JSON.stringify([(s as Snap).value, (s as Snap).context.step, (s as Snap).context.dirty, (s as Snap).context.pending]),
});

async function run(path: ModelPath<Snap>, c: Combination, logic = wizardMachine) {
  const app = renderWizard(c, logic);
  try {
    await act(async () => { await path.test(app.params as never); });
  } finally {
    app.stop();
  }
}

/** For a combination: the path that saves every step from the first to the last. */
function walkThrough(c: Combination): ModelPath<Snap> {
  const model = modelFor(c, () => [{ type: 'step.saved' }]);
  const steps = stepsOf({ formula: formulaFor(c), customRouting: c.customRouting });
  const events = [{ type: 'xstate.done.actor.loadFormula', output: formulaFor(c) }, ...steps.slice(1).map(() => ({ type: 'step.saved' }))] as never[];
  const initial = getInitialSnapshot(wizardMachine, { formulaId: FORMULA_ID, step: 'data-sources', customRouting: c.customRouting });
  const [path] = model.getPathsFromEvents(events, { fromState: initial } as never);
  return path as unknown as ModelPath<Snap>;
}

describe('the wizard walks every combination of its conditions, step by step', () => {
  it.each(COMBINATIONS.map((c) => [nameOf(c), c] as const))('with %s', async (_name, c) => {
    const path = walkThrough(c);
    expect(path.state.context.step).toBe(c.isDraft ? 'processing' : 'review');
    await run(path, c);
  });

  it('fails when a saved step does not lead on', async () => {
    const c = COMBINATIONS[31]!;
    await expectingFailure(() => expect(run(walkThrough(c), c, withBrokenGuard(wizardMachine, 'hasNext'))).rejects.toThrow());
  });
});

const SAMPLE = COMBINATIONS[1 + 4]!; // source settings and custom routing
const paths = modelFor(SAMPLE, (s) => [
  ...(s.matches({ open: 'idle' }) ? [{ type: 'step.dirty', dirty: true }, { type: 'step.back' }, { type: 'wizard.close' }, { type: 'step.saved' }] as WizardEvent[] : []),
  ...(s.matches({ open: 'confirmingLeave' }) ? [{ type: 'leave.confirm' }, { type: 'leave.cancel' }] as WizardEvent[] : []),
]).getShortestPaths({ stopWhen: (s: Snap) => stepsOf(s.context).indexOf(s.context.step) > 2 } as never)
  .filter((p) => !p.state.matches('loading')) as unknown as ModelPath<Snap>[];

describe('unsaved changes, going back and closing (shortest paths)', () => {
  it('reach every state of the wizard', () => {
    const values = new Set(paths.map((p) => JSON.stringify(p.state.value)));
    expect(values).toEqual(new Set(['{"open":"idle"}', '{"open":"confirmingLeave"}', '"closed"']));
  });

  it.each(named(paths, (p) => p.steps.map((s) => s.event.type).join(' → ')))('%s', async (_name, path) => {
    await run(path, SAMPLE);
  });

  it('fails when unsaved changes are left without asking', async () => {
    const broken = wizardMachine.provide({ guards: { isDirty: () => false } });
    const asks = (s: Snap) => s.matches({ open: 'confirmingLeave' });
    const asking = paths.filter((p) => p.steps.some((s) => asks(s.state)) || asks(p.state));
    expect(asking.length).toBeGreaterThan(0);
    let failures = 0;
    await expectingFailure(async () => {
      for (const path of asking) {
        await run(path, SAMPLE, broken).catch(() => { failures += 1; });
        cleanup();
      }
    });
    expect(failures).toBe(asking.length);
  });
});

describe('a save that ends the open step', () => {
  it('opens the review once activation ends the draft and, with it, the processing step', async () => {
    const c = COMBINATIONS[8 + 16]!; // file upload, draft
    /** the processing step answers the formula as activation leaves it */
    function Activate(props: StepProps) {
      return <button type="button" onClick={() => props.onSaved({ ...props.formula, isDraft: false, status: 'active' })}>Activate the formula</button>;
    }
    const app = renderWizard(c, wizardMachine, { ...FAKE_SCREENS, processing: Activate }, 'processing');
    try {
      fireEvent.click(await screen.findByRole('button', { name: 'Activate the formula' }));
      const dialog = screen.getByTestId('formula-wizard');
      await waitFor(() => expect(within(dialog).getByRole('heading', { level: 3 }).textContent).toBe('Review'));
      expect(new URLSearchParams(app.router.state.location.search).get('wizardStep')).toBe('review');
      expect(within(within(dialog).getByLabelText('Wizard steps')).queryByText('Processing')).toBeNull();
    } finally {
      app.stop();
    }
  });
});

describe("the open step's editor runs as long as the step is open", () => {
  /** the wizard at this step, each step's editor reading its own draft and saving without changing the formula */
  async function openAt(c: Combination, step: WizardStep) {
    const editor = stepEditorMachine.provide({
      actors: {
        loadStep: fromPromise<StepLoad, LoadInput>(async ({ input }) => ({ data: {}, saved: { of: input.step }, draft: { of: input.step } })),
        saveStep: fromPromise<FormulaView | undefined, SaveInput>(async () => undefined),
      },
    });
    const wizard = createActor(wizardMachine.provide({ actors: { loadFormula: fromPromise(async () => formulaFor(c)), stepEditor: editor } }), {
      input: { formulaId: FORMULA_ID, step, customRouting: c.customRouting },
    }).start();
    await settled(wizard, (s) => s.matches('open'));
    return { wizard, editor: () => wizard.getSnapshot().children.step as StepEditorRef | undefined };
  }
  /** the editor, read, with the user's change in its draft (which it tells the wizard of) */
  async function change(editor: StepEditorRef) {
    await settled(editor, (s) => s.matches('editing'));
    editor.send({ type: 'draft.change', draft: { changed: true } });
  }
  const NO_CONDITIONS = COMBINATIONS[0]!;

  it('keeps the user\'s draft when they stay, and when the formula changes but keeps the step', async () => {
    const { wizard, editor } = await openAt(NO_CONDITIONS, 'scheduling');
    const running = editor()!;
    expect(running.getSnapshot().context.step).toBe('scheduling');
    await change(running);
    expect(wizard.getSnapshot().context.dirty).toBe(true);

    wizard.send({ type: 'wizard.close' });
    expect(wizard.getSnapshot().matches({ open: 'confirmingLeave' })).toBe(true);
    wizard.send({ type: 'leave.cancel' });
    expect(wizard.getSnapshot().matches({ open: 'idle' })).toBe(true);
    expect(editor()).toBe(running);
    expect(running.getSnapshot().status).toBe('active');
    expect(running.getSnapshot().context.draft).toEqual({ changed: true });
    expect(wizard.getSnapshot().context.dirty).toBe(true);

    wizard.send({ type: 'formula.changed', formula: { ...formulaFor(NO_CONDITIONS), name: 'Autumn appeal' } });
    expect(wizard.getSnapshot().context.formula?.name).toBe('Autumn appeal');
    expect(editor()).toBe(running);
    expect(running.getSnapshot().context.draft).toEqual({ changed: true });
    wizard.stop();
  });

  it('starts a fresh editor for each step it opens, and for the last step once it saved', async () => {
    const c = COMBINATIONS[16]!; // a draft: its last step is processing
    const { wizard, editor } = await openAt(c, 'review');
    const review = editor()!;
    wizard.send({ type: 'step.next' });
    expect(wizard.getSnapshot().context.step).toBe('processing');
    expect(review.getSnapshot().status).toBe('stopped');
    const processing = editor()!;
    expect(processing.getSnapshot().context.step).toBe('processing');

    // the editor's own save is what the wizard hears
    await change(processing);
    processing.send({ type: 'step.save' });
    await settled(wizard, () => editor() !== processing, { timeout: 5_000 });
    expect(processing.getSnapshot().status).toBe('stopped');
    expect(wizard.getSnapshot().context).toMatchObject({ step: 'processing', dirty: false });
    expect(editor()!.getSnapshot().context).toMatchObject({ step: 'processing', draft: { of: 'processing' } });
    wizard.stop();
  });

  it('keeps asking when a flag takes the step away, over the next step\'s editor', async () => {
    const { wizard, editor } = await openAt(NO_CONDITIONS, 'routing');
    const routing = editor()!;
    await change(routing);
    wizard.send({ type: 'wizard.close' });
    wizard.send({ type: 'flags.changed', customRouting: true });
    expect(wizard.getSnapshot().matches({ open: 'confirmingLeave' })).toBe(true);
    expect(wizard.getSnapshot().context.step).toBe('custom-routing');
    expect(routing.getSnapshot().status).toBe('stopped');
    expect(editor()!.getSnapshot().context.step).toBe('custom-routing');
    wizard.stop();
  });
});
