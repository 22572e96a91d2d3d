/**
 * Connection test (SPEC.md section 4): idle, testing, success, failure. A failure is titled
 * 'Connection Failed' or 'Connection Error' by its code (SPEC.md section 8). The target is a
 * saved data source, or settings from the form (with the data source whose saved secrets fill
 * empty secret fields).
 */
import { assign, fromPromise, setup } from 'xstate';
import { connectionErrorTitle, isConnectionErrorCode, type ConnectionErrorCode } from '../domain/connectionErrors.ts';
import type { SystemId } from '../domain/connectors/types.ts';
import { integrations, type TestResult } from '../services/integrations.ts';

export type TestTarget =
  | { kind: 'saved'; dataSourceId: string; formulaId?: string }
  | { kind: 'settings'; system: SystemId; settings: Record<string, string>; dataSourceId?: string };

export interface ConnectionTestFailure {
  code: ConnectionErrorCode;
  /** 'Connection Failed' or 'Connection Error' */
  title: string;
  detail: string;
}

export interface ConnectionTestContext {
  target: TestTarget | null;
  result: TestResult | null;
  failure: ConnectionTestFailure | null;
}

export type ConnectionTestEvent =
  | { type: 'test.start'; target: TestTarget }
  | { type: 'test.reset' };

/** What any error of a test call means for the user. */
export function failureOf(error: unknown): ConnectionTestFailure {
  const e = error as { status?: number; problem?: { code?: string; detail?: string; title?: string } };
  const code: ConnectionErrorCode = isConnectionErrorCode(e.problem?.code) ? e.problem!.code as ConnectionErrorCode : 'unknown';
  const detail = e.problem?.detail
    ?? (e.status === 0 ? 'The Tributary server could not be reached. Check your connection and try again.' : 'The connection could not be tested.');
  return { code, title: connectionErrorTitle(code), detail };
}

/** The test call itself, shared with the data source form, which tests the settings it holds. */
export const testConnection = fromPromise<TestResult, TestTarget>(async ({ input }) => (input.kind === 'saved'
  ? integrations.testSaved(input.dataSourceId, { silent: true, ...(input.formulaId ? { formulaId: input.formulaId } : {}) })
  : integrations.testSettings({ system: input.system, settings: input.settings, ...(input.dataSourceId ? { dataSourceId: input.dataSourceId } : {}) }, { silent: true })));

export const connectionTestMachine = setup({
  types: {
    context: {} as ConnectionTestContext,
    events: {} as ConnectionTestEvent,
  },
  actors: { testConnection },
  guards: {
    hasTarget: ({ event }) => event.type === 'test.start' && !!event.target && (event.target.kind === 'saved' ? !!event.target.dataSourceId : !!event.target.system),
  },
  actions: {
    rememberTarget: assign({ target: ({ event }) => (event.type === 'test.start' ? event.target : null), result: null, failure: null }),
    forget: assign({ target: null, result: null, failure: null }),
  },
}).createMachine({
  id: 'connectionTest',
  initial: 'idle',
  context: { target: null, result: null, failure: null },
  on: {
    'test.start': { guard: 'hasTarget', target: '.testing', actions: 'rememberTarget' },
  },
  states: {
    idle: {},
    testing: {
      invoke: {
        id: 'testConnection',
        src: 'testConnection',
        input: ({ context }) => context.target!,
        onDone: { target: 'success', actions: assign({ result: ({ event }) => event.output }) },
        onError: { target: 'failure', actions: assign({ failure: ({ event }) => failureOf(event.error) }) },
      },
      // a second click while testing changes nothing
      on: { 'test.start': {} },
    },
    success: { on: { 'test.reset': { target: 'idle', actions: 'forget' } } },
    failure: { on: { 'test.reset': { target: 'idle', actions: 'forget' } } },
  },
});
