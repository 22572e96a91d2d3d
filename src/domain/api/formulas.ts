/**
 * Contracts of the formulas of the web API (/web-api/v1/formulas): a formula, and the upsert, get
 * and delete of each of its parts. The part endpoints are derived from the part list
 * (src/domain/formula/parts.ts), so each part's body is its own schema.
 */
import * as v from 'valibot';
import { SYSTEM_IDS } from '../connectors/types.ts';
import { CreateFormulaSchema, FormulaFromUploadSchema, UpdateFormulaSchema } from '../formula/formula.ts';
import { FORMULA_PART_NAMES, FORMULA_PARTS, partProblemTitle, type FormulaPartName } from '../formula/parts.ts';
import { RunOnceSchema } from '../formula/parts.ts';
import { BUCKETS, FORMULA_LIST_STATUSES, JOB_STATUSES, RECORD_STATES, RUN_KINDS } from '../formula/statuses.ts';
import { CURSOR_MESSAGE } from '../cursor.ts';
import { endpoint, service, type Endpoint } from './contract.ts';

const FormulaEndViewSchema = v.object({
  dataSourceId: v.string(), object: v.string(), settings: v.record(v.string(), v.string()),
  system: v.picklist(SYSTEM_IDS), displayName: v.string(), hasAdditionalSettings: v.boolean(),
  objectsKept: v.optional(v.boolean()),
});

export const FormulaViewSchema = v.object({
  id: v.string(),
  name: v.nullable(v.string()),
  isDraft: v.boolean(),
  usesFileUpload: v.boolean(),
  sourceDataSource: v.nullable(FormulaEndViewSchema),
  firstDestinationDataSource: v.nullable(FormulaEndViewSchema),
  sampleUploadId: v.nullable(v.string()),
  status: v.picklist(FORMULA_LIST_STATUSES),
  jobStatus: v.nullable(v.picklist(JOB_STATUSES)),
  needsReprocess: v.boolean(),
  parts: v.array(v.picklist(FORMULA_PART_NAMES)),
  /** when it was archived: it runs no more and keeps its records until deleted; null when it is not */
  archivedOn: v.nullable(v.string()),
  createdOn: v.string(),
  modifiedOn: v.string(),
});
export type FormulaViewOut = v.InferOutput<typeof FormulaViewSchema>;

/** A source's sample for the mapping preview: its fields and a few rows of raw values. */
export const SampleSchema = v.object({
  fields: v.array(v.string()),
  rows: v.array(v.record(v.string(), v.unknown())),
});

const view = { resource: 'formula', action: 'view' } as const;
const edit = { resource: 'formula', action: 'edit' } as const;
const run = { resource: 'formula', action: 'run' } as const;
/** archiving and deleting: a formula's lifecycle is theirs who may delete formulas */
const lifecycle = { resource: 'formula', action: 'delete' } as const;

/** One run of a formula's pipeline, with SPEC's job status and, while retrying, attempt n of 10. */
export const RunViewSchema = v.object({
  id: v.string(),
  kind: v.picklist(RUN_KINDS),
  status: v.picklist(JOB_STATUSES),
  /**
   * records per bucket and per outcome: collected, bucket:<name>, state:<state>, created, updated,
   * refused, reprocessed; created, updated and refused include what people sent by hand of the
   * records this run collected (sentByHand of them were sent so)
   */
  counts: v.record(v.string(), v.number()),
  params: v.object({ from: v.optional(v.string()), to: v.optional(v.string()), uploadId: v.optional(v.string()) }),
  error: v.nullable(v.string()),
  /** while retrying: attempt n of `of`, and when the next try starts */
  retry: v.nullable(v.object({ attempt: v.number(), of: v.number(), nextTryAt: v.string() })),
  /** while running: what it has done so far */
  progress: v.nullable(v.object({ done: v.number(), message: v.optional(v.string()) })),
  /** when it was asked for (by its trigger) */
  createdOn: v.string(),
  /** when its job first began working it; null while it waits */
  startedOn: v.nullable(v.string()),
  finishedOn: v.nullable(v.string()),
  /** attempts made so far: 1, or n when it was retried after failures (each failure is in the activity history) */
  attempts: v.number(),
});
export type RunView = v.InferOutput<typeof RunViewSchema>;

