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

/** The buckets records sit in (SPEC.md section 3); a failed validation rule names a custom bucket. */
export const BUCKETS = [
  'new', 'one-to-one-match', 'one-to-many-match', 'exception', 'formula-exception', 'relationship-match', 'validation-exception',
] as const;
export type Bucket = (typeof BUCKETS)[number];

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

/** A custom validation bucket's name: what users type, kept to letters, digits, spaces, dashes and underscores. */
export const CUSTOM_BUCKET_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 _-]{0,39}$/;
