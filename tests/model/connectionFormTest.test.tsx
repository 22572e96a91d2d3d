/**
 * Model-based tests of Test connection in the data source form (connectionFormMachine; SPEC.md
 * sections 4 and 5) on the real Connections screen: Test connection checks the form as Save does
 * (the same messages, inline) and sends nothing while a field is wrong; a valid form is tested
 * with the settings it holds, and the outcome shows until the settings change. Paths come from
 * the form machine's graph; each event is a user action in the drawer or the answer of a fake
 * test call.
 */
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { CONNECTION_FIELD_MESSAGE } from '../../src/domain/connectors/fields.ts';
import {
  connectionFormMachine, testTargetOf, type ConnectionFormContext, type ConnectionFormEvent,
} from '../../src/machines/connectionForm.ts';
import type { TestTarget } from '../../src/machines/connectionTest.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { TestResult } from '../../src/services/integrations.ts';
import { renderConnections } from '../support/connectionsScreen.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

/** what the user enters, in order: the name, then the Secure FTP settings the form asks for */
const ENTERED: [key: string, value: string][] = [['displayName', 'Partner SFTP'], ['host', 'sftp.partner.org'], ['username', 'tributary'], ['password', 'river-Pass-2026']];
const LABELS: Record<string, RegExp> = {
  displayName: /^Display name( \*)?$/, host: /^Host( \*)?$/, username: /^User name( \*)?$/, password: /^Password( \*)?$/, folder: /^Folder( \*)?$/,
};
const RESULT: TestResult = { status: 'success', detail: 'Connected to sftp.partner.org as tributary; /out holds 3 files.', testedOn: '2026-11-22T10:00:00.000Z' };
const REFUSED = new ApiError(422, { title: 'connection-failed', code: 'clientdatasource-connection-failed', detail: 'The SFTP server refused the user name and password.' }, { silent: true });

type Event = ConnectionFormEvent
  | { type: 'xstate.done.actor.testConnection'; output: TestResult }
  | { type: 'xstate.error.actor.testConnection'; error: unknown };
type Snapshot = SnapshotFrom<typeof connectionFormMachine>;

const entered = (c: ConnectionFormContext, key: string) => (key === 'displayName' ? c.displayName : c.values[key]) ?? '';
/** the errors the form shows: a field's once it was left or a save or test was tried */
const shownErrors = (c: ConnectionFormContext) => Object.entries(c.errors)
  .filter(([key]) => c.submitted || c.touched.includes(key))
  .sort(([a], [b]) => a.localeCompare(b));

/** What the drawer shows: the state, the system, what is entered, the errors shown and the test's outcome. */
const serializeState = (s: Snapshot) => JSON.stringify([
  s.value, s.context.system, ENTERED.filter(([key]) => entered(s.context, key) !== '').length, shownErrors(s.context),
  s.context.testResult ? 'passed' : null, s.context.testFailure?.code ?? null,
]);

/** What the drawer offers: the system, then each value in turn; Test connection once a system is chosen; Dismiss of an outcome; the test's answers while it runs. */
function events(s: Snapshot): Event[] {
  const c = s.context;
  if (s.status !== 'active') return [];
  const out: Event[] = c.system ? [{ type: 'test.start' }] : [{ type: 'system.select', system: 'sftp' }];
  const next = c.system ? ENTERED.find(([key]) => entered(c, key) === '') : undefined;
  if (next) out.push(next[0] === 'displayName' ? { type: 'name.change', value: next[1] } : { type: 'field.change', key: next[0], value: next[1] });
  if (c.testResult || c.testFailure) out.push({ type: 'test.reset' });
  if (s.matches({ editing: 'testing' })) out.push({ type: 'xstate.done.actor.testConnection', output: RESULT }, { type: 'xstate.error.actor.testConnection', error: REFUSED });
  return out;
}

