/**
 * Model-based test of the route-access machine on the rendered app: the shell stays mounted and
 * the flag client keeps its values while a signed-in user moves around, and a change of the query
 * alone (as the Formula Wizard makes on every step) does not even remount the page.
 *
 * Paths come from the machine's graph over an Administrator's visits: a page, the same page with
 * wizard steps in the query, and another page. Each state asserts on the rendered app: the same
 * header element as at the first page, one snapshot fetched in all, custom-routing still on for
 * the chosen formula, and the page remounted only when its path changed.
 */
import { useEffect } from 'react';
import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { initialContext, type Auth0ContextInterface } from '@auth0/auth0-react';
import { createMemoryRouter } from 'react-router';
import { useSelector } from '@xstate/react';
import { TestModel } from '@xstate/graph';
import { afterEach, describe, expect, it } from 'vitest';
import { fromPromise, getInitialSnapshot, type SnapshotFrom } from 'xstate';
import { formulaRuleFlag } from '../../src/domain/flags/customRouting.ts';
import { toSnapshotFlag } from '../../src/domain/flags/definitions.ts';
import { CUSTOM_ROUTING_FLAG, type FlagSnapshot } from '../../src/domain/flags/snapshot.ts';
import { policiesFor } from '../../src/domain/roles.ts';
import { flagsMachine, isCustomRoutingOn } from '../../src/machines/flags.ts';
import { routeAccessMachine, type RouteAccessEvent } from '../../src/machines/routeAccess.ts';
import type { AccountManagement, CurrentUser } from '../../src/services/accountManagement.ts';
import type { AuthService } from '../../src/services/auth.ts';
import type { SnapshotRequest, SnapshotResult } from '../../src/services/flags.ts';
import { App } from '../../src/views/shell/App.tsx';
import { AuthSdkContext } from '../../src/views/shell/authSdk.tsx';
import { aCurrentUser } from '../support/currentUser.ts';
import { useFlagsActor } from '../../src/views/shell/actors.tsx';
import { expectingFailure } from '../support/modelPaths.ts';

afterEach(() => cleanup());

const FORMULA = '3f6c8a52-0c1e-4d1a-9a57-6c0f8e2b7d10';
const SNAPSHOT: FlagSnapshot = {
  namespace: { key: 'default' },
  flags: [toSnapshotFlag(CUSTOM_ROUTING_FLAG, formulaRuleFlag('Custom routing', '', [FORMULA]))],
};
const SESSION = { authenticated: true as const, loginCount: 5, policies: policiesFor(['Administrator']) };

const VISITS: { pathname: string; search: string }[] = [
  { pathname: '/connections', search: '' },
  { pathname: '/connections', search: `?wizardFormulaId=${FORMULA}&wizardStep=mapping` },
  { pathname: '/connections', search: `?wizardFormulaId=${FORMULA}&wizardStep=routing` },
  { pathname: '/activity-history', search: '' },
];

type Snap = SnapshotFrom<typeof routeAccessMachine>;
const INPUT = { production: true, pathname: '/landing', search: '' };
const model = new TestModel(routeAccessMachine, {
  input: INPUT,
  events: (s) => ((s as Snap).context.session === null
    ? [{ type: 'session.change', session: SESSION, denied: null }]
    : VISITS.map((v) => ({ type: 'route.enter', ...v }))) as RouteAccessEvent[],
  serializeState: (s) => { const snap = s as Snap; return JSON.stringify([snap.value, snap.context.pathname, snap.context.search]); },
  stateMatcher: (s, key) => (s as Snap).matches(key as never),
});

/** A page that shows what the flag client says, and counts its own mounts. */
let mounts = 0;
function FlagProbe() {
  const flags = useFlagsActor();
  const on = useSelector(flags, (s) => isCustomRoutingOn(s, FORMULA));
  useEffect(() => { mounts += 1; }, []);
  return <p data-testid="probe">custom-routing {on ? 'on' : 'off'}</p>;
}

