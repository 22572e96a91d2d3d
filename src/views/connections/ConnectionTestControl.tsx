/** The connection test: a button, and the machine's states (testing, success, failure) shown beside it. */
import { useEffect } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Button, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconPlugConnected } from '@tabler/icons-react';
import { connectionTestMachine, type TestTarget } from '../../machines/connectionTest.ts';

export interface ConnectionTestControlProps {
  machine?: typeof connectionTestMachine;
  /** what to test, read when the button is pressed; null disables the button */
  target: () => TestTarget | null;
  disabled?: boolean;
  /** a result stops being shown when this changes (the settings it was for were edited) */
  resetOn?: string;
}

export function ConnectionTestControl({ machine = connectionTestMachine, target, disabled, resetOn }: ConnectionTestControlProps) {
  const actor = useActorRef(machine);
  useEffect(() => { actor.send({ type: 'test.reset' }); }, [actor, resetOn]);
  const state = useSelector(actor, (s) => s);
  const { result, failure } = state.context;
  const testing = state.matches('testing');
  return (
    <Stack gap="xs" data-testid="connection-test" data-state={String(state.value)}>
      <Button
        variant="light"
        leftSection={<IconPlugConnected size={16} aria-hidden />}
        loading={testing}
        disabled={disabled}
        w="fit-content"
        onClick={() => { const t = target(); if (t) actor.send({ type: 'test.start', target: t }); }}
      >
        Test connection
      </Button>
      {testing && <Text size="sm" aria-live="polite">Testing the connection…</Text>}
      {state.matches('success') && result && (
        <Alert role="status" color="green" icon={<IconCircleCheck aria-hidden />} title="Connection succeeded" withCloseButton closeButtonLabel="Dismiss" onClose={() => actor.send({ type: 'test.reset' })}>
          {result.detail}
        </Alert>
      )}
      {state.matches('failure') && failure && (
        <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title={failure.title} withCloseButton closeButtonLabel="Dismiss" onClose={() => actor.send({ type: 'test.reset' })}>
          <Text size="sm">{failure.detail}</Text>
          <Text size="xs" c="dimmed" data-testid="connection-error-code">Code: {failure.code}</Text>
        </Alert>
      )}
    </Stack>
  );
}
