/**
 * The open wizard step's editor (SPEC.md section 2): it loads what the step shows, holds the
 * step's draft beside the saved copy, and saves it. The wizard runs one for the open step; the
 * step's screen keeps only its fields' own state and sends each change of its draft.
 *
 * It tells the wizard whether the draft differs from the saved copy (`step.dirty`), and that the
 * step saved (`step.saved`, with the formula when the save changed it). What each step loads and
 * saves is the `loadStep` and `saveStep` actors' (./wizardSteps.ts); tests provide fakes.
 *
 * A save the server refuses until the user confirms that it removes parts of the formula
 * (409 formula-wipe-unconfirmed) asks first (`confirmingWipe`): a confirmation saves the same
 * draft again with confirmWipe, cancelling goes back to the draft.
 *
 * A step whose data holds sample rows (the mapping's preview) can read them again on their own
 * (`sample.reload`), whatever state the draft is in: the mapping goes on without them.
 *
 * The formula-type step checks a Salesforce report id before keeping it: its editor runs the report check (`reportCheck`, ./reportCheck.ts) over the same calls,
 * and an object picker per end (`sourceObjects`, `destinationObjects`, ./objectPicker.ts). The review step's editor runs its dry run (`dryRun`, ./dryRun.ts).
 */
import { and, assign, emit, enqueueActions, fromCallback, fromPromise, setup, spawnChild, stopChild, type ActorRefFrom, type AnyActorRef } from 'xstate';
import type { WizardStep } from '../domain/formula/wizard.ts';
import type { FormulaSample } from '../domain/api/formulas.ts';
import type { FormulaView } from '../services/formulas.ts';
import { dryRunMachine, runDryRunWith, type DryRunRef } from './dryRun.ts';
import { loadObjectsOver, objectPickerMachine, type ObjectPickerRef } from './objectPicker.ts';
import { reportCheckMachine, type ReportCheckRef, type ReportFound } from './reportCheck.ts';
import { objectPickerInputOf, READ_SAMPLE, sampleReader, STEP_IO, StepRefused, stepIO, type StepCalls, type StepLoad } from './wizardSteps.ts';

export interface StepEditorInput {
  step: WizardStep;
  formula: FormulaView;
  /** the wizard, told of changes and saves; a step editor on its own tells no one */
  parent?: AnyActorRef;
  /** the user may read objects from the systems (edit data sources); true when not said */
  mayReadObjects?: boolean;
}

export interface StepEditorContext {
  step: WizardStep;
  formula: FormulaView;
  parent: AnyActorRef | null;
  mayReadObjects: boolean;
  /** what the step's screen shows (for example the saved schedule); undefined until loaded */
  data: unknown;
  saved: unknown;
  draft: unknown;
  /** why the step could not be read or saved */
  error: string | null;
  /** messages by field, from a save the step or the server refused ('name', 'source.settings.<key>') */
  fieldErrors: Record<string, string>;
  /** the parts a save would remove, while the user is asked whether to go on */
  wipes: string[];
  /** the save under way was confirmed to remove them */
  confirmWipe: boolean;
  /** the sample rows are being read again */
  sampleLoading: boolean;
}

export type StepEditorEvent =
  | { type: 'draft.change'; draft: unknown }
  | { type: 'step.save' }
  | { type: 'retry' }
  | { type: 'wipe.confirm' }
  | { type: 'wipe.cancel' }
  | { type: 'sample.reload' }
  /** from the sample's reader: the rows, or null when they could not be read */
  | { type: 'sample.loaded'; sample: FormulaSample | null };

/** for the screen: a save's outcome, said once (SPEC.md section 8's messages) */
export type StepEditorEmitted =
  | { type: 'step.announceSaved'; step: WizardStep }
  | { type: 'step.announceSaveFailed'; step: WizardStep; detail: string | null };

