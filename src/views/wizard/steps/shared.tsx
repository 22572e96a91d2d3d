/**
 * What the setup steps share: the problem a failed call carries, the confirmation a wiping change
 * needs (SPEC.md section 4), links into the app, the sample upload, and reporting unsaved changes
 * to the wizard.
 */
import { lazy, Suspense, useCallback, useRef, useState, type ReactNode } from 'react';
import { Link, useInRouterContext } from 'react-router';
import { Anchor, Button, Group, List, Loader, Modal, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconUpload } from '@tabler/icons-react';
import { connectorFor } from '../../../domain/connectors/catalogue.ts';
import type { SystemId } from '../../../domain/connectors/types.ts';
import { PROBLEM_TITLES } from '../../../domain/errors.ts';
import { FORMULA_PARTS, type FormulaPartName } from '../../../domain/formula/parts.ts';
import type { UploadSummary } from '../../../domain/upload.ts';
import type { FormulaView } from '../../../domain/api/formulas.ts';
import type { Role } from '../../../domain/formula/ends.ts';
import { saveFailedMessage, savedMessage, type StepProps } from '../step.tsx';

export { baseSettings, ROLES, withObject, type Role } from '../../../domain/formula/ends.ts';

/** What a refused call says: the problem's title and detail, and its extension members. */
export interface CallProblem {
  status: number;
  title?: string;
  detail?: string;
  /** messages by field ('name', 'source', 'source.settings.<key>') */
  errors?: Record<string, string>;
  /** formula-wipe-unconfirmed: the parts the change would remove */
  wipes?: string[];
  /** formula-incomplete: what is still missing */
  missing?: string[];
}

export function problemOf(err: unknown): CallProblem {
  const e = (err ?? {}) as { status?: number; problem?: Record<string, unknown> };
  const p = e.problem ?? {};
  const list = (x: unknown) => (Array.isArray(x) ? x.map(String) : undefined);
  return {
    status: typeof e.status === 'number' ? e.status : 0,
    title: typeof p.title === 'string' ? p.title : undefined,
    detail: typeof p.detail === 'string' ? p.detail : undefined,
    errors: p.errors && typeof p.errors === 'object' ? p.errors as Record<string, string> : undefined,
    wipes: list(p.wipes),
    missing: list(p.missing),
  };
}

/** The end of a formula in a role. */
export const endOf = (formula: FormulaView, role: Role) => (role === 'source' ? formula.sourceDataSource : formula.firstDestinationDataSource);

export const systemLabel = (system: SystemId) => connectorFor(system).name;

/** Says the step saved (SPEC.md section 8's words) and moves the wizard on. */
export function announceSaved(props: Pick<StepProps, 'step' | 'onSaved'>, formula?: FormulaView) {
  notifications.show({ color: 'green', message: savedMessage(props.step) });
  props.onSaved(formula);
}

export function announceSaveFailed(step: StepProps['step'], err: unknown) {
  const p = problemOf(err);
  notifications.show({ color: 'red', title: saveFailedMessage(step), message: p.detail ?? 'Try again.' });
}

const partLabel = (part: string) => (part in FORMULA_PARTS ? FORMULA_PARTS[part as FormulaPartName].label : part);

/** Asks whether to go on with a change that removes these parts of the formula (open while `wipes` is not null). */
export function WipeConfirmation({ wipes, onConfirm, onCancel }: { wipes: readonly string[] | null; onConfirm(): void; onCancel(): void }) {
  return (
    <Modal
      opened={wipes !== null}
      onClose={onCancel}
      title={PROBLEM_TITLES['formula-wipe-unconfirmed'].replace(' Confirm to go on.', '')}
      data-testid="wipe-confirmation"
    >
      <Text size="sm">This change removes these parts of the formula; everything else stays:</Text>
      <List size="sm" my="sm" aria-label="Parts that will be removed">
        {(wipes ?? []).map((w) => <List.Item key={w}>{partLabel(w)}</List.Item>)}
      </List>
      <Text size="sm">They have to be set up again for the new object.</Text>
      <Group justify="flex-end" mt="md">
        <Button variant="default" onClick={onCancel}>Cancel</Button>
        <Button color="red" onClick={onConfirm}>Change and remove them</Button>
      </Group>
    </Modal>
  );
}

/** A link to a screen of the app: through the router when there is one (tests render steps without). */
export function AppLink({ to, children }: { to: string; children: ReactNode }) {
  const inRouter = useInRouterContext();
  return inRouter ? <Anchor component={Link} to={to}>{children}</Anchor> : <Anchor href={to}>{children}</Anchor>;
}

// the upload screen (and its dropzone) loads only when a file is to be uploaded
const UploadPage = lazy(() => import('../../upload/UploadPage.tsx').then((m) => ({ default: m.UploadPage })));

/** "Upload a new file": the upload screen in a dialog; the file uploaded is handed back. */
export function UploadSampleButton({ onUploaded, disabled }: { onUploaded(summary: UploadSummary): void; disabled?: boolean }) {
  const [open, setOpen] = useState(false);
  const done = useRef(onUploaded);
  done.current = onUploaded;
  const uploaded = useCallback((summary: UploadSummary) => {
    setOpen(false);
    done.current(summary);
  }, []);
  return (
    <>
      <Button variant="default" leftSection={<IconUpload size={16} aria-hidden />} onClick={() => setOpen(true)} disabled={disabled}>
        Upload a new file
      </Button>
      <Modal opened={open} onClose={() => setOpen(false)} title="Upload a sample file" size="lg">
        {open && <Suspense fallback={<Loader size="sm" aria-label="Loading the upload" />}><UploadPage onUploaded={uploaded} /></Suspense>}
      </Modal>
    </>
  );
}

/** An upload as the file-upload data source lists it (its objects are the uploads). */
export const uploadAsObject = (u: UploadSummary) => ({ name: u.id, label: `${u.fileName} (${u.createdOn.slice(0, 10)})` });
