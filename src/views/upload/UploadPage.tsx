/**
 * The upload screen: a Mantine dropzone (click, drop, or Enter/Space on it; or the "Choose a
 * file" button), a progress bar while the file is sent, and each outcome's message in an alert.
 * A thin renderer of the upload machine. Given a file-upload formula (the upload dialog of its
 * card), each file is sent to that formula, which processes every row of it. On the upload
 * screen itself, for a role that may create formulas, an uploaded file can start a file-upload
 * formula ('Create a formula from this file'), which the screen then opens in the wizard.
 */
import { useEffect, useRef } from 'react';
import { useActorRef, useSelector } from '@xstate/react';
import { Alert, Box, Button, Group, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { Dropzone, type FileRejection, type FileWithPath } from '@mantine/dropzone';
import '@mantine/dropzone/styles.css';
import { IconAlertTriangle, IconCircleCheck, IconFileSpreadsheet, IconPlus, IconUpload, IconX } from '@tabler/icons-react';
import { useNavigate } from 'react-router';
import { messageForProblem } from '../../domain/errors.ts';
import {
  ACCEPTED_EXTENSIONS, ACCEPTED_MIME_TYPES, MAX_UPLOAD_BYTES, NOT_SCANNED_MESSAGE, SAMPLE_ROWS, UPLOAD_MESSAGES,
  uploadAgainQuestion, type UploadSummary,
} from '../../domain/upload.ts';
import { editStepOf } from '../../domain/formula/wizard.ts';
import { can } from '../../domain/roles.ts';
import { ROUTES } from '../../domain/screens.ts';
import { outcomeOf, uploadMachine } from '../../machines/upload.ts';
import type { FormulaView } from '../../domain/api/formulas.ts';
import { useAppActors } from '../shell/actors.tsx';
import { wizardSearch } from '../wizard/wizardSearch.ts';
import { TableSkeleton } from '../../ui/Skeletons.tsx';

/** What the file picker offers (the machine still checks every file, whatever the picker let through). */
const ACCEPT: Record<string, string[]> = {
  'text/csv': ['.csv'],
  [ACCEPTED_MIME_TYPES.xlsx[0]!]: ['.xlsx'],
  [ACCEPTED_MIME_TYPES.xls[0]!]: ['.xls'],
};

export interface UploadPageProps {
  /** the machine to run; tests provide one whose actors are fakes */
  machine?: typeof uploadMachine;
  /** told once a file is uploaded (the formula wizard continues with its sample) */
  onUploaded?(summary: UploadSummary): void;
  /** a live file-upload formula every file is sent to; its dialog titles the screen */
  formula?: { id: string; name: string };
  /** given, an uploaded file can start a file-upload formula, which this is told of (the upload screen opens it in the wizard) */
  onFormulaCreated?(formula: FormulaView): void;
}

/**
 * The 'Upload a file' screen: for a role that may create formulas, 'Create a formula from this
 * file' opens the new draft in the wizard, over All Formulas, at its first step not set up.
 */
export function UploadScreen() {
  const { auth } = useAppActors();
  const mayCreate = useSelector(auth, (s) => can(s.context.user?.policies ?? {}, 'formula', 'create'));
  const navigate = useNavigate();
  const open = (formula: FormulaView) => navigate({ pathname: ROUTES.integrationsFormulas, search: wizardSearch('', formula.id, editStepOf(formula)) });
  return <UploadPage {...(mayCreate ? { onFormulaCreated: open } : {})} />;
}

const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

export function UploadPage({ machine = uploadMachine, onUploaded, formula, onFormulaCreated }: UploadPageProps) {
  const actor = useActorRef(machine, { input: { formulaId: formula?.id, mayCreateFormula: !formula && !!onFormulaCreated } });
  const state = useSelector(actor, (s) => s);
  const openRef = useRef<() => void>(null);
  const { file, progress, summary, detail, problem, earlier, created } = state.context;
  // the file is uploaded: its summary stays while a formula is made from it
  const uploaded = state.hasTag('uploaded');
  const creating = state.matches('creatingFormula');
  const notCreated = state.matches('formulaNotCreated');
  useEffect(() => {
    if (created) onFormulaCreated?.(created);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [created]);
  const askingAgain = state.matches('alreadyUploaded');
  const uploading = state.matches('uploading');
  const outcome = outcomeOf(state);
  const failed = state.matches('failed');
  useEffect(() => {
    if (summary) onUploaded?.(summary);
  }, [summary, onUploaded]);

  const choose = (files: FileWithPath[] | FileRejection[]) => {
    const first = files[0];
    const chosen = first && 'file' in first ? first.file : (first as File | undefined);
    if (chosen) actor.send({ type: 'file.select', file: chosen });
  };
  const percent = progress && progress.total > 0 ? Math.min(100, Math.round((progress.loaded / progress.total) * 100)) : 0;

  return (
    <Stack maw={880}>
      {!formula && <Title order={1}>Upload a file</Title>}
      {formula ? (
        <Text>
          A CSV or Excel file ({ACCEPTED_EXTENSIONS.join(', ')}) of at most 15MB, with a header row. {formula.name} processes
          every row of it.
        </Text>
      ) : (
        <Text>
          A CSV or Excel file ({ACCEPTED_EXTENSIONS.join(', ')}) of at most 15MB, with a header row. Its headers and
          first {SAMPLE_ROWS} rows are kept for mapping.
        </Text>
      )}

      <Dropzone
        openRef={openRef}
        onDrop={choose}
        onReject={choose}
        accept={ACCEPT}
        // one byte more than the limit still reaches the machine, which says why it is refused
        maxSize={Number.POSITIVE_INFINITY}
        multiple={false}
        loading={uploading}
        disabled={uploading}
        activateOnKeyboard
        // cleared as the picker opens, so choosing the same file again (after a cancel) is still a change
        inputProps={{ onClick: (e) => { e.currentTarget.value = ''; } }}
        aria-label="Drop a CSV or Excel file here, or press Enter to choose one"
        data-testid="upload-dropzone"
      >
        <Group justify="center" gap="xl" mih={140} style={{ pointerEvents: 'none' }}>
          <Dropzone.Accept><IconUpload size={48} stroke={1.5} aria-hidden /></Dropzone.Accept>
          <Dropzone.Reject><IconX size={48} stroke={1.5} aria-hidden /></Dropzone.Reject>
          <Dropzone.Idle><IconFileSpreadsheet size={48} stroke={1.5} aria-hidden /></Dropzone.Idle>
          <div>
            <Text size="lg">Drag a file here or click to choose one</Text>
            <Text size="sm" c="dimmed">.csv, .xlsx or .xls, up to {MAX_UPLOAD_BYTES / (1024 * 1024)}MB</Text>
          </div>
        </Group>
      </Dropzone>

      {uploading && (
        <Stack gap={4} data-testid="upload-progress">
          <Text size="sm" aria-live="polite">Uploading {file?.name}: {percent}%</Text>
          <Progress value={percent} aria-label="Upload progress" animated />
          <Button variant="default" w="fit-content" onClick={() => actor.send({ type: 'upload.cancel' })}>Cancel</Button>
        </Stack>
      )}
      {/* every byte is sent: the server scans and reads the file before its summary arrives */}
      {uploading && percent >= 100 && <TableSkeleton columns={['Column 1', 'Column 2', 'Column 3']} caption="Checking and reading the file…" />}

      {uploaded && summary && (
        <>
          <Alert role="alert" color="green" icon={<IconCircleCheck />} title={UPLOAD_MESSAGES.success} data-outcome="success">
            {summary.fileName}: {counted(summary.headers.length, 'column')}
            {summary.rowCount !== null ? `, ${counted(summary.rowCount, 'row')}` : ''}.{' '}
            {summary.sampleRows.length === 1 ? 'The first row is shown below.' : `The first ${summary.sampleRows.length} rows are shown below.`}
            {formula && (
              // the server queued the run as it kept the file; the formula's live status shows it running
              <Text size="sm" mt={4} data-testid="formula-run-queued">
                Its rows will be processed by {formula.name}: the run is queued, and the formula&apos;s status shows it running.
              </Text>
            )}
          </Alert>
          {/* the next step for a sample, before its rows so it is seen without scrolling */}
          {(state.can({ type: 'formula.create' }) || creating || state.matches('formulaCreated')) && (
            <Button w="fit-content" leftSection={<IconPlus size={16} aria-hidden />} loading={creating || state.matches('formulaCreated')} onClick={() => actor.send({ type: 'formula.create' })}>
              Create a formula from this file
            </Button>
          )}
          {notCreated && (
            <Alert role="alert" color="red" icon={<IconAlertTriangle />} title="The formula was not created" data-testid="formula-not-created">
              <Text size="sm">{messageForProblem(problem ?? undefined)}</Text>
              {detail && <Text size="sm">{detail}</Text>}
            </Alert>
          )}
          {summary.scanStatus === 'not-scanned' && (
            <Alert role="status" color="yellow" icon={<IconAlertTriangle />} data-testid="not-scanned">{NOT_SCANNED_MESSAGE}</Alert>
          )}
          {/* a wide file scrolls inside its box; the box takes focus so a keyboard can scroll it */}
          <Box style={{ overflowX: 'auto' }} tabIndex={0} role="region" aria-label="Sample rows, scrolling sideways">
            <Table striped withTableBorder aria-label="Sample rows">
              <Table.Thead>
                <Table.Tr>{summary.headers.map((h) => <Table.Th key={h}>{h}</Table.Th>)}</Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {summary.sampleRows.map((row, i) => (
                  <Table.Tr key={i}>{row.map((v, j) => <Table.Td key={j}>{v}</Table.Td>)}</Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Box>
        </>
      )}

      {outcome && outcome !== 'success' && (
        <Alert role="alert" color="red" icon={<IconAlertTriangle />} title={UPLOAD_MESSAGES[outcome]} data-outcome={outcome}>
          {file?.name && <Text size="sm">{file.name}</Text>}
          {detail && detail !== UPLOAD_MESSAGES[outcome] && <Text size="sm">{detail}</Text>}
        </Alert>
      )}

      {askingAgain && earlier && formula && (
        <Alert role="alertdialog" color="yellow" icon={<IconAlertTriangle />} title={uploadAgainQuestion(earlier)} data-testid="upload-again">
          <Text size="sm">
            {file?.name}: {formula.name} has taken the rows of {earlier.fileName} already. Uploading it again adds every row as a record
            once more; a person in it is matched with their earlier record, so no one is created twice.
          </Text>
          <Group mt="sm">
            <Button onClick={() => actor.send({ type: 'upload.again' })}>Upload again</Button>
            <Button variant="default" onClick={() => actor.send({ type: 'upload.decline' })}>Do not upload</Button>
          </Group>
        </Alert>
      )}

      {failed && (
        <Alert role="alert" color="red" icon={<IconAlertTriangle />} title={messageForProblem(problem ?? undefined)} data-outcome="failed">
          {detail && <Text size="sm">{detail}</Text>}
        </Alert>
      )}

      {(outcome || failed || uploaded) && (
        <Group>
          {(state.can({ type: 'upload.retry' })) && (
            <Button onClick={() => actor.send({ type: 'upload.retry' })}>Try again</Button>
          )}
          <Button variant={uploaded ? 'default' : 'filled'} onClick={() => openRef.current?.()} disabled={creating}>
            {uploaded ? 'Upload another file' : 'Choose another file'}
          </Button>
        </Group>
      )}
      {!outcome && !failed && !uploading && !askingAgain && (
        <Button variant="default" w="fit-content" onClick={() => openRef.current?.()}>Choose a file</Button>
      )}
    </Stack>
  );
}
