/**
 * The Sandbox CRM's 'Import constituents' dialog: on opening, the data source's import still
 * running on the server if there is one (else the last one's outcome and a dropzone for one CSV
 * file), the file's columns with the field each gives (suggested by their headers, for the user to
 * change), progress while a file is sent, then while the server imports it (constituents imported so far, rows read of the file's,
 * a percent), then how many constituents went in and the refused rows with their reasons. A thin
 * renderer of the sandbox import machine.
 */
import { useRef } from 'react';
import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { Alert, Button, Group, Modal, NativeSelect, Progress, Stack, Table, Text } from '@mantine/core';
import { Dropzone, type FileRejection, type FileWithPath } from '@mantine/dropzone';
import '@mantine/dropzone/styles.css';
import { IconAlertTriangle, IconCircleCheck, IconFileSpreadsheet, IconUpload, IconX } from '@tabler/icons-react';
import type { SandboxImportView } from '../../domain/api/integrations.ts';
import { messageForProblem } from '../../domain/errors.ts';
import {
  columnChoiceProblem, HEADER_EXAMPLES, IMPORT_FIELD_LABELS, SANDBOX_IMPORT_FIELDS, type ImportColumn, type SandboxImportField,
} from '../../domain/sandboxImport.ts';
import { MAX_UPLOAD_BYTES } from '../../domain/upload.ts';
import type { sandboxImportMachine } from '../../machines/sandboxImport.ts';

const COLUMNS = SANDBOX_IMPORT_FIELDS.map((f) => HEADER_EXAMPLES[f]).join(', ');
const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** The outcome of the data source's last import, ended, as the dialog shows it on opening. */
function lastImportLine(last: SandboxImportView): string {
  if (last.status === 'refused') return `The last import, ${last.fileName}, was refused: none of its rows went in.`;
  if (last.status === 'error') return `The last import, ${last.fileName}, stopped after ${count(last.imported, 'constituent')} imported.`;
  return `The last import, ${last.fileName}: ${count(last.imported, 'constituent')} imported${last.refusedCount ? `, ${count(last.refusedCount, 'row')} refused` : ''}.`;
}

function RefusedRows({ rows, total }: { rows: { row: number; reason: string }[]; total: number }) {
  if (rows.length === 0) return null;
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600}>{total > rows.length ? `The first ${rows.length} of ${count(total, 'refused row')}` : 'Refused rows'}</Text>
      <Table.ScrollContainer minWidth={320} mah={240} type="native">
        <Table withTableBorder aria-label="Refused rows" fz="sm">
          <Table.Thead><Table.Tr><Table.Th>Row</Table.Th><Table.Th>Reason</Table.Th></Table.Tr></Table.Thead>
          <Table.Tbody>
            {rows.map((r) => <Table.Tr key={r.row}><Table.Td>{r.row}</Table.Td><Table.Td>{r.reason}</Table.Td></Table.Tr>)}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

const LEFT_OUT = '';
const FIELD_OPTIONS = [{ value: LEFT_OUT, label: 'Leave out' }, ...SANDBOX_IMPORT_FIELDS.map((f) => ({ value: f, label: IMPORT_FIELD_LABELS[f] }))];

