/**
 * A local fake of Financial Edge NXT's General Ledger API, on the fake SKY API host
 * (tests/support/vendors/skyApi.ts: the same token endpoint, subscription key, 429 with
 * Retry-After, spent quota and expiring access tokens), answering as the published definition
 * (Blackbaud FENXT General Ledger, api.sky.blackbaud.com) documents it:
 * - GET /generalledger/v1/accounts and /journalentries: SKY lists `{ count, value, next_link }`,
 *   `limit` (default 100, at most 500) and `offset`, `last_modified` (modified on or after);
 * - GET /generalledger/v1/journalcodes: an array of `{ journal_code_id, code, journal }`;
 * - GET /generalledger/v1/journalentrybatches: `status`, `search_text` (batch ID or description),
 *   `limit`, `offset`, `last_modified`;
 * - POST /generalledger/v1/journalentrybatches: `description` (required, 60 characters at most) and
 *   `batch_status` (required), answered `{ record_id }`;
 * - POST /generalledger/v1/journalentrybatches/{batch_id}/journalentries: a journal entry with a
 *   single distribution (`type_code` Debit or Credit, `account_number`, `post_date`, `journal`,
 *   `encumbrance`, `reference`, `amount`, `notes`), answered 200 with no body; 404 for an unknown
 *   batch, 400 for a batch already posted, an unknown account or journal, an account that
 *   prevents data entry, or a post date in a closed fiscal period;
 * - GET /generalledger/v1/journalentrybatches/{batch_id}/journalentries and .../summary.
 * 400 bodies are SKY API's list of `{ message, error_name, error_code, raw_message }`.
 * Point Tributary at it with CONNECTOR_BASE_URL_FENXT.
 */
import { error, skyPage, startFakeSkyApi, type Answer, type FakeSkyApi } from './skyApi.ts';

export interface FakeAccount {
  account_id: number; account_number: string; description: string; class: string; cashflow: string; working_capital: string;
  prevent_data_entry: boolean; prevent_posting: boolean; date_added: string; added_by: string; date_modified: string; modified_by: string;
}
export interface FakeBatch {
  batch_id: number; ui_batch_id: string; description: string; batch_status: string; create_interfund_sets: boolean; create_bank_account_adjustments: boolean;
  source_system_name?: string; date_added: string; added_by: string; date_modified: string; modified_by: string;
}
export interface FakeJournalEntry {
  journal_entry_id: number; batch_id: number; ui_batch_id: string; type_code: 'Debit' | 'Credit'; account_number: string; post_date: string;
  journal: string; encumbrance: string; reference?: string; amount: number; notes?: string; date_added: string; date_modified: string;
}

export interface GeneralLedger {
  accounts: FakeAccount[];
  journalCodes: { journal_code_id: number; code: string; journal: string }[];
  batches: Map<number, FakeBatch>;
  entries: FakeJournalEntry[];
  /** fiscal periods before this date are closed: an entry posted in them is refused */
  closedBefore: string;
  /** the next journal entries `pick` chooses are refused with `message` (400), as Financial Edge NXT refuses one it finds wrong */
  refuseEntries(pick: (entry: Record<string, unknown>) => boolean, message: string): void;
  addAccount(a: { account_number: string; description: string; prevent_data_entry?: boolean; date_modified?: string }): FakeAccount;
  /** adds a posted batch with entries, as if entered in Financial Edge NXT */
  addBatch(description: string, entries: Pick<FakeJournalEntry, 'type_code' | 'account_number' | 'post_date' | 'amount' | 'reference'>[]): FakeBatch;
  /** the batch of this number (its Batch ID, `ui_batch_id`, as users see it) */
  batch(number: string): FakeBatch;
  /** each batch's debit and credit totals */
  totals(batchId: number): { debits: number; credits: number };
}

export type FakeFenxt = FakeSkyApi & { gl: GeneralLedger };

const GL = '/generalledger/v1';
const GL_MAX = 500;

