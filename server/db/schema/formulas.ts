/**
 * Formulas (SPEC.md section 3) and their parts, runs and records: the tables behind the formula
 * model of src/domain/formula. Every row carries its tenant (DESIGN.md section 4a), child rows too.
 */
import { sql, type SQL } from 'drizzle-orm';
import { type AnyPgColumn, bigint, boolean, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import type { FormulaPartName } from '../../../src/domain/formula/parts.ts';
import type { Bucket, JobStatus, RecordDecision, RecordState, RunKind, RunParams } from '../../../src/domain/formula/statuses.ts';
import { isOutcomeView, OUTCOME_VIEWS, RECORD_VIEWS, RECORD_VIEW_IDS, type RecordSort, type RecordViewDef } from '../../../src/domain/records/query.ts';
import { tenants, users } from './accounts.ts';
import { dataSources } from './connections.ts';
import { uploads } from './uploads.ts';

export const formulas = pgTable('formulas', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  /** can be unset (SPEC.md section 3) */
  name: text('name'),
  isDraft: boolean('is_draft').notNull().default(true),
  usesFileUpload: boolean('uses_file_upload').notNull().default(false),
  /** a data source in use cannot be deleted (SPEC.md section 5): the foreign key refuses it too */
  sourceDataSourceId: uuid('source_data_source_id'),
  sourceObject: text('source_object'),
  sourceSettings: jsonb('source_settings').$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
  destinationDataSourceId: uuid('destination_data_source_id'),
  destinationObject: text('destination_object'),
  destinationSettings: jsonb('destination_settings').$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
  /** a file-upload formula's sample: one of the tenant's uploads */
  sampleUploadId: uuid('sample_upload_id'),
  jobStatus: text('job_status').$type<JobStatus>(),
  /** set when a part of a live formula changes, cleared by reprocessing */
  needsReprocess: boolean('needs_reprocess').notNull().default(false),
  /** how far collection has read the source (the connector's own watermark) */
  watermark: text('watermark'),
  /** activated: it collects on its schedule (a paused formula stays enabled) */
  enabled: boolean('enabled').notNull().default(false),
  /** paused by a user, or by reprocessing: no collection until resumed */
  paused: boolean('paused').notNull().default(false),
  /** when the scheduler next starts a run; null: no schedule (inactive, paused, file upload) */
  nextRunAt: timestamp('next_run_at', { withTimezone: true }),
  /** why the last run failed for good; the formula shows as errored until a user dismisses it */
  lastError: text('last_error'),
  lastRunId: uuid('last_run_id'),
  /** archived: it never runs again (no schedule, no runs, no uploads) and keeps its records and history until deleted */
  archivedOn: timestamp('archived_on', { withTimezone: true }),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
  modifiedBy: uuid('modified_by').references(() => users.id, { onDelete: 'set null' }),
  modifiedOn: timestamp('modified_on', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  // child rows name their formula and tenant together: a row can never point into another tenant
  unique('formulas_id_tenant_key').on(t.id, t.tenantId),
  foreignKey({ name: 'formulas_source_fk', columns: [t.sourceDataSourceId, t.tenantId], foreignColumns: [dataSources.id, dataSources.tenantId] }),
  foreignKey({ name: 'formulas_destination_fk', columns: [t.destinationDataSourceId, t.tenantId], foreignColumns: [dataSources.id, dataSources.tenantId] }),
  foreignKey({ name: 'formulas_sample_upload_fk', columns: [t.sampleUploadId, t.tenantId], foreignColumns: [uploads.id, uploads.tenantId] }),
  index('formulas_tenant_idx').on(t.tenantId),
  index('formulas_source_idx').on(t.sourceDataSourceId).where(sql`${t.sourceDataSourceId} is not null`),
  index('formulas_destination_idx').on(t.destinationDataSourceId).where(sql`${t.destinationDataSourceId} is not null`),
  // the scheduler's one query: formulas due to run, across tenants
  index('formulas_due_idx').on(t.nextRunAt).where(sql`${t.nextRunAt} is not null`),
]);

/** One row per saved part of a formula; the body is the part's schema output (src/domain/formula/parts.ts). */
export const formulaParts = pgTable('formula_parts', {
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  formulaId: uuid('formula_id').notNull(),
  part: text('part').$type<FormulaPartName>().notNull(),
  body: jsonb('body').notNull(),
  modifiedBy: uuid('modified_by').references(() => users.id, { onDelete: 'set null' }),
  modifiedOn: timestamp('modified_on', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.formulaId, t.part] }),
  foreignKey({ name: 'formula_parts_formula_fk', columns: [t.formulaId, t.tenantId], foreignColumns: [formulas.id, formulas.tenantId] }).onDelete('cascade'),
  index('formula_parts_tenant_idx').on(t.tenantId),
]);

