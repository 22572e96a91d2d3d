/**
 * File upload (SPEC.md sections 4, 5, 8 and 9): limits, accepted types, the eight outcomes and
 * their messages. Shared by the upload screen, its machine and the flat file service.
 */
import { MESSAGES, PROBLEM_TITLES } from './errors.ts';

/** SPEC.md section 5 and 9: max 15MB, counted in bytes (exactly 15 * 1024 * 1024 is accepted). */
export const MAX_UPLOAD_BYTES = 15 * 1024 * 1024;
/** SPEC.md section 5: a file name under 150 characters. */
export const MAX_FILE_NAME_LENGTH = 149;
/** SPEC.md section 9: only the headers and the first 20 rows are kept. */
export const SAMPLE_ROWS = 20;

/** CSV or Excel (SPEC.md section 5; Secure FTP processes the same three). */
export const ACCEPTED_EXTENSIONS = ['.csv', '.xlsx', '.xls'] as const;
export type FileKind = 'csv' | 'xlsx' | 'xls';
export const ACCEPTED_MIME_TYPES: Record<FileKind, string[]> = {
  csv: ['text/csv', 'application/csv', 'text/plain', 'application/vnd.ms-excel'],
  xlsx: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  xls: ['application/vnd.ms-excel'],
};

/** SPEC.md section 4, in its order. */
export const UPLOAD_OUTCOMES = [
  'success', 'unsupported-type', 'size-too-big', 'unreachable-server',
  'file-name-too-long', 'empty', 'wrong-structure', 'virus-found',
] as const;
export type UploadOutcome = (typeof UPLOAD_OUTCOMES)[number];

/** What the upload screen says for each outcome; SPEC.md section 8 gives three word for word. */
export const UPLOAD_MESSAGES: Record<UploadOutcome, string> = {
  'success': 'File uploaded',
  'unsupported-type': MESSAGES.fileType,
  'size-too-big': MESSAGES.fileSize,
  'unreachable-server': 'The server could not be reached. Check your connection and try again.',
  'file-name-too-long': PROBLEM_TITLES['file-name-too-long'],
  'empty': PROBLEM_TITLES['file-empty'],
  'wrong-structure': PROBLEM_TITLES['file-wrong-structure'],
  'virus-found': MESSAGES.virus,
};

/** Shown with a successful upload when no virus scanner is configured: never "clean". */
export const NOT_SCANNED_MESSAGE = 'The file was not scanned for viruses: no virus scanner is configured.';

export type ScanStatus = 'clean' | 'not-scanned';

/** The flat file service's problem titles, one per failing outcome (plus the scanner's own refusals). */
export const UPLOAD_PROBLEMS = {
  'file-type-not-accepted': 'unsupported-type',
  'file-too-large': 'size-too-big',
  'file-name-too-long': 'file-name-too-long',
  'file-empty': 'empty',
  'file-wrong-structure': 'wrong-structure',
  'virus-found': 'virus-found',
  /** larger than the virus scanner accepts: refused, never passed unscanned */
  'file-too-large-to-scan': 'size-too-big',
  /** the configured scanner did not answer: the file is refused, never passed unscanned */
  'virus-scanner-unavailable': 'unreachable-server',
} as const satisfies Record<string, Exclude<UploadOutcome, 'success'>>;
export type UploadProblemTitle = keyof typeof UPLOAD_PROBLEMS;

/**
 * The same file (by its bytes) uploaded to a formula before: its rows are records of the formula
 * already, so taking it again is asked first (the flat file service answers 'upload-already-taken'
 * with this as `previous`, unless the upload says `again=true`).
 */
export interface EarlierUpload {
  id: string;
  fileName: string;
  /** ISO time */
  uploadedOn: string;
  /** the full name of the user who uploaded it */
  uploadedBy: string;
}

/** "This file was uploaded on 27 Nov 2026 at 14:02 by Ada Lovelace; upload again?", in the reader's time zone. */
export function uploadAgainQuestion(earlier: Pick<EarlierUpload, 'uploadedOn' | 'uploadedBy'>, timeZone?: string): string {
  const at = new Date(earlier.uploadedOn);
  const zone = timeZone ? { timeZone } : {};
  const day = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', ...zone }).format(at);
  const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', ...zone }).format(at);
  return `This file was uploaded on ${day} at ${time} by ${earlier.uploadedBy}; upload again?`;
}

/** What the server keeps of an upload and answers with. */
export interface UploadSummary {
  id: string;
  fileName: string;
  size: number;
  detectedType: FileKind;
  headers: string[];
  sampleRows: string[][];
  rowCount: number | null;
  scanStatus: ScanStatus;
  createdOn: string;
  /** the file-upload formula it was uploaded to, which collects every row */
  formulaId?: string | null;
}

export const extensionOf = (fileName: string): string => {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? '' : fileName.slice(dot).toLowerCase();
};

export const hasAcceptedExtension = (fileName: string): boolean =>
  (ACCEPTED_EXTENSIONS as readonly string[]).includes(extensionOf(fileName));

/** Characters as a person counts them (code points), so an emoji is one. */
export const fileNameLength = (fileName: string): number => [...fileName].length;

/**
 * The checks a browser can make before sending (and the server repeats): name, type by extension,
 * size. The real type and structure are checked by content on the server.
 */
export function checkFileBeforeUpload(file: { name: string; size: number }): Exclude<UploadOutcome, 'success'> | null {
  if (fileNameLength(file.name) > MAX_FILE_NAME_LENGTH) return 'file-name-too-long';
  if (!hasAcceptedExtension(file.name)) return 'unsupported-type';
  if (file.size > MAX_UPLOAD_BYTES) return 'size-too-big';
  if (file.size === 0) return 'empty';
  return null;
}

/**
 * The outcome an answer of the flat file service stands for: its problem title, else 413/415;
 * no answer at all (status 0) or a server failure (5xx) is 'unreachable-server'. Anything else
 * (sign-in expired, no permission) is no upload outcome: null.
 */
export function outcomeForProblem(title: string | undefined, status: number): Exclude<UploadOutcome, 'success'> | null {
  if (title && title in UPLOAD_PROBLEMS) return UPLOAD_PROBLEMS[title as UploadProblemTitle];
  if (status === 413) return 'size-too-big';
  if (status === 415) return 'unsupported-type';
  if (status === 0 || status >= 500) return 'unreachable-server';
  return null;
}
