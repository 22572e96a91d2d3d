/**
 * Financial Edge NXT through SKY API's General Ledger API, as a source and a destination, on the
 * same SKY session, client, lists and pulls as Raiser's Edge NXT (client.ts, lists.ts).
 *
 * Source: accounts (`GET /generalledger/v1/accounts`) and journal entries
 * (`GET /generalledger/v1/journalentries`), each changed on or after the watermark
 * (`last_modified`), page by page through `next_link`.
 *
 * Destination: journal entry batches. A formula of gifts lands as one batch a run in the journal
 * its destination settings name (`POST /generalledger/v1/journalentrybatches`, described by the
 * settings' prefix, the run's time and a tag of the run), made when the run's first gift is
 * written and kept for the run's later jobs through the write ledger; each gift is a
 * balanced pair of journal entries of its amount, a Debit to its debit account and a Credit to its
 * credit account (the record's own, else the settings' defaults), each with a single distribution
 * (`POST /generalledger/v1/journalentrybatches/{batch_id}/journalentries`). The batch's number
 * as Financial Edge NXT shows it (its Batch ID, read from the batch's summary) is the record's
 * destination id. Before anything is written, the journal is looked up
 * in the journal codes and both accounts in the chart of accounts (once a run each), so a gift
 * with an unknown account fails alone, in words, and leaves nothing behind; should Financial Edge
 * NXT still refuse a credit after its debit went in, the debit is reversed in the batch, so the
 * batch stays balanced.
 *
 * Writes are never doubled: each gift's key goes through the kit's write ledger, and its journal
 * entries carry the key in their notes. A key found under way after a crash is looked for in
 * Tributary's open batches first; a gift found with one half only gets the other half there.
 */
import { createHash } from 'node:crypto';
import { fenxt } from '../../../src/domain/connectors/blackbaud.ts';
import { ConnectorInputError, type Connector, type ConnectorContext, type UpsertItem, type UpsertResult } from '../connector.ts';
import { perRun } from '../kit/perRun.ts';
import { VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';
import { writeLedger } from '../kit/writeOnce.ts';
import { skySession, skyTest } from './client.ts';
import { skyListAll, skyPull, type SkyList } from './lists.ts';
import { text } from './renxtFields.ts';
import { accountRecord, FENXT_FIELDS, journalEntryRecord, type FenxtObject } from './fenxtFields.ts';

const NAME = 'Financial Edge NXT';
const GL = '/generalledger/v1';
/** the General Ledger API's largest page */
const GL_PAGE = 500;
/** what a batch is described by when the destination settings name no prefix */
export const DEFAULT_BATCH_PREFIX = 'Tributary';

const OBJECTS: FenxtObject[] = ['accounts', 'journalentries', 'journalentrybatches'];

function objectOf(object: string): FenxtObject {
  if ((OBJECTS as string[]).includes(object)) return object as FenxtObject;
  throw new ConnectorInputError(`Tributary reads Financial Edge NXT accounts and journal entries and writes journal entry batches; ${object} is not one of them yet.`);
}

const PULLS: Partial<Record<FenxtObject, SkyList>> = {
  accounts: { path: `${GL}/accounts`, filter: 'last_modified', record: accountRecord, maxLimit: GL_PAGE },
  journalentries: { path: `${GL}/journalentries`, filter: 'last_modified', record: journalEntryRecord, maxLimit: GL_PAGE },
};

const client = (ctx: ConnectorContext): VendorClient => skySession(ctx, 'fenxt', NAME).client;

type Obj = Record<string, unknown>;
const norm = (v: unknown) => (v === undefined || v === null ? '' : String(v)).trim().toLowerCase();

/** The mark a gift's journal entries carry in their notes: its idempotency key. */
export const markOf = (key: string) => `[Tributary ${key}]`;
const MARK = /\[Tributary ([^\]\s]+)\]/;

interface JournalCode { journal_code_id?: number; code?: string; journal?: string }

