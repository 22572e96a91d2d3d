/**
 * The root route: tells the route-access machine where the user is and who they are, and renders
 * what it decides (a loader while waiting, a redirect, or the page in its layout). The shell stays
 * mounted while a signed-in user moves between its screens: only the page area waits.
 */
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { useSelector } from '@xstate/react';
import { Alert, Button, Center, Loader, Stack } from '@mantine/core';
import { findScreen } from '../../domain/screens.ts';
import { sessionOf } from '../../machines/session.ts';
import { useAppActors } from './actors.tsx';
import { AppLayout } from './AppLayout.tsx';

export function Root() {
  const { auth, routeAccess } = useAppActors();
  const location = useLocation();
  const session = useSelector(auth, sessionOf, (a, b) => JSON.stringify(a) === JSON.stringify(b));
  const access = useSelector(routeAccess, (s) => ({
    state: s.value as string, decision: s.context.decision, pathname: s.context.pathname, search: s.context.search, production: s.context.production,
  }), (a, b) => JSON.stringify(a) === JSON.stringify(b));

  useEffect(() => {
    routeAccess.send({ type: 'session.change', session: session.session, denied: session.denied });
  }, [routeAccess, session]);
  useEffect(() => {
    routeAccess.send({ type: 'route.enter', pathname: location.pathname, search: location.search });
  }, [routeAccess, location.pathname, location.search]);

  // Access is decided by pathname: a change of the query alone (the wizard's steps) keeps the page
  const samePath = access.pathname === location.pathname;
  const allowed = access.state === 'allowed' && samePath;
  const screen = findScreen(location.pathname, access.production)?.screen;
  useEffect(() => {
    if (allowed && screen) document.title = `${screen.title} · Tributary`;
  }, [allowed, screen]);

  const unreachable = useSelector(auth, (s) => s.matches({ authenticated: 'unreachable' }));
  if (unreachable) {
    return (
      <Center h="100vh">
        <Stack align="center">
          <Alert color="red" role="alert" title="Tributary cannot be reached">The server did not answer. Check your connection and try again.</Alert>
          <Button onClick={() => auth.send({ type: 'retry' })}>Try again</Button>
        </Stack>
      </Center>
    );
  }

  if (access.state === 'redirecting' && samePath && access.search === location.search && access.decision?.kind === 'redirect') {
    return <Navigate to={access.decision.to} replace />;
  }
  const signedIn = session.session?.authenticated === true;
  if (!signedIn || screen?.layout !== 'shell') {
    return allowed ? <Outlet /> : <Center h="100vh"><Loader aria-label="Loading" /></Center>;
  }
  return <AppLayout>{allowed ? <Outlet /> : <Center h="50vh"><Loader aria-label="Loading" /></Center>}</AppLayout>;
}
