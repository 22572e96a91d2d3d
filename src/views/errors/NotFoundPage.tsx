import { useNavigate, useSearchParams } from 'react-router';
import { Button, Center, Code, Stack, Text, Title } from '@mantine/core';
import { MESSAGES } from '../../domain/errors.ts';

export function NotFoundPage() {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const path = params.get('path');
  return (
    <Center mih="100vh" p="md">
      <Stack align="center">
        <Title order={1}>404</Title>
        <Text>{MESSAGES.notFound}</Text>
        {path && <Code>{path}</Code>}
        <Button onClick={() => (window.history.length > 1 ? navigate(-1) : navigate('/landing'))}>Go back</Button>
      </Stack>
    </Center>
  );
}
