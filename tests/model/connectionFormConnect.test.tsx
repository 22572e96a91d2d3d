/**
 * Model-based tests of Connect in the data source form (connectionFormMachine's savingToConnect,
 * authorizing and redirecting; src/domain/connectors/oauth.ts) on the real Connections screen, for
 * a Power User adding Raiser's Edge NXT: the form is filled, Connect saves it, the server answers
 * the consent page (or refuses), and the browser is sent there. Paths come from the machine's
 * graph; each event is a user action or a fake call's answer; each state is what the drawer shows.
 * Then the way back: the Connections screen opened with the vendor's answer completes it and opens
 * the data source's form saying, in words, how it went.
 */
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import type { DataSourceView } from '../../src/domain/connectors/catalogue.ts';
import { ROLE_POLICIES } from '../../src/domain/roles.ts';
import { connectionFormMachine, type ConnectionFormContext, type ConnectionFormEvent, type LoadedDataSource } from '../../src/machines/connectionForm.ts';
import { ApiError } from '../../src/services/gateway.ts';
import type { DataSourceListItem } from '../../src/services/integrations.ts';
import { FAKE_SOURCES, formEditEvents, renderConnections } from '../support/connectionsScreen.tsx';
import { answeredCall, fakeCall, type FakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const RENXT_ID = '33333333-3333-4333-8333-333333333333';
const NAME = 'Riverside RE NXT';
const CONSENT_URL = 'https://app.blackbaud.com/oauth/authorize?response_type=code&client_id=sky-app-id&state=s';
const LABELS: Record<string, RegExp> = {
  displayName: /^Display name( \*)?$/, clientId: /^Application ID \(OAuth client ID\)$/, clientSecret: /^Application secret$/,
  subscriptionKey: /^SKY API subscription key( \*)?$/,
};
const SAVED: DataSourceView = {
  id: RENXT_ID, system: 'renxt', displayName: NAME, settings: { subscriptionKey: { saved: true } },
  createdOn: '2026-11-27T09:00:00.000Z', createdBy: 'Pat Power', modifiedOn: '2026-11-27T09:00:00.000Z', modifiedBy: 'Pat Power', usedBy: [],
};
const NAME_TAKEN = new ApiError(409, { title: 'datasource-name-taken', detail: `A data source named "${NAME}" already exists.` }, { silent: true });
const NO_APPLICATION = new ApiError(400, {
  title: 'bad-request', detail: "Raiser's Edge NXT needs the application's ID and secret to connect. Enter them here, or ask whoever runs Tributary to set OAUTH_CLIENT_ID_RENXT and OAUTH_CLIENT_SECRET_RENXT.",
  errors: { clientId: "Enter the application's ID, or set OAUTH_CLIENT_ID_RENXT on the server." },
} as never, { silent: true });

type Event = ConnectionFormEvent
  | { type: 'xstate.done.actor.saveDataSource'; output: DataSourceView }
  | { type: 'xstate.error.actor.saveDataSource'; error: unknown }
  | { type: 'xstate.done.actor.startOAuth'; output: string }
  | { type: 'xstate.error.actor.startOAuth'; error: unknown };
type Snapshot = SnapshotFrom<typeof connectionFormMachine>;

const shownErrors = (c: ConnectionFormContext) => Object.entries(c.errors).filter(([key]) => c.submitted || c.touched.includes(key)).sort(([a], [b]) => a.localeCompare(b));
const serializeState = (s: Snapshot) => (s.status === 'done' ? JSON.stringify(s.value) : JSON.stringify([
  s.value, s.context.mode, s.context.system, s.context.displayName !== '', Object.entries(s.context.values).filter(([, v]) => v !== '').sort(),
  shownErrors(s.context), s.context.saveError,
]));

/** What the drawer offers: the system, its name and subscription key, Connect; the server's answers while a call is in flight. */
function events(s: Snapshot): Event[] {
  const c = s.context;
  if (s.status !== 'active') return [];
  const out: Event[] = [{ type: 'oauth.connect' }, { type: 'form.cancel' }];
  if (s.matches('savingToConnect')) out.push({ type: 'xstate.done.actor.saveDataSource', output: SAVED }, { type: 'xstate.error.actor.saveDataSource', error: NAME_TAKEN });
  if (s.matches('authorizing')) out.push({ type: 'xstate.done.actor.startOAuth', output: CONSENT_URL }, { type: 'xstate.error.actor.startOAuth', error: NO_APPLICATION });
  if (c.system === null) out.push({ type: 'system.select', system: 'renxt' });
  if (c.displayName === '') out.push({ type: 'name.change', value: NAME });
  if (c.system && !c.values.subscriptionKey && !c.savedSecrets.includes('subscriptionKey')) out.push({ type: 'field.change', key: 'subscriptionKey', value: 'sky-sub-key' });
  return out;
}

const serializeEvent = (e: Event) => JSON.stringify(e, (_k, v) => (v instanceof ApiError ? `${v.status}:${v.problem.title}` : v));
const model = testModel<typeof connectionFormMachine, Event>(connectionFormMachine, { input: { mode: 'create', mayPasteTokens: false }, events, serializeState, serializeEvent });

interface Rendered {
  user: Awaited<ReturnType<typeof renderConnections>>;
  save: FakeCall<ConnectionFormContext, DataSourceView>;
  start: FakeCall<{ dataSourceId: string }, string>;
  leave: FakeCall<{ url: string }, void>;
}

const drawer = () => screen.getByRole('dialog');
const field = (key: string) => within(drawer()).getByLabelText(LABELS[key]!) as HTMLInputElement;
const connectButton = () => within(drawer()).getByRole('button', { name: "Connect to Raiser's Edge NXT" });

const view: ModelView<typeof connectionFormMachine, Rendered> = {
  async render(machine) {
    const save = fakeCall<ConnectionFormContext, DataSourceView>('saveDataSource');
    const start = fakeCall<{ dataSourceId: string }, string>('startOAuth');
    // the browser leaving for the consent page: recorded, never answered
    const leave = fakeCall<{ url: string }, void>('goToVendor');
    const user = await renderConnections({
      policies: ROLE_POLICIES['Power User'],
      connectionForm: machine.provide({ actors: { saveDataSource: save.logic, startOAuth: start.logic, goToVendor: leave.logic } }),
    });
    await user.click(screen.getByRole('button', { name: 'Add data source' }));
    await screen.findByRole('dialog');
    return { user, save, start, leave };
  },
  params: ({ user, save, start, leave }) => ({
    states: {
      editing: async (s: Snapshot) => {
        const c = s.context;
        const form = await within(drawer()).findByRole('form');
        await waitFor(() => expect(within(form).getByRole('button', { name: 'Save' }).getAttribute('data-loading')).toBeNull());
        expect(form.getAttribute('aria-label')).toBe(c.mode === 'create' ? 'Add data source' : `Edit ${c.displayName}`);
        const shown = Object.fromEntries(shownErrors(c));
        const keys = ['displayName', ...(c.system ? ['clientId', 'clientSecret', 'subscriptionKey'] : [])];
        for (const key of keys) {
          const input = field(key);
          expect(input.value, key).toBe(key === 'displayName' ? c.displayName : c.values[key]);
          expect(input.getAttribute('aria-invalid') === 'true', `${key} marked invalid`).toBe(key in shown);
          if (key in shown) expect(document.getElementById(input.getAttribute('aria-describedby')!.split(' ').find((id) => id.endsWith('-error'))!)!.textContent).toBe(shown[key]);
        }
        if (c.system) {
          // connected only by Connect: a Power User is not offered the refresh token
          expect(within(form).queryByLabelText(/^Refresh token/)).toBeNull();
          expect(within(form).getByTestId('oauth-connect').textContent).toContain('Not connected');
          expect(connectButton().getAttribute('data-loading')).toBeNull();
        } else {
          expect(within(form).queryByTestId('oauth-connect')).toBeNull();
        }
        if (c.saveError) expect(within(form).getByRole('alert').textContent).toContain(c.saveError);
        else expect(within(form).queryByRole('alert')).toBeNull();
      },
      savingToConnect: async (s: Snapshot) => {
        await waitFor(() => expect(connectButton().getAttribute('data-loading')).toBe('true'));
        expect(field('displayName').disabled).toBe(true);
        expect(save.next).toMatchObject({ mode: s.context.mode, system: 'renxt', displayName: NAME, values: s.context.values });
      },
      authorizing: async () => {
        await waitFor(() => expect(start.next).toEqual({ dataSourceId: RENXT_ID }));
        expect(connectButton().getAttribute('data-loading')).toBe('true');
        // saved: from here it is an edit of the saved source, whose key shows as saved
        expect(within(drawer()).getByRole('img', { name: 'SKY API subscription key is saved' })).toBeTruthy();
      },
      redirecting: async () => {
        await within(drawer()).findByText("Taking you to Raiser's Edge NXT…");
        await waitFor(() => expect(leave.next).toEqual({ url: CONSENT_URL }));
      },
      cancelled: async () => {
        await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
        expect(save.calls).toEqual([]);
        expect(leave.calls).toEqual([]);
      },
    },
    events: {
      ...formEditEvents(user, drawer, field, 'Raiser\'s Edge NXT'),
      'oauth.connect': async () => {
        // before a system is chosen there is no Connect: the user can only save, which is refused alike
        const button = within(drawer()).queryByRole('button', { name: "Connect to Raiser's Edge NXT" });
        if (button) await user.click(button);
        else fireEvent.submit(within(drawer()).getByRole('form'));
      },
      'form.cancel': async () => { await user.click(within(drawer()).getByRole('button', { name: 'Cancel' })); },
      'xstate.done.actor.saveDataSource': ({ event }: { event: { type: string } }) => save.answer(event),
      'xstate.error.actor.saveDataSource': ({ event }: { event: { type: string } }) => save.answer(event),
      'xstate.done.actor.startOAuth': ({ event }: { event: { type: string } }) => start.answer(event),
      'xstate.error.actor.startOAuth': ({ event }: { event: { type: string } }) => start.answer(event),
    },
  }),
};

const paths = model.getShortestPaths();
const valueOf = (s: Snapshot) => JSON.stringify(s.value);
const nameOf = (p: ModelPath<Snapshot>) => p.steps.slice(1).map(({ event }) => {
  const { type, ...rest } = event as Event;
  if (type.startsWith('xstate.')) return type.replace(/^xstate\.(done|error)\.actor\./, '$1 ') + ('error' in rest ? ` ${(rest.error as ApiError).status}` : '');
  return [type, ...Object.values(rest)].join(' ');
}).join(' → ') + ` ⇒ ${valueOf(p.state)}`;

describe("connection form machine: Connect to Raiser's Edge NXT (shortest paths on the Connections screen)", () => {
  it('reaches saving to connect, authorizing, redirecting, each refusal back in editing, and cancelled', () => {
    expect([...reachedStates(paths, valueOf)].sort()).toEqual(['"authorizing"', '"cancelled"', '"redirecting"', '"savingToConnect"', '{"editing":"idle"}']);
    const reached = [...reachedStates(paths, (s) => JSON.stringify([s.value, s.context.mode, s.context.saveError]))];
    expect(reached).toContain(JSON.stringify([{ editing: 'idle' }, 'create', NAME_TAKEN.problem.detail]));
    // refused after the save: the form now edits the saved source, so trying again adds no second one
    expect(reached).toContain(JSON.stringify([{ editing: 'idle' }, 'edit', NO_APPLICATION.problem.detail]));
  });
  it.each(named(paths, nameOf))('%s', async (_d, path) => runPath(path, connectionFormMachine, view));
});

describe('the suite can fail', () => {
  it('finds a machine whose Connect guard is broken on purpose', async () => {
    const through = paths.filter((p) => [...p.steps.map((s) => s.state), p.state].some((s) => s.matches('redirecting')));
    await expectBrokenGuardToFail(connectionFormMachine, 'mayConnect', { paths: through, view, every: true });
  });
});

// ------------------------------------------------------------------ the way back from the vendor

const RENXT_SOURCE: DataSourceListItem = { ...FAKE_SOURCES[0]!, id: RENXT_ID, system: 'renxt', displayName: NAME, usedByCount: 0 };
const loaded = (connected: boolean): LoadedDataSource => ({
  system: 'renxt', displayName: NAME, savedSecrets: connected ? ['subscriptionKey', 'refreshToken'] : ['subscriptionKey'],
  values: { clientId: 'sky-app-id', clientSecret: '', subscriptionKey: '', refreshToken: '' },
});

async function comeBack(answer: (complete: FakeCall<unknown, { dataSourceId: string; detail: string }>) => void, connected: boolean, policies = ROLE_POLICIES['Power User']) {
  const complete = fakeCall<unknown, { dataSourceId: string; detail: string }>('completeOAuth');
  const load = answeredCall<{ dataSourceId: string }, LoadedDataSource>(() => loaded(connected));
  const pending = renderConnections({
    policies, sources: [RENXT_SOURCE], connectReturn: { state: 'attempt.signature', code: 'code-1' },
    completeOAuth: complete.logic as never, connectionForm: connectionFormMachine.provide({ actors: { loadDataSource: load.logic } }),
  });
  await screen.findByText('Completing the connection…');
  expect(await complete.called()).toEqual({ state: 'attempt.signature', code: 'code-1' });
  answer(complete);
  await pending;
  return load;
}

describe('coming back from the consent page', () => {
  it('completes the connection and opens the form showing it connected', async () => {
    const load = await comeBack((c) => c.resolve({ dataSourceId: RENXT_ID, detail: "Connected to Raiser's Edge NXT (Riverside Production)." }), true);
    const form = await within(await screen.findByRole('dialog')).findByRole('form', { name: `Edit ${NAME}` });
    expect(load.calls).toEqual([{ dataSourceId: RENXT_ID }]);
    expect(within(form).getByRole('status').textContent).toBe("Connected to Raiser's Edge NXT (Riverside Production).");
    expect(within(form).getByTestId('oauth-connect').textContent).toContain('Connected');
    expect(within(form).getByTestId('oauth-connect').textContent).not.toContain('Not connected');
  });

  it('opens the form saying in words why nothing was connected', async () => {
    const declined = "You declined to give Tributary access at Raiser's Edge NXT, so nothing was connected. Connect again to give access.";
    await comeBack((c) => c.reject(new ApiError(422, { title: 'oauth-not-connected', code: 'access-denied', detail: declined, dataSourceId: RENXT_ID } as never, { silent: true })), false);
    const form = await within(await screen.findByRole('dialog')).findByRole('form', { name: `Edit ${NAME}` });
    expect(within(form).getByRole('alert').textContent).toContain(declined);
    expect(within(form).getByTestId('oauth-connect').textContent).toContain('Not connected');
  });

  it('says so on the screen when the answer names no data source of this tenant', async () => {
    const invalid = 'This connection attempt is not valid here (it belongs to another user, tenant or data source). Connect again.';
    await comeBack((c) => c.reject(new ApiError(422, { title: 'oauth-not-connected', code: 'state-invalid', detail: invalid } as never, { silent: true })), false);
    expect((await screen.findByRole('alert')).textContent).toContain(invalid);
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('offers an Administrator the refresh token to paste', async () => {
    await comeBack((c) => c.resolve({ dataSourceId: RENXT_ID, detail: "Connected to Raiser's Edge NXT." }), true, ROLE_POLICIES.Administrator);
    const form = await within(await screen.findByRole('dialog')).findByRole('form', { name: `Edit ${NAME}` });
    expect(within(form).getByRole('img', { name: 'Refresh token is saved' })).toBeTruthy();
  });
});
