/** The app below the identity provider: its two long-lived actors and the routes of SPEC.md section 2. */
import { lazy, Suspense, useEffect, useRef, useState, type ReactNode } from 'react';
import { RouterProvider, type RouteObject, createBrowserRouter } from 'react-router';
import { useAuth0, type Auth0ContextInterface } from '@auth0/auth0-react';
import { useActorRef } from '@xstate/react';
import { authMachine, type AuthInput } from '../../machines/auth.ts';
import { routeAccessMachine } from '../../machines/routeAccess.ts';
import { FORMULA_SCREENS } from '../../domain/routes.ts';
import { ActorsContext } from './actors.tsx';
import { Root } from './Root.tsx';
import { LandingPage } from '../landing/LandingPage.tsx';
import { WelcomePage } from '../welcome/WelcomePage.tsx';
import { NotFoundPage } from '../errors/NotFoundPage.tsx';
import { AuthErrorPage } from '../errors/AuthErrorPage.tsx';
import { FormulaScreen, ScreenPlaceholder } from '../placeholders/ScreenPlaceholder.tsx';
import { FieldShowcasePage } from '../showcase/FieldShowcasePage.tsx';
import { UploadPage } from '../upload/UploadPage.tsx';
import { FeatureFlagsRoute } from '../flags/FeatureFlagsRoute.tsx';
import type { InspectionEvent } from 'xstate';

// the statechart viewer carries a graph-layout library: loaded only when opened
const WorkflowsPage = lazy(() => import('../workflows/WorkflowsPage.tsx').then((m) => ({ default: m.WorkflowsPage })));
const InspectorPage = lazy(() => import('../workflows/InspectorPage.tsx').then((m) => ({ default: m.InspectorPage })));

export interface AppProps {
  /** builds the authentication machine's input over the SDK's current state */
  authInput: (current: () => Auth0ContextInterface) => AuthInput;
  production: boolean;
  createRouter?: (routes: RouteObject[]) => ReturnType<typeof createBrowserRouter>;
  /** screens provided by the composition root, by route */
  screens?: Partial<Record<'connections', ReactNode>>;
  /** the two machines; tests hand in variants */
  authLogic?: typeof authMachine;
  routeAccessLogic?: typeof routeAccessMachine;
  /** live inspection of the app's actors, when the setting is on */
  inspect?: (event: InspectionEvent) => void;
}

export function appRoutes(production: boolean, screens: AppProps['screens'] = {}): RouteObject[] {
  return [{
    path: '/',
    element: <Root />,
    children: [
      { index: true, element: null },
      { path: 'landing', element: <LandingPage /> },
      { path: 'welcome', element: <WelcomePage /> },
      { path: 'data-queue', element: <ScreenPlaceholder title="Data Queue" text="No formulas yet. Create a formula to start moving records." /> },
      { path: 'integrations-formulas', element: <ScreenPlaceholder title="All Formulas" text="No formulas yet." /> },
      { path: 'connections', element: screens.connections ?? <ScreenPlaceholder title="Connections" text="No data sources yet." /> },
      { path: 'activity-history', element: <ScreenPlaceholder title="Activity History" text="No activity yet." /> },
      { path: 'activity-history/:formulaId', element: <ScreenPlaceholder title="Activity History" text="No activity for this formula yet." /> },
      { path: 'files/upload', element: <UploadPage /> },
      { path: 'feature-flags', element: <FeatureFlagsRoute /> },
      { path: 'workflows', element: <Suspense fallback={null}><WorkflowsPage /></Suspense> },
      { path: 'workflows/inspector', element: <Suspense fallback={null}><InspectorPage /></Suspense> },
      { path: 'user-management', element: <ScreenPlaceholder title="User Management" text="Users of this tenant appear here." /> },
      ...FORMULA_SCREENS.map((screen) => ({ path: `:formulaId/${screen}`, element: <FormulaScreen screen={screen.replace('/:customBucket', '')} /> })),
      { path: 'not-found', element: <NotFoundPage /> },
      { path: 'auth-error/subdomain', element: <AuthErrorPage kind="subdomain" /> },
      { path: 'auth-error/role', element: <AuthErrorPage kind="role" /> },
      { path: 'auth-error/tenant', element: <AuthErrorPage kind="tenant" /> },
      ...(production ? [] : [{ path: 'field-showcase', element: <FieldShowcasePage /> }]),
      // the route-access machine sends anything else to not-found with the path
      { path: '*', element: null },
    ],
  }];
}

export function App({ authInput, production, createRouter = createBrowserRouter, screens, authLogic = authMachine, routeAccessLogic = routeAccessMachine, inspect }: AppProps) {
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

  return (
    <ActorsContext.Provider value={{ auth, routeAccess }}>
      <RouterProvider router={router} />
    </ActorsContext.Provider>
  );
}
