/**
 * The signed-in user's choice of e-mails about what they own (issue 28): whether they are told when
 * a formula they made errors after its retries, or a data source of theirs or of their formulas
 * needs reconnecting (server/services/ownerNotices.ts). Read once the user menu is shown; a change
 * is saved at once and shown only once saved; a change that fails keeps the choice as it was, and says so.
 */
import { assign, fromPromise, setup } from 'xstate';
import { accountManagement } from '../services/accountManagement.ts';

export interface OwnerNoticesInput {
  orgId: string;
}

export interface OwnerNoticesContext extends OwnerNoticesInput {
  on: boolean | null;
  /** the last change could not be saved */
  failed: boolean;
}

export type OwnerNoticesEvent = { type: 'notices.toggle' } | { type: 'notices.reload' };

export { OWNER_NOTICES_LABEL } from '../domain/api/accountManagement.ts';
export const OWNER_NOTICES_FAILED = 'Your e-mail choice could not be saved.';

export const ownerNoticesMachine = setup({
  types: { context: {} as OwnerNoticesContext, events: {} as OwnerNoticesEvent, input: {} as OwnerNoticesInput },
  actors: {
    loadChoice: fromPromise<boolean, { orgId: string }>(async ({ input }) =>
      (await accountManagement.ownerNotices(input.orgId, { silent: true })).ownerNotices),
    saveChoice: fromPromise<boolean, { orgId: string; on: boolean }>(async ({ input }) =>
      (await accountManagement.setOwnerNotices(input.orgId, input.on, { silent: true })).ownerNotices),
  },
  actions: {
    /** the choice the server holds: shown only once read or saved */
    takeChoice: assign({ on: ({ event }) => (event as unknown as { output: boolean }).output }),
    sayNotSaved: assign({ failed: true }),
  },
}).createMachine({
  id: 'ownerNotices',
  context: ({ input }) => ({ ...input, on: null, failed: false }),
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'loadChoice', src: 'loadChoice', input: ({ context }) => ({ orgId: context.orgId }),
        onDone: { target: 'ready', actions: 'takeChoice' },
        onError: 'unavailable',
      },
    },
    /** the choice could not be read: the menu offers nothing to change until it is read again */
    unavailable: { on: { 'notices.reload': 'loading' } },
    ready: { on: { 'notices.toggle': { target: 'saving', actions: assign({ failed: false }) } } },
    saving: {
      invoke: {
        id: 'saveChoice', src: 'saveChoice', input: ({ context }) => ({ orgId: context.orgId, on: !context.on }),
        onDone: { target: 'ready', actions: 'takeChoice' },
        onError: { target: 'ready', actions: 'sayNotSaved' },
      },
    },
  },
});