/** What the formula cards show and the status stream pushes. */
export const FormulaStatusSchema = v.object({
  id: v.string(),
  status: v.picklist(FORMULA_LIST_STATUSES),
  jobStatus: v.nullable(v.picklist(JOB_STATUSES)),
  enabled: v.boolean(),
  paused: v.boolean(),
  needsReprocess: v.boolean(),
  nextRunAt: v.nullable(v.string()),
  lastError: v.nullable(v.string()),
  lastRun: v.nullable(RunViewSchema),
  /** records per bucket (custom validation buckets as validation-exception/<name>) */
  buckets: v.record(v.string(), v.number()),
  /** what the formula's Data Queue card counts, per bucket screen (src/domain/dataQueue.ts cardCounts): live with the status */
  counts: v.record(v.string(), v.number()),
});
export type FormulaStatus = v.InferOutput<typeof FormulaStatusSchema>;

const DryRunSampleSchema = v.object({
  sourceKey: v.string(),
  bucket: v.picklist(BUCKETS),
  customBucket: v.nullable(v.string()),
  state: v.picklist(RECORD_STATES),
  /** what would happen to it: created or updated in the destination, held for review, omitted, or an exception */
  outcome: v.picklist(['create', 'update', 'hold', 'omit', 'exception']),
  reason: v.nullable(v.string()),
  score: v.nullable(v.number()),
  transformed: v.record(v.string(), v.unknown()),
  candidates: v.array(v.object({ id: v.string(), score: v.number(), reasons: v.array(v.string()) })),
});
export type DryRunSample = v.InferOutput<typeof DryRunSampleSchema>;

export const DryRunResultSchema = v.object({
  examined: v.number(),
  /** whether Ready records would be sent at once or held for review */
  autosend: v.boolean(),
  byBucket: v.record(v.string(), v.number()),
  byOutcome: v.object({ create: v.number(), update: v.number(), hold: v.number(), omit: v.number(), exception: v.number() }),
  samples: v.array(DryRunSampleSchema),
});
export type DryRunResult = v.InferOutput<typeof DryRunResultSchema>;

export const RUN_PAGE_SIZE = 20;
/** A page of the run history: newest first, by keyset cursor. */
export const RunHistoryQuerySchema = v.object({
  cursor: v.optional(v.pipe(v.string(), v.regex(/^[\w-]{1,400}$/, CURSOR_MESSAGE))),
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,3}$/, 'limit is a number from 1 to 100.'), v.transform(Number), v.minValue(1, 'limit is a number from 1 to 100.'), v.maxValue(100, 'limit is a number from 1 to 100.'))),
});
export const RunHistorySchema = v.object({
  runs: v.array(RunViewSchema),
  /** pass as `cursor` for the next (older) page; null on the last */
  nextCursor: v.nullable(v.string()),
});
export type RunHistory = v.InferOutput<typeof RunHistorySchema>;
/** What deleting a formula takes with it: the confirmation says how many records go. */
export const DeletionSchema = v.object({ records: v.number(), runs: v.number() });
export type Deletion = v.InferOutput<typeof DeletionSchema>;

/** Run now, or run once over a date range of at most 30 days. */
export const RunRequestSchema = v.object({ runOnce: v.optional(RunOnceSchema) });
export const DryRunRequestSchema = v.object({ limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(500)), 100) });
export const DismissErrorSchema = v.object({ retry: v.optional(v.boolean(), false) });
/** Reprocessing keeps what people decided and corrected; `includeReviewed=true` routes those records again too (their corrections stay). */
export const ReprocessQuerySchema = v.object({
  includeReviewed: v.optional(v.pipe(
    v.picklist(['true', 'false'], 'includeReviewed is true or false.'), v.transform((s) => s === 'true'),
    v.description('true: the records people decided for (a picked match, Create new, Add to Ready) or corrected are matched and routed again too; their inline corrections stay'),
  )),
});

const PartEnvelope = <S extends v.GenericSchema>(body: S) => v.object({ part: v.string(), body, modifiedOn: v.string() });

