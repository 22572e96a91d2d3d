/** The connection test: a button, and the test's states (testing, success, failure) shown beside it. */
import { useEffect } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Button, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconPlugConnected } from '@tabler/icons-react';
import { connectionTestMachine, type ConnectionTestContext, type TestTarget } from '../../machines/connectionTest.ts';

export interface ConnectionTestControlProps {
  machine?: typeof connectionTestMachine;
  /** what to test, read when the button is pressed; null disables the button */
  target: () => TestTarget | null;
  disabled?: boolean;
  /** a result stops being shown when this changes (the settings it was for were edited) */
  resetOn?: string;
}

/** A saved data source's test, with a machine of its own. */
export function ConnectionTestControl({ machine = connectionTestMachine, target, disabled, resetOn }: ConnectionTestControlProps) {
  const actor = useActorRef(machine);
  useEffect(() => { actor.send({ type: 'test.reset' }); }, [actor, resetOn]);
  const state = useSelector(actor, (s) => s);
  return (
    <ConnectionTestPanel
      state={String(state.value)}
      testing={state.matches('testing')}
      result={state.matches('success') ? state.context.result : null}
      failure={state.matches('failure') ? state.context.failure : null}
      disabled={disabled}
      onTest={() => { const t = target(); if (t) actor.send({ type: 'test.start', target: t }); }}
      onDismiss={() => actor.send({ type: 'test.reset' })}
    />
  );
}

export interface ConnectionTestPanelProps {
  /** the owning machine's state, for data-state */
  state: string;
  testing: boolean;
  result: ConnectionTestContext['result'];
  failure: ConnectionTestContext['failure'];
  disabled?: boolean | undefined;
  onTest(): void;
  onDismiss(): void;
}

/** What a test shows, whichever machine runs it (the test's own, or the data source form's). */
export function ConnectionTestPanel({ state, testing, result, failure, disabled, onTest, onDismiss }: ConnectionTestPanelProps) {
  return (
    <Stack gap="xs" data-testid="connection-test" data-state={state}>
      <Button
        variant="light"
        leftSection={<IconPlugConnected size={16} aria-hidden />}
        loading={testing}
        disabled={disabled}
        w="fit-content"
        onClick={onTest}
      >
        Test connection
      </Button>
      {testing && <Text size="sm" aria-live="polite">Testing the connection…</Text>}
      {result && (
        <Alert role="status" color="green" icon={<IconCircleCheck aria-hidden />} title="Connection succeeded" withCloseButton closeButtonLabel="Dismiss" onClose={onDismiss}>
          {result.detail}
        </Alert>
      )}
      {failure && (
        <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title={failure.title} withCloseButton closeButtonLabel="Dismiss" onClose={onDismiss}>
          <Text size="sm">{failure.detail}</Text>
          <Text size="xs" c="dimmed" data-testid="connection-error-code">Code: {failure.code}</Text>
        </Alert>
      )}
    </Stack>
  );
}
