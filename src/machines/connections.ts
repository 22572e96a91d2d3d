/**
 * The Connections screen (SPEC.md section 2): the Data Sources list, select, add, edit, and
 * delete after confirmation, which the server refuses while a formula uses the source (SPEC.md
 * section 5). What the user may do follows the datasource policies. Opened with a vendor's answer
 * to Connect (src/domain/connectors/oauth.ts), it first completes the connection, then opens the
 * data source's form saying how it went.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { DataSourceView } from '../domain/connectors/catalogue.ts';
import { mayPasteTokens, type ConnectReturn } from '../domain/connectors/oauth.ts';
import { can, type Policies } from '../domain/roles.ts';
import { integrations, type DataSourceListItem } from '../services/integrations.ts';
import { connectionFormMachine, type ConnectionFormInput } from './connectionForm.ts';

export interface ConnectionsContext {
  policies: Policies;
  dataSources: DataSourceListItem[];
  selectedId: string | null;
  form: ConnectionFormInput | null;
  deleting: DataSourceListItem | null;
  /** why the last delete was refused (a formula uses the source) */
  refusal: string | null;
  error: string | null;
  /** what just happened, for a short confirmation */
  notice: string | null;
  /** the vendor's answer to complete before anything else */
  connectReturn: ConnectReturn | null;
  /** why that answer connected nothing, when it names no data source of this tenant to open */
  connectFailure: string | null;
}

export type ConnectionsEvent =
  | { type: 'list.reload' }
  | { type: 'source.select'; id: string }
  | { type: 'source.add' }
  | { type: 'source.edit'; id: string }
  | { type: 'source.delete'; id: string }
  | { type: 'delete.confirm' }
  | { type: 'delete.cancel' }
  | { type: 'delete.dismiss' }
  | { type: 'notice.dismiss' };

const problemOf = (error: unknown) => (error as { status?: number; problem?: { detail?: string; title?: string; dataSourceId?: string } }) ?? {};

