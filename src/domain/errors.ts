/**
 * The error catalogue (SPEC.md section 8). A problem+json `title` is the key the browser looks
 * up here; the server uses the same keys so the two never drift.
 */
import { DATA_QUEUE_MESSAGES } from './dataQueue.ts';
import { PART_PROBLEM_MESSAGES } from './formula/partLabels.ts';
import { ACCOUNT_DEACTIVATED_CODE } from './identity.ts';

export const MESSAGES = {
  generic: 'An error occurred.',
  formula: 'An error related to {formula} occurred.',
  server: 'A server error occured. Please try again later.',
  csvBlocked: 'The browser blocked the CSV download',
  notFound: "We can't find what you're looking for.",
  noEditPermission: 'You do not have editing permission',
  userNotCreated: 'The user has not been created.',
  userNotUpdated: 'The user has not been updated.',
  userNotDeleted: 'Unable to delete the user.',
  passwordNotReset: 'User password has not been reset.',
  fileType: 'File type not accepted',
  fileSize: 'File size cannot exceed 15MB',
  virus: 'Virus found in file',
} as const;

/** What the wizard shows, and the server answers to an edit, of an archived formula. */
export const ARCHIVED_READ_ONLY = 'This formula is archived. Unarchive it to change it.';

/** Problem titles the API emits; each has a catalogue message the browser shows. */
export const PROBLEM_TITLES = {
  'unauthenticated': 'Sign-in required. Please sign in again.',
  'forbidden': 'You do not have permission to do this.',
  'not-found': MESSAGES.notFound,
  'bad-request': 'The request was not valid.',
  'unknown-subdomain': 'This organisation address is not known.',
  'no-tenant-access': 'You do not have access to this tenant.',
  'no-tenants': 'Your account has no tenant. Please contact your administrator.',
  'no-roles': 'Your account has no role. Please contact your administrator.',
  'payload-too-large': 'The request is too large.',
  'unsupported-media-type': 'The request body must be JSON.',
  'method-not-allowed': 'This action is not allowed here.',
  'server-error': MESSAGES.server,
  'too-many-requests': 'Too many refused requests. Please wait a minute and try again.',
  // user management
  'user-not-created': MESSAGES.userNotCreated,
  'user-not-updated': MESSAGES.userNotUpdated,
  'user-not-deleted': MESSAGES.userNotDeleted,
  'password-not-reset': MESSAGES.passwordNotReset,
  // flat file service (src/domain/upload.ts maps each to an upload outcome)
  'file-type-not-accepted': MESSAGES.fileType,
  'file-too-large': MESSAGES.fileSize,
  'file-name-too-long': 'File name must be under 150 characters',
  'file-empty': 'File is empty',
  'file-wrong-structure': 'File must have a header row with a unique name in every column',
  'virus-found': MESSAGES.virus,
  'file-too-large-to-scan': 'File is larger than the virus scanner accepts, so it was not accepted',
  'virus-scanner-unavailable': 'The virus scanner is unavailable, so the file was not accepted. Please try again later.',
  'upload-already-taken': 'This file was already uploaded to this formula.',
  // connections (src/domain/connectionErrors.ts)
  'connection-failed': 'Connection Failed',
  'connection-error': 'Connection Error',
  'datasource-in-use': 'This data source is used by a formula and cannot be deleted.',
  'datasource-built-in': 'This data source comes with your organisation and cannot be deleted.',
  'datasource-name-taken': 'A data source with this name already exists.',
  'invalid-report-id': 'Invalid Report ID',
  'report-date-filter': 'Add Date Filter',
  'report-missing-access': 'Missing Access',
  'import-rows-refused': 'No row of the file could be imported.',
  'import-columns-conflict': 'Two columns of the file give the same field of a constituent.',
  // Connect with the vendor (src/domain/connectors/oauth.ts OAUTH_FAILURES: the detail says why)
  'oauth-not-connected': 'Not connected',
  // formulas
  'formula-wipe-unconfirmed': 'Changing the object wipes the mapping, matching and routing. Confirm to go on.',
  'formula-incomplete': 'The formula is not complete yet.',
  'formula-busy': 'A run of this formula is under way. Try again when it has finished.',
  'formula-archived': ARCHIVED_READ_ONLY,
  'formula-not-archived': 'Archive the formula before deleting it.',
  'formula-draft-not-archived': 'A draft is deleted, not archived.',
  // the Data Queue's tabs
  'tab-limit': DATA_QUEUE_MESSAGES.tabLimit,
  'tab-order-stale': 'The cards of this tab changed meanwhile. Reload to see them.',
  // bucket screens (the records API)
  'no-edit-permission': MESSAGES.noEditPermission,
  'record-incompatible-data': 'Input contains incompatible data',
  'record-not-editable': 'This record has been sent or is being sent, so it can no longer be changed.',
  // exports (the export service)
  'export-gone': 'This export can no longer be downloaded. Start a new export.',
  'export-not-ready': 'This export is not ready to download yet.',
  // get, upsert and delete failures of each part, derived from the part list
  ...PART_PROBLEM_MESSAGES,
} as const;
export type ProblemTitle = keyof typeof PROBLEM_TITLES;

