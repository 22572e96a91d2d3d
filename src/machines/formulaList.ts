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
  sources: DataSourceListItem[];
  /** the draft just created: the view opens the wizard on it */
  created: FormulaView | null;
  error: string | null;
}

export type FormulaListEvent = { type: 'list.reload' } | { type: 'formula.create' };

/** whether the tenant has a data source that can be a formula's source ('Go to Connections' when not) */
export const hasSourceFor = (sources: DataSourceListItem[]) => sources.some((s) => connectorFor(s.system).roles.source);

export const formulaListMachine = setup({
  types: { context: {} as FormulaListContext, events: {} as FormulaListEvent },
  actors: {
    loadList: fromPromise(async () => {
      const [list, sources] = await Promise.all([formulas.list({ silent: true }), integrations.list({ silent: true }).catch(() => [])]);
      return { formulas: list, sources };
    }),
    createDraft: fromPromise(async () => formulas.create({})),
  },
}).createMachine({
  id: 'formulaList',
  initial: 'loading',
  context: { formulas: [], sources: [], created: null, error: null },
  states: {
    loading: {
      // the draft made before was opened already
      entry: assign({ created: null }),
      invoke: {
        id: 'loadList',
        src: 'loadList',
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