export const connectionsMachine = setup({
  types: {
    context: {} as ConnectionsContext,
    events: {} as ConnectionsEvent,
    input: {} as { policies: Policies; connectReturn?: ConnectReturn | null },
  },
  actors: {
    completeOAuth: fromPromise<{ dataSourceId: string; detail: string }, ConnectReturn>(({ input }) => integrations.completeOAuth(input, { silent: true })),
    loadDataSources: fromPromise<DataSourceListItem[]>(() => integrations.list({ silent: true })),
    deleteDataSource: fromPromise<void, { id: string }>(({ input }) => integrations.remove(input.id, { silent: true })),
    connectionForm: connectionFormMachine,
  },
  guards: {
    mayCreate: ({ context }) => can(context.policies, 'datasource', 'create'),
    mayEdit: ({ context, event }) => can(context.policies, 'datasource', 'edit') && 'id' in event && context.dataSources.some((d) => d.id === event.id),
    mayDelete: ({ context, event }) => can(context.policies, 'datasource', 'delete') && 'id' in event && context.dataSources.some((d) => d.id === event.id),
    isListed: ({ context, event }) => 'id' in event && context.dataSources.some((d) => d.id === event.id),
    isInUse: ({ event }) => problemOf((event as { error?: unknown }).error).status === 409,
    wasSaved: ({ event }) => !!(event as { output?: { saved: DataSourceView | null } }).output?.saved,
    isReturningFromVendor: ({ context }) => context.connectReturn !== null,
    hasFormToOpen: ({ context }) => context.form !== null,
    namesDataSource: ({ event }) => typeof problemOf((event as { error?: unknown }).error).problem?.dataSourceId === 'string',
  },
}).createMachine({
  id: 'connections',
  initial: 'starting',
  context: ({ input }) => ({
    policies: input.policies, dataSources: [], selectedId: null, form: null, deleting: null, refusal: null, error: null, notice: null,
    connectReturn: input.connectReturn ?? null, connectFailure: null,
  }),
  on: {
    'notice.dismiss': { actions: assign({ notice: null }) },
  },
  states: {
    starting: {
      always: [{ guard: 'isReturningFromVendor', target: 'completingConnect' }, { target: 'loading' }],
    },
    completingConnect: {
      invoke: {
        id: 'completeOAuth',
        src: 'completeOAuth',
        input: ({ context }) => context.connectReturn!,
        onDone: {
          target: 'loading',
          actions: assign(({ context, event }) => ({
            connectReturn: null,
            selectedId: event.output.dataSourceId,
            form: { mode: 'edit' as const, dataSourceId: event.output.dataSourceId, outcome: { connected: true, message: event.output.detail }, mayPasteTokens: mayPasteTokens(context.policies) },
          })),
        },
        onError: [
          {
            guard: 'namesDataSource', target: 'loading',
            actions: assign(({ context, event }) => {
              const problem = problemOf(event.error).problem!;
              return {
                connectReturn: null,
                selectedId: problem.dataSourceId!,
                form: { mode: 'edit' as const, dataSourceId: problem.dataSourceId!, outcome: { connected: false, message: problem.detail ?? 'Not connected.' }, mayPasteTokens: mayPasteTokens(context.policies) },
              };
            }),
          },
          { target: 'loading', actions: assign({ connectReturn: null, connectFailure: ({ event }) => problemOf(event.error).problem?.detail ?? 'The connection could not be completed. Connect again.' }) },
        ],
      },
    },
    loading: {
      invoke: {
        id: 'loadDataSources',
        src: 'loadDataSources',
        onDone: [{
          guard: 'hasFormToOpen',
          target: 'editing',
          actions: assign({ dataSources: ({ event }) => event.output }),
        }, {
          target: 'ready',
          actions: assign({
            dataSources: ({ event }) => event.output,
            // a selection that no longer exists is dropped
            selectedId: ({ context, event }) => (event.output.some((d) => d.id === context.selectedId) ? context.selectedId : null),
            error: null,
          }),
        }],
        onError: { target: 'loadFailed', actions: assign({ error: ({ event }) => problemOf(event.error).problem?.detail ?? 'The data sources could not be loaded.' }) },
      },
    },
    loadFailed: {
      on: { 'list.reload': 'loading' },
    },
    ready: {
      on: {
        'list.reload': 'loading',
        'source.select': { guard: 'isListed', actions: assign({ selectedId: ({ event }) => event.id }) },
        'source.add': { guard: 'mayCreate', target: 'editing', actions: assign({ form: ({ context }) => ({ mode: 'create' as const, mayPasteTokens: mayPasteTokens(context.policies) }), notice: null }) },
        'source.edit': {
          guard: 'mayEdit', target: 'editing',
          actions: assign({ form: ({ context, event }) => ({ mode: 'edit' as const, dataSourceId: event.id, mayPasteTokens: mayPasteTokens(context.policies) }), notice: null }),
        },
        'source.delete': {
          guard: 'mayDelete', target: 'confirmingDelete',
          actions: assign({ deleting: ({ context, event }) => context.dataSources.find((d) => d.id === event.id) ?? null, notice: null }),
        },
      },
    },
    editing: {
      invoke: {
        id: 'connectionForm',
        src: 'connectionForm',
        input: ({ context }) => context.form!,
        onDone: [
          {
            guard: 'wasSaved', target: 'loading',
            actions: assign(({ event }) => ({
              form: null,
              selectedId: event.output.saved!.id,
              notice: `"${event.output.saved!.displayName}" has been saved`,
            })),
          },
          { target: 'ready', actions: assign({ form: null }) },
        ],
      },
    },
    confirmingDelete: {
      on: {
        'delete.confirm': 'deleting',
        'delete.cancel': { target: 'ready', actions: assign({ deleting: null }) },
      },
    },
    deleting: {
      invoke: {
        id: 'deleteDataSource',
        src: 'deleteDataSource',
        input: ({ context }) => ({ id: context.deleting!.id }),
        onDone: {
          target: 'loading',
          actions: assign(({ context }) => ({
            notice: `"${context.deleting!.displayName}" has been deleted`,
            selectedId: context.selectedId === context.deleting!.id ? null : context.selectedId,
            deleting: null,
          })),
        },
        onError: [
          { guard: 'isInUse', target: 'deleteRefused', actions: assign({ refusal: ({ event }) => problemOf(event.error).problem?.detail ?? 'This data source is used by a formula and cannot be deleted.' }) },
          { target: 'ready', actions: assign({ error: ({ event }) => problemOf(event.error).problem?.detail ?? 'The data source could not be deleted.', deleting: null }) },
        ],
      },
    },
    deleteRefused: {
      on: { 'delete.dismiss': { target: 'ready', actions: assign({ refusal: null, deleting: null }) } },
    },
  },
});
