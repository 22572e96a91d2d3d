/**
 * Mailchimp Marketing API 3.0 as a source and a destination, on the connector kit: HTTP Basic with
 * the API key (any user name), at https://{dc}.api.mailchimp.com/3.0 where dc is the key's suffix
 * (`…-us21`). Error bodies are problem documents ({ type, title, status, detail, instance }, with
 * `errors` per field on a 400); a 429 (Mailchimp allows ten connections at once per key) is waited
 * out through the client, and calls are paced to ten a second per key.
 *
 * Source: the members of the formula's audience (`GET /lists/{id}/members`) changed since the
 * watermark (`since_last_changed`, sorted by `last_changed` ascending), paged with offset and
 * count; each member with its merge fields (an address merge field as its parts) and its tags.
 *
 * Destination: members of the formula's audience. A member is found by e-mail only: its id is
 * the MD5 of the lower-cased address (the subscriber hash), so a scenario without the e-mail
 * address cannot be answered and is refused when saved. A write is `PUT /lists/{id}/members/{hash}`
 * (Mailchimp's own upsert: sending it again changes nothing) with `status_if_new` from the
 * destination settings. Consent is the member's: the status is sent only when the formula maps it,
 * and never to re-subscribe a member who unsubscribed or was cleaned (the rest of the record is
 * sent without it). Tags mapped are added to the member (`POST …/tags`), never removed.
 *
 * Fields: the audience's merge fields (`/lists/{id}/merge-fields`); described without a formula's
 * audience (the wizard's first look), those of every audience of the account.
 */
import { createHash } from 'node:crypto';
import { mailchimp } from '../../../src/domain/connectors/engagement.ts';
import {
  ConnectorInputError, processingError, refused, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SearchQuery,
  type SourceRecord, type UpsertItem, type UpsertResult, searchOneOf } from '../connector.ts';
