/**
 * Emma (api.e2ma.net) as a source and a destination, on the connector kit: HTTP Basic with the
 * public API key as user name and the private key as password, every path under the account's id
 * (`/{account_id}/…`). Error bodies are `{ "error": "…" }`; Emma allows 180 calls a minute per
 * account (paced here), and a 429 is waited out through the client.
 *
 * Source: members. Emma's member listing has no date filter, so a pull reads every member (`start`
 * and `end`, 500 a call) and keeps those changed after the watermark (`last_modified_at`, else
 * `member_since`; Emma writes dates as `@D:2026-01-05T09:00:00`); the watermark moves to the
 * latest change seen once the last page is stored.
 *
 * Destination: members, found by e-mail only (`GET /members/email/{email}`): a scenario without the
 * e-mail address is refused when saved. A write is `POST /members/add` (Emma's own create-or-update
 * by e-mail), with the destination settings' group for new members; a send of EMMA_BULK_FROM or
 * more goes as one bulk import (`POST /members`). Consent is the member's: the
 * status is never sent, so a member who opted out stays opted out.
 *
 * Fields: the account's member fields from `/fields` (their shortcut names).
 */
import { createHash } from 'node:crypto';
import { emma } from '../../../src/domain/connectors/engagement.ts';
import {
  ConnectorInputError, processingError, refused, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SearchQuery,
  type SourceRecord, type UpsertItem, type UpsertResult, searchOneOf } from '../connector.ts';
import { emailOnlyProblem, holdsAll } from '../kit/criteria.ts';
import { once } from '../kit/memo.ts';
import { sharedPacer } from '../kit/pace.ts';
import { laterStamp, offsetPages, positionSince, type PullPosition } from '../kit/paging.ts';
import { awaitJob } from '../kit/exportJob.ts';
import { eachRecord, failedResult, resultsInOrder, writtenResult } from '../kit/results.ts';
import { vendorClient, VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';
import { basic } from '../vendorHttp.ts';

const NAME = 'Emma';
export const EMMA_API = 'https://api.e2ma.net';
/** members a call: the most Emma answers */
export const EMMA_PAGE = 500;
/** Emma's limit: 180 calls a minute per account */
export const EMMA_LIMIT = { calls: 180, windowMs: 60_000 };

export function emmaClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): { client: VendorClient; root: string } {
  const account = (ctx.settings.accountId ?? '').trim();
  if (!/^\d+$/.test(account)) throw refused('The Emma account ID is a number.');
  const { publicApiKey = '', privateApiKey = '' } = ctx.settings;
  const client = vendorClient({
    system: 'emma', name: NAME, baseUrl: EMMA_API, signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    pace: sharedPacer(`emma:${createHash('sha256').update(`${account}:${publicApiKey}`).digest('hex')}`, EMMA_LIMIT.calls, EMMA_LIMIT.windowMs),
    credential: 'API keys',
    auth: async () => ({ authorization: basic(publicApiKey, privateApiKey) }),
  });
  return { client, root: `/${account}` };
}

interface EmmaField { field_id?: number; shortcut_name?: string; display_name?: string; field_type?: string; widget_type?: string }
interface Member {
  member_id?: number; email?: string; status?: string; member_status_id?: string; fields?: Record<string, unknown>;
  member_since?: string; last_modified_at?: string | null;
}

