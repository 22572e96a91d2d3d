/** The app below the identity provider: its long-lived actors (authentication, route access, flags) and the routes of SPEC.md section 2. */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { RouterProvider, type RouteObject, createBrowserRouter } from 'react-router';
import { useAuth0, type Auth0ContextInterface } from '@auth0/auth0-react';
import { useActorRef, useSelector } from '@xstate/react';
import { authMachine, type AuthInput } from '../../machines/auth.ts';
import { flagsMachine } from '../../machines/flags.ts';
import { routeAccessMachine } from '../../machines/routeAccess.ts';
import { ActorsContext, FlagsActorContext } from './actors.tsx';
import { Root } from './Root.tsx';
import { screenRoutes, type ProvidedScreens } from './screens.tsx';
import type { InspectionEvent } from 'xstate';

export interface AppProps {
  /** builds the authentication machine's input over the SDK's current state */
  authInput: (current: () => Auth0ContextInterface) => AuthInput;
  production: boolean;
  createRouter?: (routes: RouteObject[]) => ReturnType<typeof createBrowserRouter>;
  /** screens provided by the composition root, by route */
  screens?: ProvidedScreens;
  /** the flag client's machine; tests hand in variants */
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

export function App({
  authInput, production, createRouter = createBrowserRouter, screens, authLogic = authMachine, routeAccessLogic = routeAccessMachine,
  flagsLogic = flagsMachine, inspect,
}: AppProps) {
  const auth0 = useAuth0();
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
  const routes = <RouterProvider router={router} />;
  return (
    <ActorsContext.Provider value={{ auth, routeAccess }}>
      {tenantId ? <TenantFlags key={tenantId} logic={flagsLogic} inspect={inspect}>{routes}</TenantFlags> : routes}
    </ActorsContext.Provider>
  );
}
