/**
 * Model-based tests of the authentication machine (DESIGN.md section 3) on the rendered app.
 *
 * Paths come from the machine's graph. Each event is what a person or the outside world does: a
 * click on the landing page, the user menu or an error page; the Auth0 SDK finishing its start; a
 * server answer to the login-details calls (the fakes answer exactly when the path says so). Each
 * state is an assertion on what the app shows. The fakes stand for the Auth0 SDK and the
 * account-management service; everything else is the real app.
 */
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { initialContext, type Auth0ContextInterface } from '@auth0/auth0-react';
import { createMemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { fromCallback, type SnapshotFrom } from 'xstate';
import { ACCOUNT_DEACTIVATED, ACCOUNT_DEACTIVATED_CODE, IDENTITY_ERRORS, isAccountDeactivated } from '../../src/domain/identity.ts';
import { policiesFor } from '../../src/domain/roles.ts';
import { authMachine, type AuthEvent } from '../../src/machines/auth.ts';
import type { AccountManagement, CurrentUser } from '../../src/services/accountManagement.ts';
import type { AuthService } from '../../src/services/auth.ts';
import { ApiError, identityHeaders, request } from '../../src/services/gateway.ts';
import { App } from '../../src/views/shell/App.tsx';
import { AuthSdkContext } from '../../src/views/shell/authSdk.tsx';
import { aCurrentUser } from '../support/currentUser.ts';
import { fakeCall } from '../support/fakeCalls.ts';
import { expectBrokenGuardToFail, expectingFailure, named, reachedStates, runPath, testModel, type ModelPath, type ModelView } from '../support/modelPaths.ts';

afterEach(() => cleanup());

// ------------------------------------------------------------------ fakes of the SDK and the accounts service

const USER: CurrentUser = aCurrentUser({
  activeTenantId: 't1', policies: policiesFor(['Administrator']), roles: ['Administrator'], auth0Id: 'auth0|u1',
  fullName: 'Ada Administrator', email: 'ada@example.org', loginCount: 7, organizationName: 'Riverside Community Trust',
  tenants: [{ tenantId: 't1', name: 'Food Bank', roles: ['Administrator'] }, { tenantId: 't2', name: 'Youth Arts', roles: ['View Only'] }],
});

/** the SDK's and the accounts service's calls, by the id of the machine's actor that makes them; each waits for the path to answer it */
function fakeCalls() {
  return {
    redirectToLogin: fakeCall<unknown, void>('login'),
    logout: fakeCall<unknown, void>('logout'),
    forgetLocalSession: fakeCall<unknown, void>('logoutLocally'),
    findOrganization: fakeCall<unknown, string>('organizationId'),
    loadUser: fakeCall<unknown, CurrentUser>('currentUser'),
    switchTenant: fakeCall<unknown, void>('setActiveTenant'),
  };
}

function fakeWorld() {
  const calls = fakeCalls();
  let tokenError: unknown = null;
  const auth: AuthService = {
    clientId: 'tributary-app',
    user: () => ({ sub: 'auth0|u1', email: 'ada@example.org', name: 'Ada Administrator' }),
    accessToken: async () => { if (tokenError) throw tokenError; return 'token'; },
    login: () => calls.redirectToLogin.call(undefined),
    logout: () => calls.logout.call(undefined),
    logoutLocally: () => calls.forgetLocalSession.call(undefined),
  };
  const accounts = {
    organizationId: (...args: unknown[]) => calls.findOrganization.call(args),
    currentUser: (...args: unknown[]) => calls.loadUser.call(args),
    setActiveTenant: (...args: unknown[]) => calls.switchTenant.call(args),
    deleteUserCache: async () => undefined,
  } as unknown as AccountManagement;
  let sdk: Auth0ContextInterface = { ...initialContext, isLoading: true, isAuthenticated: false } as Auth0ContextInterface;
  return {
    auth, accounts, calls,
    get sdk() { return sdk; },
    setSdk(next: Partial<Auth0ContextInterface>) { sdk = { ...sdk, ...next }; },
    failTokens(error: unknown) { tokenError = error; },
  };
}
type World = ReturnType<typeof fakeWorld>;

function renderApp(world: World, authLogic = authMachine) {
  const user = userEvent.setup({ delay: null });
  const tree = () => (
    <MantineProvider>
      <AuthSdkContext.Provider value={world.sdk}>
        <App
          production
          authLogic={authLogic}
          authInput={() => ({ auth: world.auth, accounts: world.accounts, subdomain: 'demo' })}
          createRouter={(routes) => createMemoryRouter(routes, { initialEntries: ['/landing'] })}
        />
      </AuthSdkContext.Provider>
    </MantineProvider>
  );
  const view = render(tree());
  return { user, rerender: () => view.rerender(tree()) };
}

// ------------------------------------------------------------------ the model's events

const apiError = (status: number) => new ApiError(status, { status, title: status === 404 ? 'no-tenants' : status === 403 ? 'no-roles' : 'server-error' });
/** what the server answers a request of a user deactivated while signed in (server/http/auth.ts) */
const DEACTIVATED = new ApiError(403, { status: 403, title: 'forbidden', code: ACCOUNT_DEACTIVATED_CODE, detail: ACCOUNT_DEACTIVATED });
const done = (id: string, output?: unknown) => ({ type: `xstate.done.actor.${id}`, output }) as unknown as AuthEvent;
const error = (id: string, err: unknown) => ({ type: `xstate.error.actor.${id}`, error: err }) as unknown as AuthEvent;

const EVENTS: AuthEvent[] = [
  { type: 'sdk.ready', isAuthenticated: false },
  { type: 'sdk.ready', isAuthenticated: true },
  { type: 'sdk.ready', isAuthenticated: false, error: new Error('Invalid state') },
  { type: 'login' },
  error('redirectToLogin', Object.assign(new Error('Timeout'), { error: 'timeout', name: 'TimeoutError' })),
  done('findOrganization', 'org-1'),
  error('findOrganization', apiError(404)),
  error('findOrganization', apiError(0)),
  error('findOrganization', apiError(500)),
  done('loadUser', USER),
  error('loadUser', apiError(404)),
  error('loadUser', apiError(403)),
  error('loadUser', apiError(500)),
  error('loadUser', DEACTIVATED),
  { type: 'retry' },
  { type: 'tenant.switch', tenantId: 't2' },
  done('switchTenant'),
  { type: 'logout' },
  done('logout'),
  { type: 'identity.error', error: Object.assign(new Error('Login required'), { error: 'login_required' }) },
  { type: 'identity.error', error: Object.assign(new Error('MFA required'), { error: 'mfa_required', name: 'MfaRequiredError' }) },
  // any request of the signed-in app refused because the account was deactivated since
  { type: 'identity.error', error: DEACTIVATED },
  done('forgetLocalSession'),
  { type: 'error.dismiss' },
];

type Snap = SnapshotFrom<typeof authMachine>;

/** Events a person can cause only where the app offers them. */
function eventsFor(s: Snap): AuthEvent[] {
  return EVENTS.filter((e) => {
    if (e.type === 'logout') return s.matches({ authenticated: 'ready' }) || s.matches('denied');
    if (e.type === 'identity.error' || e.type === 'tenant.switch') return s.matches({ authenticated: 'ready' });
    if (e.type === 'error.dismiss') return s.matches('failed');
    return true;
  });
}

const serializeState = (s: Snap) => JSON.stringify([s.value, s.context.identityError?.kind ?? null]);

const model = testModel(authMachine, {
  events: eventsFor,
  serializeState,
  serializeEvent: (e) => JSON.stringify(e, (_k, v) => (v instanceof Error ? { message: v.message, ...(v as object) } : v)),
});

// ------------------------------------------------------------------ what the app shows

const loading = async () => { await screen.findByLabelText('Loading'); expect(screen.queryByRole('button', { name: 'Sign in' })).toBeNull(); };
const deniedPage = (heading: string) => async () => {
  await screen.findByRole('heading', { name: heading });
  expect(screen.getByText(/Please contact your administrator\./)).toBeTruthy();
  expect(screen.getByRole('button', { name: 'Go back to login' })).toBeTruthy();
};

function params(world: World, app: ReturnType<typeof renderApp>) {
  return {
    states: {
      loading,
      unauthenticated: async () => {
        const button = await screen.findByRole('button', { name: 'Sign in' });
        expect(button.getAttribute('data-loading')).toBeNull();
        expect(screen.queryByRole('alert')).toBeNull();
      },
      redirecting: async () => {
        await waitFor(() => expect(screen.getByRole('button', { name: 'Sign in' }).getAttribute('data-loading')).toBe('true'));
      },
      failed: async (s: Snap) => {
        const alert = await screen.findByRole('alert');
        expect(within(alert).getByText(IDENTITY_ERRORS[s.context.identityError!.kind])).toBeTruthy();
        expect(screen.getByRole('button', { name: 'Sign in' })).toBeTruthy();
      },
      'authenticated.findingOrganization': loading,
      'authenticated.loadingUser': loading,
      'authenticated.switchingTenant': loading,
      'authenticated.ready': async () => {
        const menu = await screen.findByRole('button', { name: /user menu/i });
        expect(menu.textContent).toContain('Ada Administrator');
      },
      'authenticated.unreachable': async () => {
        await screen.findByText('Tributary cannot be reached');
        expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
      },
      'denied.subdomain': deniedPage('Organisation not found'),
      'denied.tenant': deniedPage('You have no tenant'),
      'denied.role': deniedPage('You have no role here'),
      loggingOut: loading,
      endingSession: loading,
    },
    events: {
      'sdk.ready': async ({ event: e0 }: { event: { type: string } }) => {
        const event = e0 as unknown as AuthEvent;
        const e = event as Extract<AuthEvent, { type: 'sdk.ready' }>;
        world.setSdk({ isLoading: false, isAuthenticated: e.isAuthenticated, error: e.error as Error | undefined });
        act(() => app.rerender());
      },
      login: async () => { await app.user.click(screen.getByRole('button', { name: 'Sign in' })); },
      retry: async () => { await app.user.click(screen.getByRole('button', { name: 'Try again' })); },
      logout: async () => {
        const goBack = screen.queryByRole('button', { name: 'Go back to login' });
        if (goBack) { await app.user.click(goBack); return; }
        await app.user.click(screen.getByRole('button', { name: /user menu/i }));
        await app.user.click(await screen.findByRole('menuitem', { name: 'Log out' }));
      },
      'tenant.switch': async () => {
        await app.user.selectOptions(screen.getByRole('combobox', { name: 'Tenant' }), 'Youth Arts');
      },
      'identity.error': async ({ event: e0 }: { event: { type: string } }) => {
        const event = e0 as unknown as AuthEvent;
        const refusal = (event as Extract<AuthEvent, { type: 'identity.error' }>).error;
        if (isAccountDeactivated(refusal)) {
          // a screen's request, refused by the server: the machine hears of it from the gateway
          await act(async () => { await request(() => Promise.reject(refusal), { silent: true }).catch(() => undefined); });
          return;
        }
        world.failTokens(refusal);
        // any request of the app asks for a token
        await act(async () => { await identityHeaders().catch(() => undefined); });
      },
      'error.dismiss': async () => { await app.user.click(within(screen.getByRole('alert')).getByRole('button')); },
      ...Object.fromEntries(Object.entries(world.calls).flatMap(([id, fake]) => [
        [`xstate.done.actor.${id}`, ({ event }: { event: { type: string } }) => fake.answer(event)],
        [`xstate.error.actor.${id}`, ({ event }: { event: { type: string } }) => fake.answer(event)],
      ])),
    },
  };
}

// ------------------------------------------------------------------ the paths

/** the app over the fake SDK and accounts service */
const view: ModelView<typeof authMachine, { world: World; app: ReturnType<typeof renderApp> }> = {
  render(machine) {
    const world = fakeWorld();
    return { world, app: renderApp(world, machine) };
  },
  params: ({ world, app }) => params(world, app),
};

const paths = model.getShortestPaths();
// shortest paths reach the deactivated message once, refused at sign-in; this path is refused later, on a screen's request
const laterRefusal = model.getPathsFromEvents([
  { type: 'sdk.ready', isAuthenticated: true }, done('findOrganization', 'org-1'), done('loadUser', USER),
  { type: 'identity.error', error: DEACTIVATED }, done('forgetLocalSession'),
], {}) as unknown as ModelPath<Snap>[];

describe('authentication machine: shortest paths on the rendered app', () => {
  it('reaches every state of the machine', () => {
    const reached = reachedStates(paths);
    for (const state of ['"unauthenticated"', '"redirecting"', '"failed"', '"loggingOut"', '"endingSession"',
      ...['findingOrganization', 'loadingUser', 'ready', 'switchingTenant', 'unreachable'].map((s) => JSON.stringify({ authenticated: s })),
      ...['subdomain', 'tenant', 'role'].map((s) => JSON.stringify({ denied: s }))]) {
      expect(reached.has(state), state).toBe(true);
    }
  });

  it('starts loading until the SDK has handled the sign-in redirect', async () => {
    renderApp(fakeWorld());
    await loading();
  });

  it.each(named(paths))('%s', async (_d, path) => runPath(path, authMachine, view));

  it('ends the session of a user deactivated while signed in, and says the account is deactivated', async () => {
    expect(laterRefusal).toHaveLength(1);
    expect(laterRefusal[0]!.state.matches('failed') && laterRefusal[0]!.state.context.identityError?.kind).toBe('account-deactivated');
    expect(IDENTITY_ERRORS['account-deactivated']).toBe('Your account has been deactivated. Please contact your administrator.');
    await runPath(laterRefusal[0]!, authMachine, view);
  });
});

describe('the suite can fail', () => {
  it('finds a machine whose no-role guard is broken on purpose', async () => {
    // the broken machine runs in the app; the correct machine's paths say what should show
    const rolePaths = paths.filter((p) => p.state.matches({ denied: 'role' }));
    await expectBrokenGuardToFail(authMachine, 'hasNoRole', { paths: rolePaths, view, every: true });
  });
  it('finds a machine that takes a deactivated account for a missing role', async () => {
    const deactivated = paths.filter((p) => p.steps.some((st) => (st.event as { error?: unknown }).error === DEACTIVATED && st.event.type.startsWith('xstate.error.actor.loadUser')));
    await expectBrokenGuardToFail(authMachine, 'isDeactivated', { paths: deactivated.slice(0, 2), view, every: true });
  });
  it('finds an app that does not hear a deactivated account\'s refusals', async () => {
    const deaf = authMachine.provide({ actors: { watchDeactivation: fromCallback(() => undefined) } as never });
    // the session stays signed in: the path's ending session and message never show
    await expect(expectingFailure(() => runPath(laterRefusal[0]!, deaf, view))).rejects.toThrow(/Loading/);
  });
});
