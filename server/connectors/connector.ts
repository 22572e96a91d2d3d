/**
 * The connector interface (DESIGN.md section 2: settings, test, objects, fields, pull, search,
 * upsert). One implementation per system, in server/connectors/<system>/. The engine pulls from a
 * source since a watermark, searches the destination for matches and upserts with an
 * idempotency key, so a retry after a crash never writes a record twice (DESIGN.md section 7).
 */
import type { ConnectionErrorCode } from '../../src/domain/connectionErrors.ts';
import type { ObjectInfo, SystemId } from '../../src/domain/connectors/types.ts';
import type { FieldInfo } from '../../src/domain/api/integrations.ts';
import type { KeyKind } from '../../src/domain/formula/matchKeys.ts';
import type { TenantScope } from '../db/tenancy.ts';
import type { GrantStore } from './kit/grant.ts';
import type { NetworkPolicy } from './network.ts';

export type { FieldInfo };

/** What a connector is given for one call. */
/**
 * What a connector may reach of the tenant's own rows: its id, the uploads the file upload connector
 * reads, the screenings WealthEngine reads back as a source (what it answered for the records sent
 * into it), and the opening of a system's own store kept in this database (the Sandbox CRM's,
 * beside its connector). Nothing else of the scope (formulas, records, credentials) is a connector's business.
 */
export type ConnectorTenant = Pick<TenantScope, 'tenantId' | 'uploads' | 'screenings' | 'open' | 'vendorState'>;

export interface ConnectorContext {
  /** the tenant, as far as connectors need it: they reach Tributary's own rows only through these repositories */
  tenant: ConnectorTenant;
  /** absent while testing settings that are not saved yet */
  dataSourceId?: string;
  /** the connection's settings, secrets included (decrypted for this call only) */
  settings: Record<string, string>;
  /** where Tributary keeps files (flat file and file upload connectors) */
  dataDir: string;
  /** the formula's additional settings for this end (a destination's gift batch prefix), when a formula calls */
  endSettings?: Record<string, string>;
  /** a saved data source's OAuth grant: its current access token and the lock to refresh it (connector kit) */
  grant?: GrantStore;
  /** where hosts from the settings may lead; absent: the public internet only */
  network?: NetworkPolicy;
  signal?: AbortSignal;
  /**
   * The run this context sends for, when a run's job made it (absent for a person's send or a dry
   * run): a destination that groups a run's writes (Financial Edge NXT's journal entry batch)
   * finds the group again in the run's next job.
   */
  runId?: string;
}

export interface TestOutcome {
  /** what the system said, for the user ("Signed in as ada@example.org") */
  detail: string;
  /** secrets the system rotated during the test (a new refresh token), to be saved */
  updatedSecrets?: Record<string, string>;
}

/** A record as the system has it: its id there, and its fields flattened to names and values. */
export interface SourceRecord {
  id: string;
  fields: Record<string, unknown>;
}

/** An opaque position in a source: the engine stores it and passes it back on the next pull. */
export type Watermark = string;

export interface PullBatch {
  records: SourceRecord[];
  /** the position after this batch; the next pull starts here */
  watermark: Watermark | null;
}

export interface PullOptions {
  /** records per batch */
  batchSize?: number;
  /** the formula's additional settings for its source (SFTP afterRead, HTTP changedAfter and query, Salesforce reportId) */
  settings?: Record<string, string>;
  /** run once: only the records changed from `from` up to, not including, `to`; the watermark is neither read nor moved */
  window?: { from: Date; to: Date };
}

export type SearchOperator = 'equals' | 'contains' | 'starts-with';
export interface SearchCriterion { field: string; operator?: SearchOperator; value: string }
/** All criteria must hold (a search scenario: source fields matched to destination fields). */
export interface SearchQuery { criteria: SearchCriterion[]; limit?: number }

export interface UpsertItem {
  /** the same key for the same write, however often it is retried */
  idempotencyKey: string;
  /** the destination record to update; absent to create one */
  id?: string;
  fields: Record<string, unknown>;
}

export interface UpsertResult {
  idempotencyKey: string;
  /** the destination record's id ('' when the write failed) */
  id: string;
  outcome: 'created' | 'updated' | 'failed';
  /** true when this key was written before and nothing was written now */
  replayed: boolean;
  /** why the destination refused this record */
  error?: string;
  /** what the destination answered about the record (an enrichment's profile), kept as its destination record's values */
  fields?: Record<string, unknown>;
}

/**
 * A field that names a record of another object of the same system (a gift's constituent): a
 * record whose parent the destination does not hold yet waits in relationship-match.
 */
export interface FieldReference {
  /** the field of this object */
  field: string;
  /** the object it points into, and the field of that object its value is */
  object: string;
  by: string;
  /** what the parent is called in messages: 'constituent' */
  label: string;
}

