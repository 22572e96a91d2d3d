/**
 * Export to CSV, for a bucket screen or a selection of its records (SPEC.md section 4, Export):
 * a button with a choice to add each record's source values, then a status area that shows the export started, its count and percent while it is
 * written, the download once complete (for 24 hours), or why it failed. The export machine
 * (src/machines/export.ts) owns the workflow; this renders its states.
 */
import { Alert, Button, Checkbox, Group, Progress, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconDownload, IconFileExport } from '@tabler/icons-react';
import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useState } from 'react';
import { EXPORT_DOWNLOAD_HOURS } from '../../domain/api/exportService.ts';
import type { RecordSelection } from '../../domain/records/query.ts';
import { exportMachine } from '../../machines/export.ts';

export interface ExportButtonProps {
  formulaId: string;
  /** the bucket view (with its filter), or the chosen records */
  selection: RecordSelection;
  /** whether 'Include the source values' starts checked (it starts unchecked) */
  includeRaw?: boolean;
  /** the button's words; 'Export to CSV' unless said */
  label?: string;
  /** tests hand in the machine with fakes (or a guard broken on purpose) */
  logic?: typeof exportMachine;
}

const count = (n: number) => n.toLocaleString('en');
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

/** when the download window ends, as the status area says it */
export function availableUntil(expiresAt: string): string {
  return new Date(expiresAt).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

export function ExportButton({ formulaId, selection, includeRaw: rawAtFirst = false, label = 'Export to CSV', logic = exportMachine }: ExportButtonProps) {
  const [includeRaw, setIncludeRaw] = useState(rawAtFirst);
  // a screen that changes its default changes the choice with it
  useEffect(() => { setIncludeRaw(rawAtFirst); }, [rawAtFirst]);
  const actor = useActorRef(logic, { input: { formulaId, selection, includeRaw } });
  const state = useSelector(actor, (s) => s);
  const { current, failure } = state.context;
  const working = state.matches('started') || state.matches('inProgress');
  const downloading = state.matches('downloading');
  const done = state.matches('complete') || downloading || state.matches('blocked');

  return (
    <Stack gap="xs" data-testid="export" data-state={JSON.stringify(state.value)}>
      <Group gap="sm">
        <Button
          variant="light" leftSection={<IconFileExport size={16} aria-hidden />} loading={working} disabled={downloading}
          onClick={() => actor.send({ type: 'export.start', selection, includeRaw })}
        >
          {done || state.matches('error') ? 'Export again' : label}
        </Button>
        <Checkbox
          size="xs" label="Include the source values" description="Each column of the source as it came in, headed 'Source: <column>'"
          checked={includeRaw} disabled={working || downloading} onChange={(e) => setIncludeRaw(e.currentTarget.checked)}
        />
      </Group>

      <div role="status" aria-live="polite" aria-label="Export status">
        {state.matches('started') && <Text size="sm">Starting the export…</Text>}
        {state.matches('inProgress') && current && (
          current.total === null
            ? <Text size="sm">Export started: it will be written in a moment…</Text>
            : (
              <Stack gap={4}>
                <Text size="sm">Exporting: {count(current.written)} of {plural(current.total, 'record')} ({current.percent}%)</Text>
                <Progress value={current.percent} aria-label="Export progress" animated />
              </Stack>
            )
        )}
        {done && current && (
          <Stack gap={4}>
            <Text size="sm">
              Export complete: {plural(current.written, 'record')}. The file can be downloaded for {EXPORT_DOWNLOAD_HOURS} hours
              {current.expiresAt ? `, until ${availableUntil(current.expiresAt)}` : ''}. A new export replaces it.
            </Text>
            <Group gap="sm">
              <Button
                leftSection={<IconDownload size={16} aria-hidden />} loading={downloading}
                onClick={() => actor.send({ type: 'export.download' })}
              >
                Download CSV
              </Button>
              <Button variant="subtle" disabled={downloading} onClick={() => actor.send({ type: 'export.dismiss' })}>Close</Button>
            </Group>
          </Stack>
        )}
      </div>

      {(state.matches('error') || state.matches('blocked')) && failure && (
        <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title={failure.message}>
          {failure.detail && <Text size="sm">{failure.detail}</Text>}
          {state.matches('error') && (
            <Button mt="xs" size="xs" variant="default" onClick={() => actor.send({ type: 'export.dismiss' })}>Close message</Button>
          )}
        </Alert>
      )}
    </Stack>
  );
}
