/**
 * The bucket screens' records (src/domain/api/records.ts): pages of a view with counts per view,
 * one record in full, and what a Data Processor does with them: add to Ready, pick a match, treat
 * as new, send now, delete, edit incoming values inline, and Match Search. Every action is one
 * activity event with its count and the request's correlationId; each changes its records and
 * writes its event in one transaction.
 */
import type { Logger } from 'pino';
import * as v from 'valibot';
import type { FieldInfo } from '../../src/domain/api/integrations.ts';
import {
  MATCH_SEARCH_LIMIT, RECORD_API_MESSAGES, type CandidateView, type MatchSearchResult, type RecordActionResult, type RecordCounts,
  type RecordDetail, type RecordPage, type RecordRowView, type RecordSendResult, type SortDirection,
} from '../../src/domain/api/records.ts';
import { decodeCursor, encodeCursor, type CursorKey } from '../../src/domain/cursor.ts';
import { looksLikeEmail } from '../../src/domain/emailAddress.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { formulaDisplayName } from '../../src/domain/formula/formula.ts';
import { SummaryFieldsSchema } from '../../src/domain/formula/parts.ts';
import {
  destinationOwnId, namedCopyReason, recordLabel, recordTitle, sourcePosition, uploadOfKey, type SourceFacts,
} from '../../src/domain/formula/recordLabel.ts';
import { connectorFor, isSystemId } from '../../src/domain/connectors/catalogue.ts';
import { matchSearchFields } from '../../src/domain/records/matchSearch.ts';
import {
  viewCounts, type RecordScope, type RecordSelection, type RecordSort,
} from '../../src/domain/records/query.ts';
import { can, type Policies } from '../../src/domain/roles.ts';
import type { RecordPageAddress, SourceRecord } from '../connectors/connector.ts';
import { connectorOf } from '../connectors/registry.ts';
import type { FormulaRow } from '../db/repositories/formulas.ts';
import type { RecordSender } from '../db/repositories/bucketRecords.ts';
import type { RecordRow } from '../db/repositories/records.ts';
import type { TenantScope } from '../db/tenancy.ts';
import { loadPlan, FormulaProblem, type EngineDeps, type FormulaPlan } from '../engine/plan.ts';
import { copyOf, searchMany } from '../engine/process.ts';
import { sendReady, type SendOutcome } from '../engine/send.ts';
import { connectorFailure } from './connections.ts';
import { recordEvent, type EventActor } from './events.ts';

/** Who acts: the user with their policies, the request's correlation id and log. */
export interface RecordActor {
  actor: Exclude<EventActor, 'system'>;
  policies: Policies;
  correlationId: string;
  log: Logger;
}

/** `userId`: the person whose Send now it is (absent in jobs queued before it was carried) */
export interface SendJobPayload { tenantId: string; formulaId: string; ids: string[]; correlationId: string; userId?: string | undefined }

/** How send now reaches the job queue (server/jobs/recordsSend.ts). */
export interface SendQueue {
  queue(payload: SendJobPayload): Promise<string | null>;
}

/** ids per send job: a job payload stays small, and each job is a few of the send stage's batches */
const SEND_JOB_IDS = 1000;

interface StoredCandidate { id: string; score: number; reasons: string[]; scenario: string; fields: Record<string, unknown> }

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

// ------------------------------------------------------------------------------- cursors

/** What each sort's key is compared as (server/db/repositories/bucketRecords.ts SORT_CAST). */
const CURSOR_KEY: Record<RecordSort, CursorKey> = {
  dateAdded: 'date-time', dateProcessed: 'date-time or -infinity', errorDate: 'date-time or -infinity', score: 'int4',
};

function positionOf(cursor: string, sort: RecordSort): { key: string; id: string } {
  const position = decodeCursor(cursor, CURSOR_KEY[sort]);
  if (!position) throw new DomainError('bad-request', RECORD_API_MESSAGES.cursor);
  return position;
}

// ------------------------------------------------------------------------------ inline edit

