/**
 * Feature Flags (Administrators: the `flags` policy). Lists the tenant's flags with their state;
 * an Administrator switches `enabled` (a boolean flag's default value) and picks, by name, the
 * formulas of a flag's formula-id rule (saved as their ids), which is how custom-routing is turned
 * on for chosen formulas.
 * Above the list, this browser's flag client and a per-formula check.
 */
import { useState } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Badge, Button, Code, Group, MultiSelect, Stack, Switch, Table, TagsInput, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck } from '@tabler/icons-react';
import { formulaRuleIds } from '../../domain/flags/customRouting.ts';
import { type StoredFlag } from '../../domain/flags/definitions.ts';
import { flagAdminMachine, type FormulaChoice } from '../../machines/flagAdmin.ts';
import type { FlagsActor } from '../../machines/flags.ts';
import { TableSkeleton } from '../../ui/Skeletons.tsx';
import { FlagClientStatus } from './FlagClientStatus.tsx';

const COLUMNS = ['Flag', 'Type', 'Enabled', 'Rules'];

export interface FeatureFlagsPageProps {
  /** the app's flag client (one flagsMachine actor for the whole app) */
  flags: FlagsActor;
  machine?: typeof flagAdminMachine;
}

export function FeatureFlagsPage({ flags, machine = flagAdminMachine }: FeatureFlagsPageProps) {
  const admin = useActorRef(machine, { input: { flagClient: flags } });
  const state = useSelector(admin, (s) => s);
  const { flags: list, busyKey, error, notice, formulas, formulasError } = state.context;

  return (
    <Stack gap="lg" maw={1200}>
      <Title order={1}>Feature Flags</Title>
      <FlagClientStatus flags={flags} />

      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={2} size="h3">Flags of this tenant</Title>
          <Button variant="subtle" size="xs" onClick={() => admin.send({ type: 'flags.reload' })} disabled={state.matches('loading')}>Reload</Button>
        </Group>
        {state.matches('loading') && <TableSkeleton columns={COLUMNS} caption="Loading the flags…" />}
        {error && (
          <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />}
            title={state.matches('loadFailed') ? 'The flags could not be loaded' : 'The flags could not be changed'}>
            {error}
          </Alert>
        )}
        {notice && (
          <Alert role="status" color="green" icon={<IconCircleCheck aria-hidden />} withCloseButton closeButtonLabel="Dismiss"
            onClose={() => admin.send({ type: 'notice.dismiss' })}>
            {notice}
          </Alert>
        )}
        {!state.matches('loading') && !state.matches('loadFailed') && (
          // a narrow screen scrolls the table, not the page
          <Table.ScrollContainer minWidth={860} type="native">
            <Table aria-label="Feature flags" striped>
              <Table.Thead>
                <Table.Tr>{COLUMNS.map((c) => <Table.Th key={c}>{c}</Table.Th>)}</Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.length === 0 && (
                  <Table.Tr><Table.Td colSpan={4}><Text size="sm" c="dimmed">This tenant has no flags.</Text></Table.Td></Table.Tr>
                )}
                {list.map((flag) => (
                  <FlagRow
                    // a saved change starts the row afresh, so its draft shows what was stored
                    key={`${flag.key}@${flag.updatedOn}`} flag={flag} busy={busyKey === flag.key} locked={busyKey !== null}
                    formulas={formulas} formulasError={formulasError}
                    onSwitch={(enabled) => admin.send({ type: 'flag.switch', key: flag.key, enabled })}
                    onSaveFormulas={(formulaIds) => admin.send({ type: 'flag.formulas.save', key: flag.key, formulaIds })}
                  />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Stack>
    </Stack>
  );
}

/** The choices by name: the tenant's formulas, and any chosen id no formula has any more (so it can be taken out). */
function choicesOf(formulas: FormulaChoice[] | null, chosen: string[]) {
  // while the formulas load, the chosen ones show by id
  if (!formulas) return chosen.map((id) => ({ value: id, label: id }));
  const known = new Set(formulas.map((f) => f.id));
  return [
    ...formulas.map((f) => ({ value: f.id, label: f.name })),
    ...chosen.filter((id) => !known.has(id)).map((id) => ({ value: id, label: `Unknown formula (${id})` })),
  ];
}

function FlagRow({ flag, busy, locked, formulas, formulasError, onSwitch, onSaveFormulas }: {
  flag: StoredFlag; busy: boolean; locked: boolean; formulas: FormulaChoice[] | null; formulasError: string | null;
  onSwitch(enabled: boolean): void; onSaveFormulas(ids: string[]): void;
}) {
  const saved = formulaRuleIds(flag);
  const [draft, setDraft] = useState<string[]>(saved ?? []);
  const boolean = flag.type === 'BOOLEAN_FLAG_TYPE';
  const changed = JSON.stringify(draft) !== JSON.stringify(saved);

  return (
    <Table.Tr data-testid={`flag-${flag.key}`}>
      <Table.Td>
        <Text fw={500}>{flag.name}</Text>
        <Code>{flag.key}</Code>
        {flag.description && <Text size="xs" c="dimmed">{flag.description}</Text>}
      </Table.Td>
      <Table.Td><Badge variant="light">{boolean ? 'Boolean' : 'Variant'}</Badge></Table.Td>
      <Table.Td>
        <Switch
          aria-label={`${flag.key} enabled`} checked={flag.enabled} disabled={locked}
          label={boolean ? (flag.enabled ? 'On by default' : 'Off by default') : (flag.enabled ? 'Enabled' : 'Disabled')}
          onChange={(e) => onSwitch(e.currentTarget.checked)}
        />
      </Table.Td>
      <Table.Td>
        {saved !== null ? (
          <Stack gap={4}>
            {formulasError ? (
              // without the list, the ids can still be typed
              <TagsInput
                label="On for these formula ids" placeholder="Add a formula id and press Enter" value={draft} onChange={setDraft}
                disabled={locked} clearable w={420} description={`${formulasError} Enter formula ids instead.`}
              />
            ) : (
              <MultiSelect
                label="On for these formulas" placeholder={formulas ? 'Choose formulas' : 'Loading the formulas…'}
                data={choicesOf(formulas, draft)} value={draft} onChange={setDraft}
                disabled={locked || !formulas} searchable clearable w={420} nothingFoundMessage="No formula with this name"
              />
            )}
            <Group gap="xs">
              <Button size="xs" onClick={() => onSaveFormulas(draft)} disabled={!changed || locked} loading={busy}>Save formulas</Button>
              <Text size="xs" c="dimmed">{saved.length} formula{saved.length === 1 ? '' : 's'} chosen</Text>
            </Group>
          </Stack>
        ) : (
          <Text size="sm" c="dimmed">
            {boolean ? `${flag.rollouts.length} rollout${flag.rollouts.length === 1 ? '' : 's'}` : `${flag.rules.length} rule${flag.rules.length === 1 ? '' : 's'}, ${flag.variants.length} variants`}
          </Text>
        )}
      </Table.Td>
    </Table.Tr>
  );
}