type PartEndpoints = {
  [K in `${'get' | 'put' | 'delete'}:${FormulaPartName}`]: Endpoint<v.GenericSchema | undefined, v.GenericSchema | null, `/:id/parts/${FormulaPartName}`>;
};

/** get, upsert and delete of every part, from the part list */
const partEndpoints = Object.fromEntries(FORMULA_PART_NAMES.flatMap((part) => {
  const { label, schema } = FORMULA_PARTS[part];
  const path = `/:id/parts/${part}`;
  return [
    [`get:${part}`, endpoint({ method: 'get', path, access: view, response: PartEnvelope(schema), summary: `The formula's ${label}.`, problems: [partProblemTitle(part, 'get')] })],
    [`put:${part}`, endpoint({
      method: 'put', path, access: edit, body: schema, response: PartEnvelope(schema),
      summary: `Saves the formula's ${label}; a live formula then needs reprocessing.`, problems: [partProblemTitle(part, 'upsert'), 'formula-archived'],
    })],
    [`delete:${part}`, endpoint({ method: 'delete', path, access: edit, response: null, status: 204, summary: `Removes the formula's ${label}.`, problems: [partProblemTitle(part, 'delete'), 'formula-archived'] })],
  ];
})) as PartEndpoints;

export const formulasService = service({
  name: 'web API: formulas',
  basePath: '/web-api/v1/formulas',
  endpoints: {
    list: endpoint({ method: 'get', path: '/', access: view, response: v.object({ formulas: v.array(FormulaViewSchema) }), summary: 'The tenant\'s formulas, most recently edited first.' }),
    create: endpoint({
      method: 'post', path: '/', access: { resource: 'formula', action: 'create' }, body: CreateFormulaSchema, response: FormulaViewSchema, status: 201,
      summary: 'Creates a draft formula.',
    }),
    fromUpload: endpoint({
      method: 'post', path: '/from-upload', access: { resource: 'formula', action: 'create' }, body: FormulaFromUploadSchema, response: FormulaViewSchema, status: 201,
      summary: 'Creates a draft file-upload formula from one of the tenant\'s uploads: its source is the tenant\'s built-in File upload data source, its sample that upload, its name the file\'s. No data source rights are needed.',
    }),
    get: endpoint({ method: 'get', path: '/:id', access: view, response: FormulaViewSchema, summary: 'One formula.' }),
    update: endpoint({
      method: 'patch', path: '/:id', access: edit, body: UpdateFormulaSchema, response: FormulaViewSchema,
      summary: 'Name, source and destination with their objects and additional settings. Changing a top-level object wipes mapping, matching and routing, and is refused without confirmWipe.',
      problems: ['formula-wipe-unconfirmed', 'formula-archived'],
    }),
    remove: endpoint({
      method: 'delete', path: '/:id', access: lifecycle, response: null, status: 204,
      summary: 'Deletes a draft, or an archived formula with its parts, runs and records, in one transaction. A formula that is neither is refused: archive it first.',
      problems: ['formula-not-archived'],
    }),
    deletion: endpoint({
      method: 'get', path: '/:id/deletion', access: lifecycle, response: DeletionSchema,
      summary: 'What deleting the formula would take with it: its records and runs, for the confirmation.',
    }),
    archive: endpoint({
      method: 'post', path: '/:id/archive', access: lifecycle, response: FormulaViewSchema,
      summary: 'Archives a live formula: it stops (no schedule, its waiting runs cancelled, no uploads) and keeps its records and activity history.',
      problems: ['formula-archived', 'formula-draft-not-archived'],
    }),
    unarchive: endpoint({
      method: 'post', path: '/:id/unarchive', access: lifecycle, response: FormulaViewSchema,
      summary: 'Brings an archived formula back, inactive: it runs again once activated.',
      problems: ['formula-not-archived'],
    }),
    copy: endpoint({
      method: 'post', path: '/:id/copy', access: { resource: 'formula', action: 'create' }, response: FormulaViewSchema, status: 201,
      summary: 'A new draft named "Copy of <name>" with the same data sources, objects and saved parts; no records, runs, watermark or schedule running.',
    }),
    activate: endpoint({
      method: 'post', path: '/:id/activate', access: edit, response: FormulaViewSchema,
      summary: 'Activates a draft (the processing step): it stops being a draft.', problems: ['formula-incomplete', 'formula-archived'],
    }),
    deactivate: endpoint({ method: 'post', path: '/:id/deactivate', access: run, response: FormulaStatusSchema, summary: 'Stops the formula\'s schedule; records already collected stay.' }),
    pause: endpoint({ method: 'post', path: '/:id/pause', access: run, response: FormulaStatusSchema, summary: 'Pauses incoming data: no collection until resumed (a running run stops after its batch).' }),
    resume: endpoint({ method: 'post', path: '/:id/resume', access: run, response: FormulaStatusSchema, summary: 'Resumes collection on the schedule, and paused runs where they stopped.' }),
    clear: endpoint({
      method: 'post', path: '/:id/clear', access: { resource: 'formula', action: 'delete' }, response: FormulaStatusSchema,
      summary: 'Clears the formula\'s records from every bucket. Refused while a run is under way.', problems: ['formula-busy'],
    }),
    run: endpoint({
      method: 'post', path: '/:id/run', access: run, body: RunRequestSchema, response: RunViewSchema, status: 202,
      summary: 'Runs the formula now (on demand), or once over a date range of at most 30 days. An archived formula never runs.', problems: ['formula-busy', 'formula-incomplete', 'formula-archived'],
    }),
    dryRun: endpoint({
      // it reads the source with the saved credentials: for those who may run the formula, not merely see it
      method: 'post', path: '/:id/dry-run', access: run, body: DryRunRequestSchema, response: DryRunResultSchema,
      summary: 'The whole pipeline over the first records of the source without sending or storing: what would be created, updated, held and omitted.',
      problems: ['formula-incomplete', 'connection-failed', 'connection-error'],
    }),
    reprocess: endpoint({
      method: 'post', path: '/:id/reprocess', access: run, response: RunViewSchema, status: 202, query: ReprocessQuerySchema,
      summary: 'Pauses incoming data and re-runs transform, validation, match and route over the records still held; adds and deletes none. '
        + 'Records people decided for or corrected keep their bucket, match and values unless includeReviewed=true.', problems: ['formula-busy'],
    }),
    dismissError: endpoint({
      method: 'post', path: '/:id/dismiss-error', access: run, body: DismissErrorSchema, response: FormulaStatusSchema,
      summary: 'Dismisses the error of a formula whose run failed for good, and with retry starts a new run.',
    }),
    retryNow: endpoint({
      method: 'post', path: '/:id/retry-now', access: run, response: FormulaStatusSchema,
      summary: 'A run waiting out its retry delay (retrying, attempt n of 10) tries again at once; its count of attempts stays. '
        + 'A formula not waiting so answers formula-busy.', problems: ['formula-busy'],
    }),
    status: endpoint({ method: 'get', path: '/:id/status', access: view, response: FormulaStatusSchema, summary: 'The formula\'s job status, its last run and its records per bucket.' }),
    runs: endpoint({
      method: 'get', path: '/:id/runs', access: view, query: RunHistoryQuerySchema, response: RunHistorySchema,
      summary: 'The formula\'s run history, newest first, a page at a time: each run\'s trigger, start, end, counts per stage, status, and for a failed or retrying run the reason and attempts.',
    }),
    statuses: endpoint({
      method: 'get', path: '/statuses', access: view, response: v.object({ statuses: v.array(FormulaStatusSchema) }),
      summary: 'Every formula\'s status: what the status stream pushes, for browsers that cannot hold one open.',
    }),
    sample: endpoint({
      // it reads the source with the saved credentials: for those who may edit the formula's mapping
      method: 'get', path: '/:id/sample', access: edit, response: SampleSchema,
      summary: 'Sample rows of the formula\'s source for the mapping preview (a file-upload formula: its upload\'s first 20 rows).',
      problems: ['connection-failed', 'connection-error'],
    }),
    ...partEndpoints,
  },
});

/** A formula as the browser reads it, and a formula's sample: what views and machines hold. */
export type FormulaView = FormulaViewOut;
export type FormulaSample = v.InferOutput<typeof SampleSchema>;
