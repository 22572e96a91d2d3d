/**
 * Tenancy by construction (DESIGN.md section 4a): the one place where a tenant id becomes the
 * filter of every query. Services, connectors and job handlers receive a TenantScope and reach
 * tenant-owned rows only through its repositories, which apply the tenant filter themselves; no
 * other code filters by tenant (tests/unit/tenancy.test.ts fails when one does).
 *
 * PostgreSQL row-level security would be a second wall, and is not used: the embedded cluster and
 * most managed servers connect as the owner or a superuser, which RLS exempts, so it would need a
 * second, restricted role and a `set_config` per pooled transaction on every query (pg-boss and
 * migrations included). The cost is real and the wall would be silent where it matters (a
 * superuser connection bypasses it). The repository wall is instead checked by tests that fail
 * on a cross-tenant read and on any hand-written tenant filter outside server/db/repositories and
 * the stores the scope opens (a system's own store beside its connector: server/connectors/<system>/store).
 */
import type { Db } from './database.ts';
import { dataQueueRepository } from './repositories/dataQueue.ts';
import { dataSourcesRepository } from './repositories/dataSources.ts';
import { eventsRepository } from './repositories/events.ts';
import { flagsRepository } from './repositories/flags.ts';
import { oauthStatesRepository } from './repositories/oauthStates.ts';
import { formulasRepository, partsRepository } from './repositories/formulas.ts';
import { recordExportsRepository } from './repositories/recordExports.ts';
import { recordsRepository } from './repositories/records.ts';
import { runsRepository } from './repositories/runs.ts';
import { screeningsRepository } from './repositories/screenings.ts';
import { uploadsRepository } from './repositories/uploads.ts';
import { vendorStateRepository } from './repositories/vendorState.ts';

/** A connection or a transaction: what repositories run their queries on. */
export type Executor = Db | Parameters<Parameters<Db['transaction']>[0]>[0];

/**
 * A store of tenant-owned rows that lives beside the code it serves rather than here (the
 * database layer knows no connector): opened on a scope's connection or transaction with its
 * tenant id, and filtering by that tenant itself, as the repositories here do.
 */
export type TenantStore<T> = (db: Executor, tenantId: string) => T;

export interface TenantScope {
  readonly tenantId: string;
  readonly dataSources: ReturnType<typeof dataSourcesRepository>;
  readonly uploads: ReturnType<typeof uploadsRepository>;
  /** connections waiting for a vendor's consent (OAuth 2.0 authorization code) */
  readonly oauthStates: ReturnType<typeof oauthStatesRepository>;
  readonly flags: ReturnType<typeof flagsRepository>;
  readonly formulas: ReturnType<typeof formulasRepository>;
  readonly parts: ReturnType<typeof partsRepository>;
  readonly records: ReturnType<typeof recordsRepository>;
  /** CSV exports of records, and the streaming read they write from */
  readonly recordExports: ReturnType<typeof recordExportsRepository>;
  readonly runs: ReturnType<typeof runsRepository>;
  readonly events: ReturnType<typeof eventsRepository>;
  /** each user's Data Queue tabs and their cards */
  readonly dataQueue: ReturnType<typeof dataQueueRepository>;
  /** what an enrichment destination answered for the records sent into it (WealthEngine's profiles), read back as a source */
  readonly screenings: ReturnType<typeof screeningsRepository>;
  /** opens a store kept beside its connector (the Sandbox CRM's) on this scope's connection or transaction, for this tenant */
  open<T>(store: TenantStore<T>): T;
  /** vendor connections' access tokens, grant locks and write ledger (server/connectors/kit) */
  readonly vendorState: ReturnType<typeof vendorStateRepository>;
  /** runs `work` in one transaction, with a scope whose repositories all use it: all or nothing */
  transaction<T>(work: (scope: TenantScope) => Promise<T>): Promise<T>;
}

export function forTenant(db: Executor, tenantId: string): TenantScope {
  if (!tenantId) throw new Error('forTenant needs a tenant id');
  return {
    tenantId,
    dataSources: dataSourcesRepository(db, tenantId),
    uploads: uploadsRepository(db, tenantId),
    oauthStates: oauthStatesRepository(db, tenantId),
    flags: flagsRepository(db, tenantId),
    formulas: formulasRepository(db, tenantId),
    parts: partsRepository(db, tenantId),
    records: recordsRepository(db, tenantId),
    recordExports: recordExportsRepository(db, tenantId),
    runs: runsRepository(db, tenantId),
    events: eventsRepository(db, tenantId),
    dataQueue: dataQueueRepository(db, tenantId),
    screenings: screeningsRepository(db, tenantId),
    open: (store) => store(db, tenantId),
    vendorState: vendorStateRepository(db, tenantId),
    transaction: (work) => db.transaction((tx) => work(forTenant(tx, tenantId))),
  };
}