function renderApp(routeAccessLogic = routeAccessMachine) {
  mounts = 0;
  let fetches = 0;
  const flagsLogic = flagsMachine.provide({
    actors: { fetchSnapshot: fromPromise<SnapshotResult, SnapshotRequest>(async () => { fetches += 1; return { status: 'fetched', snapshot: SNAPSHOT, etag: '"v1"' }; }) },
  });
  const current: CurrentUser = aCurrentUser({
    activeTenantId: 't1', policies: SESSION.policies, roles: ['Administrator'], auth0Id: 'auth0|u1', fullName: 'Sam Tester',
    email: 'sam@example.org', loginCount: SESSION.loginCount, organizationName: 'Riverside', tenants: [{ tenantId: 't1', name: 'Food Bank', roles: ['Administrator'] }],
  });
  const auth: AuthService = {
    clientId: 'tributary-app', user: () => ({ sub: 'auth0|u1', email: 'sam@example.org', name: 'Sam Tester' }),
    accessToken: async () => 'token', login: () => new Promise(() => {}), logout: async () => {}, logoutLocally: async () => {},
  };
  const accounts = {
    organizationId: async () => 'org-1', currentUser: async () => current, setActiveTenant: async () => undefined, deleteUserCache: async () => undefined,
  } as unknown as AccountManagement;
  let sdk = { ...initialContext, isLoading: true, isAuthenticated: false } as Auth0ContextInterface;
  let router!: ReturnType<typeof createMemoryRouter>;
  const tree = () => (
    <MantineProvider>
      <AuthSdkContext.Provider value={sdk}>
        <App
          production routeAccessLogic={routeAccessLogic} flagsLogic={flagsLogic} screens={{ connections: <FlagProbe /> }}
          authInput={() => ({ auth, accounts, subdomain: 'demo' })}
          createRouter={(routes) => (router = createMemoryRouter(routes, { initialEntries: ['/landing'] }))}
        />
      </AuthSdkContext.Provider>
    </MantineProvider>
  );
  const view = render(tree());
  let header: HTMLElement | null = null;
  let expectedMounts = 0;
  return {
    fetches: () => fetches,
    params: {
      states: {
        waiting: async () => { await screen.findByLabelText('Loading'); },
        allowed: async (s: Snap) => {
          await waitFor(() => expect(router.state.location.pathname + router.state.location.search).toBe(s.context.pathname + s.context.search));
          // the shell's header (the wizard, which these queries open, has a header of its own)
          const now = await waitFor(() => {
            const shell = screen.getAllByRole('banner').find((el) => el.closest('[role="dialog"]') === null);
            expect(shell).toBeDefined();
            return shell!;
          });
          header ??= now;
          // the very element of the first page: the shell was never unmounted
          expect(now).toBe(header);
          expect(header.isConnected).toBe(true);
          await waitFor(() => expect(fetches).toBe(1));
          if (s.context.pathname === '/connections') {
            expect((await screen.findByTestId('probe')).textContent).toBe('custom-routing on');
            expect(mounts, 'the page is remounted only when its path changes').toBe(expectedMounts);
          }
        },
        redirecting: async () => { /* not reached: an Administrator may open every page visited */ },
      },
      events: {
        'session.change': async () => {
          sdk = { ...sdk, isLoading: false, isAuthenticated: true };
          act(() => view.rerender(tree()));
        },
        'route.enter': async ({ event }: { event: { type: string } }) => {
          const e = event as Extract<RouteAccessEvent, { type: 'route.enter' }>;
          if (e.pathname === '/connections' && router.state.location.pathname !== '/connections') expectedMounts += 1;
          await act(async () => { await router.navigate(e.pathname + e.search); });
        },
      },
    },
  };
}

const signIn: RouteAccessEvent = { type: 'session.change', session: SESSION, denied: null };
const visit = (i: number): RouteAccessEvent => ({ type: 'route.enter', ...VISITS[i]! });
/**
 * The shortest paths reach each visit once; the journeys through the same graph then walk the
 * wizard's steps on one page, leave it, and come back to a step.
 */
const paths = [
  ...model.getShortestPaths().filter((p) => p.state.context.session !== null),
  ...model.getPathsFromEvents([signIn, visit(0), visit(1), visit(2), visit(1), visit(3), visit(2), visit(0)], { input: INPUT, fromState: getInitialSnapshot(routeAccessMachine, INPUT) }),
  ...model.getPathsFromEvents([signIn, visit(3), visit(0), visit(2), visit(1)], { input: INPUT, fromState: getInitialSnapshot(routeAccessMachine, INPUT) }),
];

describe('the shell stays mounted (route-access shortest paths on the rendered app)', () => {
  it('covers query-only changes and page changes', () => {
    expect(paths.some((p) => p.state.context.search.includes('wizardStep=routing'))).toBe(true);
    expect(paths.some((p) => p.state.context.pathname === '/activity-history')).toBe(true);
  });

  it.each(paths.map((p) => [p.steps.map((st) => (st.event.type === 'route.enter' ? `${(st.event as { pathname: string }).pathname}${(st.event as { search: string }).search.replace(/wizardFormulaId=[^&]+&/, '')}` : st.event.type)).join(' → '), p] as const))('%s', async (_d, path) => {
    const app = renderApp();
    await path.test(app.params);
    expect(app.fetches()).toBe(1);
  });
});

describe('the suite can fail', () => {
  it('notices a route-access machine that re-decides (and so reloads) on a query change', async () => {
    // a machine that forgets its decision on every visit makes the shell wait again, as it did before
    const forgetful = routeAccessMachine.provide({ guards: { isSessionUnknown: ({ event }) => event.type === 'route.enter' } });
    const queryPaths = paths.filter((p) => p.steps.length > 4);
    expect(queryPaths.length).toBeGreaterThan(0);
    let failures = 0;
    await expectingFailure(async () => {
      for (const path of queryPaths) {
        const app = renderApp(forgetful);
        await path.test(app.params).catch(() => { failures += 1; });
        cleanup();
      }
    });
    expect(failures).toBe(queryPaths.length);
  });
});
