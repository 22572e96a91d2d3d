/**
 * Needs Attention, one record at a time (/{formulaId}/needs-attention/v2): the bucket's records in
 * the bucket screen's order, each in the record review, with keyboard shortcuts for the usual
 * decisions. The list and the position are the bucket-records machine's; the record's decisions
 * are the review's.
 */
import { useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Anchor, Button, Card, Group, Kbd, Stack, Table, Text, Title } from '@mantine/core';
import { can, type Policies } from '../../domain/roles.ts';
import { SCREENS } from '../../domain/screens.ts';
import { bucketRecordsMachine } from '../../machines/bucketRecords.ts';
import type { recordReviewMachine } from '../../machines/recordReview.ts';
import { TableSkeleton } from '../../ui/Skeletons.tsx';
import { NotFoundHere } from '../errors/NotFoundPage.tsx';
import { bucketPath } from './bucketViews.ts';
import { isTyping, RecordReview } from './RecordReview.tsx';

export const SHORTCUTS: [keys: string[], what: string][] = [
  [['P'], 'Pick the best candidate'],
  [['N'], 'Create new'],
  [['R'], 'Add to Ready'],
  [['J', '→'], 'Next record'],
  [['K', '←'], 'Previous record'],
  [['?'], 'Show or hide the shortcuts'],
];

export function NeedsAttentionReview({ formulaId, policies, logic = bucketRecordsMachine, reviewLogic }: {
  formulaId: string;
  policies: Policies;
  logic?: typeof bucketRecordsMachine;
  reviewLogic?: typeof recordReviewMachine;
}) {
  const actor = useActorRef(logic, {
    input: { formulaId, view: 'needs-attention', customBucket: null, canEdit: can(policies, 'records', 'edit'), canSend: can(policies, 'records', 'send') },
  });
  const state = useSelector(actor, (s) => s);
  const c = state.context;
  const [help, setHelp] = useState(false);
  const record = c.records[c.focused] ?? null;
  const reload = useCallback(() => actor.send({ type: 'list.reload' }), [actor]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e)) return;
      if (e.key === 'j' || e.key === 'J' || e.key === 'ArrowRight') actor.send({ type: 'focus.next' });
      else if (e.key === 'k' || e.key === 'K' || e.key === 'ArrowLeft') actor.send({ type: 'focus.previous' });
      else if (e.key === '?') setHelp((h) => !h);
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [actor]);

  if (state.matches('formulaMissing')) return <NotFoundHere />;
  const position = c.records.length ? `Record ${c.focused + 1} of ${c.records.length}${c.nextCursor ? ' on this page' : ''}` : '';
  return (
    <Stack>
      <Stack gap={4}>
        <Title order={1}>{SCREENS.needsAttentionReview.title}</Title>
        <Text c="dimmed" size="sm">{c.formulaName ? `Formula: ${c.formulaName}` : 'Formula records'} · one record at a time</Text>
        <Anchor component={Link} to={bucketPath('needsAttention', formulaId)} size="sm" w="fit-content">Show the whole bucket</Anchor>
      </Stack>
      <Group gap="xs" role="toolbar" aria-label="Records">
        <Button variant="default" size="xs" onClick={() => actor.send({ type: 'focus.previous' })} disabled={c.focused === 0}>Previous record</Button>
        <Button variant="default" size="xs" onClick={() => actor.send({ type: 'focus.next' })} disabled={c.focused >= c.records.length - 1 && !c.nextCursor}>Next record</Button>
        <Text size="sm" role="status">{position}</Text>
        <Button variant="subtle" size="xs" onClick={() => setHelp((h) => !h)} aria-expanded={help}>Keyboard shortcuts</Button>
      </Group>
      {help && (
        <Card withBorder aria-label="Keyboard shortcuts" role="region">
          <Table>
            <Table.Tbody>
              {SHORTCUTS.map(([keys, what]) => (
                <Table.Tr key={what}>
                  <Table.Td>{keys.map((k, i) => <span key={k}>{i > 0 && ' or '}<Kbd>{k}</Kbd></span>)}</Table.Td>
                  <Table.Td>{what}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Card>
      )}
      {c.notice && <Alert color="green" role="status">{c.notice}</Alert>}
      {state.matches('loading') && !record && <TableSkeleton columns={['Field', 'Incoming', 'Destination']} caption="Loading records" />}
      {state.matches('failed') && (
        <Alert color="red" role="alert" title="The records could not be loaded">
          <Button size="xs" mt="xs" onClick={reload}>Try again</Button>
        </Alert>
      )}
      {state.matches('showing') && !record && (
        <Card withBorder><Text c="dimmed">No records need attention.</Text></Card>
      )}
      {record && (
        <RecordReview key={record.id} formulaId={formulaId} recordId={record.id} policies={policies} logic={reviewLogic} onChanged={reload} shortcuts />
      )}
    </Stack>
  );
}
