/**
 * Permission error pages: no role or tenant (403-style), or an unknown organisation address
 * (404-style), each with 'Go back to login' (SPEC.md section 2).
 *
 * The role page is also where SPEC.md sends a signed-in user whose role does not open a screen
 * (/user-management without usermanagement view). That user keeps their session: the page then
 * sits inside the app shell, says which screen was refused and why, and offers a way back that
 * does not sign them out.
 */
import { useNavigate } from 'react-router';
import { useSelector } from '@xstate/react';
import { Button, Card, Center, Group, Stack, Text, Title } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { redirectNotice } from '../../domain/routes.ts';
import { ROUTES } from '../../domain/screens.ts';
import type { AuthErrorPage as Kind } from '../../machines/auth.ts';
import { sessionOf } from '../../machines/session.ts';
import { useAppActors } from '../shell/actors.tsx';

const COPY: Record<Kind, { code: string; title: string; text: string }> = {
  role: { code: '403', title: 'You have no role here', text: 'Your account has no role that opens this part of Tributary.' },
  tenant: { code: '403', title: 'You have no tenant', text: 'Your account does not belong to any tenant of this organisation.' },
  subdomain: { code: '404', title: 'Organisation not found', text: 'This address does not belong to any organisation on Tributary.' },
};

export function AuthErrorPage({ kind }: { kind: Kind }) {
  const { auth } = useAppActors();
  const signedIn = useSelector(auth, (s) => sessionOf(s).session?.authenticated === true);
  if (kind === 'role' && signedIn) return <ScreenRefused />;
  const copy = COPY[kind];
  return (
    <Center mih="100vh" p="md">
      <Stack align="center" maw={480}>
        <Text fz={48} fw={700} lh={1} c="dimmed" aria-hidden>{copy.code}</Text>
        <Title order={1} ta="center">{copy.title}</Title>
        <Text ta="center">{copy.text} Please contact your administrator.</Text>
        <Button onClick={() => auth.send({ type: 'logout' })}>Go back to login</Button>
      </Stack>
    </Center>
  );
}

/** A signed-in user refused one screen, inside the shell: why, and a way back. */
function ScreenRefused() {
  const { auth, routeAccess } = useAppActors();
  const navigate = useNavigate();
  const notice = redirectNotice(useSelector(routeAccess, (s) => s.context.notice));
  const otherTenants = useSelector(auth, (s) => (s.context.user?.tenants.length ?? 0) > 1);
  // the router numbers its history entries: 0 is where this tab opened the app
  const canGoBack = ((window.history.state as { idx?: number } | null)?.idx ?? 0) > 0;
  return (
    <Stack maw={640} data-testid="screen-refused">
      <Group gap="sm" wrap="nowrap" align="center">
        <IconLock size={32} stroke={1.5} aria-hidden />
        <Title order={1}>{notice?.title ?? 'Your role does not open that page'}</Title>
      </Group>
      <Card withBorder p="lg">
        <Stack gap="sm">
          <Text>{notice?.text ?? 'Your role in this tenant does not give access to the page you asked for. An administrator can change your role.'}</Text>
          {otherTenants && <Text size="sm" c="dimmed">Your roles can differ between tenants; you can change tenant from the header.</Text>}
          <Text size="sm" c="dimmed">You are still signed in.</Text>
          <Group>
            {canGoBack
              ? <Button onClick={() => navigate(-1)}>Go back</Button>
              : <Button onClick={() => navigate(ROUTES.landing)}>Go to your start page</Button>}
          </Group>
        </Stack>
      </Card>
    </Stack>
  );
}
