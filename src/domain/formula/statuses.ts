/**
 * The statuses and buckets of SPEC.md sections 3 and 4: a formula's job status (what its run is
 * doing), its status in formula lists, and the buckets records sit in.
 */

/** What a formula's job is doing now (SPEC.md section 4). */
export const JOB_STATUSES = [
  'applying-edits', 'clearing-data', 'errored', 'finished', 'finished-pulling', 'on-demand', 'paused',
  'running', 'scheduled', 'scheduling', 'waiting', 'retrying',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** A formula as lists show it (SPEC.md section 4). */
export const FORMULA_LIST_STATUSES = ['error', 'inactive', 'paused', 'active', 'toggling', 'clearing', 'processing'] as const;
export type FormulaListStatus = (typeof FORMULA_LIST_STATUSES)[number];

/** What a formula's list status is read from: it is derived, never stored, so it cannot drift. */
export interface FormulaStatusFacts {
  enabled: boolean;
  paused: boolean;
  jobStatus: JobStatus | null;
  lastError: string | null;
}

/**
 * A formula as lists show it: an unresolved failure first (errored until a user dismisses it), then
 * what its job is doing now (clearing, being switched on or off, running or applying edits), then
 * whether it is paused, active or inactive.
 */
export function formulaListStatus(f: FormulaStatusFacts): FormulaListStatus {
  if (f.lastError !== null || f.jobStatus === 'errored') return 'error';
  switch (f.jobStatus) {
    case 'clearing-data': return 'clearing';
    case 'scheduling': return 'toggling';
    case 'running': case 'applying-edits': case 'retrying': case 'finished-pulling': return 'processing';
    default: break;
  }
  if (f.paused) return 'paused';
  return f.enabled ? 'active' : 'inactive';
}

/** The buckets records sit in (SPEC.md section 3); a failed validation rule names a custom bucket. */
export const BUCKETS = [
  'new', 'one-to-one-match', 'one-to-many-match', 'exception', 'formula-exception', 'relationship-match', 'validation-exception',
] as const;
export type Bucket = (typeof BUCKETS)[number];

/** The buckets as people read them. */
export const BUCKET_LABELS: Record<Bucket, string> = {
  'new': 'New', 'one-to-one-match': 'One-to-one match', 'one-to-many-match': 'Multiple matches', 'exception': 'Exception',
  'formula-exception': 'Formula exception', 'relationship-match': 'Relationship match', 'validation-exception': 'Validation exception',
};

/** Where a record stands on its way to the destination. */
export const RECORD_STATES = [
  /** routed to Needs Attention: a person decides */
  'needs-attention',
  /** routed to Ready: sent when the formula sends automatically, or when a person sends it */
  'ready',
  /** left out by a routing rule */
  'omitted',
  /** being written to the destination */
  'sending',
  'sent',
  /** the destination refused it, or a rule failed: see the error reason */
  'failed',
] as const;
export type RecordState = (typeof RECORD_STATES)[number];

/** The states as people read them. */
export const RECORD_STATE_LABELS: Record<RecordState, string> = {
  'needs-attention': 'Needs Attention', 'ready': 'Ready', 'omitted': 'Omitted', 'sending': 'Sending', 'sent': 'Sent', 'failed': 'Failed',
};

/** What a person decided for a record on a bucket screen: reprocessing keeps it unless asked to route the record again. */
export const RECORD_DECISIONS = ['picked', 'new', 'ready'] as const;
export type RecordDecision = (typeof RECORD_DECISIONS)[number];

/** A custom validation bucket's name: what users type, kept to letters, digits, spaces, dashes and underscores. */
export const CUSTOM_BUCKET_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 _-]{0,39}$/;

/** What started a run of a formula's pipeline. */
export const RUN_KINDS = ['scheduled', 'on-demand', 'run-once', 'file', 'reprocess'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** What started a run, as the run history and the Sent records say it. */
export const RUN_TRIGGER_LABELS: Record<RunKind, string> = {
  scheduled: 'Schedule', 'on-demand': 'Run now', 'run-once': 'Run once', file: 'Upload', reprocess: 'Reprocess',
};

/** What a run reads beyond the formula: run once's dates (YYYY-MM-DD), a file upload's upload. */
export interface RunParams {
  from?: string;
  to?: string;
  uploadId?: string;
  /** how far a file or run-once run has collected (the connector's watermark within the run) */
  cursor?: string;
  /** reprocessing pauses incoming data: whether the formula was paused before, to restore it after */
  wasPaused?: boolean;
  /** reprocessing routes again also the records a person has decided for or corrected (asked for explicitly) */
  includeReviewed?: boolean;
  /** who asked for the reprocessing, for the activity history */
  requestedBy?: string;
}