/** Each column of the file and the field it gives, chosen from a list; what stands in the way of importing is said under it. */
function ColumnChoiceTable({ columns, onChoose }: { columns: ImportColumn[]; onChoose(index: number, field: SandboxImportField | null): void }) {
  const problem = columnChoiceProblem(columns.map((c) => c.field));
  return (
    <Stack gap={4}>
      <Text size="sm" fw={600} id="sandbox-import-columns-title">Columns of the file</Text>
      <Table.ScrollContainer minWidth={300} mah={320} type="native">
        <Table withTableBorder aria-labelledby="sandbox-import-columns-title" fz="sm" verticalSpacing={4}>
          <Table.Thead><Table.Tr><Table.Th>Column</Table.Th><Table.Th>Imported as</Table.Th></Table.Tr></Table.Thead>
          <Table.Tbody>
            {columns.map((c, i) => (
              <Table.Tr key={`${i}:${c.header}`}>
                <Table.Td>{c.header}</Table.Td>
                <Table.Td>
                  <NativeSelect
                    size="xs"
                    aria-label={`Field for the column ${c.header}`}
                    data={FIELD_OPTIONS}
                    value={c.field ?? LEFT_OUT}
                    onChange={(e) => onChoose(i, (e.currentTarget.value || null) as SandboxImportField | null)}
                  />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {problem && <Text size="sm" c="red" role="alert" data-testid="sandbox-import-columns-problem">{problem}</Text>}
    </Stack>
  );
}

export function SandboxImportDialog({ actor }: { actor: ActorRefFrom<typeof sandboxImportMachine> }) {
  const state = useSelector(actor, (s) => s);
  const openRef = useRef<() => void>(null);
  const { name, file, columns, progress, status, last, result, problem } = state.context;
  const mapping = state.matches('mapping');
  const sending = state.matches('sending');
  const importing = sending || state.matches('importing');
  const resuming = state.matches('resuming');
  const readingColumns = state.matches('readingColumns');
  // no file is chosen while this data source's import may still run
  const busy = importing || resuming || readingColumns;
  // an import found running on opening was sent from another dialog (or before a reload)
  const fileName = file?.name ?? status?.fileName;
  const ended = state.matches('imported') || state.matches('refused') || state.matches('failed');
  const percent = progress && progress.total > 0 ? Math.min(100, Math.round((progress.loaded / progress.total) * 100)) : 0;
  const importLine = !status || status.status === 'waiting'
    ? `${fileName}: waiting for the import before it to finish…`
    : `${count(status.imported, 'constituent')} imported so far: ${status.read.toLocaleString()} of ${count(status.total, 'row')} read (${status.percent}%)`;
  const choose = (files: FileWithPath[] | FileRejection[]) => {
    const first = files[0];
    const chosen = first && 'file' in first ? first.file : (first as File | undefined);
    if (chosen) actor.send({ type: 'file.select', file: chosen });
  };

  return (
    <Modal
      opened={!state.matches('closed')}
      onClose={() => actor.send(sending ? { type: 'import.cancel' } : { type: 'import.close' })}
      title={`Import constituents into ${name}`}
      size="lg"
      centered
    >
      <Stack data-testid="sandbox-import" data-state={String(state.value)}>
        <Text size="sm">
          A CSV file with a header row, at most {MAX_UPLOAD_BYTES / (1024 * 1024)}MB. Each column is matched to a field by its header ({COLUMNS}),
          and you can change the choice before importing; each row needs a last name.
        </Text>
        <Dropzone
          openRef={openRef}
          onDrop={choose}
          onReject={choose}
          accept={{ 'text/csv': ['.csv'] }}
          // the machine checks every file, whatever the picker let through
          maxSize={Number.POSITIVE_INFINITY}
          multiple={false}
          loading={busy}
          disabled={busy}
          activateOnKeyboard
          inputProps={{ onClick: (e) => { e.currentTarget.value = ''; } }}
          aria-label="Drop a CSV file of constituents here, or press Enter to choose one"
          data-testid="sandbox-import-dropzone"
        >
          <Group justify="center" gap="lg" mih={100} style={{ pointerEvents: 'none' }}>
            <Dropzone.Accept><IconUpload size={40} stroke={1.5} aria-hidden /></Dropzone.Accept>
            <Dropzone.Reject><IconX size={40} stroke={1.5} aria-hidden /></Dropzone.Reject>
            <Dropzone.Idle><IconFileSpreadsheet size={40} stroke={1.5} aria-hidden /></Dropzone.Idle>
            <Text>Drag a CSV file here or click to choose one</Text>
          </Group>
        </Dropzone>

        {resuming && <Text size="sm" aria-live="polite">Looking for an import of this data source still running…</Text>}

        {state.matches('choosing') && last && <Text size="sm" data-testid="sandbox-import-last">{lastImportLine(last)}</Text>}

        {readingColumns && <Text size="sm" aria-live="polite">Reading the columns of {file?.name}…</Text>}

        {mapping && columns && (
          <Stack gap="xs">
            <Text size="sm">{file?.name}: check the field each column gives, then import.</Text>
            <ColumnChoiceTable columns={columns} onChoose={(index, field) => actor.send({ type: 'column.choose', index, field })} />
          </Stack>
        )}

        {sending && (
          <Stack gap={4}>
            <Text size="sm" aria-live="polite">
              {percent < 100 ? `Sending ${file?.name}: ${percent}%` : `Checking ${file?.name}…`}
            </Text>
            <Progress value={percent} aria-label="Import progress" animated />
            <Button variant="default" w="fit-content" onClick={() => actor.send({ type: 'import.cancel' })}>Cancel</Button>
          </Stack>
        )}

        {state.matches('importing') && (
          <Stack gap={4}>
            <Text size="sm" aria-live="polite" data-testid="sandbox-import-count">{importLine}</Text>
            <Progress value={status?.percent ?? 0} aria-label="Import progress" animated />
            <Text size="xs" c="dimmed">The import goes on on the server if this dialog is closed.</Text>
          </Stack>
        )}

        {state.matches('imported') && result && (
          <Alert role="status" color={result.refusedCount ? 'yellow' : 'green'} icon={<IconCircleCheck aria-hidden />} title={`${count(result.imported, 'constituent')} imported`}>
            <Stack gap="xs">
              <Text size="sm">{fileName}{result.refusedCount ? `: ${count(result.refusedCount, 'row')} refused.` : ': every row imported.'}</Text>
              <RefusedRows rows={result.refused} total={result.refusedCount} />
            </Stack>
          </Alert>
        )}

        {(state.matches('refused') || state.matches('failed')) && problem && (
          <Alert role="alert" color="red" icon={<IconAlertTriangle aria-hidden />} title={messageForProblem(problem)}>
            <Stack gap="xs">
              {fileName && <Text size="sm">{fileName}</Text>}
              {problem.detail && <Text size="sm">{problem.detail}</Text>}
              {state.matches('failed') && status && status.imported > 0 && (
                <Text size="sm">{count(status.imported, 'constituent')} of {count(status.total, 'row')} imported before it stopped.</Text>
              )}
              <RefusedRows rows={problem.refused ?? []} total={problem.refusedCount ?? 0} />
            </Stack>
          </Alert>
        )}

        <Group justify="flex-end">
          {state.can({ type: 'import.retry' }) && <Button onClick={() => actor.send({ type: 'import.retry' })}>Try again</Button>}
          {!busy && (
            <Button variant={ended || mapping ? 'default' : 'filled'} onClick={() => openRef.current?.()}>
              {ended ? 'Import another file' : mapping ? 'Choose another file' : 'Choose a file'}
            </Button>
          )}
          {mapping && (
            <Button disabled={!state.can({ type: 'import.start' })} onClick={() => actor.send({ type: 'import.start' })}>Import</Button>
          )}
          {!sending && <Button variant="default" onClick={() => actor.send({ type: 'import.close' })}>Close</Button>}
        </Group>
      </Stack>
    </Modal>
  );
}
