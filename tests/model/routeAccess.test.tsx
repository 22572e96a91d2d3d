/**
 * Model-based tests of the route-access machine (DESIGN.md section 3) on the rendered app.
 *
 * Paths come from the machine's graph: first who is there (a guest, a first login, each role, a
 * user without a role), then visits to routes of SPEC.md section 2, and the dismissal of a
 * redirect's notice where one shows. Each visit is a navigation in the real router; each state is
 * an assertion on where the app is and what it shows, the notice of why the user is there
 * included (the reason of the first redirect that said something, kept through the ones after).
 */
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { initialContext, type Auth0ContextInterface } from '@auth0/auth0-react';
import { createMemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assign, type SnapshotFrom } from 'xstate';
import { policiesFor } from '../../src/domain/roles.ts';
import { decideRoute, inAppShell, REDIRECT_COOKIE, redirectNotice, type RedirectReason, type Session } from '../../src/domain/routes.ts';
import { findScreen } from '../../src/domain/screens.ts';
import { routeAccessMachine, type RouteAccessEvent } from '../../src/machines/routeAccess.ts';
import type { AccountManagement, CurrentUser } from '../../src/services/accountManagement.ts';
import type { AuthService } from '../../src/services/auth.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { App } from '../../src/views/shell/App.tsx';
import { AuthSdkContext } from '../../src/views/shell/authSdk.tsx';
import { aCurrentUser } from '../support/currentUser.ts';
import { expectBrokenGuardToFail, expectBrokenMachineToFail, named, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

beforeEach(() => { document.cookie = `${REDIRECT_COOKIE}=; Max-Age=0; Path=/`; });
afterEach(() => cleanup());

// ------------------------------------------------------------------ who is there

interface Who { name: string; session: Session; denied?: 'role' }
const user = (roles: string[], loginCount = 5): Session => ({ authenticated: true, loginCount, policies: policiesFor(roles) });
const WHO: Who[] = [
  { name: 'guest', session: { authenticated: false } },
  { name: 'first login', session: user(['Administrator'], 1) },
  { name: 'Administrator', session: user(['Administrator']) },
  { name: 'Connection Manager', session: user(['Connection Manager']) },
  { name: 'Data Processor', session: user(['Data Processor']) },
  { name: 'User Manager', session: user(['User Manager']) },
  { name: 'no role', session: { authenticated: false }, denied: 'role' },
];

const PATHS = ['/', '/landing', '/welcome', '/data-queue', '/activity-history', '/activity-history/f-1', '/connections',
  '/integrations-formulas', '/user-management', '/f-1/ready-records', '/f-1/validation-exceptions/dupes', '/not-found',
  '/auth-error/tenant', '/no/such/page'];

const sessionEvents: RouteAccessEvent[] = WHO.map((w) => ({ type: 'session.change', session: w.session, denied: w.denied ?? null }));
const routeEvents: RouteAccessEvent[] = PATHS.map((p) => ({ type: 'route.enter', pathname: p, search: '' }));

type Snap = SnapshotFrom<typeof routeAccessMachine>;

const whoOf = (s: Snap) => WHO.find((w) => JSON.stringify(w.session) === JSON.stringify(s.context.session) && (w.denied ?? null) === s.context.denied)?.name ?? 'unknown';

/**
 * Where the app ends after a redirect (the guard table followed to its end), and the reason it
 * then tells: the first one given along the way. A notice dismissed on the way tells nothing.
 */
function destinationOf(s: Snap): { to: string; notice: RedirectReason | null } {
  const first = s.context.decision as { to: string; reason?: RedirectReason };
  if (first.reason && !s.context.notice) return { to: finalPath(s), notice: null };
  let notice = s.context.notice;
  let to = first.to;
  for (let i = 0; i < 10 && !s.context.denied; i++) {
    const url = new URL(to, 'http://app');
    const next = decideRoute(url.pathname, url.search, s.context.session!, { production: true, savedPath: null });
    if (next.kind === 'allow') break;
    notice ??= next.reason ?? null;
    to = next.to;
  }
  return { to, notice };
}
function finalPath(s: Snap): string {
  let to = (s.context.decision as { to: string }).to;
  for (let i = 0; i < 10 && !s.context.denied; i++) {
    const url = new URL(to, 'http://app');
    const next = decideRoute(url.pathname, url.search, s.context.session!, { production: true, savedPath: null });
    if (next.kind === 'allow') break;
    to = next.to;
  }
  return to;
}

/** What the user is told on the page at `path`: in the shell's notice, on the role page's heading, or on landing. */
type Told = { where: 'notice' | 'heading'; title: string } | null;
function toldOn(path: string, s: Snap, reason: RedirectReason | null): Told {
  const signedIn = s.context.session?.authenticated === true;
  const found = findScreen(new URL(path, 'http://app').pathname, true);
  if (found?.id === 'authErrorRole' && signedIn) return { where: 'heading', title: redirectNotice(reason)?.title ?? 'Your role does not open that page' };
  const notice = redirectNotice(reason);
  return notice ? { where: 'notice', title: notice.title } : null;
}
/** A notice the user can dismiss: the shell's (landing's and the role page's are part of the page). */
const dismissable = (path: string, s: Snap, reason: RedirectReason | null) => {
  const found = findScreen(new URL(path, 'http://app').pathname, true);
  return !!found && found.id !== 'authErrorRole' && inAppShell(found.id, s.context.session?.authenticated === true) && !!redirectNotice(reason);
};

/** Who is there is settled once, first; then the person visits routes, and dismisses a notice that shows. */
function eventsFor(s: Snap): RouteAccessEvent[] {
  if (s.context.session === null && !s.context.denied) return sessionEvents;
  if (s.matches('redirecting')) {
    const d = destinationOf(s);
    if (dismissable(d.to, s, d.notice)) return [...routeEvents, { type: 'notice.dismiss' }];
  }
  return routeEvents;
}

const model = testModel(routeAccessMachine, {
  // the app starts on the landing page of a production build
  input: { production: true, pathname: '/landing', search: '' },
  events: eventsFor,
  serializeState: (s) => JSON.stringify([s.value, whoOf(s), s.context.pathname, s.context.decision, s.context.notice]),
});

// ------------------------------------------------------------------ the app, with the SDK and the accounts service faked

function renderApp(who: Who, routeAccessLogic = routeAccessMachine) {
  const current: CurrentUser | null = who.session.authenticated ? aCurrentUser({
    activeTenantId: 't1', policies: who.session.policies, roles: [], auth0Id: 'auth0|u1', fullName: 'Sam Tester',
    email: 'sam@example.org', loginCount: who.session.loginCount, organizationName: 'Riverside', tenants: [{ tenantId: 't1', name: 'Food Bank', roles: [] }],
  }) : null;
  const auth: AuthService = {
    clientId: 'tributary-app', user: () => ({ sub: 'auth0|u1', email: 'sam@example.org', name: 'Sam Tester' }),
    accessToken: async () => 'token', login: () => new Promise(() => {}), logout: async () => {}, logoutLocally: async () => {},
  };
  const accounts = {
    organizationId: async () => 'org-1',
    currentUser: async () => { if (who.denied) throw new ApiError(403, { title: 'no-roles' }); return current!; },
    setActiveTenant: async () => undefined,
    deleteUserCache: async () => undefined,
  } as unknown as AccountManagement;
  const signedIn = who.session.authenticated || !!who.denied;
  let sdk = { ...initialContext, isLoading: true, isAuthenticated: false } as Auth0ContextInterface;
  let router!: ReturnType<typeof createMemoryRouter>;
  const tree = () => (
    <MantineProvider>
      <AuthSdkContext.Provider value={sdk}>
        <App production routeAccessLogic={routeAccessLogic} authInput={() => ({ auth, accounts, subdomain: 'demo' })}
          createRouter={(routes) => (router = createMemoryRouter(routes, { initialEntries: ['/landing'] }))} />
      </AuthSdkContext.Provider>
    </MantineProvider>
  );
  const view = render(tree());
  return {
    get router() { return router; },
    /** the SDK finishes its start and the login details arrive */
    settle() { sdk = { ...sdk, isLoading: false, isAuthenticated: signedIn }; act(() => view.rerender(tree())); },
  };
}

/** The page says what the user was told, and nothing when there was nothing to tell. */
async function expectTold(told: Told): Promise<void> {
  if (told?.where === 'heading') {
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(told.title));
    return;
  }
  if (told) {
    const notice = await screen.findByTestId('redirect-notice');
    expect(notice.textContent).toContain(told.title);
  } else {
    expect(screen.queryByTestId('redirect-notice')).toBeNull();
  }
}

