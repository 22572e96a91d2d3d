/** The 404 page (SPEC.md section 2): what was asked for, and 'Go back'. */
import { useNavigate, useSearchParams } from 'react-router';
import { Button, Center, Code, Stack, Text, Title } from '@mantine/core';
import { MESSAGES } from '../../domain/errors.ts';

export function NotFoundPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const path = params.get('path');
  // the router numbers its history entries: 0 is where this tab opened the app
  const canGoBack = ((window.history.state as { idx?: number } | null)?.idx ?? 0) > 0;
  return (
    <Center mih="100vh" p="md">
      <Stack align="center" maw={560}>
        <Text fz={48} fw={700} lh={1} c="dimmed" aria-hidden>404</Text>
        <Title order={1} size="h2" ta="center">{MESSAGES.notFound}</Title>
        {path && <Text ta="center">Nothing is at <Code style={{ wordBreak: 'break-all' }}>{path}</Code>.</Text>}
        <Button onClick={() => (canGoBack ? navigate(-1) : navigate('/landing'))}>Go back</Button>
      </Stack>
    </Center>
  );
}
