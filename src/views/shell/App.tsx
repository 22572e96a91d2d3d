/** The app below the identity provider: its long-lived actors (authentication, route access, flags) and the routes of SPEC.md section 2. */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { RouterProvider, type RouteObject, createBrowserRouter } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { Center, Loader } from '@mantine/core';
import { authMachine, type AuthInput } from '../../machines/auth.ts';
import type { flagsMachine } from '../../machines/flags.ts';
import { routeAccessMachine } from '../../machines/routeAccess.ts';
import type { AuthSdkState } from '../../machines/auth.ts';
import { ActorsContext, FlagsActorContext } from './actors.tsx';
import { useAuthSdk } from './authSdk.tsx';
import { loadAppLayout, Root } from './Root.tsx';
import { screenRoutes, type ProvidedScreens } from './screens.tsx';
import type { InspectionEvent } from 'xstate';

export interface AppProps {
  /** builds the authentication machine's input over the SDK's current state */
  authInput: (current: () => AuthSdkState) => AuthInput;
  production: boolean;
  createRouter?: (routes: RouteObject[]) => ReturnType<typeof createBrowserRouter>;
  /** screens provided by the composition root, by route */
  screens?: ProvidedScreens;
  /** the flag client's machine (loaded once signed in); tests hand in variants */
  flagsLogic?: typeof flagsMachine;
  /** the two machines; tests hand in variants */
  authLogic?: typeof authMachine;
  routeAccessLogic?: typeof routeAccessMachine;
  /** live inspection of the app's actors, when the setting is on */
  inspect?: (event: InspectionEvent) => void;
}

export function appRoutes(production: boolean, screens: ProvidedScreens = {}): RouteObject[] {
  return [{
    path: '/',
    element: <Root />,
    children: [
      { index: true, element: null },
      ...screenRoutes(production, screens),
      // the route-access machine sends anything else to not-found with the path
      { path: '*', element: null },
    ],
  }];
}

/**
 * The flag client of the signed-in tenant. It lives beside the authentication and route-access
 * actors, above the router, so navigation never restarts it; a tenant switch starts a new one
 * (and remounts the screens below it, which then load the new tenant's data).
 */
function TenantFlags({ logic, inspect, children }: { logic: typeof flagsMachine; inspect?: AppProps['inspect']; children: ReactNode }) {
  const flags = useActorRef(logic, { input: {}, inspect });
  return <FlagsActorContext.Provider value={flags}>{children}</FlagsActorContext.Provider>;
}

const loadFlagsMachine = () => import('../../machines/flags.ts');

/** Starts loading what a signed-in user's first screen needs (the shell, the flag client): for a page that opens with a session. */
export function preloadSignedIn(): void {
  for (const load of [loadAppLayout, loadFlagsMachine]) load().catch(() => { /* loaded again when needed */ });
}

/** The flag client's machine, loaded once someone signs in: a guest never needs it. */
function useFlagsLogic(given: typeof flagsMachine | undefined, wanted: boolean): typeof flagsMachine | null {
  const [loaded, setLoaded] = useState<typeof flagsMachine | null>(null);
  useEffect(() => {
    if (given || loaded || !wanted) return;
    let live = true;
    loadFlagsMachine().then((m) => { if (live) setLoaded(() => m.flagsMachine); }, () => { /* tried again on the next sign-in */ });
    return () => { live = false; };
  }, [given, loaded, wanted]);
  return given ?? loaded;
}

export function App({
  authInput, production, createRouter = createBrowserRouter, screens, authLogic = authMachine, routeAccessLogic = routeAccessMachine,
  flagsLogic, inspect,
}: AppProps) {
  const auth0 = useAuthSdk();
  const latest = useRef(auth0);
  latest.current = auth0;
  const auth = useActorRef(authLogic, { input: authInput(() => latest.current), inspect });
  const routeAccess = useActorRef(routeAccessLogic, {
    input: { production, pathname: window.location.pathname, search: window.location.search },
    inspect,
  });
  const [router] = useState(() => createRouter(appRoutes(production, screens)));

  useEffect(() => {
    if (!auth0.isLoading) auth.send({ type: 'sdk.ready', isAuthenticated: auth0.isAuthenticated, error: auth0.error });
  }, [auth, auth0.isLoading, auth0.isAuthenticated, auth0.error]);

  const tenantId = useSelector(auth, (s) => s.context.user?.activeTenantId ?? null);
  const signingIn = useSelector(auth, (s) => s.matches('authenticated'));
  const flags = useFlagsLogic(flagsLogic, signingIn);
  const routes = <RouterProvider router={router} />;
  let page = routes;
  if (tenantId) {
    page = flags
      ? <TenantFlags key={tenantId} logic={flags} inspect={inspect}>{routes}</TenantFlags>
      // the flag client's code is still on its way (it starts loading with the sign-in)
      : <Center component="main" h="100vh"><Loader aria-label="Loading" /></Center>;
  }
  return <ActorsContext.Provider value={{ auth, routeAccess }}>{page}</ActorsContext.Provider>;
}
