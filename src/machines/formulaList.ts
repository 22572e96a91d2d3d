/**
 * The formula list (All Formulas, SPEC.md section 2): loads the tenant's formulas with the data
 * sources (to know whether any can be a source), and creates a draft for the wizard. A draft made
 * here and left with nothing saved (the wizard closed on its first step) is deleted once the wizard
 * closes, so no "Untitled formula" stays behind. A formula's lifecycle: a draft can be deleted,
 * after a confirmation; a live formula can be archived, after a confirmation (it stops and keeps
 * its records); an archived one unarchived, or deleted after a confirmation that says how many
 * records go; any formula copied as a new draft, which the wizard opens.
 */
import { assign, fromPromise, setup } from 'xstate';
import { formulaDisplayName } from '../domain/formula/formula.ts';
import { connectorFor } from '../domain/connectors/catalogue.ts';
import { formulas, type Deletion, type FormulaView } from '../services/formulas.ts';
import { integrations, type DataSourceListItem } from '../services/integrations.ts';

export interface FormulaListContext {
  formulas: FormulaView[];
  /** null for a role that may not see data sources: whether one exists is not this user's to know */
  sources: DataSourceListItem[] | null;
  maySeeSources: boolean;
  /** the draft just created: the view opens the wizard on it */
  created: FormulaView | null;
  /** the draft made here for the wizard, until the wizard closes: deleted then if nothing of it was saved */
  opened: string | null;
  /** the draft or archived formula to delete, while the user is asked */
  toDelete: FormulaView | null;
  /** what deleting an archived formula takes with it, for the question */
  deletion: Deletion | null;
  /** the live formula to archive, while the user is asked */
  toArchive: FormulaView | null;
  /** the formula being unarchived or copied */
  acting: FormulaView | null;
  /** what was just done, in words */
  notice: string | null;
  error: string | null;
}

export type FormulaListEvent =
  | { type: 'list.reload' }
  | { type: 'formula.create' }
  /** the wizard closed: the list shows what it changed */
  | { type: 'wizard.closed' }
  | { type: 'formula.delete'; id: string }
  | { type: 'delete.confirm' }
  | { type: 'delete.cancel' }
  | { type: 'formula.archive'; id: string }
  | { type: 'archive.confirm' }
  | { type: 'archive.cancel' }
  | { type: 'formula.unarchive'; id: string }
  | { type: 'formula.copy'; id: string };

export const isArchived = (f: FormulaView) => f.archivedOn !== null;
/** a draft goes at once; a formula that has run is archived first, so nothing is deleted from under a run */
export const isDeletable = (f: FormulaView) => f.isDraft || isArchived(f);
export const isArchivable = (f: FormulaView) => !f.isDraft && !isArchived(f);

/** a draft with nothing saved: no name, no data source (the wizard's first step was never saved) */
export const isUntouchedDraft = (f: FormulaView) => f.isDraft && !f.name && !f.sourceDataSource && !f.firstDestinationDataSource;

/**
 * Whether the tenant has a data source that can be a formula's source ('Go to Connections' when
 * not). Taken as yes for a role that cannot see data sources, who is never told to add one.
 */
export const hasSourceFor = (sources: DataSourceListItem[] | null) => sources === null || sources.some((s) => connectorFor(s.system).roles.source);

const deletedWhat = (f: FormulaView) => `${f.isDraft ? 'The draft' : 'The formula'} ${formulaDisplayName(f)}`;

