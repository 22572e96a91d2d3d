/** Permission error pages: no role or tenant (403-style), or an unknown organisation address (404-style). */
import { Button, Center, Stack, Text, Title } from '@mantine/core';
import type { AuthErrorPage as Kind } from '../../machines/auth.ts';
import { useAppActors } from '../shell/actors.tsx';

const COPY: Record<Kind, { code: string; title: string; text: string }> = {
  role: { code: '403', title: 'You have no role here', text: 'Your account has no role that opens this part of Tributary.' },
  tenant: { code: '403', title: 'You have no tenant', text: 'Your account does not belong to any tenant of this organisation.' },
  subdomain: { code: '404', title: 'Organisation not found', text: 'This address does not belong to any organisation on Tributary.' },
};

export function AuthErrorPage({ kind }: { kind: Kind }) {
  const { auth } = useAppActors();
  const copy = COPY[kind];
  return (
    <Center mih="100vh" p="md">
      <Stack align="center" maw={480}>
        <Title order={1}>{copy.code}</Title>
        <Title order={2}>{copy.title}</Title>
        <Text ta="center">{copy.text} Please contact your administrator.</Text>
        <Button onClick={() => auth.send({ type: 'logout' })}>Go back to login</Button>
      </Stack>
    </Center>
  );
}