import { offsetPages, positionSince, type PullPosition } from '../kit/paging.ts';
import { sharedPacer } from '../kit/pace.ts';
import { vendorClient, VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';
import { awaitJob } from '../kit/exportJob.ts';
import { oncePerAccount } from '../kit/memo.ts';
import { failedResult, refusalWords, resultsInOrder, writtenResult } from '../kit/results.ts';
import { tarGzFiles } from '../kit/tarGz.ts';
import { basic, expectJson, VENDOR_DATA_MAX_BYTES, vendorFetch } from '../vendorHttp.ts';

const NAME = 'Mailchimp';
/** members a page: Mailchimp's most */
export const MAILCHIMP_PAGE = 1000;
const CALLS_PER_SECOND = 10;

/** The subscriber hash: MD5 of the lower-cased e-mail address (Mailchimp's member id). */
export const subscriberHash = (email: string) => createHash('md5').update(email.trim().toLowerCase()).digest('hex');

/** `…-us21` → https://us21.api.mailchimp.com */
export function mailchimpBase(apiKey: string | undefined): string {
  const dc = /-([a-z]{2,4}\d{1,3})$/.exec(apiKey ?? '')?.[1];
  if (!dc) throw refused('A Mailchimp API key ends with its data centre, for example -us21.');
  return `https://${dc}.api.mailchimp.com`;
}

/** Mailchimp's words: the problem's title and detail, and each field's error. */
export function mailchimpMessageOf(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const o = body as { title?: unknown; detail?: unknown; errors?: { field?: unknown; message?: unknown }[] };
  const head = [o.title, o.detail].filter((x): x is string => typeof x === 'string' && !!x).join(': ');
  const fields = (o.errors ?? []).map((e) => [e.field, e.message].filter((x) => typeof x === 'string' && x).join(': ')).filter(Boolean);
  return [head, ...fields].filter(Boolean).join('; ').slice(0, 500);
}

/** Where Mailchimp's OAuth metadata says an access token's account lives. */
export const MAILCHIMP_METADATA_URL = 'https://login.mailchimp.com/oauth2/metadata';
const API_HOST = /^https:\/\/[a-z]{2,4}\d{1,3}\.api\.mailchimp\.com$/;

/**
 * An OAuth access token's account: its API endpoint (https://us21.api.mailchimp.com) and name,
 * from GET login.mailchimp.com/oauth2/metadata with `Authorization: OAuth <token>`.
 */
export function mailchimpAccountOf(token: string, signal?: AbortSignal): Promise<{ base: string; account: string | null }> {
  // an OAuth token's account never moves data centre
  return oncePerAccount(`mailchimp:${createHash('sha256').update(token).digest('hex')}`, async () => {
    const res = await vendorFetch('mailchimp', NAME, MAILCHIMP_METADATA_URL, { headers: { authorization: `OAuth ${token}`, accept: 'application/json' }, signal });
    if (res.status === 401 || res.status === 403) throw refused('Mailchimp refused the access token (it was revoked, or the app was removed from the account): use Connect to Mailchimp again.');
    const body = await expectJson<{ dc?: unknown; api_endpoint?: unknown; accountname?: unknown }>(NAME, res, 'the access token');
    const base = typeof body.api_endpoint === 'string' && API_HOST.test(body.api_endpoint) ? body.api_endpoint
      : typeof body.dc === 'string' && /^[a-z]{2,4}\d{1,3}$/.test(body.dc) ? `https://${body.dc}.api.mailchimp.com` : null;
    if (!base) throw processingError('Mailchimp did not say which data centre the account is in.');
    return { base, account: typeof body.accountname === 'string' && body.accountname ? body.accountname.slice(0, 200) : null };
  });
}

export function mailchimpClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): VendorClient {
  const oauth = ctx.settings.authenticationType === 'oauth';
  const credential = (oauth ? ctx.settings.accessToken : ctx.settings.apiKey) ?? '';
  if (oauth && !credential) throw refused('Not connected yet: use Connect to Mailchimp.');
  let baseUrl = oauth ? null : mailchimpBase(credential);
  return vendorClient({
    system: 'mailchimp', name: NAME, signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    // an OAuth token's data centre is known once auth has asked (it runs before the address is made)
    baseUrl: () => baseUrl!,
    pace: sharedPacer(`mailchimp:${createHash('sha256').update(credential).digest('hex')}`, CALLS_PER_SECOND),
    credential: oauth ? 'access token' : 'API key',
    auth: async () => {
      if (!oauth) return { authorization: basic('tributary', credential) };
      baseUrl ??= (await mailchimpAccountOf(credential, ctx.signal)).base;
      return { authorization: `Bearer ${credential}` };
    },
    messageOf: mailchimpMessageOf,
  });
}

interface MergeField { tag?: string; name?: string; type?: string; required?: boolean }
interface Member {
  id?: string; email_address?: string; status?: string; merge_fields?: Record<string, unknown>; tags?: { name?: string }[];
  last_changed?: string; timestamp_opt?: string;
}

const ADDRESS_PARTS = ['addr1', 'addr2', 'city', 'state', 'zip', 'country'] as const;
const STATUSES = ['subscribed', 'unsubscribed', 'cleaned', 'pending', 'transactional'];
/** a member who said no (or whose address bounced) is never made subscribed again by a formula */
const NOT_AGAIN = new Set(['unsubscribed', 'cleaned']);

const audienceOf = (ctx: ConnectorContext, options?: PullOptions): string => {
  const id = (options?.settings?.audienceId ?? ctx.endSettings?.audienceId ?? '').trim();
  if (!id) throw new ConnectorInputError('Choose the Mailchimp audience (its audience ID) in the formula\'s settings.');
  return id;
};

function objectOf(object: string): 'members' {
  if (object === 'members') return object;
  throw new ConnectorInputError(`Tributary reads and writes Mailchimp audience members; ${object} is not one of them yet.`);
}

const MERGE_TYPES: Record<string, FieldInfo['type']> = { number: 'number', date: 'date', birthday: 'string', phone: 'phone' };

