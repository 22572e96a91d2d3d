/**
 * Model-based tests of the connection-test machine (SPEC.md section 4: testing, success, failure)
 * on the real Connections screen. Paths come from the machine's graph; each event is a user
 * action (Test connection, Dismiss) or the answer of a fake test call; each state is what the
 * selected data source's details show, titled 'Connection Failed' or 'Connection Error' by code.
 */
import { cleanup } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { CONNECTION_ERROR_CODES, connectionErrorTitle } from '../../src/domain/connectionErrors.ts';
import { connectionTestMachine, type ConnectionTestEvent, type TestTarget } from '../../src/machines/connectionTest.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { TestResult } from '../../src/services/integrations.ts';
import { FAKE_SOURCES, renderConnections, selectSource, testArea } from '../support/connectionsScreen.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const SOURCE = FAKE_SOURCES[0]!;
const RESULT: TestResult = { status: 'success', detail: 'Connected to sftp.partner.org as tributary; /out holds 3 files.', testedOn: '2026-11-22T10:00:00.000Z' };

/** One refusal per code of SPEC.md section 8, as the integrations service answers it. */
const FAILURES = [
  new ApiError(422, { title: 'connection-failed', code: 'clientdatasource-connection-failed', detail: 'The SFTP server refused the user name and password.' }, { silent: true }),
  new ApiError(502, { title: 'connection-error', code: 'formula-connection-error', detail: 'A formula could not reach this data source.' }, { silent: true }),
  new ApiError(502, { title: 'connection-error', code: 'processing-error', detail: 'sftp.partner.org answered with a server error (HTTP 500).' }, { silent: true }),
  new ApiError(0, { title: 'network', detail: 'The server could not be reached.' }, { silent: true }),
];

type Event = ConnectionTestEvent | { type: 'xstate.done.actor.testConnection'; output: TestResult } | { type: 'xstate.error.actor.testConnection'; error: unknown };
const TARGET: TestTarget = { kind: 'saved', dataSourceId: SOURCE.id };
const EVENTS: Event[] = [
  { type: 'test.start', target: TARGET },
  { type: 'xstate.done.actor.testConnection', output: RESULT },
  ...FAILURES.map((error) => ({ type: 'xstate.error.actor.testConnection', error }) as Event),
  { type: 'test.reset' },
];

type Snapshot = SnapshotFrom<typeof connectionTestMachine>;
/** a failure is a different state for each code, so each title is reached */
const serializeState = (s: Snapshot) => JSON.stringify([s.value, s.context.failure?.code ?? null]);

