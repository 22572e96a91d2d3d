/**
 * What a user may do to a live formula from a formula list (SPEC.md section 4): run it now, pause
 * or resume it, activate or deactivate it, reprocess it after edits, clear its data, and dismiss
 * its error with or without a retry. Which commands a formula offers follows from its status; who
 * may use one follows from its endpoint's access in the contract, so buttons and server agree.
 */
import { formulasService } from '../api/formulas.ts';
import { can, type Policies } from '../roles.ts';
import type { FormulaListStatus } from './statuses.ts';

export const FORMULA_COMMANDS = ['run', 'retryNow', 'pause', 'resume', 'activate', 'deactivate', 'reprocess', 'clear', 'dismiss', 'retry'] as const;
export type FormulaCommandName = (typeof FORMULA_COMMANDS)[number];

/** the endpoint of src/domain/api/formulas.ts each command calls */
export const COMMAND_ENDPOINTS = {
  run: 'run', retryNow: 'retryNow', pause: 'pause', resume: 'resume', activate: 'activate', deactivate: 'deactivate',
  reprocess: 'reprocess', clear: 'clear', dismiss: 'dismissError', retry: 'dismissError',
} as const satisfies Record<FormulaCommandName, keyof typeof formulasService.endpoints>;

export const COMMAND_LABELS: Record<FormulaCommandName, string> = {
  run: 'Run now', retryNow: 'Retry now', pause: 'Pause', resume: 'Resume', activate: 'Activate', deactivate: 'Deactivate',
  reprocess: 'Reprocess', clear: 'Clear data', dismiss: 'Dismiss', retry: 'Dismiss and retry',
};

/**
 * Commands the user confirms first: those that lose something (records, or the schedule), and
 * reprocessing, which changes many records at once (its confirmation says which it will and will
 * not change, and lets the user route the records people decided for again too).
 */
export const CONFIRMED_COMMANDS = ['clear', 'deactivate', 'reprocess'] as const satisfies readonly FormulaCommandName[];
export const needsConfirmation = (name: FormulaCommandName) => (CONFIRMED_COMMANDS as readonly string[]).includes(name);

/** Whether the role table lets these policies call the command's endpoint. */
export function mayCommand(policies: Policies, name: FormulaCommandName): boolean {
  const access = formulasService.endpoints[COMMAND_ENDPOINTS[name]].access;
  return typeof access === 'object' && can(policies, access.resource, access.action);
}

/** What the commands depend on: the formula as saved, and its live status. */
export interface CommandFacts {
  isDraft: boolean;
  /** archived: it never runs */
  archived?: boolean;
  usesFileUpload: boolean;
  status: FormulaListStatus;
  enabled: boolean;
  paused: boolean;
  needsReprocess: boolean;
  lastError: string | null;
  /** the live job status: 'retrying' while a run waits out its retry delay (attempt n of 10) */
  jobStatus?: string | null;
}

export interface OfferedCommand {
  name: FormulaCommandName;
  /** offered but not possible now (a run or a clearing is under way) */
  enabled: boolean;
}

/**
 * The commands a formula offers these policies, in the order they show. A draft offers none (the
 * wizard activates it), nor does an archived formula (it never runs: it is unarchived first). While
 * a run or a clearing is under way nothing that starts another can be used; while the formula is
 * errored, 'Dismiss and retry' replaces 'Run now'.
 */
export function commandsFor(f: CommandFacts, policies: Policies): OfferedCommand[] {
  if (f.isDraft || f.archived) return [];
  const busy = f.status === 'processing' || f.status === 'clearing' || f.status === 'toggling';
  const errored = f.lastError !== null;
  const offered: [FormulaCommandName, boolean, boolean][] = [
    // [command, offered, usable now]
    ['run', !f.usesFileUpload, !busy && !errored],
    // the countdown stays on the card: this only ends the wait
    ['retryNow', f.jobStatus === 'retrying', true],
    ['pause', f.enabled && !f.paused, f.status !== 'clearing'],
    ['resume', f.paused, f.status !== 'clearing'],
    ['reprocess', f.needsReprocess, !busy],
    ['activate', !f.enabled, !busy],
    ['deactivate', f.enabled, f.status !== 'clearing'],
    ['clear', true, !busy],
    ['dismiss', errored, true],
    ['retry', errored && !f.usesFileUpload, true],
  ];
  return offered.filter(([name, shown]) => shown && mayCommand(policies, name)).map(([name, , enabled]) => ({ name, enabled }));
}