/** The journal the settings name, by its name or code (case aside), from the journal codes read once a run. */
async function journalOf(ctx: ConnectorContext, c: VendorClient): Promise<{ journal: string } | { error: string }> {
  const wanted = text(ctx.endSettings?.journal);
  if (!wanted) return { error: 'Name the journal for new batches in the formula\'s destination settings.' };
  const codes = await perRun(ctx, 'fenxt:journals', async () => (await c.call<JournalCode[] | { value?: JournalCode[] }>({ path: `${GL}/journalcodes` })));
  const list = Array.isArray(codes) ? codes : codes?.value ?? [];
  const found = list.find((j) => norm(j.journal) === norm(wanted) || norm(j.code) === norm(wanted));
  return found?.journal ? { journal: found.journal } : { error: `No journal named '${wanted}' in ${NAME}.` };
}

interface Account { account_number?: string; prevent_data_entry?: boolean; prevent_posting?: boolean }

/** The chart of accounts by account number, read once a run. */
const chartOf = (ctx: ConnectorContext, c: VendorClient) => perRun(ctx, 'fenxt:accounts', async () => {
  const out = new Map<string, Account>();
  for (const a of await skyListAll(c, `${GL}/accounts`, {}, GL_PAGE)) if (typeof a.account_number === 'string') out.set(a.account_number.trim(), a as Account);
  return out;
});

const amountOf = (v: unknown) => (typeof v === 'number' ? v : Number(String(v ?? '').replace(/[^0-9.-]/g, '') || NaN));

interface Entry { type_code: 'Debit' | 'Credit'; account_number: string; post_date: string; encumbrance: 'Regular'; journal: string; reference?: string; amount: number; notes: string }
interface Pair { debit: Entry; credit: Entry }

/** A gift's two journal entries, or why it cannot have them (nothing is written for it then). */
async function pairOf(ctx: ConnectorContext, c: VendorClient, item: UpsertItem, journal: string): Promise<Pair | { error: string }> {
  const f = item.fields as Obj;
  const amount = amountOf(f.amount);
  if (!Number.isFinite(amount) || amount <= 0) return { error: `The amount must be a number greater than zero (it is '${text(f.amount) ?? ''}').` };
  if (Math.abs(amount * 100 - Math.round(amount * 100)) > 1e-6) return { error: `The amount ${amount} has more than two decimal places.` };
  const date = text(f.date)?.slice(0, 10);
  // a day the calendar has (not 2026-02-30)
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(date)) || new Date(date).toISOString().slice(0, 10) !== date) return { error: 'The post date is missing or not a date.' };
  const chart = await chartOf(ctx, c);
  const accounts: Record<'debit' | 'credit', string> = { debit: '', credit: '' };
  for (const side of ['debit', 'credit'] as const) {
    const n = text(f[`${side}Account`]) ?? text(ctx.endSettings?.[`${side}Account`]);
    if (!n) return { error: `No ${side} account: map one, or set a default ${side} account in the formula's destination settings.` };
    const account = chart.get(n);
    if (!account) return { error: `No account ${n} in ${NAME}.` };
    if (account.prevent_data_entry) return { error: `Account ${n} does not take data entry in ${NAME}.` };
    accounts[side] = n;
  }
  const reference = text(f.reference) ?? undefined;
  const notes = [text(f.notes), markOf(item.idempotencyKey)].filter(Boolean).join(' ');
  const entry = (type_code: Entry['type_code'], account_number: string): Entry => ({
    type_code, account_number, post_date: date, encumbrance: 'Regular', journal, ...(reference ? { reference } : {}), amount: Math.round(amount * 100) / 100, notes,
  });
  return { debit: entry('Debit', accounts.debit), credit: entry('Credit', accounts.credit) };
}

/** The tag a run's batch description ends with, so the run's next job (or a retry after a crash) finds it. */
const runTag = (runId: string) => `#${createHash('sha256').update(runId).digest('hex').slice(0, 8)}`;

/** A batch: its system record ID (what the API names it by) and its number as users see it (its Batch ID, `ui_batch_id`). */
interface RunBatch { id: string; number: string }

/**
 * The run's batch: made once, when its first gift is written, and recorded in the write ledger
 * against the run, so the run's later jobs write into it too (a batch made just before a crash is
 * found again by the tag its description ends with). A batch Financial Edge NXT refuses is refused
 * for every gift of the run.
 */