export interface LoadInput { step: WizardStep; formula: FormulaView }
/** the draft to save, what the step read (its choices), and whether removing parts was confirmed */
export interface SaveInput extends LoadInput { draft: unknown; data: unknown; confirmWipe: boolean }

/** reads the sample rows and tells the editor what it read (or null) */
const sampleLoader = (read: (formula: FormulaView) => Promise<FormulaSample | null>) =>
  fromCallback<StepEditorEvent, { formula: FormulaView }>(({ input, sendBack }) => {
    void read(input.formula).then((sample) => sendBack({ type: 'sample.loaded', sample }));
  });

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/**
 * The draft differs from the saved copy: the draft just sent when a change is sent, the draft kept
 * against the loaded copy when a load answers, else the kept pair.
 */
function draftDiffers({ context, event }: { context: StepEditorContext; event: { type: string } }): boolean {
  if (event.type === 'draft.change') return !same((event as unknown as { draft: unknown }).draft, context.saved);
  if (event.type === 'xstate.done.actor.loadStep') {
    const loaded = (event as unknown as { output: StepLoad }).output;
    // a change typed while the step loaded is the draft kept (keepLoaded): it is what must differ
    return !same(context.draft !== undefined ? context.draft : loaded.draft, loaded.saved);
  }
  return !same(context.draft, context.saved);
}
const detailOf = (error: unknown) => (error as { problem?: { detail?: unknown } } | null)?.problem?.detail;
const problemOf = (error: unknown) => ((error as { problem?: Record<string, unknown> } | null)?.problem ?? {});
const listOf = (x: unknown) => (Array.isArray(x) ? x.map(String) : []);
const errorsOf = (x: unknown): Record<string, string> => (x && typeof x === 'object' ? x as Record<string, string> : {});