const model = testModel<typeof connectionTestMachine, Event>(connectionTestMachine, {
  events: EVENTS,
  serializeState,
  serializeEvent: (e) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}:${v.problem.code ?? v.problem.title}` : v)),
});

const button = () => testArea(SOURCE.displayName).getByRole('button', { name: 'Test connection' });

function pathParams(fake: FakeCall<TestTarget, TestResult>, user: Awaited<ReturnType<typeof renderConnections>>) {
  return {
    states: {
      idle: async () => {
        expect(testArea(SOURCE.displayName).queryByRole('alert')).toBeNull();
        expect(testArea(SOURCE.displayName).queryByText('Connection succeeded')).toBeNull();
        expect(testArea(SOURCE.displayName).queryByText('Testing the connection…')).toBeNull();
        expect(button().hasAttribute('disabled')).toBe(false);
      },
      testing: async () => {
        await testArea(SOURCE.displayName).findByText('Testing the connection…');
        expect(button().getAttribute('data-loading')).toBe('true');
        expect(fake.calls.at(-1)).toEqual(TARGET);
      },
      success: async () => {
        const status = await testArea(SOURCE.displayName).findByRole('status');
        expect(status.textContent).toContain('Connection succeeded');
        expect(status.textContent).toContain(RESULT.detail);
        expect(testArea(SOURCE.displayName).queryByRole('alert')).toBeNull();
      },
      failure: async (s: Snapshot) => {
        const alert = await testArea(SOURCE.displayName).findByRole('alert');
        const code = s.context.failure!.code;
        expect(alert.textContent).toContain(connectionErrorTitle(code));
        expect(alert.textContent).toContain(code === 'clientdatasource-connection-failed' ? 'Connection Failed' : 'Connection Error');
        expect(alert.textContent).toContain(`Code: ${code}`);
        expect(alert.textContent).toContain(s.context.failure!.detail);
      },
    },
    events: {
      'test.start': async () => { await user.click(button()); },
      'test.reset': async () => { await user.click(testArea(SOURCE.displayName).getByRole('button', { name: 'Dismiss' })); },
      'xstate.done.actor.testConnection': ({ event }: { event: { type: string } }) => fake.answer(event),
      'xstate.error.actor.testConnection': ({ event }: { event: { type: string } }) => fake.answer(event),
    },
  };
}

/** the Connections screen with the source selected; its test call is a fake the path answers */
const view: ModelView<typeof connectionTestMachine, { fake: FakeCall<TestTarget, TestResult>; user: Awaited<ReturnType<typeof renderConnections>> }> = {
  async render(machine) {
    const fake = fakeCall<TestTarget, TestResult>('testConnection');
    const user = await renderConnections({ connectionTest: machine.provide({ actors: { testConnection: fake.logic } }) });
    await selectSource(user, SOURCE.displayName);
    return { fake, user };
  },
  params: ({ fake, user }) => pathParams(fake, user),
};

const shortest = model.getShortestPaths();

describe('connection test machine: shortest paths on the Connections screen', () => {
  it('reaches idle, testing, success, and a failure for each of the four codes', () => {
    // states along the way count: a path that ends in a result passes through idle and testing
    const reached = reachedStates(shortest, serializeState);
    for (const s of ['idle', 'testing', 'success']) expect(reached.has(JSON.stringify([s, null])), s).toBe(true);
    for (const code of CONNECTION_ERROR_CODES) expect(reached.has(JSON.stringify(['failure', code])), code).toBe(true);
  });
  it.each(named(shortest))('%s', async (_d, path) => runPath(path, connectionTestMachine, view));
});

describe('connection test machine: testing again after a result', () => {
  const byType = (type: string, code?: string) => EVENTS.find((e) => e.type === type && (!code || ((e as { error?: ApiError }).error?.problem.code ?? 'unknown') === code || (code === 'unknown' && !(e as { error?: ApiError }).error?.problem.code)))!;
  const journeys: [string, Event[]][] = [
    ['a refused test, then a successful one', [byType('test.start'), byType('xstate.error.actor.testConnection', 'clientdatasource-connection-failed'), byType('test.start'), byType('xstate.done.actor.testConnection')]],
    ['a success, then an outage', [byType('test.start'), byType('xstate.done.actor.testConnection'), byType('test.start'), byType('xstate.error.actor.testConnection', 'processing-error')]],
    ['a failure dismissed, then tested again', [byType('test.start'), byType('xstate.error.actor.testConnection', 'unknown'), byType('test.reset'), byType('test.start'), byType('xstate.done.actor.testConnection')]],
  ];
  it.each(journeys)('%s', async (_d, events) => {
    const [path] = model.getPathsFromEvents(events);
    expect(path!.steps.length).toBe(events.length + 1);
    await runPath(path!, connectionTestMachine, view);
  });
});

describe('the suite can fail', () => {
  it('finds a machine whose target guard is broken on purpose', async () => {
    // every path through testing: the broken guard never lets the test start
    const throughTesting = shortest.filter((p) => p.steps.some((step) => step.state.matches('testing')));
    await expectBrokenGuardToFail(connectionTestMachine, 'hasTarget', { paths: throughTesting, view, every: true });
  });
});
