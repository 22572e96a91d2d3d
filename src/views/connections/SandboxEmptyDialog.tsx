/**
 * The Sandbox CRM's 'Empty Sandbox CRM' dialog: a confirmation naming the data source and what
 * goes, then how many constituents and gifts were deleted, or why not. A thin renderer of the
 * sandbox empty machine.
 */
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck } from '@tabler/icons-react';
import { messageForProblem } from '../../domain/errors.ts';
import type { sandboxEmptyMachine } from '../../machines/sandboxEmpty.ts';

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

export function SandboxEmptyDialog({ actor }: { actor: ActorRefFrom<typeof sandboxEmptyMachine> }) {
  const state = useSelector(actor, (s) => s);
  const { name, deleted, problem } = state.context;
  const emptying = state.matches('emptying');
  const asking = state.matches('confirming') || emptying || state.matches('failed');
  const close = () => actor.send(state.matches('confirming') ? { type: 'empty.cancel' } : { type: 'empty.close' });
  return (
    <Modal opened={!state.matches('idle')} onClose={() => { if (!emptying) close(); }} title={`Empty ${name}`} centered>
      <Stack data-testid="sandbox-empty" data-state={String(state.value)}>
        {asking && (
          <Text>
            Delete every constituent and every gift in <b>{name}</b>? Formulas that send to it then find none of them, and
            this cannot be undone. The data source itself stays.
          </Text>
        )}
        {state.matches('failed') && problem && (
          <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title={messageForProblem(problem)}>
            {problem.detail ?? 'Nothing was deleted.'}
          </Alert>
        )}
        {state.matches('emptied') && deleted && (
          <Alert role="status" color="green" icon={<IconCircleCheck aria-hidden />} title={`${name} is empty`}>
            {count(deleted.constituents, 'constituent')} and {count(deleted.gifts, 'gift')} deleted.
          </Alert>
        )}
        <Group justify="flex-end">
          {asking && (
            <>
              <Button variant="default" onClick={close} disabled={emptying}>Cancel</Button>
              <Button color="red" loading={emptying} onClick={() => actor.send({ type: 'empty.confirm' })}>
                {state.matches('failed') ? 'Try again' : 'Delete everything'}
              </Button>
            </>
          )}
          {state.matches('emptied') && <Button onClick={close}>Close</Button>}
        </Group>
      </Stack>
    </Modal>
  );
}
