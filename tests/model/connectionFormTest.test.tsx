/**
 * Model-based tests of Test connection in the data source form (connectionFormMachine; SPEC.md
 * sections 4 and 5) on the real Connections screen: Test connection checks the form as Save does
 * (the same messages, inline) and sends nothing while a field is wrong; a valid form is tested
 * with the settings it holds, and the outcome shows until the settings change. Saving settings
 * whose last test failed asks first ('Save anyway' or 'Keep editing'); settings changed since, or
 * never tested, save at once. Paths come from the form machine's graph; each event is a user
 * action in the drawer or the answer of a fake test or save call.
 */
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import { CONNECTION_FIELD_MESSAGE } from '../../src/domain/connectors/fields.ts';
import {
  connectionFormMachine, testTargetOf, type ConnectionFormContext, type ConnectionFormEvent,
} from '../../src/machines/connectionForm.ts';
import type { DataSourceView } from '../../src/domain/connectors/catalogue.ts';
import type { TestTarget } from '../../src/machines/connectionTest.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { TestResult } from '../../src/services/integrations.ts';
import { FAKE_SOURCES, formEditEvents, renderConnections } from '../support/connectionsScreen.tsx';
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

const SAVED: DataSourceView = {
  id: FAKE_SOURCES[0]!.id, system: 'sftp', displayName: 'Partner SFTP',
  settings: { host: 'sftp.partner.org', port: '22', username: 'tributary', authenticationType: 'password', password: { saved: true }, folder: '' },
  createdOn: '2026-11-22T10:00:00.000Z', createdBy: 'Ada Administrator', modifiedOn: '2026-11-22T10:00:00.000Z', modifiedBy: 'Ada Administrator', usedBy: [],
};

type Event = ConnectionFormEvent
  | { type: 'xstate.done.actor.testConnection'; output: TestResult }
  | { type: 'xstate.error.actor.testConnection'; error: unknown }
  | { type: 'xstate.done.actor.saveDataSource'; output: DataSourceView };
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
  save: FakeCall<ConnectionFormContext, DataSourceView>;
  /** test calls the path has answered: any other call was made when it should not have been */
  answered: { count: number };
}