/** A run of a formula's pipeline: scheduled, on demand, run once, a file, reprocessing or a dry run. */
export const formulaRuns = pgTable('formula_runs', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  formulaId: uuid('formula_id').notNull(),
  kind: text('kind').$type<RunKind>().notNull(),
  /** what the run reads: run once's date range, a file upload's upload id */
  params: jsonb('params').$type<RunParams>().notNull().default(sql`'{}'::jsonb`),
  status: text('status').$type<JobStatus>().notNull(),
  /** attempt n of MAX_RETRY_ATTEMPTS, and when the next one starts while retrying */
  attempt: integer('attempt').notNull().default(1),
  nextRetryAt: timestamp('next_retry_at', { withTimezone: true }),
  /** records per bucket and per outcome */
  counts: jsonb('counts').$type<Record<string, number>>().notNull().default(sql`'{}'::jsonb`),
  error: text('error'),
  /** the pg-boss job working this run (its retries keep the id) */
  jobId: text('job_id'),
  correlationId: text('correlation_id').notNull(),
  startedBy: uuid('started_by').references(() => users.id, { onDelete: 'set null' }),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
  /** when its job first began working it (created_on is when it was asked for) */
  startedOn: timestamp('started_on', { withTimezone: true }),
  finishedOn: timestamp('finished_on', { withTimezone: true }),
}, (t) => [
  foreignKey({ name: 'formula_runs_formula_fk', columns: [t.formulaId, t.tenantId], foreignColumns: [formulas.id, formulas.tenantId] }).onDelete('cascade'),
  index('formula_runs_formula_idx').on(t.formulaId, t.createdOn),
]);

type SortColumns = { dateAdded: AnyPgColumn; dateProcessed: AnyPgColumn; score: AnyPgColumn; errorDate: AnyPgColumn };
/** The bucket screens' sorts (src/domain/records/query.ts), as indexable expressions: a null sorts as the lowest value. */
export const RECORD_SORT_SQL = {
  dateAdded: (t: SortColumns) => sql`${t.dateAdded}`,
  dateProcessed: (t: SortColumns) => sql`coalesce(${t.dateProcessed}, '-infinity'::timestamptz)`,
  score: (t: SortColumns) => sql`coalesce(${t.score}, -1)`,
  errorDate: (t: SortColumns) => sql`coalesce(${t.errorDate}, '-infinity'::timestamptz)`,
} satisfies Record<RecordSort, (t: SortColumns) => SQL>;
const RECORD_SORT_KEYS = Object.keys(RECORD_SORT_SQL) as RecordSort[];
/** What the text filter searches: the values (not the keys) of raw and transformed data, lower case. */
export const RECORD_SEARCH_TEXT_SQL = sql.raw(`lower(jsonb_path_query_array("raw", '$.*')::text || ' ' || coalesce(jsonb_path_query_array("transformed", '$.*')::text, ''))`);

/** The first record a held copy of a new person waits for (server/engine/process.ts holdCopies), by its source key. */
export const COPY_OF_SQL = sql.raw(`("matching" #>> '{copyOf,sourceKey}')`);

/**
 * The records some bucket screen lists (RECORD_VIEWS): those in a state a view by state shows, or
 * in a bucket a view by bucket shows. The screens' sort and text indexes hold only these, so the
 * records on their way out (sending, then sent: two more row versions each) never write their
 * entries, and a screen's query, whose view implies this condition, still uses them.
 */