/** `@D:2026-01-05T09:00:00` (Emma's dates) as ISO 8601; null when unreadable */
export function emmaDate(v: unknown): string | null {
  if (typeof v !== 'string' || !v) return null;
  const s = v.replace(/^@D:/, '');
  const t = Date.parse(/[zZ]|[+-]\d{2}:?\d{2}$/.test(s) ? s : `${s}Z`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

function objectOf(object: string): 'members' {
  if (object === 'members') return object;
  throw new ConnectorInputError(`Tributary reads and writes Emma members; ${object} is not one of them yet.`);
}

const FIXED: FieldInfo[] = [
  { name: 'member_id', label: 'Member ID', type: 'string', readOnly: true },
  { name: 'email', label: 'E-mail address', type: 'email', required: true, searchable: true },
  // consent is the member's: read, never written
  { name: 'status', label: 'Status (read only: Tributary never changes a member\'s subscription)', type: 'string', readOnly: true },
  { name: 'member_since', label: 'Member since', type: 'datetime', readOnly: true },
  { name: 'last_modified_at', label: 'Last modified', type: 'datetime', readOnly: true },
];
const TYPES: Record<string, FieldInfo['type']> = { date: 'date', numeric: 'number', boolean: 'boolean' };

function fields(ctx: ConnectorContext, e: { client: VendorClient; root: string }): Promise<EmmaField[]> {
  return once(ctx, 'emma:fields', async () => {
    const answer = await e.client.call<EmmaField[]>({ path: `${e.root}/fields` });
    if (!Array.isArray(answer)) throw new VendorRefusal(NAME, 200, 'the list of fields was not a list');
    return answer.filter((f) => f.shortcut_name);
  });
}

export function memberRecord(m: Member): SourceRecord {
  const own = Object.fromEntries(Object.entries(m.fields ?? {}).filter(([, v]) => v !== undefined && v !== null && v !== ''));
  return {
    id: String(m.member_id),
    fields: Object.fromEntries(Object.entries({
      ...own, member_id: m.member_id !== undefined ? String(m.member_id) : undefined, email: m.email, status: m.status,
      member_since: emmaDate(m.member_since) ?? undefined, last_modified_at: emmaDate(m.last_modified_at) ?? undefined,
    }).filter(([, v]) => v !== undefined && v !== null && v !== '')),
  };
}

const changedAt = (r: SourceRecord) => (r.fields.last_modified_at ?? r.fields.member_since) as string | undefined;

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  objectOf(object);
  const e = emmaClient(ctx);
  const at = positionSince(since);
  const window = options?.window;
  const from = at.since ?? (window ? window.from.toISOString() : null);
  let latest = at.latest;
  const limit = Math.min(options?.batchSize ?? EMMA_PAGE, EMMA_PAGE);
  for await (const page of offsetPages(async (start, count) => {
    const answer = await e.client.call<Member[]>({ path: `${e.root}/members`, query: { start, end: start + count } });
    if (!Array.isArray(answer)) throw new VendorRefusal(NAME, 200, 'the list of members was not a list');
    return answer;
  }, limit, at.next ? Number(at.next) : 0)) {
    const all = page.items.map(memberRecord);
    for (const r of all) latest = laterStamp(latest, changedAt(r));
    // no date filter at Emma: what changed after the watermark (inside the window) is kept here
    const records = all.filter((r) => {
      const t = changedAt(r);
      if (!t) return !from;
      return (!from || t > from) && (!window || Date.parse(t) < window.to.getTime());
    });
    const position: PullPosition = page.next ? { since: from, next: page.next, latest } : { since: latest ?? from, next: null, latest: null };
    yield { records, watermark: JSON.stringify(position) };
  }
}

async function memberByEmail(e: { client: VendorClient; root: string }, email: string): Promise<Member | null> {
  try {
    return await e.client.call<Member>({ path: `${e.root}/members/email/${encodeURIComponent(email.trim())}` });
  } catch (err) {
    if (err instanceof VendorRefusal && err.status === 404) return null;
    throw err;
  }
}

async function searchMany(ctx: ConnectorContext, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  objectOf(object);
  const e = emmaClient(ctx);
  const out: SourceRecord[][] = [];
  for (const q of queries) {
    const email = q.criteria.find((c) => c.field === 'email' && (c.operator ?? 'equals') === 'equals');
    const byId = q.criteria.find((c) => c.field === 'member_id');
    if (!email && !byId) throw new ConnectorInputError('Emma finds members by e-mail address only.');
    let member: Member | null = null;
    if (email) member = email.value.trim() ? await memberByEmail(e, email.value) : null;
    else {
      try { member = await e.client.call<Member>({ path: `${e.root}/members/${encodeURIComponent(byId!.value.trim())}` }); } catch (err) {
        if (!(err instanceof VendorRefusal && err.status === 404)) throw err;
      }
    }
    const record = member ? memberRecord(member) : null;
    out.push(record && holdsAll(record.fields, q.criteria.filter((c) => c !== byId)) ? [record] : []);
  }
  return out;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).trim());

/** From this many members, a send goes as one bulk import (POST /members) instead of a call each. */
export const EMMA_BULK_FROM = 100;

interface Import { import_id?: number; status?: string; import_finished?: string | null; error_message?: string | null; num_skipped?: number }
interface ImportMember { member_id?: number; change_type?: string; email?: string }

/**
 * Many members at once through Emma's bulk import: one POST /members with each member's e-mail and
 * fields (and the group for new members), looked at under /members/imports/{id} until it is
 * finished, then its members (`change_type` a: added, u: updated) read page by page to learn
 * each one's id. A member the import does not list was skipped by Emma (an address it cannot use).
 * Emma's import, like /members/add, never changes a member's status.
 */
