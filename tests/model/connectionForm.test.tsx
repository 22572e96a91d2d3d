/**
 * Model-based tests of the data source form (connectionFormMachine; SPEC.md section 5) on the real
 * Connections screen: the drawer the list opens to add a data source (choose the system, name it,
 * fill its settings, have its fields checked) and to edit one (its saved password behind a
 * shield), saving with the server's answers, and cancelling. Paths come from the form machine's
 * own graph, one model per mode; each event is a user action in the drawer or the answer of a
 * fake load or save call; each state is what the drawer (or, once it closes, the list) shows.
 */
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, type SnapshotFrom } from 'xstate';
import type { DataSourceView } from '../../src/domain/connectors/catalogue.ts';
import {
  connectionFormMachine, type ConnectionFormContext, type ConnectionFormEvent, type ConnectionFormInput, type LoadedDataSource,
} from '../../src/machines/connectionForm.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { FAKE_SOURCES, formEditEvents, renderConnections } from '../support/connectionsScreen.tsx';
import { fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const SFTP = FAKE_SOURCES[0]!;
/** what the user enters into each field of a new Secure FTP source, in the order the form asks */
const ENTERED: [key: string, value: string][] = [['host', 'sftp.partner.org'], ['username', 'tributary'], ['password', 'river-Pass-2026']];
const LABELS: Record<string, RegExp> = {
  displayName: /^Display name( \*)?$/, host: /^Host( \*)?$/, username: /^User name( \*)?$/, password: /^Password( \*)?$/, folder: /^Folder( \*)?$/,
};
const LOADED: LoadedDataSource = {
  system: 'sftp', displayName: SFTP.displayName, savedSecrets: ['password'],
  values: { host: 'sftp.partner.org', port: '22', username: 'tributary', authenticationType: 'password', password: '', privateKey: '', passphrase: '', folder: '/out', hostKeyFingerprint: '' },
};
const SAVED: DataSourceView = {
  id: SFTP.id, system: 'sftp', displayName: SFTP.displayName,
  settings: { host: 'sftp.partner.org', port: '22', username: 'tributary', authenticationType: 'password', password: { saved: true }, folder: '/in' },
  createdOn: SFTP.createdOn, createdBy: 'Ada Administrator', modifiedOn: SFTP.modifiedOn, modifiedBy: 'Ada Administrator', usedBy: [],
};
const NAME_TAKEN = new ApiError(409, { title: 'datasource-name-taken', detail: 'A data source named "Partner SFTP" already exists.' }, { silent: true });
const SERVER_ERROR = new ApiError(500, { title: 'server-error', detail: 'A server error occured. Please try again later.' }, { silent: true });
const NOT_FOUND = new ApiError(404, { title: 'datasource-not-found', detail: 'This data source no longer exists.' }, { silent: true });

type Event = ConnectionFormEvent
  | { type: 'xstate.done.actor.loadDataSource'; output: LoadedDataSource }
  | { type: 'xstate.error.actor.loadDataSource'; error: unknown }
  | { type: 'xstate.done.actor.saveDataSource'; output: DataSourceView }
  | { type: 'xstate.error.actor.saveDataSource'; error: unknown };
type Snapshot = SnapshotFrom<typeof connectionFormMachine>;

/** the errors the form shows: a field's once it was left or a save was tried (the system's only after a save was tried) */
const shownErrors = (c: ConnectionFormContext) => Object.entries(c.errors)
  .filter(([key]) => c.submitted || c.touched.includes(key))
  .sort(([a], [b]) => a.localeCompare(b));

/**
 * What the drawer shows: the state, the system, whether it is named, each value, the errors shown
 * and the save error. Once the form is done the drawer is gone, and how it got there shows no more.
 */
const serializeState = (s: Snapshot) => (s.status === 'done' ? JSON.stringify(s.value) : JSON.stringify([
  s.value, s.context.system, s.context.displayName !== '', Object.entries(s.context.values).filter(([, v]) => v !== '').sort(), shownErrors(s.context), s.context.saveError,
]));

/** the server's answers to a save */
const SAVE_DONE: Event = { type: 'xstate.done.actor.saveDataSource', output: SAVED };
const SAVE_NAME_TAKEN: Event = { type: 'xstate.error.actor.saveDataSource', error: NAME_TAKEN };
const SAVE_FAILED: Event = { type: 'xstate.error.actor.saveDataSource', error: SERVER_ERROR };
/** ... given only while a save is in flight */
const saveAnswers = (s: Snapshot): Event[] => (s.matches('saving') ? [SAVE_DONE, SAVE_NAME_TAKEN, SAVE_FAILED] : []);

/** Adding: what the drawer offers in each state (nothing once it is closed). Settings are filled in the order the form lists them. */
function createEvents(s: Snapshot): Event[] {
  const c = s.context;
  if (s.status !== 'active') return [];
  const events: Event[] = [{ type: 'form.submit' }, { type: 'form.cancel' }, ...saveAnswers(s)];
  if (c.system === null) events.push({ type: 'system.select', system: 'sftp' });
  if (c.displayName === '') events.push({ type: 'name.change', value: SFTP.displayName });
  if (!c.touched.includes('displayName')) events.push({ type: 'field.blur', key: 'displayName' });
  const next = c.system ? ENTERED.find(([key]) => !c.values[key]) : undefined;
  if (next) events.push({ type: 'field.change', key: next[0], value: next[1] });
  return events;
}

/** Editing: the saved source loads (or does not), its folder changes, and it is saved. */
function editEvents(s: Snapshot): Event[] {
  if (s.status !== 'active') return [];
  const events: Event[] = [{ type: 'form.submit' }, { type: 'form.cancel' }, ...saveAnswers(s)];
  if (s.matches('loading')) events.push({ type: 'xstate.done.actor.loadDataSource', output: LOADED }, { type: 'xstate.error.actor.loadDataSource', error: NOT_FOUND });
  if (s.context.values.folder === '/out') events.push({ type: 'field.change', key: 'folder', value: '/in' });
  return events;
}

const serializeEvent = (e: Event) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}:${v.problem.title}` : v));
const createModel = testModel<typeof connectionFormMachine, Event>(connectionFormMachine, { input: { mode: 'create' }, events: createEvents, serializeState, serializeEvent });
const editModel = testModel<typeof connectionFormMachine, Event>(connectionFormMachine, { input: { mode: 'edit', dataSourceId: SFTP.id }, events: editEvents, serializeState, serializeEvent });

// ------------------------------------------------------------------ the screen

interface Rendered {
  user: Awaited<ReturnType<typeof renderConnections>>;
  load: FakeCall<{ dataSourceId: string }, LoadedDataSource>;
  save: FakeCall<ConnectionFormContext, DataSourceView>;
}

const drawer = () => screen.getByRole('dialog');
const field = (key: string) => within(drawer()).getByLabelText(LABELS[key]!) as HTMLInputElement;

/** The screen with the form machine under test; the path's mode decides which button opens the drawer. */
const view: ModelView<typeof connectionFormMachine, Rendered> = {
  async render(machine, path) {
    const load = fakeCall<{ dataSourceId: string }, LoadedDataSource>('loadDataSource');
    const save = fakeCall<ConnectionFormContext, DataSourceView>('saveDataSource');
    const user = await renderConnections({ connectionForm: machine.provide({ actors: { loadDataSource: load.logic, saveDataSource: save.logic } }) });
    const mode = (path.steps[0]?.state ?? path.state).context.mode;
    await user.click(screen.getByRole('button', { name: mode === 'create' ? 'Add data source' : `Edit ${SFTP.displayName}` }));
    await screen.findByRole('dialog');
    return { user, load, save };
  },
  params: ({ user, load, save }) => ({
    states: {
      loading: async () => {
        await within(drawer()).findByText('Loading the data source…');
        expect(load.next).toEqual({ dataSourceId: SFTP.id });
        expect(within(drawer()).queryByRole('form')).toBeNull();
      },
      loadFailed: async (s: Snapshot) => {
        const alert = await within(drawer()).findByRole('alert');
        expect(alert.textContent).toContain(s.context.saveError);
        expect(within(drawer()).queryByRole('button', { name: 'Save' })).toBeNull();
      },
      editing: async (s: Snapshot) => {
        const c = s.context;
        const form = await within(drawer()).findByRole('form');
        await waitFor(() => expect(within(form).getByRole('button', { name: 'Save' }).getAttribute('data-loading')).toBeNull());
        expect(form.getAttribute('aria-label')).toBe(c.mode === 'create' ? 'Add data source' : `Edit ${c.displayName}`);
        if (c.mode === 'create') {
          const system = within(form).getByLabelText(/^System/) as HTMLInputElement;
          expect(system.value).toBe(c.system ? 'Secure FTP' : '');
          expect(system.getAttribute('aria-invalid') === 'true').toBe(c.submitted && !!c.errors.system);
        } else {
          expect(form.textContent).toContain('System: Secure FTP');
          // the saved password: a shield, and an empty field
          expect(within(form).getByRole('img', { name: 'Password is saved' })).toBeTruthy();
        }
        // every field shows its value, and its error exactly when the machine shows it
        const shown = Object.fromEntries(shownErrors(c));
        const keys = ['displayName', ...(c.system ? ['host', 'username', 'password', 'folder'] : [])];
        for (const key of keys) {
          const input = field(key);
          expect(input.value, key).toBe(key === 'displayName' ? c.displayName : c.values[key]);
          expect(input.getAttribute('aria-invalid') === 'true', `${key} marked invalid`).toBe(key in shown);
          if (key in shown) expect(document.getElementById(input.getAttribute('aria-describedby')!.split(' ').find((id) => id.endsWith('-error'))!)!.textContent).toBe(shown[key]);
        }
        if (c.saveError) expect(within(form).getByRole('alert').textContent).toContain(c.saveError);
        else expect(within(form).queryByRole('alert')).toBeNull();
      },
      saving: async (s: Snapshot) => {
        await waitFor(() => expect(within(drawer()).getByRole('button', { name: 'Save' }).getAttribute('data-loading')).toBe('true'));
        expect(field('displayName').disabled).toBe(true);
        // what is sent: the form as it stands (an edit leaves the saved password empty, which keeps it)
        expect(save.next).toMatchObject({ mode: s.context.mode, displayName: SFTP.displayName, values: s.context.values });
      },
      saved: async () => {
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
        await screen.findByText(`"${SAVED.displayName}" has been saved`);
      },
      cancelled: async () => {
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
        expect(screen.queryByText(/has been saved/)).toBeNull();
        expect(save.calls).toEqual([]);
      },
    },
    events: {
      ...formEditEvents(user, drawer, field, 'Secure FTP'),
      // leaving the field, without moving into another one
      'field.blur': ({ event }: { event: { type: string } }) => { fireEvent.blur(field((event as Extract<Event, { type: 'field.blur' }>).key)); },
      'form.submit': async () => { await user.click(within(drawer()).getByRole('button', { name: 'Save' })); },
      // the form's Cancel, or the drawer's close button while there is no form
      'form.cancel': async () => {
        await user.click(within(drawer()).queryByRole('button', { name: 'Cancel' }) ?? within(drawer()).getByRole('button', { name: 'Close' }));
      },
      'xstate.done.actor.loadDataSource': ({ event }: { event: { type: string } }) => load.answer(event),
      'xstate.error.actor.loadDataSource': ({ event }: { event: { type: string } }) => load.answer(event),
      'xstate.done.actor.saveDataSource': ({ event }: { event: { type: string } }) => save.answer(event),
      'xstate.error.actor.saveDataSource': ({ event }: { event: { type: string } }) => save.answer(event),
    },
  }),
};

// ------------------------------------------------------------------ the paths

const createPaths = createModel.getShortestPaths();
const editPaths = editModel.getShortestPaths();
const valueOf = (s: Snapshot) => JSON.stringify(s.value);
/** a path's name: its events, shortly */
const nameOf = (p: ModelPath<Snapshot>) => p.steps.slice(1).map(({ event }) => {
  const { type, ...rest } = event as Event;
  if (type.startsWith('xstate.')) return type.replace(/^xstate\.(done|error)\.actor\./, '$1 ') + ('error' in rest ? ` ${(rest.error as ApiError).status}` : '');
  return [type, ...Object.values(rest)].join(' ');
}).join(' → ') + ` ⇒ ${valueOf(p.state)}`;

describe('connection form machine: adding a data source (shortest paths on the Connections screen)', () => {
  it('reaches editing with each field\'s error shown or not and after each refusal, saving, saved and cancelled', () => {
    expect([...reachedStates(createPaths, valueOf)].sort()).toEqual(['"cancelled"', '"saved"', '"saving"', '{"editing":"idle"}']);
    const reached = [...reachedStates(createPaths, (s) => JSON.stringify([s.value, shownErrors(s.context).map(([k]) => k), s.context.saveError]))];
    for (const expected of [
      [{ editing: 'idle' }, [], null],
      [{ editing: 'idle' }, ['displayName'], null],
      [{ editing: 'idle' }, ['displayName', 'system'], null],
      [{ editing: 'idle' }, ['displayName', 'host', 'password', 'username'], null],
      [{ editing: 'idle' }, ['displayName'], NAME_TAKEN.problem.detail],
      [{ editing: 'idle' }, [], SERVER_ERROR.problem.detail],
    ]) expect(reached, JSON.stringify(expected)).toContain(JSON.stringify(expected));
  });
  it.each(named(createPaths, nameOf))('%s', async (_d, path) => runPath(path, connectionFormMachine, view));
});

describe('connection form machine: editing a data source (shortest paths on the Connections screen)', () => {
  it('reaches loading, load failed, editing, saving, saved and cancelled', () => {
    expect([...reachedStates(editPaths, valueOf)].sort()).toEqual(['"cancelled"', '"loadFailed"', '"loading"', '"saved"', '"saving"', '{"editing":"idle"}']);
  });
  it.each(named(editPaths, nameOf))('%s', async (_d, path) => runPath(path, connectionFormMachine, view));
});

describe('connection form machine: saving again after a refusal', () => {
  const filled: Event[] = [
    { type: 'system.select', system: 'sftp' }, { type: 'name.change', value: SFTP.displayName },
    ...ENTERED.map(([key, value]) => ({ type: 'field.change', key, value }) as Event),
  ];
  const journeys: [string, typeof createModel, ConnectionFormInput, Event[]][] = [
    ['a new source refused for its name, then saved', createModel, { mode: 'create' }, [...filled, { type: 'form.submit' }, SAVE_NAME_TAKEN, { type: 'form.submit' }, SAVE_DONE]],
    ['an edit the server fails, tried again and saved', editModel, { mode: 'edit', dataSourceId: SFTP.id }, [
      { type: 'xstate.done.actor.loadDataSource', output: LOADED }, { type: 'field.change', key: 'folder', value: '/in' },
      { type: 'form.submit' }, SAVE_FAILED, { type: 'form.submit' }, SAVE_DONE,
    ]],
  ];
  it.each(journeys)('%s', async (_d, model, input, events) => {
    // getPathsFromEvents does not pass the model's input to its start state: give it the start state
    const fromState = createActor(connectionFormMachine, { input }).getSnapshot();
    const [path] = model.getPathsFromEvents(events, { fromState });
    expect(path!.steps.length).toBe(events.length + 1);
    expect(path!.state.matches('saved')).toBe(true);
    await runPath(path!, connectionFormMachine, view);
  });
});

describe('the suite can fail', () => {
  const through = (paths: ModelPath<Snapshot>[], value: Snapshot['value']) => paths.filter((p) => [...p.steps.map((s) => s.state), p.state].some((s) => s.matches(value)));

  it('finds a machine whose validity guard is broken on purpose', async () => {
    // a form that never counts as valid never saves
    await expectBrokenGuardToFail(connectionFormMachine, 'isValid', { paths: through(createPaths, 'saving'), view, every: true });
  });

  it('finds a machine whose edit-mode guard is broken on purpose', async () => {
    // an edit that does not load the saved source opens an empty form; every edit starts loading, two paths suffice
    const twoEdits = [editPaths.find((p) => p.state.matches('loadFailed'))!, editPaths.find((p) => p.state.matches('saving'))!];
    await expectBrokenGuardToFail(connectionFormMachine, 'isEditing', { paths: twoEdits, view, every: true });
  });
});