function mergeFieldInfos(fields: MergeField[]): FieldInfo[] {
  const out: FieldInfo[] = [];
  for (const f of fields) {
    if (!f.tag) continue;
    if (f.type === 'address') {
      for (const part of ADDRESS_PARTS) out.push({ name: `${f.tag}.${part}`, label: `${f.name ?? f.tag} (${part})`, type: 'string' });
    } else {
      out.push({ name: f.tag, label: f.name ?? f.tag, type: MERGE_TYPES[f.type ?? ''] ?? 'string', ...(f.required ? { required: true } : {}) });
    }
  }
  return out;
}

const FIXED: FieldInfo[] = [
  { name: 'id', label: 'Subscriber hash', type: 'string', readOnly: true },
  { name: 'email_address', label: 'E-mail address', type: 'email', required: true, searchable: true },
  // consent: written only when mapped, and never to re-subscribe someone who unsubscribed
  { name: 'status', label: 'Subscription status (changes consent: map it only on purpose; an unsubscribed member is never subscribed again)', type: 'string' },
  { name: 'tags', label: 'Tags (comma-separated; mapped tags are added)', type: 'string' },
  { name: 'last_changed', label: 'Last changed', type: 'datetime', readOnly: true },
  { name: 'timestamp_opt', label: 'Opted in on', type: 'datetime', readOnly: true },
];

async function mergeFields(client: VendorClient, audience: string): Promise<MergeField[]> {
  const answer = await client.call<{ merge_fields?: MergeField[] }>({ path: `/3.0/lists/${encodeURIComponent(audience)}/merge-fields`, query: { count: 1000 } });
  return answer.merge_fields ?? [];
}

async function describe(ctx: ConnectorContext, client: VendorClient): Promise<FieldInfo[]> {
  const audience = ctx.endSettings?.audienceId?.trim();
  let merge: MergeField[];
  if (audience) merge = await mergeFields(client, audience);
  else {
    // no audience yet: the merge fields of every audience of the account, each tag once
    const lists = await client.call<{ lists?: { id?: string }[] }>({ path: '/3.0/lists', query: { count: 1000, fields: 'lists.id,lists.name' } });
    const byTag = new Map<string, MergeField>();
    for (const l of lists.lists ?? []) if (l.id) for (const f of await mergeFields(client, l.id)) if (f.tag && !byTag.has(f.tag)) byTag.set(f.tag, f);
    merge = [...byTag.values()];
  }
  return [...FIXED, ...mergeFieldInfos(merge)];
}

export function memberRecord(m: Member): SourceRecord {
  const fields: Record<string, unknown> = {};
  for (const [tag, value] of Object.entries(m.merge_fields ?? {})) {
    if (value && typeof value === 'object') {
      for (const part of ADDRESS_PARTS) {
        const v = (value as Record<string, unknown>)[part];
        if (v !== undefined && v !== null && v !== '') fields[`${tag}.${part}`] = v;
      }
    } else if (value !== undefined && value !== null && value !== '') fields[tag] = value;
  }
  const tags = (m.tags ?? []).map((t) => t.name).filter(Boolean).join(', ');
  return {
    id: String(m.id ?? subscriberHash(m.email_address ?? '')),
    fields: Object.fromEntries(Object.entries({
      id: m.id, email_address: m.email_address, status: m.status, tags: tags || undefined, last_changed: m.last_changed, timestamp_opt: m.timestamp_opt || undefined, ...fields,
    }).filter(([, v]) => v !== undefined && v !== null && v !== '')),
  };
}