export const stepEditorMachine = setup({
  types: {
    context: {} as StepEditorContext,
    events: {} as StepEditorEvent,
    input: {} as StepEditorInput,
    emitted: {} as StepEditorEmitted,
  },
  actors: {
    loadStep: fromPromise<StepLoad, LoadInput>(({ input }) => STEP_IO[input.step]?.load(input.formula) ?? Promise.resolve({ data: null, saved: null, draft: null })),
    saveStep: fromPromise<FormulaView | undefined, SaveInput>(async ({ input }) => STEP_IO[input.step]?.save(input.formula, input.draft, { data: input.data, confirmWipe: input.confirmWipe })),
    loadSample: sampleLoader(READ_SAMPLE),
    reportCheck: reportCheckMachine,
    objectPicker: objectPickerMachine,
    dryRun: dryRunMachine,
  },
  guards: {
    isDirty: draftDiffers,
    hasLoaded: ({ context }) => context.data !== undefined,
    isUnread: ({ context }) => context.data === undefined,
    /** the server asks to confirm that the change removes parts (SPEC.md section 4), and it was not confirmed yet */
    isWipeUnconfirmed: ({ context, event }) => !context.confirmWipe
      && problemOf((event as { error?: unknown }).error).title === 'formula-wipe-unconfirmed',
    /** the step refused its draft before sending it (a field to fill in, an object to choose) */
    isRefusedByStep: ({ event }) => (event as { error?: unknown }).error instanceof StepRefused,
    /** the step read data with sample rows (or without them), and is not reading them already */
    canReloadSample: ({ context }) => !context.sampleLoading
      && typeof context.data === 'object' && context.data !== null && 'sample' in context.data,
    isReadingSample: ({ context }) => context.sampleLoading,
  },
  actions: {
    keepDraft: assign({ draft: ({ context, event }) => (event.type === 'draft.change' ? event.draft : context.draft) }),
    tellDirty: enqueueActions(({ context, enqueue }) => {
      if (context.parent) enqueue.sendTo(context.parent, { type: 'step.dirty', dirty: true });
    }),
    tellClean: enqueueActions(({ context, enqueue }) => {
      if (context.parent) enqueue.sendTo(context.parent, { type: 'step.dirty', dirty: false });
    }),
    // a change made while the step was read is kept
    keepLoaded: assign(({ context, event }) => {
      const loaded = (event as unknown as { output: StepLoad }).output;
      return { data: loaded.data, saved: loaded.saved, draft: context.draft !== undefined ? context.draft : loaded.draft, error: null };
    }),
  },
}).createMachine({
  id: 'stepEditor',
  initial: 'loading',
  context: ({ input }) => ({
    step: input.step, formula: input.formula, parent: input.parent ?? null, mayReadObjects: input.mayReadObjects ?? true, data: undefined, saved: undefined, draft: undefined, error: null,
    fieldErrors: {}, wipes: [], confirmWipe: false, sampleLoading: false,
  }),
  // the workflows a step's screen runs beside its draft live as long as the step's editor
  entry: enqueueActions(({ context, enqueue }) => {
    if (context.step === 'review') enqueue.spawnChild('dryRun', { id: 'dryRun', input: { formulaId: context.formula.id } });
    if (context.step !== 'formula-types') return;
    const source = context.formula.sourceDataSource;
    const destination = context.formula.firstDestinationDataSource;
    enqueue.spawnChild('reportCheck', { id: 'reportCheck', input: { dataSourceId: source?.dataSourceId ?? '', savedReportId: source?.settings.reportId ?? '' } });
    if (source) enqueue.spawnChild('objectPicker', { id: 'sourceObjects', input: objectPickerInputOf(source, context.mayReadObjects) });
    if (destination) enqueue.spawnChild('objectPicker', { id: 'destinationObjects', input: objectPickerInputOf(destination, context.mayReadObjects) });
  }),
  on: {
    'sample.reload': {
      guard: 'canReloadSample',
      actions: [
        assign({ sampleLoading: true }),
        spawnChild('loadSample', { id: 'loadSample', input: ({ context }) => ({ formula: context.formula }) }),
      ],
    },
    'sample.loaded': {
      guard: 'isReadingSample',
      actions: [
        stopChild('loadSample'),
        assign({
          sampleLoading: false,
          data: ({ context, event }) => ({ ...(context.data as object), sample: event.sample }),
        }),
      ],
    },
  },
  states: {
    loading: {
      on: {
        'draft.change': { actions: 'keepDraft' },
      },
      invoke: {
        id: 'loadStep',
        src: 'loadStep',
        input: ({ context }) => ({ step: context.step, formula: context.formula }),
        // a step whose draft opens changed (a schedule not saved yet) says so at once
        onDone: [
          { guard: 'isDirty', target: 'editing', actions: ['keepLoaded', 'tellDirty'] },
          { target: 'editing', actions: 'keepLoaded' },
        ],
        onError: { target: 'failed', actions: assign({ error: ({ event }) => String(detailOf(event.error) ?? 'Try again.') }) },
      },
    },
    editing: {
      on: {
        'draft.change': [
          { guard: 'isDirty', actions: ['keepDraft', 'tellDirty'] },
          { actions: ['keepDraft', 'tellClean'] },
        ],
        'step.save': 'saving',
      },
    },
    saving: {
      entry: assign({ fieldErrors: {} }),
      invoke: {
        id: 'saveStep',
        src: 'saveStep',
        input: ({ context }) => ({ step: context.step, formula: context.formula, draft: context.draft, data: context.data, confirmWipe: context.confirmWipe }),
        onDone: {
          target: 'saved',
          actions: [
            // a change is saved: nothing is left unsaved, which the wizard hears before the save
            enqueueActions(({ context, enqueue }) => {
              if (!same(context.draft, context.saved)) enqueue('tellClean');
            }),
            assign({ saved: ({ context }) => context.draft, error: null, confirmWipe: false }),
            emit(({ context }) => ({ type: 'step.announceSaved' as const, step: context.step })),
            enqueueActions(({ context, event, enqueue }) => {
              if (context.parent) enqueue.sendTo(context.parent, { type: 'step.saved', formula: event.output ?? undefined });
            }),
          ],
        },
        onError: [
          // the change would remove parts: the user is asked first, and nothing is said failed
          { guard: 'isWipeUnconfirmed', target: 'confirmingWipe', actions: assign({ wipes: ({ event }) => listOf(problemOf(event.error).wipes) }) },
          { guard: 'isRefusedByStep', target: 'editing', actions: assign({ fieldErrors: ({ event }) => (event.error as StepRefused).errors, confirmWipe: false }) },
          {
            target: 'failed',
            actions: [
              assign({
                error: ({ event }) => String(detailOf(event.error) ?? 'Try again.'),
                fieldErrors: ({ event }) => errorsOf(problemOf(event.error).errors),
                confirmWipe: false,
              }),
              emit(({ context, event }) => ({ type: 'step.announceSaveFailed' as const, step: context.step, detail: (detailOf(event.error) as string | undefined) ?? null })),
            ],
          },
        ],
      },
    },
    /** the save would remove these parts: only a confirmation saves it again, confirmed; cancelling changes nothing */
    confirmingWipe: {
      on: {
        'wipe.confirm': { target: 'saving', actions: assign({ confirmWipe: true, wipes: [] }) },
        'wipe.cancel': { target: 'editing', actions: assign({ wipes: [] }) },
      },
    },
    /** the wizard moves on from here; kept open (the last step) it can be changed and saved again */
    saved: {
      on: {
        'draft.change': [
          { guard: 'isDirty', target: 'editing', actions: ['keepDraft', 'tellDirty'] },
          { target: 'editing', actions: ['keepDraft', 'tellClean'] },
        ],
        'step.save': 'saving',
      },
    },
    /** not read (Try again reads it again), or not saved (the draft stays, to change or save again) */
    failed: {
      on: {
        retry: { guard: 'isUnread', target: 'loading' },
        'draft.change': [
          { guard: and(['hasLoaded', 'isDirty']), target: 'editing', actions: ['keepDraft', 'tellDirty'] },
          { guard: 'hasLoaded', target: 'editing', actions: ['keepDraft', 'tellClean'] },
        ],
        'step.save': { guard: 'hasLoaded', target: 'saving' },
      },
    },
  },
});

