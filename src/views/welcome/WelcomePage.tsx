/** First logins: an onboarding task list, each task where the user's policies allow it. */
import { Link } from 'react-router';
import { useSelector } from '@xstate/react';
import { Anchor, Button, Card, List, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleDashed } from '@tabler/icons-react';
import { can } from '../../domain/roles.ts';
import { onboardingTasks, ROUTES } from '../../domain/screens.ts';
import { useAppActors } from '../shell/actors.tsx';

const TASKS = onboardingTasks();

export function WelcomePage() {
  const { auth } = useAppActors();
  const user = useSelector(auth, (s) => s.context.user);
  const tasks = TASKS.filter((t) => can(user?.policies ?? {}, t.resource, 'view'));
  return (
    <Stack maw={720}>
      <Title order={1}>Welcome to Tributary, {user?.fullName.split(' ')[0]}</Title>
      <Text>Here is how to get started.</Text>
      <Card withBorder>
        <Title order={2} size="h4" mb="sm">Getting started</Title>
        <List spacing="md" icon={<ThemeIcon variant="light" radius="xl" size={24}><IconCircleDashed size={16} /></ThemeIcon>} aria-label="Onboarding tasks">
          {tasks.map((t) => (
            <List.Item key={t.label}>
              <Anchor component={Link} to={t.path}>{t.label}</Anchor>
              <Text size="sm" c="dimmed">{t.detail}</Text>
            </List.Item>
          ))}
        </List>
      </Card>
      {can(user?.policies ?? {}, 'formula', 'view') && <Button component={Link} to={ROUTES.integrationsFormulas} w="fit-content">Go to formulas</Button>}
    </Stack>
  );
}