/** Mailchimp's since_last_changed is "after": a second earlier, so changes in the watermark's own second are read again, harmlessly. */
const secondBefore = (iso: string) => new Date(Date.parse(iso) - 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');

async function* pull(ctx: ConnectorContext, object: string, since: string | null, options: PullOptions | undefined): AsyncIterable<PullBatch> {
  objectOf(object);
  const audience = audienceOf(ctx, options);
  const client = mailchimpClient(ctx);
  const at = positionSince(since);
  // a run once over a window keeps its own cursor: a continuation goes on where the last slice stopped
  const window = options?.window;
  const from = at.since ?? (window ? window.from.toISOString() : null);
  let latest = at.latest;
  const count = Math.min(options?.batchSize ?? MAILCHIMP_PAGE, MAILCHIMP_PAGE);
  const start = at.next ? Number(at.next) : 0;
  for await (const page of offsetPages(async (offset, limit) => {
    const answer = await client.call<{ members?: Member[] }>({
      path: `/3.0/lists/${encodeURIComponent(audience)}/members`,
      query: {
        count: limit, offset, sort_field: 'last_changed', sort_dir: 'ASC',
        since_last_changed: from ? secondBefore(from) : undefined,
        before_last_changed: window ? window.to.toISOString().replace(/\.\d{3}Z$/, '+00:00') : undefined,
      },
    });
    return answer.members ?? [];
  }, count, start)) {
    const records = page.items.map(memberRecord);
    for (const r of records) {
      const changed = r.fields.last_changed as string | undefined;
      if (changed && (!latest || Date.parse(changed) > Date.parse(latest))) latest = new Date(Date.parse(changed)).toISOString();
    }
    const position: PullPosition = page.next ? { since: from, next: page.next, latest } : { since: latest ?? from, next: null, latest: null };
    yield { records, watermark: JSON.stringify(position) };
  }
}

async function memberByEmail(client: VendorClient, audience: string, email: string): Promise<Member | null> {
  try {
    return await client.call<Member>({ path: `/3.0/lists/${encodeURIComponent(audience)}/members/${subscriberHash(email)}` });
  } catch (err) {
    if (err instanceof VendorRefusal && err.status === 404) return null;
    throw err;
  }
}

async function searchMany(ctx: ConnectorContext, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  objectOf(object);
  const audience = audienceOf(ctx);
  const client = mailchimpClient(ctx);
  const out: SourceRecord[][] = [];
  for (const q of queries) {
    const email = q.criteria.find((c) => c.field === 'email_address' && (c.operator ?? 'equals') === 'equals');
    const byId = q.criteria.find((c) => c.field === 'id');
    if (!email && !byId) throw new ConnectorInputError('Mailchimp finds audience members by e-mail address only.');
    let member: Member | null;
    if (email) member = email.value.trim() ? await memberByEmail(client, audience, email.value) : null;
    else {
      try { member = await client.call<Member>({ path: `/3.0/lists/${encodeURIComponent(audience)}/members/${encodeURIComponent(byId!.value.trim())}` }); } catch (err) {
        if (!(err instanceof VendorRefusal && err.status === 404)) throw err;
        member = null;
      }
    }
    const record = member ? memberRecord(member) : null;
    // the other criteria compared on the member found
    const others = q.criteria.filter((c) => c !== email && c !== byId);
    out.push(record && others.every((c) => String(record.fields[c.field] ?? '').trim().toLowerCase() === c.value.trim().toLowerCase()) ? [record] : []);
  }
  return out;
}

const text = (v: unknown) => (v === undefined || v === null ? '' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).trim());

/** The record's fields as a member's body: merge fields by tag (an address from its parts). */
function memberBody(fields: Record<string, unknown>): { email: string; merge: Record<string, unknown>; status: string | null; tags: string[] } {
  const merge: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (['id', 'email_address', 'status', 'tags', 'last_changed', 'timestamp_opt'].includes(k)) continue;
    const dot = k.indexOf('.');
    if (dot > 0) {
      const address = (merge[k.slice(0, dot)] ??= {}) as Record<string, string>;
      address[k.slice(dot + 1)] = text(v);
    } else merge[k] = text(v);
  }
  const status = 'status' in fields ? text(fields.status).toLowerCase() || null : null;
  const tags = text(fields.tags).split(',').map((t) => t.trim()).filter(Boolean);
  return { email: text(fields.email_address), merge, status, tags };
}

/** From this many members whose status the formula leaves alone, a send goes as one batch operation instead of a PUT each. */
export const MAILCHIMP_BATCH_FROM = 100;
/** the most a batch's results may unpack to */
const BATCH_RESULTS_MAX_BYTES = 64 * 1024 * 1024;

