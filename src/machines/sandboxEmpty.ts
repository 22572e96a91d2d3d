/**
 * Emptying a Sandbox CRM data source: asked from its details on the Connections screen, then
 * confirmed in a dialog that names the data source and what goes (every constituent and gift),
 * then emptied on the server (which allows it only to roles that may edit connections), ending
 * with how many of each were deleted, or with why not. A refusal or a failure can be tried again
 * or closed; nothing is deleted before the confirmation.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { Problem } from '../domain/errors.ts';
import { integrations } from '../services/integrations.ts';
import type { SandboxEmptied } from '../domain/api/integrations.ts';

export type SandboxEmptyEvent =
  | { type: 'empty.ask'; dataSourceId: string; name: string }
  | { type: 'empty.confirm' }
  | { type: 'empty.cancel' }
  | { type: 'empty.close' };

export interface SandboxEmptyContext {
  dataSourceId: string | null;
  /** the data source's display name, named in the confirmation */
  name: string;
  deleted: SandboxEmptied | null;
  problem: Partial<Problem> | null;
}

export type EmptySandboxFn = (dataSourceId: string) => Promise<SandboxEmptied>;
export const createEmptySandbox = (empty: EmptySandboxFn) => fromPromise<SandboxEmptied, { dataSourceId: string }>(({ input }) => empty(input.dataSourceId));

export const sandboxEmptyMachine = setup({
  types: { context: {} as SandboxEmptyContext, events: {} as SandboxEmptyEvent },
  actors: {
    // silent: the dialog itself says what went wrong
    emptySandbox: createEmptySandbox((id) => integrations.emptySandboxCrm(id, { silent: true })),
  },
  actions: {
    ask: assign({
      dataSourceId: ({ event }) => (event.type === 'empty.ask' ? event.dataSourceId : null),
      name: ({ event }) => (event.type === 'empty.ask' ? event.name : ''),
      deleted: null, problem: null,
    }),
    recordDeleted: assign({ deleted: (_, deleted: SandboxEmptied) => deleted, problem: null }),
    recordProblem: assign({ problem: (_, error: unknown) => (error as { problem?: Partial<Problem> }).problem ?? {} }),
  },
}).createMachine({
  id: 'sandboxEmpty',
  initial: 'idle',
  context: { dataSourceId: null, name: '', deleted: null, problem: null },
  states: {
    idle: {
      on: { 'empty.ask': { target: 'confirming', actions: 'ask' } },
    },
    // nothing is deleted until the person confirms, having read what goes
    confirming: {
      on: { 'empty.confirm': 'emptying', 'empty.cancel': 'idle' },
    },
    emptying: {
      invoke: {
        id: 'emptySandbox',
        src: 'emptySandbox',
        input: ({ context }) => ({ dataSourceId: context.dataSourceId! }),
        onDone: { target: 'emptied', actions: { type: 'recordDeleted', params: ({ event }) => event.output } },
        onError: { target: 'failed', actions: { type: 'recordProblem', params: ({ event }: { event: { error: unknown } }) => event.error } },
      },
    },
    emptied: {
      on: { 'empty.close': 'idle' },
    },
    failed: {
      on: { 'empty.confirm': 'emptying', 'empty.close': 'idle' },
    },
  },
});
