/**
 * Send: ready records to the destination in batches, each write with its record's idempotency key
 * (DESIGN.md section 7). Records are marked 'sending' before anything is written (when the formula
 * sends automatically, already as its Ready records are stored); a run killed before or during
 * their batch finds them so on its next start and sends them again with the same keys, which the
 * destination answers from its first write: every record is written exactly once or still pending.
 * A record the destination refuses becomes an exception with the reason and date while the rest go
 * on; a failure of the whole call (timeout, server error) stops the run for a retry.
 */
import { companionKey, isCompanionKey, parentKeyOf } from '../../src/domain/formula/companion.ts';
import { valueText, type FieldValue } from '../../src/domain/formula/transforms.ts';
import type { UpsertItem } from '../connectors/connector.ts';
import type { RecordRow } from '../db/repositories/records.ts';
import type { FormulaEnd, FormulaPlan } from './plan.ts';
import { copyOf, isGiftRecord, NO_GIFT, processAgain, releasedGifts } from './process.ts';

export const SEND_BATCH = 500;
/** Records a batch of the send holds: what the destination takes in one call (Connector.sendBatch), else SEND_BATCH. */
const batchOf = (plan: FormulaPlan) => plan.destination.connector.sendBatch ?? SEND_BATCH;

export interface SendOutcome { created: number; updated: number; refused: number }

/**
 * Who sends: a run (whose counts take each batch's outcome), or a person's Send now. A person's
 * sends count in the runs that collected the records, so a run's "sent" says what became of what
 * it collected, whoever sent it.
 */
export type Sender = { runId: string } | { userId: string | null };

/** What sending a record reads of it (the run that collected it, where known, for a person's send). */
export type Sendable = Pick<RecordRow, 'id' | 'sourceKey' | 'idempotencyKey' | 'destinationRecordId' | 'transformed' | 'candidates' | 'overwrite' | 'matching'>
  & Partial<Pick<RecordRow, 'runId'>>;

/** The run counts a batch's outcome adds to: the sending run's, or per collecting run for a person's send. */
function countsBySender(by: Sender, rows: readonly Sendable[], sent: ReadonlySet<string>, outcomes: ReadonlyMap<string, 'created' | 'updated' | 'refused'>): Map<string, Record<string, number>> {
  const out = new Map<string, Record<string, number>>();
  for (const r of rows) {
    const run = 'runId' in by ? by.runId : r.runId;
    const outcome = outcomes.get(r.id);
    if (!run || !outcome) continue;
    const counts = out.get(run) ?? {};
    counts[outcome] = (counts[outcome] ?? 0) + 1;
    if (!('runId' in by) && sent.has(r.id)) counts.sentByHand = (counts.sentByHand ?? 0) + 1;
    out.set(run, counts);
  }
  return out;
}

const addOutcome = (total: SendOutcome, o: SendOutcome) => { total.created += o.created; total.updated += o.updated; total.refused += o.refused; };

const blank = (v: unknown) => v === null || v === undefined || valueText(v as never).trim() === '';

/**
 * The fields a record writes. A new record writes its non-blank values. An update follows the
 * destination's settings where it has them (the Sandbox CRM's onMatch and blankValues): fill
 * blanks writes only fields the matched record had blank; overwrite writes every value and, with
 * blankValues 'clear', blanks too.
 */
export function fieldsToWrite(plan: FormulaPlan, record: Sendable, end: FormulaEnd = plan.destination): Record<string, unknown> {
  const values = (record.transformed ?? {}) as Record<string, unknown>;
  const updating = !!record.destinationRecordId;
  const onMatch = end.settings.onMatch ?? 'overwrite';
  const clearBlanks = end.settings.blankValues === 'clear';
  const matched = updating ? ((record.candidates as { id: string; fields?: Record<string, unknown> }[])
    .find((c) => c.id === record.destinationRecordId)?.fields ?? {}) : {};
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(values)) {
    if (!updating) { if (!blank(value)) out[field] = value; continue; }
    // a person chose, on the bucket screen, to keep the destination's value of this field
    if (record.overwrite?.[field] === false) continue;
    if (onMatch === 'fill-blanks') { if (!blank(value) && blank(matched[field])) out[field] = value; continue; }
    if (!blank(value)) out[field] = value;
    else if (clearBlanks) out[field] = null;
  }
  return out;
}

/**
 * Sends the formula's ready records (or only `ids`), batch by batch, until none is left or `stop`
 * says so. Interrupted sends go first.
 */
