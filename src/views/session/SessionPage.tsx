/** The signed-in user's session: a thin renderer of the authentication machine. */
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { Alert, Button, Card, Center, Code, Group, Loader, Stack, Text, Title } from '@mantine/core';
import type { authMachine } from '../../machines/auth.ts';

export function SessionPage({ actor }: { actor: ActorRefFrom<typeof authMachine> }) {
  const state = useSelector(actor, (s) => s);
  const { user, error, tokenRefreshes } = state.context;

  if (state.matches('loading') || state.matches('redirecting') || state.matches({ authenticated: 'loadingUser' })) {
    return <Center h="100vh"><Loader aria-label="Loading" /></Center>;
  }
  if (state.matches('unauthenticated')) {
    return (
      <Center h="100vh">
        <Stack align="center">
          <Title order={1}>Tributary</Title>
          <Text>Move supporters, gifts and registrations between the systems you live in.</Text>
          <Button onClick={() => actor.send({ type: 'login' })}>Sign in</Button>
        </Stack>
      </Center>
    );
  }
  return (
    <Center h="100vh">
      <Card withBorder w={520} padding="lg">
        <Stack>
          <Title order={2}>Signed in</Title>
          {state.matches({ authenticated: 'failed' }) && <Alert color="red" role="alert">{error}</Alert>}
          {user && (
            <>
              <Text data-testid="user-name">{user.fullName}</Text>
              <Text data-testid="user-email">{user.email}</Text>
              <Text data-testid="organization">{user.organizationName}</Text>
              <Text data-testid="login-count">Sign-ins: {user.loginCount}</Text>
              <Code block data-testid="policies">{JSON.stringify(user.policies)}</Code>
            </>
          )}
          <Text data-testid="token-refreshes">Token refreshes: {tokenRefreshes}</Text>
          <Group>
            <Button variant="default" loading={state.matches({ authenticated: 'refreshing' })} onClick={() => actor.send({ type: 'token.refresh' })}>Refresh session</Button>
            <Button color="red" onClick={() => actor.send({ type: 'logout' })}>Log out</Button>
          </Group>
        </Stack>
      </Card>
    </Center>
  );
}
