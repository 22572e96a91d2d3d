/**
 * The open wizard step's editor (SPEC.md section 2): it loads what the step shows, holds the
 * step's draft beside the saved copy, and saves it. The wizard runs one for the open step; the
 * step's screen keeps only its fields' own state and sends each change of its draft.
 *
 * It tells the wizard whether the draft differs from the saved copy (`step.dirty`), and that the
 * step saved (`step.saved`, with the formula when the save changed it). What each step loads and
 * saves is the `loadStep` and `saveStep` actors' (./wizardSteps.ts); tests provide fakes.
 */
import { and, assign, emit, enqueueActions, fromPromise, setup, type ActorRefFrom, type AnyActorRef } from 'xstate';
import type { WizardStep } from '../domain/formula/wizard.ts';
import type { FormulaView } from '../services/formulas.ts';
import { STEP_IO, type StepLoad } from './wizardSteps.ts';

export interface StepEditorInput {
  step: WizardStep;
  formula: FormulaView;
  /** the wizard, told of changes and saves; a step editor on its own tells no one */
  parent?: AnyActorRef;
}

export interface StepEditorContext {
  step: WizardStep;
  formula: FormulaView;
  parent: AnyActorRef | null;
  /** what the step's screen shows (for example the saved schedule); undefined until loaded */
  data: unknown;
  saved: unknown;
  draft: unknown;
  /** why the step could not be read or saved */
  error: string | null;
}

export type StepEditorEvent =
  | { type: 'draft.change'; draft: unknown }
  | { type: 'step.save' }
  | { type: 'retry' };

/** for the screen: a save's outcome, said once (SPEC.md section 8's messages) */
export type StepEditorEmitted =
  | { type: 'step.announceSaved'; step: WizardStep }
  | { type: 'step.announceSaveFailed'; step: WizardStep; detail: string | null };

interface LoadInput { step: WizardStep; formula: FormulaView }
interface SaveInput extends LoadInput { draft: unknown }

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/**
 * The draft differs from the saved copy: the draft just sent when a change is sent, the loaded
 * pair when a load answers, else the kept pair.
 */
function draftDiffers({ context, event }: { context: StepEditorContext; event: { type: string } }): boolean {
  if (event.type === 'draft.change') return !same((event as unknown as { draft: unknown }).draft, context.saved);
  if (event.type === 'xstate.done.actor.loadStep') {
    const loaded = (event as unknown as { output: StepLoad }).output;
    return !same(loaded.draft, loaded.saved);
  }
  return !same(context.draft, context.saved);
}
const detailOf = (error: unknown) => (error as { problem?: { detail?: unknown } } | null)?.problem?.detail;

export const stepEditorMachine = setup({
  types: {
    context: {} as StepEditorContext,
    events: {} as StepEditorEvent,
    input: {} as StepEditorInput,
    emitted: {} as StepEditorEmitted,
  },
  actors: {
    loadStep: fromPromise<StepLoad, LoadInput>(({ input }) => STEP_IO[input.step]?.load(input.formula) ?? Promise.resolve({ data: null, saved: null, draft: null })),
    saveStep: fromPromise<FormulaView | undefined, SaveInput>(async ({ input }) => STEP_IO[input.step]?.save(input.formula, input.draft)),
  },
  guards: {
    isDirty: draftDiffers,
    hasLoaded: ({ context }) => context.data !== undefined,
    isUnread: ({ context }) => context.data === undefined,
  },
  actions: {
    keepDraft: assign({ draft: ({ context, event }) => (event.type === 'draft.change' ? event.draft : context.draft) }),
    tellDirty: enqueueActions(({ context, enqueue }) => {
      if (context.parent) enqueue.sendTo(context.parent, { type: 'step.dirty', dirty: true });
    }),
    tellClean: enqueueActions(({ context, enqueue }) => {
      if (context.parent) enqueue.sendTo(context.parent, { type: 'step.dirty', dirty: false });
    }),
    keepLoaded: assign(({ event }) => {
      const loaded = (event as unknown as { output: StepLoad }).output;
      return { data: loaded.data, saved: loaded.saved, draft: loaded.draft, error: null };
    }),
  },
}).createMachine({
  id: 'stepEditor',
  initial: 'loading',
  context: ({ input }) => ({
    step: input.step, formula: input.formula, parent: input.parent ?? null, data: undefined, saved: undefined, draft: undefined, error: null,
  }),
  states: {
    loading: {
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
      invoke: {
        id: 'saveStep',
        src: 'saveStep',
        input: ({ context }) => ({ step: context.step, formula: context.formula, draft: context.draft }),
        onDone: {
          target: 'saved',
          actions: [
            assign({ saved: ({ context }) => context.draft, error: null }),
            emit(({ context }) => ({ type: 'step.announceSaved' as const, step: context.step })),
            enqueueActions(({ context, event, enqueue }) => {
              if (context.parent) enqueue.sendTo(context.parent, { type: 'step.saved', formula: event.output ?? undefined });
            }),
          ],
        },
        onError: {
          target: 'failed',
          actions: [
            assign({ error: ({ event }) => String(detailOf(event.error) ?? 'Try again.') }),
            emit(({ context, event }) => ({ type: 'step.announceSaveFailed' as const, step: context.step, detail: (detailOf(event.error) as string | undefined) ?? null })),
          ],
        },
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
