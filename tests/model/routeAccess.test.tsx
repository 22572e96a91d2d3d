/**
 * Model-based tests of the route-access machine (DESIGN.md section 3) on the rendered app.
 *
 * Paths come from the machine's graph: first who is there (a guest, a first login, each role, a
 * user without a role), then visits to routes of SPEC.md section 2. Each visit is a navigation
 * in the real router; each state is an assertion on where the app is and what it shows.
 */
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { Auth0Context, initialContext, type Auth0ContextInterface } from '@auth0/auth0-react';
import { createMemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SnapshotFrom } from 'xstate';
import { policiesFor } from '../../src/domain/roles.ts';
import { decideRoute, REDIRECT_COOKIE, type Session } from '../../src/domain/routes.ts';
import { routeAccessMachine, type RouteAccessEvent } from '../../src/machines/routeAccess.ts';
import type { AccountManagement, CurrentUser } from '../../src/services/accountManagement.ts';
import type { AuthService } from '../../src/services/auth.ts';
import { ApiError } from '../../src/services/gateway.ts';
import { App } from '../../src/views/shell/App.tsx';
import { aCurrentUser } from '../support/currentUser.ts';
import { expectBrokenGuardToFail, named, runPath, testModel, type ModelView } from '../support/modelPaths.ts';

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

/** Who is there is settled once, first; then the person visits routes. */
const eventsFor = (s: Snap): RouteAccessEvent[] => (s.context.session === null && !s.context.denied ? sessionEvents : routeEvents);
const whoOf = (s: Snap) => WHO.find((w) => JSON.stringify(w.session) === JSON.stringify(s.context.session) && (w.denied ?? null) === s.context.denied)?.name ?? 'unknown';

const model = testModel(routeAccessMachine, {
  // the app starts on the landing page of a production build
  input: { production: true, pathname: '/landing', search: '' },
  events: eventsFor,
  serializeState: (s) => JSON.stringify([s.value, whoOf(s), s.context.pathname, s.context.decision]),
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
      <Auth0Context.Provider value={sdk}>
        <App production routeAccessLogic={routeAccessLogic} authInput={() => ({ auth, accounts, subdomain: 'demo' })}
          createRouter={(routes) => (router = createMemoryRouter(routes, { initialEntries: ['/landing'] }))} />
      </Auth0Context.Provider>
    </MantineProvider>
  );
  const view = render(tree());
  return {
    get router() { return router; },
    /** the SDK finishes its start and the login details arrive */
    settle() { sdk = { ...sdk, isLoading: false, isAuthenticated: signedIn }; act(() => view.rerender(tree())); },
  };
}

/** Where the app must end after a redirect: the guard table followed to its end. */
function finalDestination(s: Snap): string {
  let to = (s.context.decision as { to: string }).to;
  for (let i = 0; i < 10; i++) {
    if (s.context.denied) return to;
    const url = new URL(to, 'http://app');
    const next = decideRoute(url.pathname, url.search, s.context.session!, { production: true, savedPath: null });
    if (next.kind === 'allow') return to;
    to = next.to;
  }
  return to;
}

function params(app: ReturnType<typeof renderApp>) {
  const where = () => app.router.state.location.pathname + app.router.state.location.search;
  return {
    states: {
      waiting: async () => { await screen.findByLabelText('Loading'); },
      allowed: async (s: Snap) => {
        await waitFor(() => expect(where()).toBe(s.context.pathname + s.context.search));
        if (s.context.session?.authenticated && !/^\/(landing|not-found|auth-error)/.test(s.context.pathname)) {
          await screen.findByRole('button', { name: 'User menu' });
        } else {
          expect(screen.queryByRole('button', { name: 'User menu' })).toBeNull();
        }
      },
      redirecting: async (s: Snap) => {
        const to = finalDestination(s);
        await waitFor(() => expect(where()).toBe(to));
        if (s.context.decision?.kind === 'redirect' && s.context.decision.remember) {
          expect(decodeURIComponent(document.cookie)).toContain(`${REDIRECT_COOKIE}=${s.context.decision.remember}`);
        }
      },
    },
    events: {
      'session.change': async () => { app.settle(); },
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
  it('notices, on the rendered app, a guard table that lets everyone in', async () => {
    const redirects = paths.filter((p) => p.state.matches('redirecting') && whoOf(p.state) === 'Connection Manager');
    await expectBrokenGuardToFail(routeAccessMachine, 'isAllowed', { paths: redirects, view, holds: true, every: true });
  });
});
