/** First logins: an onboarding task list, each task where the user's policies allow it. */
import { Link } from 'react-router';
import { useSelector } from '@xstate/react';
import { Anchor, Button, Card, List, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconCircleDashed } from '@tabler/icons-react';
import { can, type Resource } from '../../domain/roles.ts';
import { ROUTES } from '../../domain/routes.ts';
import { useAppActors } from '../shell/actors.tsx';

const TASKS: { label: string; detail: string; to: string; resource: Resource }[] = [
  { label: 'Connect a data source', detail: 'Add the systems your records come from and go to.', to: ROUTES.connections, resource: 'datasource' },
  { label: 'Create your first formula', detail: 'Pull, map, match and route records between two systems.', to: ROUTES.integrationsFormulas, resource: 'formula' },
  { label: 'Review records in the Data Queue', detail: 'Check new records and matches before they are sent.', to: ROUTES.dataQueue, resource: 'records' },
  { label: 'Invite your team', detail: 'Add users and give them roles.', to: ROUTES.userManagement, resource: 'usermanagement' },
];

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
              <Anchor component={Link} to={t.to}>{t.label}</Anchor>
              <Text size="sm" c="dimmed">{t.detail}</Text>
            </List.Item>
          ))}
        </List>
      </Card>
      {can(user?.policies ?? {}, 'formula', 'view') && <Button component={Link} to={ROUTES.integrationsFormulas} w="fit-content">Go to formulas</Button>}
    </Stack>
  );
}