export async function sendReady(plan: FormulaPlan, opts: {
  ids?: string[];
  /** only records already marked 'sending' (claimed as they were stored, or left so by a killed run) */
  claimedOnly?: boolean;
  batchSize?: number;
  /** asked after each batch: at least one batch goes, however short the time */
  stop?: () => boolean | Promise<boolean>;
  /** who sends: the run whose counts take each batch's outcome (in the batch's own transaction), or a person */
  by: Sender;
  onBatch?: (o: SendOutcome) => Promise<void>;
}): Promise<SendOutcome> {
  const { tenant, formula } = plan;
  const total: SendOutcome = { created: 0, updated: 0, refused: 0 };
  if (opts.ids && !opts.ids.length) return total;
  // batches come in id order: each goes on after the last one's, and when none is left there, one
  // more look from the start finds any record that became ready (or sending) behind it meanwhile
  const take = (from?: string) => tenant.records.takeForSending(formula.id, opts.batchSize ?? batchOf(plan), { ids: opts.ids, after: from, claimedOnly: opts.claimedOnly });
  let after: string | undefined;
  for (let first = true; ; first = false) {
    if (!first && (await opts.stop?.())) break;
    let rows = await take(after);
    if (!rows.length && after !== undefined) {
      after = undefined;
      rows = await take();
    }
    if (!rows.length) break;
    after = rows.at(-1)!.id;
    const outcome = await sendRecords(plan, rows, opts.by);
    addOutcome(total, outcome);
    await opts.onBatch?.(outcome);
  }
  return total;
}

/**
 * Records marked 'sending' to the destination, SEND_BATCH at a time, and what it did with each
 * marked on them (with the run's counts, in one transaction per batch).
 */
export async function sendRecords(plan: FormulaPlan, rows: readonly Sendable[], by: Sender): Promise<SendOutcome> {
  const total: SendOutcome = { created: 0, updated: 0, refused: 0 };
  const size = batchOf(plan);
  for (let i = 0; i < rows.length; i += size) {
    addOutcome(total, await sendBatch(plan, rows.slice(i, i + size), by));
  }
  return total;
}

async function sendBatch(plan: FormulaPlan, all: readonly Sendable[], by: Sender): Promise<SendOutcome> {
  const { tenant } = plan;
  // a row's gift goes to its own object (process.ts withGifts), after the constituents
  const gifts = all.filter((r) => isGiftRecord(plan, r.sourceKey));
  // a row's gift ready from before the formula stopped writing gifts is refused, never written as a constituent
  const orphans = plan.gift ? [] : all.filter((r) => isCompanionKey(r.sourceKey));
  if (orphans.length) await tenant.records.markRefused(orphans.map((r) => ({ id: r.id, reason: NO_GIFT })));
  const batch = gifts.length || orphans.length ? all.filter((r) => !isCompanionKey(r.sourceKey)) : all;
  // a copy of a new person (process.ts holdCopies) is never sent as it stands: sent with or after
  // its first, it would be created twice. It goes back to Needs Attention and is matched again
  // below, once this batch's records are written: against what its first created, or still
  // waiting for a first that is yet to be sent.
  const copies = batch.filter((r) => !r.destinationRecordId && copyOf(r.matching) !== null);
  if (copies.length) await tenant.records.holdBack(copies.map((r) => r.id));
  const held = new Set(copies);
  const rows = batch.filter((r) => !held.has(r));
  const outcome = rows.length ? await write(plan, rows, by) : { created: 0, updated: 0, refused: 0, settled: [], sent: [] };
  const firsts = [...new Set([...outcome.settled, ...copies.map((r) => copyOf(r.matching)!)])];
  if (firsts.length) addOutcome(outcome, await matchCopiesAgain(plan, firsts, by));
  if (gifts.length) addOutcome(outcome, await write(plan, gifts, by, plan.gift!.end));
  // each constituent written now takes its gift from the same row with it, in this send
  if (plan.gift && outcome.sent.length) addOutcome(outcome, await sendGiftsOf(plan, outcome.sent, by));
  return { created: outcome.created, updated: outcome.updated, refused: outcome.refused + orphans.length };
}

/**
 * The gifts from the same rows as these sent constituents, waiting in relationship-match: each is
 * released with its constituent's id (an existing equal gift is updated, not doubled) and sent.
 */