const drawer = () => screen.getByRole('dialog', { name: 'Add data source' });
const confirmation = () => screen.queryByRole('dialog', { name: 'Save anyway?' });
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
    const save = fakeCall<ConnectionFormContext, DataSourceView>('saveDataSource');
    const user = await renderConnections({ connectionForm: machine.provide({ actors: { testConnection: test.logic, saveDataSource: save.logic } }) });
    await user.click(screen.getByRole('button', { name: 'Add data source' }));
    await screen.findByRole('dialog');
    return { user, test, save, answered: { count: 0 } };
  },
  params: ({ user, test, save, answered }) => ({
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
        await waitFor(() => expect(confirmation()).toBeNull());
        expect(save.calls).toEqual([]);
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
      // asked before anything is saved, the failure still in view behind the question
      confirmingSave: async (s: Snapshot) => {
        const dialog = await screen.findByRole('dialog', { name: 'Save anyway?' });
        expect(dialog.textContent).toContain('The connection test failed. Save anyway?');
        expect(within(dialog).getByRole('button', { name: 'Save anyway' })).toBeTruthy();
        expect(within(dialog).getByRole('button', { name: 'Keep editing' })).toBeTruthy();
        expect(save.calls).toEqual([]);
        expect(s.context.testFailure ?? s.context.lastTestFailed).toBeTruthy();
      },
      saving: async (s: Snapshot) => {
        await waitFor(() => expect(save.waiting).toBe(true));
        expect(save.next).toMatchObject({ displayName: s.context.displayName, values: s.context.values });
        await waitFor(() => expect(confirmation()).toBeNull());
      },
      saved: async () => {
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
        await screen.findByText(`"${SAVED.displayName}" has been saved`);
        expect(save.calls.length).toBe(1);
      },
    },
    events: {
      ...formEditEvents(user, drawer, field, 'Secure FTP'),
      // leaving the field, without moving into another one
      'field.blur': ({ event }: { event: { type: string } }) => { fireEvent.blur(field((event as Extract<Event, { type: 'field.blur' }>).key)); },
      'test.start': async () => { await user.click(testArea().getByRole('button', { name: 'Test connection' })); },
      'test.reset': async () => { await user.click(testArea().getByRole('button', { name: 'Dismiss' })); },
      'form.submit': async () => { await user.click(within(drawer()).getByRole('button', { name: 'Save' })); },
      'save.anyway': async () => { await user.click(within(confirmation()!).getByRole('button', { name: 'Save anyway' })); },
      'save.keepEditing': async () => { await user.click(within(confirmation()!).getByRole('button', { name: 'Keep editing' })); },
      'xstate.done.actor.saveDataSource': ({ event }: { event: { type: string } }) => save.answer(event),
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

// ------------------------------------------------------------------ saving after a test

/** the password typed again, once: settings changed since their test */
const RETYPED = 'river-Pass-2027';
/**
 * Saving a filled form: the system and values are entered first (one way only); then Test
 * connection and its answers, Dismiss, Save, the question's two answers, the password typed
 * again (once) and the save's answer.
 */
function saveEvents(s: Snapshot): Event[] {
  const c = s.context;
  if (s.status !== 'active') return [];
  if (c.system === null) return [{ type: 'system.select', system: 'sftp' }];
  const next = ENTERED.find(([key]) => entered(c, key) === '');
  if (next) return [next[0] === 'displayName' ? { type: 'name.change', value: next[1] } : { type: 'field.change', key: next[0], value: next[1] }];
  if (s.matches('confirmingSave')) return [{ type: 'save.anyway' }, { type: 'save.keepEditing' }];
  if (s.matches('saving')) return [{ type: 'xstate.done.actor.saveDataSource', output: SAVED }];
  const out: Event[] = [{ type: 'form.submit' }];
  if (s.matches({ editing: 'testing' })) out.push({ type: 'xstate.done.actor.testConnection', output: RESULT }, { type: 'xstate.error.actor.testConnection', error: REFUSED });
  else out.push({ type: 'test.start' });
  if (c.testResult || c.testFailure) out.push({ type: 'test.reset' });
  if (c.values.password !== RETYPED) out.push({ type: 'field.change', key: 'password', value: RETYPED });
  return out;
}
const saveSerialize = (s: Snapshot) => JSON.stringify([
  s.value, s.context.system, ENTERED.map(([key]) => entered(s.context, key)), s.context.testResult ? 'passed' : null, s.context.testFailure?.code ?? null, s.context.lastTestFailed,
]);
const saveModel = testModel<typeof connectionFormMachine, Event>(connectionFormMachine, { input: { mode: 'create' }, events: saveEvents, serializeState: saveSerialize, serializeEvent });
const savePaths = saveModel.getShortestPaths();
/** whether a path passes through a state */
const cameThrough = (p: ModelPath<Snapshot>, value: Snapshot['value']) => [...p.steps.map((step) => step.state), p.state].some((s) => s.matches(value));

describe('connection form machine: saving after a test (shortest paths on the Connections screen)', () => {
  it('asks only when the last test of these settings failed', () => {
    for (const p of savePaths) {
      for (const [i, step] of p.steps.entries()) {
        if ((step.event as Event).type !== 'form.submit') continue;
        const before = p.steps[i - 1]!.state;
        // asked exactly when the settings as they stand failed their last test
        expect(step.state.matches('confirmingSave'), p.description).toBe(before.context.lastTestFailed);
      }
    }
    expect(savePaths.some((p) => cameThrough(p, 'confirmingSave'))).toBe(true);
    // a failure dismissed still asks; a failure then the password typed again does not
    const reached = [...reachedStates(savePaths, (s) => JSON.stringify([s.value, s.context.testFailure ? 'shown' : null, s.context.lastTestFailed]))];
    expect(reached).toContain(JSON.stringify(['confirmingSave', null, true]));
    expect(reached).toContain(JSON.stringify(['confirmingSave', 'shown', true]));
    expect(reached).toContain(JSON.stringify(['saving', null, false]));
  });
  it.each(named(savePaths.filter((p) => p.steps.some((step) => ['form.submit', 'save.anyway', 'save.keepEditing'].includes((step.event as Event).type))), nameOf))('%s', async (_d, path) => runPath(path, connectionFormMachine, view));
});

describe('connection form machine: saving after a failed test', () => {
  const filled: Event[] = [
    { type: 'system.select', system: 'sftp' },
    ...ENTERED.map(([key, value]) => (key === 'displayName' ? { type: 'name.change', value } : { type: 'field.change', key, value }) as Event),
  ];
  const failed: Event[] = [...filled, { type: 'test.start' }, { type: 'xstate.error.actor.testConnection', error: REFUSED }];
  const journeys: [string, Event[], Snapshot['value']][] = [
    ['kept editing, the password typed again, saved at once', [...failed, { type: 'form.submit' }, { type: 'save.keepEditing' }, { type: 'field.change', key: 'password', value: RETYPED }, { type: 'form.submit' }, { type: 'xstate.done.actor.saveDataSource', output: SAVED }], 'saved'],
    ['saved anyway', [...failed, { type: 'form.submit' }, { type: 'save.anyway' }, { type: 'xstate.done.actor.saveDataSource', output: SAVED }], 'saved'],
    ['tested again and passed: saved at once', [...failed, { type: 'test.start' }, { type: 'xstate.done.actor.testConnection', output: RESULT }, { type: 'form.submit' }], 'saving'],
    ['never tested: saved at once', [...filled, { type: 'form.submit' }], 'saving'],
  ];
  it.each(journeys)('%s', async (_d, steps, end) => {
    const fromState = createActor(connectionFormMachine, { input: { mode: 'create' } }).getSnapshot();
    const [path] = saveModel.getPathsFromEvents(steps, { fromState });
    expect(path!.steps.length).toBe(steps.length + 1);
    expect(path!.state.matches(end)).toBe(true);
    await runPath(path!, connectionFormMachine, view);
  });
});

describe('the suite can fail', () => {
  it('finds a machine that saves a failed test\'s settings without asking', async () => {
    const asking = savePaths.filter((p) => cameThrough(p, 'confirmingSave')).slice(0, 3);
    await expectBrokenGuardToFail(connectionFormMachine, 'lastTestFailed', { paths: asking, view, every: true });
  });

  it('finds a machine that tests a form whatever its fields hold', async () => {
    // a validity guard that always holds sends an empty form to be tested
    const invalidTests = paths.filter((p) => p.steps.some((step, i) => (step.event as Event).type === 'test.start' && i > 0 && shownErrors(step.state.context).length > 0 && !p.steps[i - 1]!.state.context.submitted));
    expect(invalidTests.length).toBeGreaterThan(0);
    await expectBrokenGuardToFail(connectionFormMachine, 'isValid', { paths: invalidTests.slice(0, 3), view, holds: true, every: true });
  });
});
