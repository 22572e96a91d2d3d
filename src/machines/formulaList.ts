/**
 * The formula list (All Formulas, SPEC.md section 2): loads the tenant's formulas with the data
 * sources (to know whether any can be a source), and creates a draft for the wizard.
 */
import { assign, fromPromise, setup } from 'xstate';
import { connectorFor } from '../domain/connectors/catalogue.ts';
import { formulas, type FormulaView } from '../services/formulas.ts';
import { integrations, type DataSourceListItem } from '../services/integrations.ts';

export interface FormulaListContext {
  formulas: FormulaView[];
  /** null for a role that may not see data sources: whether one exists is not this user's to know */
  sources: DataSourceListItem[] | null;
  maySeeSources: boolean;
  /** the draft just created: the view opens the wizard on it */
  created: FormulaView | null;
  error: string | null;
}

export type FormulaListEvent = { type: 'list.reload' } | { type: 'formula.create' };

/**
 * Whether the tenant has a data source that can be a formula's source ('Go to Connections' when
 * not). Taken as yes for a role that cannot see data sources, who is never told to add one.
 */
export const hasSourceFor = (sources: DataSourceListItem[] | null) => sources === null || sources.some((s) => connectorFor(s.system).roles.source);

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
  },
}).createMachine({
  id: 'formulaList',
  initial: 'loading',
  context: ({ input }) => ({ formulas: [], sources: [], maySeeSources: input?.maySeeSources ?? true, created: null, error: null }),
  states: {
    loading: {
      // the draft made before was opened already
      entry: assign({ created: null }),
      invoke: {
        id: 'loadList',
        src: 'loadList',
        input: ({ context }) => ({ maySeeSources: context.maySeeSources }),
        onDone: { target: 'ready', actions: assign(({ event }) => ({ formulas: event.output.formulas, sources: event.output.sources, error: null })) },
        onError: { target: 'failed', actions: assign({ error: 'The formulas could not be loaded.' }) },
      },
    },
    failed: { on: { 'list.reload': 'loading' } },
    ready: {
      on: { 'list.reload': 'loading', 'formula.create': 'creating' },
    },
    creating: {
      invoke: {
        id: 'createDraft',
        src: 'createDraft',
        onDone: { target: 'ready', actions: assign({ created: ({ event }) => event.output }) },
        onError: { target: 'ready', actions: assign({ error: 'The formula could not be created.' }) },
      },
    },
  },
});