const serializeEvent = (e: Event) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}:${v.problem.code}` : v));
const model = testModel<typeof connectionFormMachine, Event>(connectionFormMachine, { input: { mode: 'create' }, events, serializeState, serializeEvent });

// ------------------------------------------------------------------ the screen

interface Rendered {
  user: Awaited<ReturnType<typeof renderConnections>>;
  test: FakeCall<TestTarget, TestResult>;
  /** test calls the path has answered: any other call was made when it should not have been */
  answered: { count: number };
}

const drawer = () => screen.getByRole('dialog');
const field = (key: string) => within(drawer()).getByLabelText(LABELS[key]!) as HTMLInputElement;
const testArea = () => within(within(drawer()).getByTestId('connection-test'));

/** the drawer's fields: each value, and its error exactly when the machine shows it */
function expectFields(c: ConnectionFormContext) {
  const shown = Object.fromEntries(shownErrors(c));
  for (const key of ['displayName', ...(c.system ? ['host', 'username', 'password', 'folder'] : [])]) {
    const input = field(key);
    expect(input.value, key).toBe(entered(c, key));
    expect(input.getAttribute('aria-invalid') === 'true', `${key} marked invalid`).toBe(key in shown);
    if (key in shown) expect(document.getElementById(input.getAttribute('aria-describedby')!.split(' ').find((id) => id.endsWith('-error'))!)!.textContent).toBe(shown[key]);
  }
}

/** the test's outcome beside the form: what it found, why it failed, or nothing */
async function expectOutcome(c: ConnectionFormContext) {
  if (c.testResult) {
    const status = await testArea().findByRole('status');
    expect(status.textContent).toContain('Connection succeeded');
    expect(status.textContent).toContain(RESULT.detail);
  } else expect(testArea().queryByText('Connection succeeded')).toBeNull();
  if (c.testFailure) {
    const alert = await testArea().findByRole('alert');
    expect(alert.textContent).toContain('Connection Failed');
    expect(alert.textContent).toContain(`Code: ${REFUSED.problem.code}`);
    expect(alert.textContent).toContain(REFUSED.problem.detail);
  } else expect(testArea().queryByRole('alert')).toBeNull();
}

const view: ModelView<typeof connectionFormMachine, Rendered> = {
  async render(machine) {
    const test = fakeCall<TestTarget, TestResult>('testConnection');
    const user = await renderConnections({ connectionForm: machine.provide({ actors: { testConnection: test.logic } }) });
    await user.click(screen.getByRole('button', { name: 'Add data source' }));
    await screen.findByRole('dialog');
    return { user, test, answered: { count: 0 } };
  },
  params: ({ user, test, answered }) => ({
    states: {
      'editing.idle': async (s: Snapshot) => {
        // no system, nothing to test: the form offers no test yet
        if (!s.context.system) {
          expect(within(drawer()).queryByRole('button', { name: 'Test connection' })).toBeNull();
          expect(test.calls).toEqual([]);
          expectFields(s.context);
          return;
        }
        await waitFor(() => expect(testArea().getByRole('button', { name: 'Test connection' }).getAttribute('data-loading')).toBeNull());
        expect(testArea().queryByText('Testing the connection…')).toBeNull();
        // nothing was sent beyond the tests answered: a form with a wrong field is never tested
        expect(test.calls.length).toBe(answered.count);
        expectFields(s.context);
        await expectOutcome(s.context);
      },
      'editing.testing': async (s: Snapshot) => {
        await testArea().findByText('Testing the connection…');
        expect(test.calls.length).toBe(answered.count + 1);
        // the settings as they stand in the form
        expect(test.next).toEqual(testTargetOf(s.context));
        expect(shownErrors(s.context)).toEqual([]);
        expectFields(s.context);
      },
    },
    events: {
      'system.select': async () => {
        await user.click(within(drawer()).getByLabelText(/^System/));
        await user.click(await screen.findByRole('option', { name: 'Secure FTP', hidden: true }));
      },
      'name.change': async ({ event }: { event: { type: string } }) => {
        await user.click(field('displayName'));
        await user.paste((event as Extract<Event, { type: 'name.change' }>).value);
      },
      'field.change': async ({ event }: { event: { type: string } }) => {
        const { key, value } = event as Extract<Event, { type: 'field.change' }>;
        await user.clear(field(key));
        await user.paste(value);
      },
      // leaving the field, without moving into another one
      'field.blur': ({ event }: { event: { type: string } }) => { fireEvent.blur(field((event as Extract<Event, { type: 'field.blur' }>).key)); },
      'test.start': async () => { await user.click(testArea().getByRole('button', { name: 'Test connection' })); },
      'test.reset': async () => { await user.click(testArea().getByRole('button', { name: 'Dismiss' })); },
      'xstate.done.actor.testConnection': async ({ event }: { event: { type: string } }) => { answered.count += 1; await test.answer(event); },
      'xstate.error.actor.testConnection': async ({ event }: { event: { type: string } }) => { answered.count += 1; await test.answer(event); },
    },
  }),
};

// ------------------------------------------------------------------ the paths

const paths = model.getShortestPaths();
const nameOf = (p: ModelPath<Snapshot>) => p.steps.slice(1).map(({ event }) => {
  const { type, ...rest } = event as Event;
  if (type.startsWith('xstate.')) return type.replace(/^xstate\.(done|error)\.actor\./, '$1 ');
  return [type, ...Object.values(rest)].join(' ');
}).join(' → ') + ` ⇒ ${JSON.stringify(p.state.value)}`;

describe('connection form machine: Test connection checks the form first (shortest paths on the Connections screen)', () => {
  it('reaches the field errors of an empty form, testing, a pass and a failure', () => {
    const reached = [...reachedStates(paths, (s) => JSON.stringify([s.value, shownErrors(s.context), s.context.testResult ? 'passed' : s.context.testFailure?.code ?? null]))];
    const required = (keys: string[]) => keys.map((k) => [k, CONNECTION_FIELD_MESSAGE]);
    for (const expected of [
      // a system chosen, nothing filled in: each required field's own message, inline
      [{ editing: 'idle' }, required(['displayName', 'host', 'password', 'username']), null],
      [{ editing: 'idle' }, required(['password']), null],
      [{ editing: 'testing' }, [], null],
      [{ editing: 'idle' }, [], 'passed'],
      [{ editing: 'idle' }, [], REFUSED.problem.code],
    ]) expect(reached, JSON.stringify(expected)).toContain(JSON.stringify(expected));
  });
  it.each(named(paths, nameOf))('%s', async (_d, path) => runPath(path, connectionFormMachine, view));
});

describe('connection form machine: an outcome and what follows it', () => {
  const filled: Event[] = [
    { type: 'system.select', system: 'sftp' },
    ...ENTERED.map(([key, value]) => (key === 'displayName' ? { type: 'name.change', value } : { type: 'field.change', key, value }) as Event),
  ];
  const journeys: [string, Event[]][] = [
    ['a failure dismissed, then tested again and passed', [...filled, { type: 'test.start' }, { type: 'xstate.error.actor.testConnection', error: REFUSED }, { type: 'test.reset' }, { type: 'test.start' }, { type: 'xstate.done.actor.testConnection', output: RESULT }]],
    ['a failure, then the password typed again: the failure is gone', [...filled, { type: 'test.start' }, { type: 'xstate.error.actor.testConnection', error: REFUSED }, { type: 'field.change', key: 'password', value: 'river-Pass-2027' }]],
    // the host was left when the user went on to the user name: the form knows it as touched
    ['a pass, then the host cleared and tested: the field error, nothing sent', [...filled, { type: 'test.start' }, { type: 'xstate.done.actor.testConnection', output: RESULT }, { type: 'field.blur', key: 'host' }, { type: 'field.change', key: 'host', value: '' }, { type: 'test.start' }]],
  ];
  it.each(journeys)('%s', async (_d, steps) => {
    const fromState = createActor(connectionFormMachine, { input: { mode: 'create' } }).getSnapshot();
    const [path] = model.getPathsFromEvents(steps, { fromState });
    expect(path!.steps.length).toBe(steps.length + 1);
    await runPath(path!, connectionFormMachine, view);
  });
});

describe('connection form machine: Test connection shows what Save shows', () => {
  const start = () => createActor(connectionFormMachine, { input: { mode: 'create' } }).start();
  it.each<[string, ConnectionFormEvent[]]>([
    ['with nothing filled in', [{ type: 'system.select', system: 'sftp' }]],
    ['with the password left empty', [{ type: 'system.select', system: 'sftp' }, ...ENTERED.slice(0, 3).map(([key, value]) => (key === 'displayName' ? { type: 'name.change', value } : { type: 'field.change', key, value }) as ConnectionFormEvent)]],
  ])('%s', (_d, before) => {
    const tested = start();
    const saved = start();
    for (const e of before) { tested.send(e); saved.send(e); }
    tested.send({ type: 'test.start' });
    saved.send({ type: 'form.submit' });
    expect(shownErrors(tested.getSnapshot().context)).toEqual(shownErrors(saved.getSnapshot().context));
    expect(shownErrors(tested.getSnapshot().context).length).toBeGreaterThan(0);
    expect(tested.getSnapshot().matches({ editing: 'idle' })).toBe(true);
  });
});

describe('the suite can fail', () => {
  it('finds a machine that tests a form whatever its fields hold', async () => {
    // a validity guard that always holds sends an empty form to be tested
    const invalidTests = paths.filter((p) => p.steps.some((step, i) => (step.event as Event).type === 'test.start' && i > 0 && shownErrors(step.state.context).length > 0 && !p.steps[i - 1]!.state.context.submitted));
    expect(invalidTests.length).toBeGreaterThan(0);
    await expectBrokenGuardToFail(connectionFormMachine, 'isValid', { paths: invalidTests.slice(0, 3), view, holds: true, every: true });
  });
});