/**
 * What domain code and services throw when a rule refuses a request: a catalogue title, an
 * optional detail for the person, and extension members (for example `errors` by field, or the
 * formulas a data source is `usedBy`). The server's one error map turns it into problem+json
 * with the title's status (server/http/problem.ts); nothing else maps errors.
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly title: ProblemTitle,
    readonly detail?: string,
    readonly extensions: Record<string, unknown> = {},
    /** a finer code than the title, where the catalogue has several (connection errors) */
    readonly code?: string,
  ) {
    super(detail ?? PROBLEM_TITLES[title]);
  }
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  code?: string;
}

export function messageForProblem(problem: Partial<Problem> | undefined): string {
  const title = problem?.title;
  if (title && title in PROBLEM_TITLES) return PROBLEM_TITLES[title as ProblemTitle];
  return MESSAGES.generic;
}

/**
 * Why a request failed, in one place for every screen that says what could not be loaded or done
 * (SPEC.md section 8). A refusal (401, 403) is about the person, never an outage: it reads as its
 * catalogue message ('You do not have editing permission' for an edit), and a plain policy
 * refusal ('forbidden') as `refused` when the caller names what was refused. A connector's
 * failure is the system behind it; no answer, or a 5xx, is our own service.
 */
/** What a refusal of a read says where the catalogue's 'forbidden' is too vague (SPEC.md section 6). */
export const REFUSED_MESSAGES = {
  /** a data source's objects and fields need datasource view */
  sourceFields: "You do not have permission to read the fields of this formula's data sources.",
} as const;

export type RequestFailure =
  | { kind: 'refused'; message: string }
  | { kind: 'system' }
  | { kind: 'service' }
  | { kind: 'other' };

export function requestFailure(error: unknown, o: { refused?: string } = {}): RequestFailure {
  const e = (error ?? {}) as { status?: unknown; problem?: Partial<Problem> };
  const status = typeof e.status === 'number' ? e.status : undefined;
  const title = e.problem?.title;
  if (status === 401 || status === 403) {
    if (status === 403 && o.refused && (!title || title === 'forbidden')) return { kind: 'refused', message: o.refused };
    const known = !!title && title in PROBLEM_TITLES;
    return { kind: 'refused', message: known ? messageForProblem(e.problem) : PROBLEM_TITLES[status === 401 ? 'unauthenticated' : 'forbidden'] };
  }
  if (title === 'connection-failed' || title === 'connection-error') return { kind: 'system' };
  if (status === undefined || status === 0 || status >= 500) return { kind: 'service' };
  return { kind: 'other' };
}

/** What the global HTTP error handling tells the user about a failed request, or null to stay quiet. */
export function globalErrorMessage(e: {
  status: number;
  problem: Partial<Problem>;
  silent?: boolean;
  formula?: { id: string; name?: string | null };
}): string | null {
  if (e.silent) return null;
  // a deactivated account's session ends, and the sign-in page says why (src/machines/auth.ts)
  if (e.problem.code === ACCOUNT_DEACTIVATED_CODE) return null;
  // 400s belong to the form that sent them
  if (e.status === 400) return null;
  // a refusal says so, even from a formula's request: it is never 'an error related to' it
  const failure = requestFailure(e);
  if (failure.kind === 'refused') return failure.message;
  if (e.formula) return MESSAGES.formula.replace('{formula}', e.formula.name || e.formula.id);
  if (e.status >= 500 && !(e.problem.title && e.problem.title in PROBLEM_TITLES)) return MESSAGES.server;
  return messageForProblem(e.problem);
}

export const NOTIFICATION_TIMEOUT_MS = 5000;
