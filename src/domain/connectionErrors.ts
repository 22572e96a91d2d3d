/**
 * Connection errors (SPEC.md section 8): the titles 'Connection Failed' and 'Connection Error',
 * the four codes, and the Salesforce report checks (Invalid Report ID, Add Date Filter, Missing Access).
 */
import { PROBLEM_TITLES } from './errors.ts';

export const CONNECTION_FAILED = PROBLEM_TITLES['connection-failed'];
export const CONNECTION_ERROR = PROBLEM_TITLES['connection-error'];

export const CONNECTION_ERROR_CODES = [
  'clientdatasource-connection-failed',
  'formula-connection-error',
  'processing-error',
  'unknown',
] as const;
export type ConnectionErrorCode = (typeof CONNECTION_ERROR_CODES)[number];

/**
 * What each code means and how the screen titles it:
 * - clientdatasource-connection-failed: the system refused the settings (credentials, host, key).
 * - formula-connection-error: a formula's source or destination could not be reached.
 * - processing-error: the system answered, but not as its API documents (an outage, an odd answer).
 * - unknown: anything else.
 */
export const CONNECTION_ERRORS: Record<ConnectionErrorCode, { problemTitle: 'connection-failed' | 'connection-error'; status: number; hint: string }> = {
  'clientdatasource-connection-failed': {
    problemTitle: 'connection-failed', status: 422,
    hint: 'Check the settings and credentials, then test again.',
  },
  'formula-connection-error': {
    problemTitle: 'connection-error', status: 502,
    hint: 'A formula could not reach this data source. Test the connection, then retry the formula.',
  },
  'processing-error': {
    problemTitle: 'connection-error', status: 502,
    hint: 'The system answered in a way Tributary could not process. Try again later.',
  },
  'unknown': {
    problemTitle: 'connection-error', status: 500,
    hint: 'Something unexpected went wrong. Try again later.',
  },
};

export const isConnectionErrorCode = (s: unknown): s is ConnectionErrorCode =>
  typeof s === 'string' && (CONNECTION_ERROR_CODES as readonly string[]).includes(s);

/** 'Connection Failed' or 'Connection Error', for a code (an unrecognised one is unknown). */
export function connectionErrorTitle(code: string | undefined): string {
  const c: ConnectionErrorCode = isConnectionErrorCode(code) ? code : 'unknown';
  return PROBLEM_TITLES[CONNECTION_ERRORS[c].problemTitle];
}

/** Salesforce reports (SPEC.md sections 5 and 8). */
export const SALESFORCE_REPORT_PROBLEMS = {
  invalid: 'invalid-report-id',
  dateFilter: 'report-date-filter',
  access: 'report-missing-access',
} as const;
export const INVALID_REPORT_ID = PROBLEM_TITLES['invalid-report-id'];
export const ADD_DATE_FILTER = PROBLEM_TITLES['report-date-filter'];
export const MISSING_ACCESS = PROBLEM_TITLES['report-missing-access'];

/** A report id is a Salesforce id of the Report object: key prefix 00O, 15 or 18 characters. */
export function isSalesforceReportId(id: string): boolean {
  return /^00O[A-Za-z0-9]{12}([A-Za-z0-9]{3})?$/.test(id.trim());
}