function params(app: ReturnType<typeof renderApp>) {
  const where = () => app.router.state.location.pathname + app.router.state.location.search;
  return {
    states: {
      waiting: async () => { await screen.findByLabelText('Loading'); },
      allowed: async (s: Snap) => {
        await waitFor(() => expect(where()).toBe(s.context.pathname + s.context.search));
        if (s.context.session?.authenticated && !/^\/(landing|not-found|auth-error\/(tenant|subdomain))/.test(s.context.pathname)) {
          await screen.findByRole('button', { name: /user menu/i });
        } else {
          expect(screen.queryByRole('button', { name: /user menu/i })).toBeNull();
        }
        await expectTold(toldOn(s.context.pathname, s, s.context.notice));
      },
      redirecting: async (s: Snap) => {
        const { to, notice } = destinationOf(s);
        await waitFor(() => expect(where()).toBe(to));
        await expectTold(toldOn(to, s, notice));
        // a signed-in user refused a screen stays in the shell; one without any role does not
        if (to === '/auth-error/role') expect(!!screen.queryByRole('button', { name: /user menu/i })).toBe(s.context.session?.authenticated === true);
        if (s.context.decision?.kind === 'redirect' && s.context.decision.remember) {
          expect(decodeURIComponent(document.cookie)).toContain(`${REDIRECT_COOKIE}=${s.context.decision.remember}`);
        }
      },
    },
    events: {
      'session.change': async () => { app.settle(); },
      'notice.dismiss': async () => {
        const notice = await screen.findByTestId('redirect-notice');
        await act(async () => { within(notice).getByRole('button', { name: 'Dismiss' }).click(); });
      },
      'route.enter': async ({ event: e0 }: { event: { type: string } }) => {
        const event = e0 as unknown as RouteAccessEvent;
        const e = event as Extract<RouteAccessEvent, { type: 'route.enter' }>;
        await act(async () => { await app.router.navigate(e.pathname + e.search); });
      },
    },
  };
}

