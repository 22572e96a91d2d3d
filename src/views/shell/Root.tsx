/**
 * The root route: tells the route-access machine where the user is and who they are, and renders
 * what it decides (a loader while waiting, a redirect, or the page in its layout). The shell stays
 * mounted while a signed-in user moves between its screens: only the page area waits. A redirect
 * that has something to say (a screen the user's role cannot open) says it above the page it
 * lands on.
 */
import { lazy, Suspense, useEffect } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { useSelector } from '@xstate/react';
import { Alert, Button, Center, Loader, Stack, Title } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { inAppShell, redirectNotice } from '../../domain/routes.ts';
import { findDialog, findScreen } from '../../domain/screens.ts';
import { sessionOf } from '../../machines/session.ts';
import { FOCUS_ON_ARRIVAL, useFocusOnArrival } from '../../ui/focusOnArrival.ts';
import { PageAreaSkeleton } from '../../ui/PageSkeleton.tsx';
import { useAppActors } from './actors.tsx';

// the shell is for signed-in users only: it loads as the sign-in begins, and guests never load it
export const loadAppLayout = () => import('./AppLayout.tsx');
const AppLayout = lazy(() => loadAppLayout().then((m) => ({ default: m.AppLayout })));
// the wizard (and its steps) load when the query first opens it
const WizardHost = lazy(() => import('../wizard/WizardDialog.tsx').then((m) => ({ default: m.WizardHost })));

/** Marks the navigation that follows the machine's own redirect, as against the user's step. */
const REDIRECTED = { redirected: true };

export function Root() {
  const { auth, routeAccess } = useAppActors();
  const location = useLocation();
  const session = useSelector(auth, sessionOf, (a, b) => JSON.stringify(a) === JSON.stringify(b));
  const access = useSelector(routeAccess, (s) => ({
    state: s.value as string, decision: s.context.decision, pathname: s.context.pathname, search: s.context.search, production: s.context.production,
    notice: s.context.notice,
  }), (a, b) => JSON.stringify(a) === JSON.stringify(b));

  useEffect(() => {
    routeAccess.send({ type: 'session.change', session: session.session, denied: session.denied });
  }, [routeAccess, session]);
  const redirected = (location.state as typeof REDIRECTED | null)?.redirected === true;
  useEffect(() => {
    routeAccess.send({ type: 'route.enter', pathname: location.pathname, search: location.search, redirected });
  }, [routeAccess, location.pathname, location.search, redirected]);

  // Access is decided by pathname: a change of the query alone (the wizard's steps) keeps the page
  const samePath = access.pathname === location.pathname;
  const allowed = access.state === 'allowed' && samePath;
  const found = findScreen(location.pathname, access.production);
  const screen = found?.screen;
  useEffect(() => {
    if (allowed && screen) document.title = `${screen.title} · Tributary`;
  }, [allowed, screen]);
  useFocusOnArrival(location.pathname, allowed);

  const signingIn = useSelector(auth, (s) => s.matches('authenticated'));
  useEffect(() => {
    if (signingIn) loadAppLayout().catch(() => { /* the shell's own render tries again */ });
  }, [signingIn]);

  const unreachable = useSelector(auth, (s) => s.matches({ authenticated: 'unreachable' }));
  if (unreachable) {
    return (
      <Center component="main" h="100vh" p="md">
        <Stack align="center">
          <Title order={1} size="h3">Tributary cannot be reached</Title>
          <Alert color="red" role="alert">The server did not answer. Check your connection and try again.</Alert>
          <Button onClick={() => auth.send({ type: 'retry' })}>Try again</Button>
        </Stack>
      </Center>
    );
  }

  if (access.state === 'redirecting' && samePath && access.search === location.search && access.decision?.kind === 'redirect') {
    // keyed by the location: a redirect met again at a new location (the user came back before
    // the last one settled) navigates again instead of staying mounted with the same props
    return <Navigate key={location.key} to={access.decision.to} replace state={REDIRECTED} />;
  }
  const signedIn = session.session?.authenticated === true;
  const loader = <Center h="100vh"><Loader aria-label="Loading" /></Center>;
  if (!found || !inAppShell(found.id, signedIn)) {
    return <main>{allowed ? <Outlet /> : loader}</main>;
  }
  // the role page explains the refusal itself
  const notice = allowed && found.id !== 'authErrorRole' ? redirectNotice(access.notice) : null;
  return (
    <Suspense fallback={<main>{loader}</main>}>
      <AppLayout>
        {notice && (
          <Alert
            role="status" color="blue" icon={<IconInfoCircle aria-hidden />} title={notice.title} mb="md" maw={880}
            withCloseButton closeButtonLabel="Dismiss" onClose={() => routeAccess.send({ type: 'notice.dismiss' })}
            tabIndex={-1} {...{ [FOCUS_ON_ARRIVAL]: '' }} data-testid="redirect-notice"
          >
            {notice.text}
          </Alert>
        )}
        {allowed ? <Outlet /> : <PageAreaSkeleton />}
        {/* the Formula Wizard opens from the query over any screen of the shell (SPEC.md section 2) */}
        {allowed && findDialog(location.search) && <Suspense fallback={null}><WizardHost /></Suspense>}
      </AppLayout>
    </Suspense>
  );
}