const viewDefs: readonly RecordViewDef[] = RECORD_VIEW_IDS.filter((id) => !isOutcomeView(id)).map((id) => RECORD_VIEWS[id]);
const LISTED_STATES = [...new Set(viewDefs.flatMap((d) => (d.buckets ? [] : d.states ?? [])))];
const LISTED_BUCKETS = [...new Set(viewDefs.flatMap((d) => (d.states ? [] : d.buckets ?? [])))];
for (const d of viewDefs) {
  // a view by bucket and state must fall inside one of the two lists, or its records would be missing from the indexes
  if (d.buckets && d.states && !d.states.every((x) => LISTED_STATES.includes(x)) && !d.buckets.every((x) => LISTED_BUCKETS.includes(x))) {
    throw new Error('a bucket view lists records the bucket screen indexes leave out');
  }
}
const literals = (values: readonly string[]) => values.map((x) => `'${x}'`).join(', ');
const LISTED_SQL = sql.raw(`"state" in (${literals(LISTED_STATES)}) or "bucket" in (${literals(LISTED_BUCKETS)})`);
/**
 * The records of the outcome views (sent, omitted: views by state alone). A sent record writes one
 * entry per index here, sorted by when it was added or processed, the sorts those views offer first.
 */
const OUTCOME_STATES = [...new Set(OUTCOME_VIEWS.flatMap((id) => {
  const d: RecordViewDef = RECORD_VIEWS[id];
  if (d.buckets || !d.states) throw new Error('an outcome view is a view by state alone');
  return d.states;
}))];
const OUTCOME_SQL = sql.raw(`"state" in (${literals(OUTCOME_STATES)})`);
const OUTCOME_SORTS = ['dateAdded', 'dateProcessed'] as const satisfies readonly RecordSort[];