async function bulkImport(ctx: ConnectorContext, e: { client: VendorClient; root: string }, group: string | undefined, members: { item: UpsertItem; email: string; own: Record<string, string> }[]): Promise<UpsertResult[]> {
  const started = await e.client.call<{ import_id?: number }>({
    method: 'POST', path: `${e.root}/members`,
    json: { members: members.map((m) => ({ email: m.email, fields: m.own })), source_filename: 'Tributary', ...(group && /^\d+$/.test(group) ? { group_ids: [Number(group)] } : {}) },
  });
  if (started?.import_id === undefined) throw processingError('Emma took the import without naming it.');
  const at = `${e.root}/members/imports/${encodeURIComponent(String(started.import_id))}`;
  const done = await awaitJob<Import>({
    name: NAME, signal: ctx.signal, doing: 'importing the members',
    look: () => e.client.call<Import>({ path: at }),
    state: (i) => (i.status === 'e' ? 'failed' : i.import_finished ? 'done' : 'waiting'),
    failed: (i) => `Emma could not import the members: ${i.error_message || 'it gave no reason'}.`,
  });
  const byEmail = new Map<string, ImportMember>();
  for await (const page of offsetPages<ImportMember>(async (start) => e.client.call<ImportMember[]>({ path: `${at}/members`, query: { start, end: start + EMMA_PAGE } }), EMMA_PAGE)) {
    for (const m of page.items) if (typeof m.email === 'string') byEmail.set(m.email.toLowerCase(), m);
  }
  return members.map(({ item, email }) => {
    const m = byEmail.get(email.toLowerCase());
    if (m?.member_id === undefined) return failedResult(item, `Emma skipped the member in its import${done?.num_skipped ? ` (${done.num_skipped} skipped)` : ''}: check the e-mail address.`);
    return writtenResult(item, String(m.member_id), m.change_type === 'a');
  });
}

async function upsert(ctx: ConnectorContext, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  objectOf(object);
  const e = emmaClient(ctx);
  const known = new Set((await fields(ctx, e)).map((f) => f.shortcut_name!));
  const group = ctx.endSettings?.groupId?.trim();
  const results = resultsInOrder(items);
  const ready: { item: UpsertItem; email: string; own: Record<string, string> }[] = [];
  for (const item of items) {
    const email = text(item.fields.email);
    if (!email) { results.fail(item, 'Emma keeps a member by e-mail address, and this record has none.'); continue; }
    const own: Record<string, string> = {};
    const unknown = Object.keys(item.fields).find((k) => !FIXED.some((f) => f.name === k) && !known.has(k));
    if (unknown) { results.fail(item, `Emma has no member field ${unknown} in this account.`); continue; }
    for (const [k, v] of Object.entries(item.fields)) if (!FIXED.some((f) => f.name === k)) own[k] = text(v);
    ready.push({ item, email, own });
  }
  const written = ready.length >= EMMA_BULK_FROM
    ? await bulkImport(ctx, e, group, ready)
    : await eachRecord(NAME, 'member', ready.map((r) => r.item), async (item) => {
      const { email, own } = ready.find((r) => r.item === item)!;
      const answer = await e.client.call<{ member_id?: number; added?: boolean; status?: string }>({
        method: 'POST', path: `${e.root}/members/add`,
        json: { email, fields: own, ...(group && /^\d+$/.test(group) ? { group_ids: [Number(group)] } : {}) },
      });
      if (answer?.member_id === undefined) throw new VendorRefusal(NAME, 200, 'the answer named no member');
      return writtenResult(item, String(answer.member_id), answer.added === true);
    });
  results.add(written);
  return results.all();
}

export const emmaConnector: Connector = {
  system: 'emma',
  async test(ctx) {
    const e = emmaClient(ctx);
    let list: EmmaField[];
    try { list = await e.client.call<EmmaField[]>({ path: `${e.root}/fields` }); } catch (err) {
      if (err instanceof VendorRefusal && err.status === 404) throw refused(`Emma has no account ${ctx.settings.accountId} for these keys.`);
      throw err;
    }
    if (!Array.isArray(list)) throw refused('Emma answered without the list of fields.');
    return { detail: `Signed in to Emma account ${ctx.settings.accountId} (${list.length} member fields).` };
  },
  async listObjects() {
    return emma.objects.filter((o) => o.name === 'members');
  },
  async describeFields(ctx, object) {
    objectOf(object);
    const own = await fields(ctx, emmaClient(ctx));
    return [...FIXED, ...own.map((f): FieldInfo => ({ name: f.shortcut_name!, label: f.display_name || f.shortcut_name!, type: TYPES[f.field_type ?? ''] ?? 'string' }))];
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  search: searchOneOf(searchMany),
  searchMany,
  upsert,
  async matchingProblem(_ctx, object, scenarios) {
    if (object !== 'members') return `Tributary writes Emma members; ${object} is not one of them yet.`;
    return emailOnlyProblem(NAME, 'members', 'email', 'member_id', scenarios);
  },
};