function runBatch(ctx: ConnectorContext, c: VendorClient): Promise<RunBatch | { refusal: VendorRefusal }> {
  return perRun(ctx, 'fenxt:batch', async () => {
    const prefix = text(ctx.endSettings?.batchDescriptionPrefix) ?? DEFAULT_BATCH_PREFIX;
    const tag = ctx.runId ? runTag(ctx.runId) : null;
    const create = async () => {
      const made = await c.call<{ record_id?: number | string }>({
        method: 'POST', path: `${GL}/journalentrybatches`,
        json: {
          description: [prefix, new Date().toISOString().slice(0, 16).replace('T', ' '), tag].filter(Boolean).join(' '),
          batch_status: 'Open', create_interfund_sets: false, create_bank_account_adjustments: false, source_system_name: 'Tributary',
        },
      });
      if (made?.record_id === undefined || made.record_id === null) throw new VendorRefusal(NAME, 200, 'the batch was made without an ID');
      return String(made.record_id);
    };
    // the batch's number as Financial Edge NXT shows it (its Batch ID), from the batch's summary
    const numbered = async (id: string): Promise<RunBatch> => {
      const summary = await c.call<{ UiBatchId?: string | number | null }>({ path: `${GL}/journalentrybatches/${encodeURIComponent(id)}/summary` });
      const number = summary?.UiBatchId;
      return { id, number: number !== undefined && number !== null && String(number) ? String(number) : id };
    };
    try {
      if (!ctx.runId || !tag) return await numbered(await create());
      const ledger = await writeLedger(ctx, 'journalentrybatches:runs', [ctx.runId]);
      const { id } = await ledger.createOnce(ctx.runId, async () => {
        const open = await skyListAll(c, `${GL}/journalentrybatches`, { status: 'Open', search_text: tag }, GL_PAGE);
        const mine = open.filter((b) => b.source_system_name === 'Tributary' && String(b.description ?? '').endsWith(` ${tag}`));
        return mine.length === 1 ? String(mine[0]!.batch_id) : null;
      }, create);
      return await numbered(id);
    } catch (err) {
      if (err instanceof VendorRefusal) return { refusal: err };
      throw err;
    }
  });
}

const addEntry = (c: VendorClient, batchId: string, entry: Entry) =>
  c.call({ method: 'POST', path: `${GL}/journalentrybatches/${encodeURIComponent(batchId)}/journalentries`, json: entry });

/** Writes a gift's pair; a credit refused after its debit went in has the debit reversed, so the batch stays balanced. */
async function writePair(c: VendorClient, batchId: string, pair: Pair): Promise<void> {
  await addEntry(c, batchId, pair.debit);
  try {
    await addEntry(c, batchId, pair.credit);
  } catch (err) {
    if (!(err instanceof VendorRefusal)) throw err;
    await addEntry(c, batchId, { ...pair.debit, type_code: 'Credit', notes: `${pair.debit.notes} (reversed: the credit was refused)` });
    throw err;
  }
}

/**
 * Tributary's open batches and the gifts their entries carry (key → batch and the sides found):
 * read once a run, and only when a write was found under way after a crash.
 */