async function sendGiftsOf(plan: FormulaPlan, parents: readonly { sourceKey: string; destinationRecordId: string }[], by: Sender): Promise<SendOutcome> {
  const { tenant, formula } = plan;
  const waiting = await tenant.records.waitingForParent(formula.id, parents.map((p) => companionKey(p.sourceKey)));
  if (!waiting.length) return { created: 0, updated: 0, refused: 0 };
  const ids = new Map(parents.map((p) => [p.sourceKey, p.destinationRecordId]));
  const decided = await releasedGifts(plan, waiting.map((w) => ({
    values: (w.transformed ?? {}) as Record<string, FieldValue>, parentKey: parentKeyOf(w.sourceKey), parentId: ids.get(parentKeyOf(w.sourceKey))!,
  })));
  await tenant.records.replaceProcessed(decided.map((d, i) => ({ ...d, id: waiting[i]!.id })));
  return sendReady(plan, { ids: waiting.map((w) => w.id), by });
}

/** Writes the rows to the destination and marks what it did with each; answers the source keys of those that were to be created and are settled (created or refused). */
async function write(plan: FormulaPlan, rows: readonly Sendable[], by: Sender, destination: FormulaEnd = plan.destination): Promise<SendOutcome & { settled: string[]; sent: { sourceKey: string; destinationRecordId: string }[] }> {
  const { tenant } = plan;
  const items: UpsertItem[] = rows.map((r) => ({
    idempotencyKey: r.idempotencyKey,
    ...(r.destinationRecordId ? { id: r.destinationRecordId } : {}),
    fields: fieldsToWrite(plan, r, destination),
  }));
  const results = await destination.connector.upsert(destination.ctx, destination.object, items);
  const byKey = new Map(results.map((r) => [r.idempotencyKey, r]));
  const sent: { id: string; destinationRecordId: string; outcome: 'created' | 'updated'; fields?: Record<string, unknown> }[] = [];
  const refused: { id: string; reason: string }[] = [];
  for (const r of rows) {
    const result = byKey.get(r.idempotencyKey);
    if (!result) refused.push({ id: r.id, reason: 'The destination did not answer for this record.' });
    else if (result.outcome === 'failed') refused.push({ id: r.id, reason: result.error ?? 'The destination refused the record.' });
    else sent.push({ id: r.id, destinationRecordId: result.id, outcome: result.outcome, ...(result.fields ? { fields: result.fields } : {}) });
  }
  const outcome = {
    created: sent.filter((s) => s.outcome === 'created').length,
    updated: sent.filter((s) => s.outcome === 'updated').length,
    refused: refused.length,
  };
  const outcomes = new Map<string, 'created' | 'updated' | 'refused'>([...sent.map((s) => [s.id, s.outcome] as const), ...refused.map((r) => [r.id, 'refused'] as const)]);
  const runCounts = countsBySender(by, rows, new Set(sent.map((s) => s.id)), outcomes);
  await tenant.transaction(async (tx) => {
    await tx.records.markSent(sent, 'runId' in by ? { runId: by.runId } : { userId: by.userId });
    await tx.records.markRefused(refused);
    for (const [run, counts] of runCounts) await tx.runs.addCounts(run, counts);
  });
  // the records that were to be created and are settled (created, or refused): their copies are matched again
  const settled = new Set([...sent.filter((s) => s.outcome === 'created').map((s) => s.id), ...refused.map((r) => r.id)]);
  const keyOf = new Map(rows.map((r) => [r.id, r.sourceKey]));
  return {
    ...outcome, settled: rows.filter((r) => !r.destinationRecordId && settled.has(r.id)).map((r) => r.sourceKey),
    sent: sent.map((s) => ({ sourceKey: keyOf.get(s.id)!, destinationRecordId: s.destinationRecordId })),
  };
}

/**
 * Copies of a new person held for these records (process.ts holdCopies) are matched again: a copy
 * whose first is created now finds what it created, one whose first was refused may be created in
 * its place, and one whose first is still to be sent stays a copy. A formula that sends
 * automatically sends those that become Ready (a person's send takes them in its own loop);
 * otherwise they wait for review in their bucket.
 */
async function matchCopiesAgain(plan: FormulaPlan, firsts: string[], by: Sender): Promise<SendOutcome> {
  const { tenant, formula } = plan;
  const held = await tenant.records.heldCopies(formula.id, firsts);
  if (!held.length) return { created: 0, updated: 0, refused: 0 };
  await tenant.records.replaceProcessed(await processAgain(plan, held, { keepCopies: true }));
  return plan.autosend ? sendReady(plan, { ids: held.map((r) => r.id), by }) : { created: 0, updated: 0, refused: 0 };
}