interface Prepared { item: UpsertItem; body: ReturnType<typeof memberBody>; hash: string }
interface Batch { id?: string; status?: string; response_body_url?: string; errored_operations?: number }
interface OperationAnswer { status_code?: number; operation_id?: string; response?: string }

/** What the PUT of a member says, and, when mapped, the tags added to it. */
const memberPut = (p: Prepared, statusIfNew: string, status: string | null) => ({
  email_address: p.body.email, status_if_new: statusIfNew,
  ...(status ? { status } : {}),
  ...(Object.keys(p.body.merge).length ? { merge_fields: p.body.merge } : {}),
});
const tagsPost = (p: Prepared) => ({ tags: p.body.tags.map((name) => ({ name, status: 'active' })) });

/**
 * Many members at once through Mailchimp's batch operations: one POST /3.0/batches with each
 * member's PUT (and its tags' POST), looked at until Mailchimp has finished it, then its results
 * (a .tar.gz of JSON files at response_body_url) read for each operation's answer. PUT by
 * subscriber hash is idempotent, so a batch sent again after a crash changes nothing more.
 */
async function upsertByBatch(ctx: ConnectorContext, client: VendorClient, audience: string, statusIfNew: string, members: Prepared[]): Promise<UpsertResult[]> {
  if (!members.length) return [];
  const list = `/lists/${encodeURIComponent(audience)}/members`;
  const operations = members.flatMap((p, i) => [
    { method: 'PUT', path: `${list}/${p.hash}`, operation_id: `member-${i}`, body: JSON.stringify(memberPut(p, statusIfNew, null)) },
    ...(p.body.tags.length ? [{ method: 'POST', path: `${list}/${p.hash}/tags`, operation_id: `tags-${i}`, body: JSON.stringify(tagsPost(p)) }] : []),
  ]);
  const sent = await client.call<Batch>({ method: 'POST', path: '/3.0/batches', json: { operations } });
  if (!sent?.id) throw processingError('Mailchimp took the batch without naming it.');
  const done = await awaitJob<Batch>({
    name: NAME, signal: ctx.signal, doing: 'the batch of members it was sent',
    look: async () => {
      try { return await client.call<Batch>({ path: `/3.0/batches/${encodeURIComponent(sent.id!)}` }); } catch (err) {
        if (err instanceof VendorRefusal && err.status === 404) return null;
        throw err;
      }
    },
    state: (b) => (b.status === 'finished' ? 'done' : 'waiting'),
    failed: () => '',
  });
  if (!done) throw processingError('Mailchimp no longer has the batch it was sent; the send is tried again.');
  if (!done.response_body_url || !/^https:\/\//.test(done.response_body_url)) throw processingError('Mailchimp finished the batch without its results.');
  // a signed link to Mailchimp's storage: no credentials go with it
  const res = await vendorFetch('mailchimp', NAME, done.response_body_url, { maxBytes: VENDOR_DATA_MAX_BYTES, signal: ctx.signal });
  if (res.status !== 200 || !res.bytes) throw processingError(`Mailchimp's batch results could not be read (HTTP ${res.status}).`);
  const answers = new Map<string, OperationAnswer>();
  for (const file of tarGzFiles(await res.bytes(), { name: NAME, maxBytes: BATCH_RESULTS_MAX_BYTES })) {
    if (!file.path.endsWith('.json')) continue;
    let list: unknown;
    try { list = JSON.parse(file.content.toString('utf8')); } catch { throw processingError("Mailchimp's batch results are not JSON."); }
    for (const a of Array.isArray(list) ? list as OperationAnswer[] : []) if (typeof a?.operation_id === 'string') answers.set(a.operation_id, a);
  }
  const bodyOf = (a: OperationAnswer | undefined): unknown => { try { return JSON.parse(a?.response ?? ''); } catch { return null; } };
  return members.map((p, i): UpsertResult => {
    const member = answers.get(`member-${i}`);
    const tags = answers.get(`tags-${i}`);
    const refusal = [member, tags].find((a) => a && (a.status_code ?? 0) >= 300);
    if (!member) return failedResult(p.item, 'Mailchimp\'s batch gave no answer for this member.');
    if (refusal) return failedResult(p.item, `${NAME} refused the member: ${mailchimpMessageOf(bodyOf(refusal)) || `HTTP ${refusal.status_code}`}`);
    const id = (bodyOf(member) as Member | null)?.id;
    return writtenResult(p.item, String(id ?? p.hash), !p.item.id);
  });
}

async function upsert(ctx: ConnectorContext, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  objectOf(object);
  const audience = audienceOf(ctx);
  const client = mailchimpClient(ctx);
  const statusIfNew = ctx.endSettings?.status || 'subscribed';
  const results = resultsInOrder(items);
  const ready: Prepared[] = [];
  for (const item of items) {
    const body = memberBody(item.fields);
    if (!body.email) { results.fail(item, 'Mailchimp keeps a member by e-mail address, and this record has none.'); continue; }
    if (body.status && !STATUSES.includes(body.status)) { results.fail(item, `Mailchimp has no subscription status '${body.status}' (it has ${STATUSES.join(', ')}).`); continue; }
    ready.push({ item, body, hash: subscriberHash(body.email) });
  }
  // a member whose status the formula maps is read first, one at a time (consent below); the rest of a large send goes as one batch
  const batchable = ready.filter((p) => !p.body.status);
  const viaBatch = batchable.length >= MAILCHIMP_BATCH_FROM ? batchable : [];
  results.add(await upsertByBatch(ctx, client, audience, statusIfNew, viaBatch));
  for (const p of ready.filter((x) => !viaBatch.includes(x))) {
    const { item, body, hash } = p;
    try {
      // a status is sent only when mapped, and never to bring back someone who left
      let status = body.status;
      // without a match the engine creates: Mailchimp's PUT answers the same either way
      let existed = !!item.id;
      if (status) {
        const now = await memberByEmail(client, audience, body.email);
        existed = !!now;
        if (now?.status && NOT_AGAIN.has(now.status) && status !== now.status) status = null;
      }
      const saved = await client.call<Member>({ method: 'PUT', path: `/3.0/lists/${encodeURIComponent(audience)}/members/${hash}`, json: memberPut(p, statusIfNew, status) });
      if (body.tags.length) await client.call({ method: 'POST', path: `/3.0/lists/${encodeURIComponent(audience)}/members/${hash}/tags`, json: tagsPost(p) });
      results.add([writtenResult(item, String(saved.id ?? hash), !existed)]);
    } catch (err) {
      if (!(err instanceof VendorRefusal)) throw err;
      results.fail(item, refusalWords(NAME, 'member', err));
    }
  }
  return results.all();
}

export const mailchimpConnector: Connector = {
  system: 'mailchimp',
  async test(ctx) {
    const body = await mailchimpClient(ctx).call<{ health_status?: string }>({ path: '/3.0/ping' });
    if (!body?.health_status) throw refused('Mailchimp answered without a health status.');
    const account = ctx.settings.authenticationType === 'oauth' ? (await mailchimpAccountOf(ctx.settings.accessToken ?? '', ctx.signal)).account : null;
    return { detail: `Mailchimp answered: ${body.health_status}${account ? ` (account ${account})` : ''}` };
  },
  async listObjects() {
    return mailchimp.objects.filter((o) => o.name === 'members');
  },
  async describeFields(ctx, object) {
    objectOf(object);
    return describe(ctx, mailchimpClient(ctx));
  },
  pull: (ctx, object, since, options) => pull(ctx, object, since, options),
  search: searchOneOf(searchMany),
  searchMany,
  upsert,
  async matchingProblem(_ctx, object, scenarios) {
    if (object !== 'members') return `Tributary writes Mailchimp audience members; ${object} is not one of them yet.`;
    for (const s of scenarios) {
      if (!s.fields.includes('email_address') && !s.fields.includes('id')) {
        return `Mailchimp finds audience members by e-mail address only: the scenario "${s.name}" compares ${s.fields.join(', ') || 'nothing'}. Add the e-mail address to it.`;
      }
    }
    return null;
  },
};
