/** The 404 page (SPEC.md section 2): what was asked for, and 'Go back'. */
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { Button, Center, Code, Stack, Text, Title } from '@mantine/core';
import { MESSAGES } from '../../domain/errors.ts';

/** `path`: what was asked for, when the page stands in for a screen whose subject does not exist (else the query's). */
export function NotFoundPage({ path: asked }: { path?: string } = {}) {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const path = asked ?? params.get('path');
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

/** The 404 page in place of a screen whose subject the server does not have (an unknown formula id in the URL), naming that URL. */
export function NotFoundHere() {
  const { pathname, search } = useLocation();
  return <NotFoundPage path={pathname + search} />;
}
