/** The guest page: sign in, and any identity error explained. */
import { useSelector } from '@xstate/react';
import { Alert, Button, Center, Stack, Text, Title } from '@mantine/core';
import { useAppActors } from '../shell/actors.tsx';

export function LandingPage() {
  const { auth } = useAppActors();
  const error = useSelector(auth, (s) => s.context.identityError);
  const busy = useSelector(auth, (s) => s.matches('redirecting'));
  return (
    <Center mih="100vh" p="md">
      <Stack align="center" maw={520}>
        <Title order={1}>Tributary</Title>
        <Text ta="center">Move supporters, gifts and registrations between the systems your organisation lives in.</Text>
        {error && (
          <Alert color="red" role="alert" title="Sign-in problem" withCloseButton onClose={() => auth.send({ type: 'error.dismiss' })} w="100%">
            {error.message}
          </Alert>
        )}
        <Button size="md" loading={busy} onClick={() => auth.send({ type: 'login' })}>Sign in</Button>
      </Stack>
    </Center>
  );
}