export const formulaListMachine = setup({
  types: { context: {} as FormulaListContext, events: {} as FormulaListEvent, input: {} as { maySeeSources?: boolean } | undefined },
  actors: {
    // data sources only for a role that may see them: asking without the permission is a refusal on record
    loadList: fromPromise(async ({ input }: { input: { maySeeSources: boolean } }) => {
      const [list, sources] = await Promise.all([
        formulas.list({ silent: true }),
        input.maySeeSources ? integrations.list({ silent: true }).catch(() => []) : Promise.resolve(null),
      ]);
      return { formulas: list, sources };
    }),
    createDraft: fromPromise(async () => formulas.create({})),
    removeFormula: fromPromise(async ({ input }: { input: { id: string } }) => { await formulas.remove(input.id, { silent: true }); }),
    loadDeletion: fromPromise(async ({ input }: { input: { id: string } }) => formulas.deletion(input.id, { silent: true })),
    archiveFormula: fromPromise(async ({ input }: { input: { id: string } }) => formulas.archive(input.id, { silent: true })),
    unarchiveFormula: fromPromise(async ({ input }: { input: { id: string } }) => formulas.unarchive(input.id, { silent: true })),
    copyFormula: fromPromise(async ({ input }: { input: { id: string } }) => formulas.copy(input.id, { silent: true })),
  },
  guards: {
    isDraft: ({ context, event }) => event.type === 'formula.delete' && context.formulas.some((f) => f.id === event.id && f.isDraft),
    // a live formula has records and runs: it is archived before it can be deleted
    isArchivedFormula: ({ context, event }) => (event.type === 'formula.delete' || event.type === 'formula.unarchive') && context.formulas.some((f) => f.id === event.id && isArchived(f)),
    isArchivable: ({ context, event }) => event.type === 'formula.archive' && context.formulas.some((f) => f.id === event.id && isArchivable(f)),
    isListed: ({ context, event }) => event.type === 'formula.copy' && context.formulas.some((f) => f.id === event.id),
    isLeftUntouched: ({ context }, formulasNow: FormulaView[]) => formulasNow.some((f) => f.id === context.opened && isUntouchedDraft(f)),
  },
}).createMachine({
  id: 'formulaList',
  initial: 'loading',
  context: ({ input }) => ({
    formulas: [], sources: [], maySeeSources: input?.maySeeSources ?? true, created: null, opened: null,
    toDelete: null, deletion: null, toArchive: null, acting: null, notice: null, error: null,
  }),
  states: {
    loading: {
      // the draft made before was opened already
      entry: assign({ created: null }),
      invoke: {
        id: 'loadList',
        src: 'loadList',
        input: ({ context }) => ({ maySeeSources: context.maySeeSources }),
        onDone: [
          // the wizard closed on a draft made for it, with nothing saved: it goes
          {
            guard: { type: 'isLeftUntouched', params: ({ event }) => event.output.formulas },
            target: 'discarding',
            actions: assign(({ event }) => ({ formulas: event.output.formulas, sources: event.output.sources, error: null })),
          },
          { target: 'ready', actions: assign(({ event }) => ({ formulas: event.output.formulas, sources: event.output.sources, error: null, opened: null })) },
        ],
        onError: { target: 'failed', actions: assign({ error: 'The formulas could not be loaded.' }) },
      },
    },
    failed: { on: { 'list.reload': 'loading', 'wizard.closed': 'loading' } },
    ready: {
      on: {
        'list.reload': { target: 'loading', actions: assign({ notice: null }) },
        'wizard.closed': { target: 'loading', actions: assign({ notice: null }) },
        'formula.create': { target: 'creating', actions: assign({ notice: null }) },
        'formula.delete': [
          {
            guard: 'isDraft',
            target: 'confirmingDelete',
            actions: assign({ toDelete: ({ context, event }) => context.formulas.find((f) => f.id === event.id) ?? null, deletion: null, notice: null, error: null }),
          },
          // an archived formula's question says how many records go: asked for first
          {
            guard: 'isArchivedFormula',
            target: 'countingDeletion',
            actions: assign({ toDelete: ({ context, event }) => context.formulas.find((f) => f.id === event.id) ?? null, deletion: null, notice: null, error: null }),
          },
        ],
        'formula.archive': {
          guard: 'isArchivable',
          target: 'confirmingArchive',
          actions: assign({ toArchive: ({ context, event }) => context.formulas.find((f) => f.id === event.id) ?? null, notice: null, error: null }),
        },
        'formula.unarchive': {
          guard: 'isArchivedFormula',
          target: 'unarchiving',
          actions: assign({ acting: ({ context, event }) => context.formulas.find((f) => f.id === event.id) ?? null, notice: null, error: null }),
        },
        'formula.copy': {
          guard: 'isListed',
          target: 'copying',
          actions: assign({ acting: ({ context, event }) => context.formulas.find((f) => f.id === event.id) ?? null, notice: null, error: null }),
        },
      },
    },
    creating: {
      invoke: {
        id: 'createDraft',
        src: 'createDraft',
        onDone: { target: 'ready', actions: assign({ created: ({ event }) => event.output, opened: ({ event }) => event.output.id }) },
        onError: { target: 'ready', actions: assign({ error: 'The formula could not be created.' }) },
      },
    },
    // a draft made for the wizard and left with nothing saved; if it cannot go, it stays in the list to delete
    discarding: {
      invoke: {
        id: 'discardDraft',
        src: 'removeFormula',
        input: ({ context }) => ({ id: context.opened! }),
        onDone: { target: 'loading', actions: assign({ opened: null }) },
        onError: { target: 'ready', actions: assign({ opened: null }) },
      },
    },
    countingDeletion: {
      invoke: {
        id: 'loadDeletion',
        src: 'loadDeletion',
        input: ({ context }) => ({ id: context.toDelete!.id }),
        onDone: { target: 'confirmingDelete', actions: assign({ deletion: ({ event }) => event.output }) },
        onError: { target: 'ready', actions: assign({ error: ({ context }) => `The formula ${formulaDisplayName(context.toDelete!)} could not be deleted.`, toDelete: null }) },
      },
    },
    /** 'Delete the draft …?' or 'Delete … with its n records?': delete it, or keep it */
    confirmingDelete: {
      on: {
        'delete.confirm': 'deleting',
        'delete.cancel': { target: 'ready', actions: assign({ toDelete: null, deletion: null }) },
      },
    },
    deleting: {
      invoke: {
        id: 'removeFormula',
        src: 'removeFormula',
        input: ({ context }) => ({ id: context.toDelete!.id }),
        onDone: { target: 'loading', actions: assign({ notice: ({ context }) => `${deletedWhat(context.toDelete!)} was deleted.`, toDelete: null, deletion: null }) },
        onError: { target: 'ready', actions: assign({ error: ({ context }) => `${deletedWhat(context.toDelete!)} could not be deleted.`, toDelete: null, deletion: null }) },
      },
    },
    /** 'Archive …?': it stops and keeps its records; or keep it running */
    confirmingArchive: {
      on: {
        'archive.confirm': 'archiving',
        'archive.cancel': { target: 'ready', actions: assign({ toArchive: null }) },
      },
    },
    archiving: {
      invoke: {
        id: 'archiveFormula',
        src: 'archiveFormula',
        input: ({ context }) => ({ id: context.toArchive!.id }),
        onDone: { target: 'loading', actions: assign({ notice: ({ context }) => `The formula ${formulaDisplayName(context.toArchive!)} was archived.`, toArchive: null }) },
        onError: { target: 'ready', actions: assign({ error: ({ context }) => `The formula ${formulaDisplayName(context.toArchive!)} could not be archived.`, toArchive: null }) },
      },
    },
    unarchiving: {
      invoke: {
        id: 'unarchiveFormula',
        src: 'unarchiveFormula',
        input: ({ context }) => ({ id: context.acting!.id }),
        onDone: {
          target: 'loading',
          actions: assign({ notice: ({ context }) => `The formula ${formulaDisplayName(context.acting!)} is back, inactive: activate it to run it again.`, acting: null }),
        },
        onError: { target: 'ready', actions: assign({ error: ({ context }) => `The formula ${formulaDisplayName(context.acting!)} could not be unarchived.`, acting: null }) },
      },
    },
    // the copy opens in the wizard, as a new draft does
    copying: {
      invoke: {
        id: 'copyFormula',
        src: 'copyFormula',
        input: ({ context }) => ({ id: context.acting!.id }),
        onDone: { target: 'ready', actions: assign({ created: ({ event }) => event.output, acting: null }) },
        onError: { target: 'ready', actions: assign({ error: ({ context }) => `The formula ${formulaDisplayName(context.acting!)} could not be copied.`, acting: null }) },
      },
    },
  },
});
