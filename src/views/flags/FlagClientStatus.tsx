/**
 * The browser's flag client as the Feature Flags screen shows it: loading, up to date (with the
 * last refresh's outcome), refreshing, or failed with 'Failed to fetch data: <status text>' while
 * every flag is off; and a check of custom-routing for one formula, evaluated locally.
 */
import { useState } from 'react';
import { useSelector } from '@xstate/react';
import { Alert, Badge, Button, Card, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconAlertTriangle, IconRefresh } from '@tabler/icons-react';
import { formulaRequest } from '../../domain/flags/customRouting.ts';
import { CUSTOM_ROUTING_FLAG } from '../../domain/flags/snapshot.ts';
import { evaluateBoolean, flagStatus, type FlagsActor } from '../../machines/flags.ts';

const OUTCOME = { fetched: 'a new snapshot', 'not-modified': 'not modified', failed: 'failed' } as const;

export function FlagClientStatus({ flags }: { flags: FlagsActor }) {
  const state = useSelector(flags, (s) => s);
  const [formulaId, setFormulaId] = useState('');
  const status = flagStatus(state);
  const busy = state.matches({ ready: 'refreshing' }) || state.matches({ failed: 'retrying' }) || status === 'loading';
  const { snapshot, error, lastOutcome, refreshedAt } = state.context;
  const check = formulaId.trim() ? evaluateBoolean(state, formulaRequest(CUSTOM_ROUTING_FLAG, formulaId.trim())) : null;
  const on = check?.ok ? check.value.enabled : false;

  return (
    <Card withBorder aria-label="Flag client" data-testid="flag-client" data-state={JSON.stringify(state.value)}>
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h3">This browser&apos;s flags</Title>
          <Button
            variant="light" size="xs" leftSection={<IconRefresh size={14} aria-hidden />}
            loading={busy} disabled={busy} onClick={() => flags.send({ type: 'flags.refresh' })}
          >
            Refresh now
          </Button>
        </Group>

        <div role="status" aria-live="polite">
          {status === 'loading' && <Text size="sm">Loading flags…</Text>}
          {status === 'ready' && (
            <Stack gap={2}>
              <Text size="sm" fw={500}>
                {state.matches({ ready: 'refreshing' }) ? 'Refreshing flags…' : 'Flags are up to date'}
              </Text>
              <Text size="xs" c="dimmed">
                {snapshot?.flags.length ?? 0} flags in namespace {state.context.namespace}
                {lastOutcome && lastOutcome !== 'failed' && <>; last refresh: {OUTCOME[lastOutcome]}</>}
                {refreshedAt && <> at {new Date(refreshedAt).toLocaleTimeString()}</>}. Refreshed every 5 minutes.
              </Text>
            </Stack>
          )}
        </div>
        {status === 'failed' && (
          <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title={error ?? 'Failed to fetch data'}>
            <Text size="sm">Every flag is off until the next good refresh.</Text>
            {state.matches({ failed: 'retrying' }) && <Text size="sm">Trying again…</Text>}
          </Alert>
        )}

        <Group align="end" gap="sm">
          <TextInput
            label="Check custom-routing for a formula" placeholder="Formula id" value={formulaId}
            onChange={(e) => setFormulaId(e.currentTarget.value)} w={{ base: '100%', xs: 360 }}
          />
          {check && (
            <Badge data-testid="custom-routing-answer" color={on ? 'green' : 'gray'} size="lg" variant="light">
              custom-routing is {on ? 'on' : 'off'} for this formula
            </Badge>
          )}
        </Group>
      </Stack>
    </Card>
  );
}