/** the app as the person the path settles on sees it */
const view: ModelView<typeof routeAccessMachine, ReturnType<typeof renderApp>> = {
  render: (machine, path) => renderApp(WHO.find((w) => w.name === whoOf(path.state))!, machine),
  params,
};

// ------------------------------------------------------------------ the paths

const paths = model.getShortestPaths();

describe('route-access machine: shortest paths on the rendered app', () => {
  it('visits every route as every kind of user', () => {
    for (const w of WHO) {
      for (const p of PATHS) {
        const visited = paths.some((path) => whoOf(path.state) === w.name
          && [...path.steps.map((st) => st.state), path.state].some((st) => st.context.pathname === p && st.context.session !== null));
        expect(visited, `${w.name} ${p}`).toBe(true);
      }
    }
  });

  it.each(named(paths, (p) => p.description.replace(/\(\{.*$/, '').slice(0, 160) + ` [${whoOf(p.state)} ${p.state.context.pathname}]`))('%s', async (_d, path) => {
    await runPath(path, routeAccessMachine, view);
  });
});

describe('the suite can fail', () => {
  const telling = (p: (typeof paths)[number]) => p.state.matches('redirecting') && !!toldOn(destinationOf(p.state).to, p.state, destinationOf(p.state).notice)?.title
    && !!redirectNotice(destinationOf(p.state).notice);

  it('notices a redirect that does not say why', async () => {
    const silent = routeAccessMachine.provide({ actions: { tell: assign({ notice: null }) } });
    await expectBrokenMachineToFail(routeAccessMachine, silent, 'a silent tell', { paths: paths.filter(telling).slice(0, 6), view, every: true });
  });

  it('notices a notice that is not kept through the redirects after the first', async () => {
    // each arrival forgets what the first redirect said and tells its own step instead
    const forgetful = routeAccessMachine.provide({
      actions: { tell: assign({ notice: ({ context }) => (context.decision?.kind === 'redirect' ? null : context.notice) }) },
    });
    const chains = paths.filter((p) => telling(p) && p.state.context.notice !== null && (p.state.context.decision as { to: string }).to !== destinationOf(p.state).to);
    await expectBrokenMachineToFail(routeAccessMachine, forgetful, 'a forgetful tell', { paths: chains.slice(0, 6), view, every: true });
  });

  it('notices, on the rendered app, a guard table that lets everyone in', async () => {
    const redirects = paths.filter((p) => p.state.matches('redirecting') && whoOf(p.state) === 'Connection Manager');
    await expectBrokenGuardToFail(routeAccessMachine, 'isAllowed', { paths: redirects, view, holds: true, every: true });
  });
});