/** A record on its way from source to destination, with everything SPEC.md section 3 says it keeps. */
export const records = pgTable('records', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  formulaId: uuid('formula_id').notNull(),
  runId: uuid('run_id').references(() => formulaRuns.id, { onDelete: 'set null' }),
  /** the record's identity in the source: collecting it twice finds the same row */
  sourceKey: text('source_key').notNull(),
  /** bumped when the source sends a changed copy of a record already sent: a new write, with a new idempotency key */
  version: integer('version').notNull().default(1),
  bucket: text('bucket').$type<Bucket>().notNull(),
  /** the validation-exceptions bucket a failed rule named */
  customBucket: text('custom_bucket'),
  state: text('state').$type<RecordState>().notNull(),
  raw: jsonb('raw').$type<Record<string, unknown>>().notNull(),
  transformed: jsonb('transformed').$type<Record<string, unknown>>(),
  /** the normalised keys the record was searched by */
  matching: jsonb('matching').$type<Record<string, unknown>>(),
  /** destination candidates with their match reasons and confidence scores */
  candidates: jsonb('candidates').$type<unknown[]>().notNull().default(sql`'[]'::jsonb`),
  /** the best candidate's confidence (0-100); null without candidates */
  score: integer('score'),
  /** the destination record it was matched to or written as (the record id of SPEC.md section 3) */
  destinationRecordId: text('destination_record_id'),
  /** sent with the write, so a retry after a crash never writes twice */
  idempotencyKey: text('idempotency_key').notNull(),
  errorReason: text('error_reason'),
  errorDate: timestamp('error_date', { withTimezone: true }),
  /** what the destination did with it: created or updated */
  outcome: text('outcome').$type<'created' | 'updated'>(),
  /** the run whose send wrote it to the destination; null when a person sent it (sentBy) */
  sentRunId: uuid('sent_run_id').references(() => formulaRuns.id, { onDelete: 'set null' }),
  /** the person whose Send now wrote it to the destination; null when a run sent it */
  sentBy: uuid('sent_by').references(() => users.id, { onDelete: 'set null' }),
  dateAdded: timestamp('date_added', { withTimezone: true }).notNull().defaultNow(),
  dateProcessed: timestamp('date_processed', { withTimezone: true }),
  /** per destination field, false where a person chose that the incoming value must not overwrite the destination's */
  overwrite: jsonb('overwrite').$type<Record<string, boolean>>().notNull().default(sql`'{}'::jsonb`),
  /**
   * what a person decided for the record on a bucket screen (picked a match, Create new, Add to
   * Ready): reprocessing keeps it and does not route the record again unless asked to
   */
  decided: text('decided').$type<RecordDecision>(),
  /** values a person corrected inline, by destination field: laid over the transformed values whenever the record is processed again */
  corrections: jsonb('corrections').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
  /**
   * a record that would create a new person: what the formula's search scenarios would look for
   * in it (src/domain/formula/batchCopies.ts copyKeys), so that its copy in a later batch or
   * upload finds it while it is still to be sent; null for any other record
   */
  copyKeys: text('copy_keys').array(),
}, (t) => [
  foreignKey({ name: 'records_formula_fk', columns: [t.formulaId, t.tenantId], foreignColumns: [formulas.id, formulas.tenantId] }).onDelete('cascade'),
  uniqueIndex('records_formula_source_key_idx').on(t.formulaId, t.sourceKey),
  index('records_tenant_idx').on(t.tenantId),
  // the send stage takes a formula's ready (and interrupted) records in order
  index('records_state_idx').on(t.formulaId, t.state, t.id),
  // Bucket screens page by keyset on (sort key, id) within a view (server/db/repositories/bucketRecords.ts):
  // views by state use the first family, views by bucket (and custom bucket) the second, one index
  // per sort, so every page of every sort reads only its rows at a million records per formula.
  // Nullable sort columns are indexed through RECORD_SORT_SQL's expressions (nulls as the lowest).
  // Only records a screen lists (LISTED_SQL).
  ...RECORD_SORT_KEYS.map((sort) => index(`records_state_${sort}_idx`).on(t.formulaId, t.state, RECORD_SORT_SQL[sort](t), t.id).where(LISTED_SQL)),
  ...RECORD_SORT_KEYS.map((sort) => index(`records_bucket_${sort}_idx`).on(t.formulaId, t.bucket, sql`coalesce(${t.customBucket}, '')`, RECORD_SORT_SQL[sort](t), t.id).where(LISTED_SQL)),
  // the outcome views (sent, omitted) page by their own two sorts
  ...OUTCOME_SORTS.map((sort) => index(`records_outcome_${sort}_idx`).on(t.formulaId, t.state, RECORD_SORT_SQL[sort](t), t.id).where(OUTCOME_SQL)),
  // the text filter: a trigram index over the record's raw and transformed values (pg_trgm, which
  // the embedded PostgreSQL and any plain server ship), so "contains, any case" stays an index search
  index('records_search_trgm_idx').using('gin', sql`${RECORD_SEARCH_TEXT_SQL} gin_trgm_ops`).where(LISTED_SQL),
  // the copies waiting for a record (only copies: sending a batch looks them up by the records it settled)
  index('records_copy_of_idx').on(t.formulaId, COPY_OF_SQL).where(sql`${t.matching} ? 'copyOf'`),
  // the new people still to be sent, by what their copies in later batches search for
  index('records_copy_keys_idx').using('gin', t.copyKeys).where(sql`${t.copyKeys} is not null`),
]);

/**
 * How many records each formula holds per bucket, custom bucket and state, kept as it changes so
 * that counts (bucket screens, Data Queue cards, formula statuses) never count a million records.
 * Rows are deltas: a trigger on `records` (migration 0010) adds one row per group a statement
 * changed, never updating one, so concurrent runs and reviews never wait on a counter; a count is
 * the sum of its rows, and the tally sweep (server/jobs/recordTallySweep.ts) folds them together.
 * No foreign keys: the trigger also fires for records a deleted formula or tenant takes with it,
 * and the sweep drops the rows of formulas that are gone.
 */
export const recordTallies = pgTable('record_tallies', {
  tenantId: uuid('tenant_id').notNull(),
  formulaId: uuid('formula_id').notNull(),
  bucket: text('bucket').$type<Bucket>().notNull(),
  customBucket: text('custom_bucket'),
  state: text('state').$type<RecordState>().notNull(),
  n: bigint('n', { mode: 'number' }).notNull(),
}, (t) => [
  index('record_tallies_formula_idx').on(t.formulaId),
  index('record_tallies_tenant_idx').on(t.tenantId),
]);