const PHONE = /^\+?[\d\s().-]{3,30}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A typed value as the field holds it, or undefined when it cannot hold it (SPEC.md section 5's 'Input contains incompatible data'). */
export function fieldValue(field: Pick<FieldInfo, 'type'>, input: string | number | boolean | null): unknown {
  if (input === null || input === '') return null;
  const text = typeof input === 'string' ? input.trim() : input;
  switch (field.type) {
    case 'string': return typeof text === 'boolean' ? undefined : String(text);
    case 'email': return typeof text === 'string' && looksLikeEmail(text) ? text : undefined;
    case 'phone': return typeof text === 'string' && PHONE.test(text) ? text : undefined;
    case 'number': {
      const n = typeof text === 'number' ? text : typeof text === 'string' && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
      return Number.isFinite(n) ? n : undefined;
    }
    case 'boolean': return typeof text === 'boolean' ? text : text === 'true' ? true : text === 'false' ? false : undefined;
    case 'date':
      return typeof text === 'string' && ISO_DATE.test(text) && new Date(`${text}T00:00:00Z`).toISOString().startsWith(text) ? text : undefined;
    case 'datetime': return typeof text === 'string' && !Number.isNaN(Date.parse(text)) && /^\d{4}-\d\d-\d\dT/.test(text) ? text : undefined;
    default: return undefined;
  }
}

// ---------------------------------------------------------------------------------- views

function candidatesOf(row: Pick<RecordRow, 'candidates'>): StoredCandidate[] {
  return (row.candidates as Partial<StoredCandidate>[]).filter((c): c is StoredCandidate => typeof c?.id === 'string').map((c) => ({
    id: c.id, score: typeof c.score === 'number' ? c.score : 0, reasons: Array.isArray(c.reasons) ? c.reasons.map(String) : [],
    scenario: typeof c.scenario === 'string' ? c.scenario : '', fields: c.fields && typeof c.fields === 'object' ? c.fields : {},
  }));
}

/** What a related record waits for, as the engine noted it (server/engine/process.ts). */
function waitingForOf(matching: Record<string, unknown> | null): RecordRowView['waitingFor'] {
  const w = matching?.waitingFor as Record<string, unknown> | undefined;
  return w && typeof w.object === 'string' && typeof w.field === 'string' && w.value !== undefined && w.value !== null
    ? { object: w.object, field: w.field, value: String(w.value) } : null;
}

/** What the rows of a page (or one record) show of their formula and source: summary fields and source facts. */
export interface RowContext {
  summaryFields: readonly string[];
  /** what is known of a source key's source beyond the key (an upload's file name, the source system) */
  facts(sourceKey: string): SourceFacts;
  /** who sent the sent records among the rows */
  senders?: ReadonlyMap<string, RecordSender>;
}

function sentByOf(row: RecordRow, ctx: RowContext): RecordRowView['sentBy'] {
  const s = row.state === 'sent' ? ctx.senders?.get(row.id) : undefined;
  if (!s) return null;
  return s.kind === 'person' ? s : { kind: 'run', runId: s.runId, trigger: s.trigger, startedOn: s.startedOn.toISOString() };
}

/** The routing rule that left an omitted record out, as routing noted it (src/domain/formula/route.ts). */
function omittedByOf(row: RecordRow): RecordRowView['omittedBy'] {
  if (row.state !== 'omitted') return null;
  const rule = row.matching?.rule;
  const reason = row.matching?.routeReason;
  return { rule: typeof rule === 'number' ? rule : null, reason: typeof reason === 'string' ? reason : 'Omitted by routing' };
}

function rowView(row: RecordRow, ctx: RowContext): RecordRowView {
  const { summaryFields } = ctx;
  const candidates = candidatesOf(row);
  const chosen = candidates.find((c) => c.id === row.destinationRecordId) ?? candidates[0];
  const values = row.transformed ?? {};
  return {
    id: row.id, sourceKey: row.sourceKey,
    title: recordTitle(summaryFields, row.transformed ?? row.raw), sourcePosition: sourcePosition(row.sourceKey, ctx.facts(row.sourceKey)),
    recordId: row.destinationRecordId,
    dateAdded: row.dateAdded.toISOString(), dateProcessed: row.dateProcessed?.toISOString() ?? null,
    matchReasons: chosen?.reasons ?? [], errorReason: row.errorReason, errorDate: row.errorDate?.toISOString() ?? null,
    bucket: row.bucket, customBucket: row.customBucket, state: row.state, score: row.score, candidateCount: candidates.length,
    waitingFor: row.bucket === 'relationship-match' ? waitingForOf(row.matching) : null,
    summary: Object.fromEntries(summaryFields.map((f) => [f, values[f] ?? null])),
    outcome: row.state === 'sent' ? row.outcome : null,
    sentBy: sentByOf(row, ctx),
    omittedBy: omittedByOf(row),
  };
}

async function summaryFieldsOf(tenant: TenantScope, formulaId: string): Promise<string[]> {
  const part = await tenant.parts.get(formulaId, 'summary-fields');
  const parsed = part ? v.safeParse(SummaryFieldsSchema, part.body) : null;
  return parsed?.success ? parsed.output.fields : [];
}

/** A data source's system, or null when it is unset or gone. */
async function systemOf(tenant: TenantScope, dataSourceId: string | null): Promise<string | null> {
  const ds = dataSourceId ? await tenant.dataSources.get(dataSourceId) : undefined;
  return ds?.system ?? null;
}

/** The summary fields, and the source facts of these source keys: their uploads' file names, the source system's name. */
export async function rowContext(tenant: TenantScope, formula: FormulaRow, sourceKeys: readonly string[]): Promise<RowContext> {
  const uploadIds = [...new Set(sourceKeys.map(uploadOfKey).filter((u): u is string => u !== null))];
  const [summaryFields, system, uploads] = await Promise.all([
    summaryFieldsOf(tenant, formula.id),
    systemOf(tenant, formula.sourceDataSourceId),
    Promise.all(uploadIds.map(async (id) => [id, (await tenant.uploads.get(id))?.fileName ?? null] as const)),
  ]);
  const names = new Map(uploads);
  const systemName = system && isSystemId(system) ? connectorFor(system).name : null;
  return { summaryFields, facts: (key) => ({ fileName: names.get(uploadOfKey(key) ?? '') ?? null, system: systemName }) };
}

export function recordReviewService(deps: EngineDeps & { sends: SendQueue }) {
  const noFormula = () => new DomainError('not-found', 'No such formula.');
  const noRecord = () => new DomainError('not-found', 'No such record.');

  async function formulaOf(tenant: TenantScope, id: string): Promise<FormulaRow> {
    const row = await tenant.formulas.get(id);
    if (!row) throw noFormula();
    return row;
  }

  async function plan(tenant: TenantScope, row: FormulaRow): Promise<FormulaPlan> {
    try {
      return await loadPlan(tenant, deps, row);
    } catch (err) {
      if (err instanceof FormulaProblem) throw new DomainError('formula-incomplete', err.message);
      throw err;
    }
  }

  /** Editing needs records edit; sending records send. Both answer SPEC.md section 6's words. */
  function mayEdit(who: RecordActor, action: 'edit' | 'send' = 'edit'): void {
    if (!can(who.policies, 'records', action)) throw new DomainError('no-edit-permission', `You need records ${action} permission.`);
  }

  /** The destination records a Match Search query finds, over the formula's searchable mapped fields. */
  async function search(p: FormulaPlan, q: string, log: Logger): Promise<MatchSearchResult> {
    let found: SourceRecord[][];
    let fields: string[];
    try {
      const described = await p.destination.connector.describeFields(p.destination.ctx, p.destination.object);
      const searchable = described.filter((f) => f.searchable);
      const mapped = searchable.filter((f) => p.mappedFields.includes(f.name));
      // a field the query cannot be a value of (a name against a phone) is skipped, not refused
      fields = matchSearchFields(mapped.length ? mapped : searchable, q);
      found = await searchMany(p.destination, fields.map((field) => ({ criteria: [{ field, operator: 'contains' as const, value: q }], limit: MATCH_SEARCH_LIMIT })));
    } catch (err) {
      throw connectorFailure(err, p.destination.system, log, p.formula.id);
    }
    const summaryFields = await summaryFieldsOf(p.tenant, p.formula.id);
    const byId = new Map<string, MatchSearchResult['results'][number]>();
    for (const list of found) {
      for (const r of list) {
        if (byId.size < MATCH_SEARCH_LIMIT && !byId.has(r.id)) {
          byId.set(r.id, { id: r.id, title: recordTitle(summaryFields, r.fields), ownId: destinationOwnId(p.destination.system, r.id, r.fields), fields: r.fields });
        }
      }
    }
    return { results: [...byId.values()], fields };
  }

  /** The chosen destination record's values now, or as they were found when the destination cannot say. */
  async function destinationOf(tenant: TenantScope, formula: FormulaRow, row: RecordRow, log: Logger): Promise<{ id: string; fields: Record<string, unknown> } | null> {
    if (!row.destinationRecordId) return null;
    const stored = candidatesOf(row).find((c) => c.id === row.destinationRecordId);
    const lookupId = stored?.fields.lookupId;
    if (typeof lookupId === 'string' && lookupId) {
      try {
        const p = await loadPlan(tenant, deps, formula);
        const [hits] = await searchMany(p.destination, [{ criteria: [{ field: 'lookupId', value: lookupId }], limit: 5 }]);
        const now = hits?.find((h) => h.id === row.destinationRecordId);
        if (now) return { id: now.id, fields: now.fields };
      } catch (err) {
        log.warn({ err, recordId: row.id }, 'the destination record could not be read; showing its values as found');
      }
    }
    return stored ? { id: stored.id, fields: stored.fields } : { id: row.destinationRecordId, fields: {} };
  }

  /** The record's matching data, a held copy's reason naming its first record by its title and file line rather than its key. */
  async function matchingOf(tenant: TenantScope, formula: FormulaRow, row: RecordRow): Promise<RecordRow['matching']> {
    const first = copyOf(row.matching);
    const reason = row.matching?.routeReason;
    if (first === null || typeof reason !== 'string' || !reason.includes(first)) return row.matching;
    const [firstRow, ctx] = await Promise.all([tenant.records.bySourceKey(formula.id, first), rowContext(tenant, formula, [first])]);
    const label = recordLabel(recordTitle(ctx.summaryFields, firstRow ? firstRow.transformed ?? firstRow.raw : null), sourcePosition(first, ctx.facts(first)));
    return { ...row.matching, routeReason: namedCopyReason(reason, first, label) };
  }

  /**
   * The destination's record pages (Connector.recordPage), for a destination that has them; none
   * when it cannot say where they are (never connected, or not answering): the review works without.
   */
  async function pagesOf(tenant: TenantScope, formula: FormulaRow, system: string | null, log: Logger): Promise<RecordPageAddress> {
    const none: RecordPageAddress = () => null;
    if (!system || !isSystemId(system) || !connectorOf(system).recordPage) return none;
    try {
      const p = await loadPlan(tenant, deps, formula);
      const page = await p.destination.connector.recordPage?.(p.destination.ctx, p.destination.object);
      // only an https address is ever offered to open
      return page ? (id) => { const url = page(id); return url && /^https:\/\/[^\s"<>]+$/.test(url) ? url : null; } : none;
    } catch (err) {
      log.warn({ err, formulaId: formula.id }, "the destination's record pages could not be placed; the review shows no links to them");
      return none;
    }
  }

  async function detail(tenant: TenantScope, formula: FormulaRow, row: RecordRow, log: Logger): Promise<RecordDetail> {
    const [ctx, destinationSystem, matching, senders] = await Promise.all([
      rowContext(tenant, formula, [row.sourceKey]), systemOf(tenant, formula.destinationDataSourceId), matchingOf(tenant, formula, row),
      tenant.records.senders(row.state === 'sent' ? [row.id] : []),
    ]);
    const candidates = candidatesOf(row);
    const [destination, page] = await Promise.all([
      destinationOf(tenant, formula, row, log),
      candidates.length || row.destinationRecordId ? pagesOf(tenant, formula, destinationSystem, log) : (() => null) as RecordPageAddress,
    ]);
    return {
      ...rowView(row, { ...ctx, senders }),
      raw: row.raw, transformed: row.transformed, matching,
      candidates: candidates.map((c): CandidateView => ({
        id: c.id, title: recordTitle(ctx.summaryFields, c.fields), ownId: destinationOwnId(destinationSystem, c.id, c.fields), page: page(c.id),
        score: c.score, reasons: c.reasons, scenario: c.scenario, fields: c.fields,
      })),
      destination: destination && { ...destination, page: page(destination.id) },
      overwrite: row.overwrite ?? {},
    };
  }

  async function recordOf(tenant: TenantScope, formulaId: string, recordId: string): Promise<RecordRow> {
    const row = await tenant.records.get(recordId);
    if (!row || row.formulaId !== formulaId) throw noRecord();
    return row;
  }

  const describeSelection = (s: RecordSelection) => (s.kind === 'ids' ? { kind: 'ids', ids: s.ids.length } : { kind: 'scope', scope: s.scope });

  /** A bulk action: its change and its one event in one transaction. */
  async function bulk(tenant: TenantScope, who: RecordActor, formulaId: string, selection: RecordSelection, o: {
    type: string; describe: (n: number, formula: string) => string; change: (tx: TenantScope) => Promise<number>;
  }): Promise<RecordActionResult> {
    const formula = await formulaOf(tenant, formulaId);
    return tenant.transaction(async (tx) => {
      const selected = await tx.records.countSelected(formulaId, selection);
      await tx.records.lockSelected(formulaId, selection);
      const affected = await o.change(tx);
      await recordEvent(tx, {
        actor: who.actor, type: o.type, correlationId: who.correlationId, formulaId,
        description: o.describe(affected, formulaDisplayName(formula)),
        details: { count: affected, skipped: selected - affected, selection: describeSelection(selection) },
        ...(selection.kind === 'ids' && selection.ids.length === 1 ? { recordId: selection.ids[0] } : {}),
      });
      return { affected, skipped: Math.max(0, selected - affected), correlationId: who.correlationId };
    });
  }

  return {
    async counts(tenant: TenantScope, formulaId: string): Promise<RecordCounts> {
      await formulaOf(tenant, formulaId);
      const { views, customBuckets, total } = viewCounts(await tenant.records.tally(formulaId));
      return {
        views,
        customBuckets: [...customBuckets].sort(([a], [b]) => a.localeCompare(b)).map(([name, count]) => ({ name, count })),
        total,
      };
    },

    async list(tenant: TenantScope, formulaId: string, req: { scope: RecordScope; sort: RecordSort; direction: SortDirection; cursor?: string | undefined; limit: number }): Promise<RecordPage> {
      const formula = await formulaOf(tenant, formulaId);
      const after = req.cursor ? positionOf(req.cursor, req.sort) : null;
      const rows = await tenant.records.page(formulaId, { scope: req.scope, sort: req.sort, direction: req.direction, after, limit: req.limit + 1 });
      const page = rows.slice(0, req.limit);
      const [ctx, senders] = await Promise.all([
        rowContext(tenant, formula, page.map((r) => r.sourceKey)),
        tenant.records.senders(page.filter((r) => r.state === 'sent').map((r) => r.id)),
      ]);
      const last = page.at(-1);
      return {
        records: page.map((r) => rowView(r, { ...ctx, senders })),
        summaryFields: [...ctx.summaryFields],
        nextCursor: rows.length > req.limit && last ? encodeCursor(last.sortKey, last.id) : null,
      };
    },

    async get(tenant: TenantScope, formulaId: string, recordId: string, log: Logger): Promise<RecordDetail> {
      const formula = await formulaOf(tenant, formulaId);
      return detail(tenant, formula, await recordOf(tenant, formulaId, recordId), log);
    },

    async matchSearch(tenant: TenantScope, formulaId: string, q: string, log: Logger): Promise<MatchSearchResult> {
      return search(await plan(tenant, await formulaOf(tenant, formulaId)), q, log);
    },

    async ready(tenant: TenantScope, who: RecordActor, formulaId: string, selection: RecordSelection): Promise<RecordActionResult> {
      mayEdit(who);
      return bulk(tenant, who, formulaId, selection, {
        type: 'records.added-to-ready', change: async (tx) => (await tx.records.markReady(formulaId, selection)).length,
        describe: (n, f) => `Added ${plural(n, 'record')} of ${f} to Ready`,
      });
    },

    async createNew(tenant: TenantScope, who: RecordActor, formulaId: string, selection: RecordSelection): Promise<RecordActionResult> {
      mayEdit(who);
      return bulk(tenant, who, formulaId, selection, {
        type: 'records.treated-as-new', change: (tx) => tx.records.markNew(formulaId, selection),
        describe: (n, f) => `Treated ${plural(n, 'record')} of ${f} as new`,
      });
    },

    async remove(tenant: TenantScope, who: RecordActor, formulaId: string, selection: RecordSelection): Promise<RecordActionResult> {
      mayEdit(who);
      return bulk(tenant, who, formulaId, selection, {
        type: 'records.deleted', change: (tx) => tx.records.removeSelected(formulaId, selection),
        describe: (n, f) => `Deleted ${plural(n, 'record')} of ${f}`,
      });
    },

    /**
     * Send now: the records go to Ready and send jobs take them. Records already sent or being
     * sent are not taken again, so repeating the request queues nothing more for them.
     */
    async send(tenant: TenantScope, who: RecordActor, formulaId: string, selection: RecordSelection): Promise<RecordSendResult> {
      mayEdit(who, 'send');
      let ids: string[] = [];
      const result = await bulk(tenant, who, formulaId, selection, {
        type: 'records.send-requested',
        change: async (tx) => { ids = await tx.records.markReady(formulaId, selection); return ids.length; },
        describe: (n, f) => `Sent ${plural(n, 'record')} of ${f}`,
      });
      let jobId: string | null = null;
      for (let i = 0; i < ids.length; i += SEND_JOB_IDS) {
        const queued = await deps.sends.queue({ tenantId: tenant.tenantId, formulaId, ids: ids.slice(i, i + SEND_JOB_IDS), correlationId: who.correlationId, userId: who.actor.userId });
        jobId ??= queued;
      }
      return { ...result, jobId };
    },

    /** Matches one record to a candidate, or to a destination record the Match Search query finds. */
    async pickMatch(tenant: TenantScope, who: RecordActor, formulaId: string, recordId: string, candidateId: string, query?: string): Promise<RecordDetail> {
      mayEdit(who);
      const formula = await formulaOf(tenant, formulaId);
      const current = await recordOf(tenant, formulaId, recordId);
      const candidates = candidatesOf(current);
      let picked = candidates.find((c) => c.id === candidateId);
      if (!picked && query) {
        const hit = (await search(await plan(tenant, formula), query, who.log)).results.find((r) => r.id === candidateId);
        if (hit) picked = { id: hit.id, score: 0, reasons: ['Picked by Match Search'], scenario: 'Match Search', fields: hit.fields };
      }
      if (!picked) throw new DomainError('not-found', 'No such candidate for this record.');
      const chosen = picked;
      const row = await tenant.transaction(async (tx) => {
        const locked = await tx.records.getForUpdate(formulaId, recordId);
        if (!locked) throw noRecord();
        const list = candidatesOf(locked).some((c) => c.id === chosen.id) ? locked.candidates : [...locked.candidates, chosen];
        const updated = await tx.records.updateReviewed(recordId, {
          destinationRecordId: chosen.id, bucket: 'one-to-one-match', customBucket: null, state: 'ready', candidates: list, decided: 'picked',
        });
        if (!updated) throw new DomainError('record-not-editable');
        await recordEvent(tx, {
          actor: who.actor, type: 'record.matched', correlationId: who.correlationId, formulaId, recordId,
          description: `Matched a record of ${formulaDisplayName(formula)} to ${chosen.id}`,
          details: { count: 1, candidateId: chosen.id, scenario: chosen.scenario },
        });
        return updated;
      });
      return detail(tenant, formula, row, who.log);
    },

    /** Inline editing: new incoming values (each one the field can hold) and per field whether they overwrite. */
    async edit(tenant: TenantScope, who: RecordActor, formulaId: string, recordId: string, body: {
      values: Record<string, string | number | boolean | null>; overwrite: Record<string, boolean>;
    }): Promise<RecordDetail> {
      mayEdit(who);
      const formula = await formulaOf(tenant, formulaId);
      await recordOf(tenant, formulaId, recordId);
      const changed = Object.keys(body.values);
      const typed: Record<string, unknown> = {};
      if (changed.length) {
        const p = await plan(tenant, formula);
        let described: FieldInfo[];
        try {
          described = await p.destination.connector.describeFields(p.destination.ctx, p.destination.object);
        } catch (err) {
          throw connectorFailure(err, p.destination.system, who.log, formulaId);
        }
        const byName = new Map(described.map((f) => [f.name, f]));
        const errors: Record<string, string> = {};
        for (const [field, input] of Object.entries(body.values)) {
          const info = byName.get(field);
          const value = info ? fieldValue(info, input) : undefined;
          if (value === undefined) errors[field] = RECORD_API_MESSAGES.incompatible;
          // a blank (or spaces only) clears the value, which a required field cannot be
          else if ((value === null || value === '') && info?.required) errors[field] = RECORD_API_MESSAGES.required;
          else typed[field] = value === '' ? null : value;
        }
        if (Object.keys(errors).length) throw new DomainError('record-incompatible-data', `Check ${Object.keys(errors).join(', ')}.`, { errors });
      }
      const row = await tenant.transaction(async (tx) => {
        const locked = await tx.records.getForUpdate(formulaId, recordId);
        if (!locked) throw noRecord();
        const updated = await tx.records.updateReviewed(recordId, {
          transformed: { ...(locked.transformed ?? {}), ...typed },
          // kept apart too: processing the record again lays them over what the formula makes of its raw data
          corrections: { ...(locked.corrections ?? {}), ...typed },
          overwrite: { ...(locked.overwrite ?? {}), ...body.overwrite },
        });
        if (!updated) throw new DomainError('record-not-editable');
        await recordEvent(tx, {
          actor: who.actor, type: 'record.edited', correlationId: who.correlationId, formulaId, recordId,
          description: `Edited ${plural(changed.length + Object.keys(body.overwrite).length, 'field')} of a record of ${formulaDisplayName(formula)}`,
          details: { count: 1, fields: changed, overwrite: body.overwrite },
        });
        return updated;
      });
      return detail(tenant, formula, row, who.log);
    },
  };
}

export type RecordReviewService = ReturnType<typeof recordReviewService>;

/** The send job's work: the chosen records through the engine's send stage. */
export async function sendChosen(tenant: TenantScope, deps: EngineDeps, payload: SendJobPayload, log: Logger, signal?: AbortSignal): Promise<SendOutcome> {
  const formula = await tenant.formulas.get(payload.formulaId);
  if (!formula) return { created: 0, updated: 0, refused: 0 };
  const p = await loadPlan(tenant, deps, formula, signal);
  const outcome = await sendReady(p, { ids: payload.ids, by: { userId: payload.userId ?? null } });
  log.info({ formulaId: formula.id, ...outcome }, 'records sent');
  return outcome;
}
