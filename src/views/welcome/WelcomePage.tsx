/**
 * First logins: an onboarding task list, each task where the user's policies allow it, ticked once
 * the tenant has done it (src/machines/welcome.ts reads which).
 */
import { Link } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { Anchor, Button, Card, Group, List, Stack, Text, ThemeIcon, Title, VisuallyHidden } from '@mantine/core';
import { IconCircleCheck, IconCircleDashed } from '@tabler/icons-react';
import { can } from '../../domain/roles.ts';
import { onboardingTasks, ROUTES } from '../../domain/screens.ts';
import { welcomeMachine } from '../../machines/welcome.ts';
import { useAppActors } from '../shell/actors.tsx';

const TASKS = onboardingTasks();

export function WelcomePage({ logic = welcomeMachine }: { logic?: typeof welcomeMachine }) {
  const { auth } = useAppActors();
  const user = useSelector(auth, (s) => s.context.user);
  const policies = user?.policies ?? {};
  const actor = useActorRef(logic, { input: { mayRead: can(policies, 'formula', 'view') } });
  const state = useSelector(actor, (s) => s);
  const done = state.context.done;
  const tasks = TASKS.filter((t) => can(policies, t.resource, 'view'));
  return (
    <Stack maw={720}>
      <Title order={1}>Welcome to Tributary, {user?.fullName.split(' ')[0]}</Title>
      <Text>Here is how to get started. From your second sign-in, Tributary opens at your Data Queue; until then, this page is where you start.</Text>
      <Card withBorder aria-busy={state.matches('reading')}>
        <Title order={2} size="h4" mb="sm">Getting started</Title>
        <List spacing="md" aria-label="Onboarding tasks" center>
          {tasks.map((t) => {
            const isDone = !!done?.[t.done];
            return (
              <List.Item
                key={t.label} data-done={isDone || undefined}
                icon={(
                  <ThemeIcon variant="light" color={isDone ? 'teal' : undefined} radius="xl" size={24}>
                    {isDone ? <IconCircleCheck size={16} aria-hidden /> : <IconCircleDashed size={16} aria-hidden />}
                  </ThemeIcon>
                )}
              >
                {isDone && <VisuallyHidden>Done: </VisuallyHidden>}
                <Anchor component={Link} to={t.path}>{t.label}</Anchor>
                <Text size="sm" c="dimmed">{t.detail}</Text>
              </List.Item>
            );
          })}
        </List>
        {state.matches('unread') && (
          <Group gap="xs" mt="sm">
            <Text size="sm" c="dimmed">What is already done could not be read.</Text>
            <Button size="compact-sm" variant="subtle" onClick={() => actor.send({ type: 'retry' })}>Try again</Button>
          </Group>
        )}
      </Card>
      {can(policies, 'formula', 'view') && <Button component={Link} to={ROUTES.integrationsFormulas} w="fit-content">Go to formulas</Button>}
    </Stack>
  );
}