export async function startFakeFenxt(): Promise<FakeFenxt> {
  let clock = Date.parse('2026-11-01T00:00:00Z');
  const tick = () => { clock = Math.max(clock + 1000, Date.now()); return new Date(clock).toISOString(); };
  let nextId = 9000;
  let refusal: { pick: (e: Record<string, unknown>) => boolean; message: string } | null = null;

  const account = (id: number, number: string, description: string, cls: string, preventDataEntry = false): FakeAccount => ({
    account_id: id, account_number: number, description, class: cls, cashflow: 'Operating', working_capital: 'Current',
    prevent_data_entry: preventDataEntry, prevent_posting: false, date_added: '2024-07-01T12:00:00Z', added_by: 'Controller',
    date_modified: `2025-07-01T12:00:${String(id % 100).padStart(2, '0')}Z`, modified_by: 'Controller',
  });
  const gl: GeneralLedger = {
    accounts: [
      account(101, '01-1000-00', 'Cash - Operating', 'Unrestricted Net Assets'),
      account(102, '01-4100-00', 'Contributions - Individuals', 'Unrestricted Net Assets'),
      account(103, '01-4200-00', 'Contributions - Foundations', 'Unrestricted Net Assets'),
      account(104, '02-4100-00', 'Contributions - Restricted', 'Temporarily Restricted Net Assets'),
      account(105, '01-1999-00', 'Total Assets (heading)', 'Unrestricted Net Assets', true),
    ],
    journalCodes: [{ journal_code_id: 1, code: 'CR', journal: 'Cash Receipts' }, { journal_code_id: 2, code: 'GJ', journal: 'General Journal' }],
    batches: new Map(),
    entries: [],
    closedBefore: '2026-01-01',
    refuseEntries(pick, message) { refusal = { pick, message }; },
    addAccount(a) {
      const row = account(nextId++, a.account_number, a.description, 'Unrestricted Net Assets', a.prevent_data_entry);
      row.date_modified = a.date_modified ?? tick();
      gl.accounts.push(row);
      return row;
    },
    addBatch(description, entries) {
      const [, made] = createBatch({ description, batch_status: 'Open' }) as [number, { record_id: number }];
      const batch = gl.batches.get(made.record_id)!;
      for (const e of entries) addEntry(batch, { ...e, journal: 'General Journal', encumbrance: 'Regular' });
      batch.batch_status = 'Posted';
      return batch;
    },
    batch(number) {
      const found = [...gl.batches.values()].find((b) => b.ui_batch_id === number);
      if (!found) throw new Error(`no batch numbered ${number}`);
      return found;
    },
    totals(batchId) {
      const mine = gl.entries.filter((e) => e.batch_id === batchId);
      const sum = (t: string) => Math.round(mine.filter((e) => e.type_code === t).reduce((a, e) => a + e.amount, 0) * 100) / 100;
      return { debits: sum('Debit'), credits: sum('Credit') };
    },
  };

  const createBatch = (body: Record<string, unknown>): Answer => {
    const description = body.description;
    if (typeof description !== 'string') return error(400, 'The description field is required.', 'InvalidParameter');
    if (description.length > 60) return error(400, 'Description cannot exceed 60 characters.', 'InvalidParameter');
    const status = body.batch_status;
    if (!['Open', 'PendingApproval', 'Approved', 'Posted', 'Deleted'].includes(String(status))) return error(400, 'The batch_status field is required.', 'InvalidParameter');
    const id = nextId++;
    const now = tick();
    gl.batches.set(id, {
      batch_id: id, ui_batch_id: String(gl.batches.size + 1001), description, batch_status: String(status),
      create_interfund_sets: body.create_interfund_sets === true, create_bank_account_adjustments: body.create_bank_account_adjustments === true,
      ...(typeof body.source_system_name === 'string' ? { source_system_name: body.source_system_name } : {}),
      date_added: now, added_by: 'SKY API', date_modified: now, modified_by: 'SKY API',
    });
    return [200, { record_id: id }];
  };

  const addEntry = (batch: FakeBatch, body: Record<string, unknown>): Answer => {
    if (batch.batch_status !== 'Open') return error(400, `Batch ${batch.ui_batch_id} is ${batch.batch_status.toLowerCase()} and cannot be changed.`, 'InvalidBatchStatus');
    if (body.type_code !== 'Debit' && body.type_code !== 'Credit') return error(400, "The type_code must be 'Debit' or 'Credit'.", 'InvalidParameter');
    const acct = gl.accounts.find((a) => a.account_number === body.account_number);
    if (!acct) return error(400, `The account number '${String(body.account_number)}' is not valid.`, 'InvalidAccount');
    if (acct.prevent_data_entry) return error(400, `Account ${acct.account_number} does not allow data entry.`, 'InvalidAccount');
    if (!gl.journalCodes.some((j) => j.journal === body.journal)) return error(400, `The journal '${String(body.journal)}' is not valid.`, 'InvalidJournal');
    const postDate = String(body.post_date ?? '');
    if (!/^\d{4}-\d{2}-\d{2}/.test(postDate)) return error(400, 'The post_date field is required.', 'InvalidParameter');
    if (postDate.slice(0, 10) < gl.closedBefore) return error(400, `The post date ${postDate.slice(0, 10)} is in a closed fiscal period.`, 'ClosedPeriod');
    if (typeof body.amount !== 'number' || !(body.amount > 0)) return error(400, 'The amount must be greater than zero.', 'InvalidParameter');
    if (refusal?.pick(body)) { const message = refusal.message; refusal = null; return error(400, message, 'InvalidRequest'); }
    const now = tick();
    gl.entries.push({
      journal_entry_id: nextId++, batch_id: batch.batch_id, ui_batch_id: batch.ui_batch_id, type_code: body.type_code, account_number: acct.account_number,
      post_date: postDate.slice(0, 10), journal: String(body.journal), encumbrance: String(body.encumbrance ?? 'Regular'), amount: body.amount,
      ...(typeof body.reference === 'string' ? { reference: body.reference } : {}), ...(typeof body.notes === 'string' ? { notes: body.notes } : {}),
      date_added: now, date_modified: now,
    });
    batch.date_modified = now;
    return [200, null];
  };

  const since = (q: URLSearchParams) => q.get('last_modified');
  const product = (method: string, path: string, q: URLSearchParams, body: Record<string, unknown>): Answer | undefined => {
    let m: RegExpMatchArray | null;
    if (method === 'GET' && path === `${GL}/accounts`) {
      const from = since(q);
      return skyPage(gl.accounts.filter((a) => !from || a.date_modified >= from), q, path, GL_MAX, 100);
    }
    if (method === 'GET' && path === `${GL}/journalentries`) {
      const from = since(q);
      return skyPage(gl.entries.filter((e) => !from || e.date_modified >= from), q, path, GL_MAX, 100);
    }
    if (method === 'GET' && path === `${GL}/journalcodes`) return [200, gl.journalCodes];
    if (method === 'GET' && path === `${GL}/journalentrybatches`) {
      const from = since(q);
      const status = q.get('status');
      const text = (q.get('search_text') ?? '').toLowerCase();
      const list = [...gl.batches.values()].filter((b) => (!from || b.date_modified >= from) && (!status || b.batch_status === status)
        && (!text || b.ui_batch_id === text || b.description.toLowerCase().includes(text)));
      return skyPage(list, q, path, GL_MAX, 100);
    }
    if (method === 'POST' && path === `${GL}/journalentrybatches`) return createBatch(body);
    if ((m = path.match(/^\/generalledger\/v1\/journalentrybatches\/([^/]+)\/(journalentries|summary)$/))) {
      if (!/^\d+$/.test(m[1]!)) return error(400, 'The batch_id must be an integer.', 'InvalidParameter');
      const batch = gl.batches.get(Number(m[1]));
      if (!batch) return [404, [{ message: 'Journal entry batch not found.', error_name: 'NotFound', error_code: 404 }]];
      if (method === 'POST' && m[2] === 'journalentries') return addEntry(batch, body);
      if (method === 'GET' && m[2] === 'journalentries') return skyPage(gl.entries.filter((e) => e.batch_id === batch.batch_id), q, path, GL_MAX, 100);
      if (method === 'GET' && m[2] === 'summary') {
        const t = gl.totals(batch.batch_id);
        return [200, {
          BatchId: batch.batch_id, UiBatchId: batch.ui_batch_id, Description: batch.description, BatchStatus: batch.batch_status,
          TotalDebits: t.debits, TotalCredits: t.credits, SourceSystemName: batch.source_system_name, DateAdded: batch.date_added, DateModified: batch.date_modified,
        }];
      }
    }
    return undefined;
  };

  const sky = await startFakeSkyApi({ system: 'fenxt', product });
  return Object.assign(sky, { gl });
}
