/**
 * A Salesforce report as a formula's source (SPEC.md section 4): its id is checked for its form,
 * then with Salesforce, before it is kept: Invalid Report ID, Add Date Filter or Missing Access,
 * or the report's name and the date column its rows are read by. A saved report counts as
 * checked; an id checked already, or being checked, is not asked about again.
 */
import { assign, fromPromise, setup, type ActorRefFrom } from 'xstate';
import {
  ADD_DATE_FILTER, INVALID_REPORT_ID, isSalesforceReportId, MISSING_ACCESS, SALESFORCE_REPORT_PROBLEMS,
} from '../domain/connectionErrors.ts';
import { integrations } from '../services/integrations.ts';

export interface ReportCheckInput {
  dataSourceId: string;
  /** the report the formula reads now, if any */
  savedReportId?: string;
}

export interface ReportCheckContext {
  dataSourceId: string;
  /** the id checked last (or being checked) */
  id: string;
  name: string;
  dateFilterColumn: string;
  /** why the id cannot be kept */
  message: string | null;
}

export type ReportCheckEvent = { type: 'report.check'; id: string };

export interface ReportFound { name: string; dateFilterColumn: string }

const REPORT_MESSAGES: Record<string, string> = {
  [SALESFORCE_REPORT_PROBLEMS.invalid]: INVALID_REPORT_ID,
  [SALESFORCE_REPORT_PROBLEMS.dateFilter]: ADD_DATE_FILTER,
  [SALESFORCE_REPORT_PROBLEMS.access]: MISSING_ACCESS,
};

function messageOf(error: unknown): string {
  const problem = (error as { problem?: { title?: unknown; detail?: unknown } } | null)?.problem;
  const title = typeof problem?.title === 'string' ? problem.title : '';
  return REPORT_MESSAGES[title] || (typeof problem?.detail === 'string' && problem.detail) || 'The report could not be checked.';
}

const idOf = (event: ReportCheckEvent) => event.id.trim();

export const reportCheckMachine = setup({
  types: {
    context: {} as ReportCheckContext,
    events: {} as ReportCheckEvent,
    input: {} as ReportCheckInput,
  },
  actors: {
    checkReport: fromPromise<ReportFound, { dataSourceId: string; reportId: string }>(({ input }) => integrations.checkSalesforceReport(input.dataSourceId, input.reportId, { silent: true })),
  },
  guards: {
    hasSavedReport: ({ context }) => context.id !== '',
    isReportId: ({ event }) => isSalesforceReportId(idOf(event)),
    /** the id is the one checked (or being checked) now */
    isSameId: ({ context, event }) => context.id === idOf(event),
  },
  actions: {
    keepId: assign({ id: ({ event }) => idOf(event), message: null }),
    refuseForm: assign({ id: ({ event }) => idOf(event), message: INVALID_REPORT_ID }),
  },
}).createMachine({
  id: 'reportCheck',
  initial: 'starting',
  context: ({ input }) => ({ dataSourceId: input.dataSourceId, id: input.savedReportId ?? '', name: '', dateFilterColumn: '', message: null }),
  on: {
    'report.check': [
      // another id while one is checked is checked instead
      { guard: 'isReportId', target: '.checking', reenter: true, actions: 'keepId' },
      { target: '.invalid', actions: 'refuseForm' },
    ],
  },
  states: {
    starting: {
      always: [{ guard: 'hasSavedReport', target: 'valid' }, { target: 'idle' }],
    },
    idle: {},
    checking: {
      on: { 'report.check': { guard: 'isSameId' } },
      invoke: {
        id: 'checkReport',
        src: 'checkReport',
        input: ({ context }) => ({ dataSourceId: context.dataSourceId, reportId: context.id }),
        onDone: { target: 'valid', actions: assign({ name: ({ event }) => event.output.name, dateFilterColumn: ({ event }) => event.output.dateFilterColumn }) },
        onError: { target: 'invalid', actions: assign({ message: ({ event }) => messageOf(event.error) }) },
      },
    },
    valid: {
      on: { 'report.check': { guard: 'isSameId' } },
    },
    invalid: {},
  },
});

export type ReportCheckRef = ActorRefFrom<typeof reportCheckMachine>;
