/**
 * The welcome page's first steps (/welcome, SPEC.md section 2: first logins): which of them the
 * tenant has done is read once (`reading`), and the done ones are ticked (`shown`). When that
 * cannot be read the steps stay unticked, with Try again (`unread`); a user who may not view
 * formulas reads nothing, and sees the steps as steps to take.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { Onboarding } from '../domain/api/dataQueue.ts';
import { dataQueue } from '../services/dataQueue.ts';

export interface WelcomeInput {
  /** whether the user may read the tenant's progress (formula view) */
  mayRead: boolean;
}

export interface WelcomeContext {
  mayRead: boolean;
  done: Onboarding | null;
}

export type WelcomeEvent = { type: 'retry' };

export const welcomeMachine = setup({
  types: {
    context: {} as WelcomeContext,
    events: {} as WelcomeEvent,
    input: {} as WelcomeInput,
  },
  actors: {
    readOnboarding: fromPromise<Onboarding>(() => dataQueue.onboarding()),
  },
  guards: {
    mayRead: ({ context }) => context.mayRead,
  },
}).createMachine({
  id: 'welcome',
  initial: 'starting',
  context: ({ input }) => ({ mayRead: input.mayRead, done: null }),
  states: {
    starting: {
      always: [{ guard: 'mayRead', target: 'reading' }, { target: 'shown' }],
    },
    reading: {
      invoke: {
        id: 'readOnboarding',
        src: 'readOnboarding',
        onDone: { target: 'shown', actions: assign({ done: ({ event }) => event.output }) },
        onError: { target: 'unread' },
      },
    },
    unread: {
      on: { retry: 'reading' },
    },
    shown: {},
  },
});