export type StepEditorRef = ActorRefFrom<typeof stepEditorMachine>;

/** The workflows an editor runs for its step's screen, by their ids (each there only for its step). */
export interface StepEditorChildren {
  reportCheck?: ReportCheckRef;
  sourceObjects?: ObjectPickerRef;
  destinationObjects?: ObjectPickerRef;
  dryRun?: DryRunRef;
}

/** The step editor whose loads and saves go through these calls (a wizard over other services, or fakes). */
export function stepEditorOver(calls: StepCalls) {
  const io = stepIO(calls);
  return stepEditorMachine.provide({
    actors: {
      loadStep: fromPromise<StepLoad, LoadInput>(({ input }) => io[input.step]?.load(input.formula) ?? Promise.resolve({ data: null, saved: null, draft: null })),
      saveStep: fromPromise<FormulaView | undefined, SaveInput>(async ({ input }) => io[input.step]?.save(input.formula, input.draft, input)),
      loadSample: sampleLoader(sampleReader(calls)),
      reportCheck: reportCheckMachine.provide({
        actors: {
          checkReport: fromPromise<ReportFound, { dataSourceId: string; reportId: string }>(({ input }) =>
            calls.integrations.checkSalesforceReport(input.dataSourceId, input.reportId, { silent: true })),
        },
      }),
      objectPicker: objectPickerMachine.provide({ actors: { loadObjects: loadObjectsOver(calls.integrations) } }),
      dryRun: dryRunMachine.provide({ actors: { runDryRun: runDryRunWith(calls.formulas) } }),
    },
  });
}
