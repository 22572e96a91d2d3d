/** The guest page: sign in, why a guest was sent here, and any identity error explained. */
import { useSelector } from '@xstate/react';
import { Alert, Button, Center, Stack, Text, Title } from '@mantine/core';
import { IconLock } from '@tabler/icons-react';
import { redirectNotice } from '../../domain/routes.ts';
import { useAppActors } from '../shell/actors.tsx';

export function LandingPage() {
  const { auth, routeAccess } = useAppActors();
  const error = useSelector(auth, (s) => s.context.identityError);
  const busy = useSelector(auth, (s) => s.matches('redirecting'));
  // a page that needs a signed-in user sent the guest here
  const notice = redirectNotice(useSelector(routeAccess, (s) => s.context.notice));
  return (
    <Center mih="100vh" p="md">
      <Stack align="center" maw={520}>
        <Title order={1}>Tributary</Title>
        <Text ta="center">Move supporters, gifts and registrations between the systems your organisation lives in.</Text>
        {notice && (
          <Alert role="status" color="blue" icon={<IconLock aria-hidden />} title={notice.title} w="100%" data-testid="redirect-notice">
            {notice.text}
          </Alert>
        )}
        {error && (
          <Alert color="red" role="alert" title="Sign-in problem" withCloseButton closeButtonLabel="Dismiss" onClose={() => auth.send({ type: 'error.dismiss' })} w="100%">
            {error.message}
          </Alert>
        )}
        <Button size="md" loading={busy} onClick={() => auth.send({ type: 'login' })}>Sign in</Button>
      </Stack>
    </Center>
  );
}
