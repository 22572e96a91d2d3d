/**
 * The root route: tells the route-access machine where the user is and who they are, and renders
 * what it decides (a loader while waiting, a redirect, or the page in its layout).
 */
import { useEffect } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { useSelector } from '@xstate/react';
import { Alert, Button, Center, Loader, Stack } from '@mantine/core';
import { sessionOf } from '../../machines/session.ts';
import { useAppActors } from './actors.tsx';
import { AppLayout } from './AppLayout.tsx';

const BARE_PAGES = /^\/(landing|not-found|auth-error\/|field-showcase)/;

export function Root() {
  const { auth, routeAccess } = useAppActors();
  const location = useLocation();
  const session = useSelector(auth, sessionOf, (a, b) => JSON.stringify(a) === JSON.stringify(b));
  const access = useSelector(routeAccess, (s) => ({ state: s.value as string, decision: s.context.decision, pathname: s.context.pathname, search: s.context.search }),
    (a, b) => JSON.stringify(a) === JSON.stringify(b));

  useEffect(() => {
    routeAccess.send({ type: 'session.change', session: session.session, denied: session.denied });
  }, [routeAccess, session]);
  useEffect(() => {
    routeAccess.send({ type: 'route.enter', pathname: location.pathname, search: location.search });
  }, [routeAccess, location.pathname, location.search]);

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

  const current = access.pathname === location.pathname && access.search === location.search;
  if (access.state === 'redirecting' && current && access.decision?.kind === 'redirect') {
    return <Navigate to={access.decision.to} replace />;
  }
  if (access.state !== 'allowed' || !current) {
    return <Center h="100vh"><Loader aria-label="Loading" /></Center>;
  }
  return BARE_PAGES.test(location.pathname) ? <Outlet /> : <AppLayout><Outlet /></AppLayout>;
}