export interface Connector {
  system: SystemId;
  /** signs in (or connects) with the settings and reports what the system said */
  test(ctx: ConnectorContext): Promise<TestOutcome>;
  listObjects(ctx: ConnectorContext): Promise<ObjectInfo[]>;
  describeFields(ctx: ConnectorContext, object: string): Promise<FieldInfo[]>;
  /** records changed since the watermark (all of them when it is null), oldest first, in batches */
  pull(ctx: ConnectorContext, object: string, since: Watermark | null, options?: PullOptions): AsyncIterable<PullBatch>;
  /**
   * Called once the engine has stored every record up to `watermark`: what the formula's settings
   * say becomes of what was read (SFTP moves or deletes its files). Never called by a dry run.
   */
  acknowledge?(ctx: ConnectorContext, object: string, watermark: Watermark, options?: PullOptions): Promise<void>;
  search(ctx: ConnectorContext, object: string, query: SearchQuery): Promise<SourceRecord[]>;
  /**
   * Many searches at once, one answer per query in the same order: the engine searches a whole
   * batch of records by one scenario. Systems without it are searched query by query.
   */
  searchMany?(ctx: ConnectorContext, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]>;
  upsert(ctx: ConnectorContext, object: string, items: UpsertItem[]): Promise<UpsertResult[]>;
  /**
   * The most records one upsert call takes from a send (the engine's SEND_BATCH when absent): a
   * system that writes large sends its own way (Salesforce's Bulk API 2.0 above 2,000 records)
   * takes more at once.
   */
  sendBatch?: number;
  /**
   * The object's records for the engine's candidate index (server/engine/candidateIndex.ts), when
   * the system can be read whole and followed by modification time; null or absent: the engine
   * searches it with searchMany.
   */
  candidateRecords?(ctx: ConnectorContext, object: string): CandidateRecords | null;
  /** the object's fields that point at records of another object (none when absent) */
  references?(object: string): FieldReference[];
  /**
   * Whether a record this source read is one the system deleted (Salesforce's queryAll answers
   * them with IsDeleted true), in the words its omitted record gives ('Deleted in Salesforce');
   * null for a record that stands. Absent: the system answers no deleted records.
   */
  deletion?(fields: Record<string, unknown>): string | null;
  /**
   * Why the system's search cannot answer one of these matching scenarios (each named, with the
   * destination fields it compares), or null when it can answer them all: a formula's matching is
   * refused with this reason when it is saved. Absent: every scenario can be answered.
   */
  matchingProblem?(ctx: ConnectorContext, object: string, scenarios: { name: string; fields: string[] }[]): Promise<string | null>;
  /**
   * Where a person opens the object's records in the system itself: a function from a record's id
   * to the https address of its page there (null for an id it cannot place), or null when the
   * system has no such page or cannot say yet where it is. Absent: no pages.
   */
  recordPage?(ctx: ConnectorContext, object: string): Promise<RecordPageAddress | null>;
}

export type RecordPageAddress = (id: string) => string | null;

/** A record with the match keys the system keeps of it (matchKeys.ts); absent ones are computed from its fields. */
export interface IndexedRecord extends SourceRecord {
  keys?: Partial<Record<KeyKind, string | null>>;
}

/**
 * What a candidate index is built from and kept current with. The same object is answered for one
 * destination object while its database lives, so the engine can keep the index beside it.
 */
export interface CandidateRecords {
  /** fields compared by their match key (matchKeys.ts); any other is compared in lower case */
  keyed: Readonly<Record<string, KeyKind>>;
  /** the field holding the record's lookup id, if any */
  lookupField: string | null;
  /** the fields a search's answer is ordered by (nulls last), then the id */
  order: readonly string[];
  /** where the changes start now, and the count of deletes so far (a moved count: load everything again) */
  mark(): Promise<{ mark: string; deletes: number }>;
  /** every record, in id order, a page at a time */
  page(afterId: string | null, limit: number): Promise<IndexedRecord[]>;
  /** records written since a mark (some may be ones already seen), with the mark and deletes count after them */
  changes(since: string): Promise<{ records: IndexedRecord[]; mark: string; deletes: number }>;
}

/** A connection problem, with one of SPEC.md section 8's codes. */
export class ConnectionProblem extends Error {
  override readonly name = 'ConnectionProblem';
  /** trying again later may succeed (a timeout, a server error, a rate limit): the engine retries */
  transient = false;
  constructor(readonly code: ConnectionErrorCode, detail: string, readonly cause_?: unknown) {
    super(detail);
  }
}

/** A failure that may pass: no answer in time, a server error, a rate limit, a dropped connection. */
export function transientProblem(problem: ConnectionProblem): ConnectionProblem {
  problem.transient = true;
  return problem;
}

/** Something this connector does not do (a search on a source-only system). */
export class NotSupported extends Error {
  override readonly name = 'NotSupported';
  constructor(system: string, operation: string) {
    super(`${system} does not support ${operation}.`);
  }
}

/** A request the connector understood but cannot serve (an unknown object, a bad criterion). */
export class ConnectorInputError extends Error {
  override readonly name = 'ConnectorInputError';
}

export const refused = (detail: string) => new ConnectionProblem('clientdatasource-connection-failed', detail);
export const processingError = (detail: string) => new ConnectionProblem('processing-error', detail);

/** A connector's one search as the first of its many (`searchMany`), for systems that answer a batch of queries their own way. */
export function searchOneOf(searchMany: NonNullable<Connector['searchMany']>): Connector['search'] {
  return async (ctx, object, query) => (await searchMany(ctx, object, [query]))[0]!;
}

/** What a connector that only reads (a giving or events platform) answers when asked to search or write. */
export function sourceOnly(name: string): Pick<Connector, 'search' | 'upsert'> {
  return {
    async search() { throw new ConnectorInputError(`Tributary reads ${name} as a source only: it cannot be searched as a destination.`); },
    async upsert() { throw new ConnectorInputError(`Tributary reads ${name} as a source only: it does not write to ${name}.`); },
  };
}