const ourEntries = (ctx: ConnectorContext, c: VendorClient) => perRun(ctx, 'fenxt:ours', async () => {
  const counts = new Map<string, { batchId: string; number: string; Debit: number; Credit: number }>();
  const prefix = text(ctx.endSettings?.batchDescriptionPrefix) ?? DEFAULT_BATCH_PREFIX;
  const batches = await skyListAll(c, `${GL}/journalentrybatches`, { status: 'Open', search_text: prefix }, GL_PAGE);
  for (const b of batches.filter((x) => x.source_system_name === 'Tributary' && String(x.description ?? '').startsWith(prefix))) {
    const batchId = String(b.batch_id);
    const number = String(b.ui_batch_id ?? b.batch_id);
    for (const e of await skyListAll(c, `${GL}/journalentrybatches/${encodeURIComponent(batchId)}/journalentries`, {}, GL_PAGE)) {
      const key = MARK.exec(String(e.notes ?? ''))?.[1];
      if (!key) continue;
      const seen = counts.get(key) ?? { batchId, number, Debit: 0, Credit: 0 };
      // a reversal takes its debit back out
      if (/\(reversed/.test(String(e.notes))) seen.Debit--;
      else if (e.type_code === 'Debit' || e.type_code === 'Credit') seen[e.type_code]++;
      counts.set(key, seen);
    }
  }
  const out = new Map<string, { batchId: string; number: string; sides: Set<string> }>();
  for (const [key, c] of counts) {
    const sides = new Set((['Debit', 'Credit'] as const).filter((s) => c[s] > 0));
    if (sides.size) out.set(key, { batchId: c.batchId, number: c.number, sides });
  }
  return out;
});

async function upsertBatches(ctx: ConnectorContext, c: VendorClient, items: UpsertItem[]): Promise<UpsertResult[]> {
  const failed = (item: UpsertItem, error: string): UpsertResult => ({ idempotencyKey: item.idempotencyKey, id: '', outcome: 'failed', replayed: false, error });
  const journal = await journalOf(ctx, c);
  if ('error' in journal) return items.map((i) => failed(i, journal.error));
  const ledger = await writeLedger(ctx, 'journalentrybatches', items.filter((i) => !i.id).map((i) => i.idempotencyKey));
  const results: UpsertResult[] = [];
  for (const item of items) {
    // journal entries are not matched, so nothing is updated: a posted ledger is changed by a new entry, not an edit
    if (item.id) { results.push(failed(item, `${NAME} journal entries are not changed by Tributary: send the gift as a new one.`)); continue; }
    const pair = await pairOf(ctx, c, item, journal.journal);
    if ('error' in pair) { results.push(failed(item, pair.error)); continue; }
    try {
      const { id, replayed } = await ledger.createOnce(item.idempotencyKey, async () => {
        // after a crash: the gift's entries in one of Tributary's open batches, the missing half added
        const found = (await ourEntries(ctx, c)).get(item.idempotencyKey);
        if (!found) return null;
        if (!found.sides.has('Debit')) await addEntry(c, found.batchId, pair.debit);
        if (!found.sides.has('Credit')) await addEntry(c, found.batchId, pair.credit);
        return found.number;
      }, async () => {
        const batch = await runBatch(ctx, c);
        if ('refusal' in batch) throw batch.refusal;
        await writePair(c, batch.id, pair);
        return batch.number;
      });
      results.push({ idempotencyKey: item.idempotencyKey, id, outcome: 'created', replayed });
    } catch (err) {
      if (!(err instanceof VendorRefusal)) throw err;
      results.push(failed(item, `${NAME} refused the gift: ${err.vendorMessage || `HTTP ${err.status}`}`));
    }
  }
  return results;
}

export const fenxtConnector: Connector = {
  system: 'fenxt',
  test: (ctx) => skyTest(ctx, 'fenxt', NAME, `${GL}/accounts`),
  async listObjects() {
    return fenxt.objects.filter((o) => (OBJECTS as string[]).includes(o.name));
  },
  async describeFields(_ctx, object) {
    return FENXT_FIELDS[objectOf(object)];
  },
  async *pull(ctx, object, since, options) {
    const list = PULLS[objectOf(object)];
    if (!list) throw new ConnectorInputError('Tributary writes Financial Edge NXT journal entry batches; read its accounts or journal entries instead.');
    yield* skyPull(client(ctx), list, since, options);
  },
  // every gift is new to a batch: journal entries are not matched, so no search reaches Financial Edge NXT
  async search(_ctx, object) { objectOf(object); return []; },
  async searchMany(_ctx, object, queries) { objectOf(object); return queries.map(() => []); },
  async upsert(ctx, object, items) {
    if (objectOf(object) !== 'journalentrybatches') throw new ConnectorInputError('Tributary writes Financial Edge NXT journal entry batches only; accounts and journal entries are read.');
    return upsertBatches(ctx, client(ctx), items);
  },
};
