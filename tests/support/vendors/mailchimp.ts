/**
 * A local fake of the Mailchimp Marketing API 3.0, answering the endpoints Tributary calls as
 * Mailchimp documents them (mailchimp.com/developer/marketing/api): HTTP Basic with the API key as
 * password; GET /3.0/ping; GET /3.0/lists; GET /3.0/lists/{id}/merge-fields; GET
 * /3.0/lists/{id}/members with `count` (at most 1000) and `offset`, `since_last_changed` and
 * `before_last_changed`, `sort_field=last_changed`; a member by its subscriber hash (MD5 of the
 * lower-cased e-mail); PUT /3.0/lists/{id}/members/{hash} (add or update; `status_if_new` for a new
 * member; a member who unsubscribed or was cleaned cannot be subscribed again: 400 "Member In
 * Compliance State"; an e-mail that looks fake is refused); POST …/members/{hash}/tags (204).
 * Errors are problem documents `{ type, title, status, detail, instance }`; 429 carries
 * Retry-After. Point Tributary at it with CONNECTOR_BASE_URL_MAILCHIMP.
 */
import { createHash, randomUUID } from 'node:crypto';
import type http from 'node:http';
import { gzipSync } from 'node:zlib';
import { sendJson, startVendorServer } from './harness.ts';

export const MAILCHIMP_KEY = '0123456789abcdef0123456789abcdef-us21';
/** the registered app of Mailchimp's OAuth 2.0 (client_id and client_secret in the token request's body) */
export const MAILCHIMP_APP = { clientId: '123456789012', clientSecret: 'mc-app-secret-0123456789abcdef' };
export const MAILCHIMP_ACCOUNT = 'Riverside Food Bank';
/** where Mailchimp keeps batch results (a signed S3 link) */
const BATCH_RESULTS_HOST = 'https://mailchimp-api-batch.s3.amazonaws.com';

/** A gzipped POSIX tar of these files, as Mailchimp packs a batch's results. */
export function tarGz(files: [string, string][]): Buffer {
  const blocks: Buffer[] = [];
  for (const [name, text] of files) {
    const content = Buffer.from(text, 'utf8');
    const header = Buffer.alloc(512);
    header.write(name, 0, 100, 'utf8');
    header.write('0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write(`${Math.floor(Date.now() / 1000).toString(8).padStart(11, '0')}\0`, 136);
    header.write('        ', 148);
    header.write('0', 156);
    header.write('ustar\u000000', 257, 'binary');
    const sum = header.reduce((a, b) => a + b, 0);
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}
export const AUDIENCE = 'a1b2c3d4e5';
export const OTHER_AUDIENCE = 'f6e5d4c3b2';

export interface McMember {
  id: string; email_address: string; unique_email_id: string; status: string; merge_fields: Record<string, unknown>;
  tags: { id: number; name: string }[]; last_changed: string; timestamp_opt: string; list_id: string;
}
export interface McSeen { method: string; path: string; query: Record<string, string>; body: unknown; headers: http.IncomingHttpHeaders }

export interface FakeMailchimp {
  url: string;
  seen: McSeen[];
  /** members per audience, by subscriber hash */
  members: Map<string, Map<string, McMember>>;
  add(audience: string, m: { email: string; status?: string; merge?: Record<string, unknown>; tags?: string[]; changedAt?: Date }): McMember;
  /** batch operations received (POST /3.0/batches) */
  batchesStarted: number;
  /** access tokens issued through OAuth (they never expire); revoke one by deleting it */
  accessTokens: Set<string>;
  /** the next `n` API calls answer 429 with Retry-After `seconds` */
  throttle(n: number, seconds?: number): void;
  close(): Promise<void>;
}

type Answer = [number, unknown, Record<string, string>?];

const hash = (email: string) => createHash('md5').update(email.trim().toLowerCase()).digest('hex');
const problem = (status: number, title: string, detail: string, more: Record<string, unknown> = {}): Answer =>
  [status, { type: 'https://mailchimp.com/developer/marketing/docs/errors/', title, status, detail, instance: randomUUID(), ...more }, { 'content-type': 'application/problem+json' }];
/** Mailchimp's timestamps: ISO 8601 to the second, with +00:00 */
const mcTime = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, '+00:00');
const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;

const MERGE_FIELDS = [
  { merge_id: 1, tag: 'FNAME', name: 'First Name', type: 'text', required: false },
  { merge_id: 2, tag: 'LNAME', name: 'Last Name', type: 'text', required: false },
  { merge_id: 3, tag: 'ADDRESS', name: 'Address', type: 'address', required: false },
  { merge_id: 4, tag: 'PHONE', name: 'Phone Number', type: 'phone', required: false },
  { merge_id: 5, tag: 'BIRTHDAY', name: 'Birthday', type: 'birthday', required: false },
];

export async function startFakeMailchimp(): Promise<FakeMailchimp> {
  const seen: McSeen[] = [];
  const members = new Map<string, Map<string, McMember>>([[AUDIENCE, new Map()], [OTHER_AUDIENCE, new Map()]]);
  const mergeFields: Record<string, (typeof MERGE_FIELDS[number] & { list_id: string })[]> = {
    [AUDIENCE]: [...MERGE_FIELDS, { merge_id: 6, tag: 'VOLUNTEER', name: 'Volunteer interest', type: 'text', required: false }].map((f) => ({ ...f, list_id: AUDIENCE })),
    [OTHER_AUDIENCE]: [...MERGE_FIELDS.slice(0, 2), { merge_id: 3, tag: 'CHAPTER', name: 'Chapter', type: 'dropdown', required: false }].map((f) => ({ ...f, list_id: OTHER_AUDIENCE })),
  };
  let clock = Date.parse('2026-01-05T09:00:00Z');
  // every change is a later second than the one before (Mailchimp's timestamps have seconds)
  const stamp = (at?: Date) => mcTime(new Date(at ? at.getTime() : (clock = Math.max(clock + 1000, Math.floor(Date.now() / 1000) * 1000))));
  let tagId = 100;
  let throttled = 0;
  let throttleSeconds = 1;

  const fake: FakeMailchimp = {
    url: '', seen, members, accessTokens: new Set(), batchesStarted: 0,
    add(audience, m) {
      const at = stamp(m.changedAt);
      const member: McMember = {
        id: hash(m.email), email_address: m.email, unique_email_id: randomUUID().slice(0, 10), status: m.status ?? 'subscribed',
        merge_fields: { FNAME: '', LNAME: '', ADDRESS: '', PHONE: '', BIRTHDAY: '', ...m.merge }, tags: (m.tags ?? []).map((name) => ({ id: tagId++, name })),
        last_changed: at, timestamp_opt: at, list_id: audience,
      };
      members.get(audience)!.set(member.id, member);
      return member;
    },
    throttle(n, seconds = 1) { throttled = n; throttleSeconds = seconds; },
    close: async () => {},
  };

  function route(method: string, path: string, q: URLSearchParams, body: unknown): Answer | null {
    if (method === 'GET' && path === '/3.0/ping') return [200, { health_status: "Everything's Chimpy!" }];
    if (method === 'POST' && path === '/3.0/batches') return startBatch(body);
    const batch = /^\/3\.0\/batches\/([^/]+)$/.exec(path);
    if (batch && method === 'GET') return lookAtBatch(batch[1]!);
    if (method === 'GET' && path === '/3.0/lists') {
      return [200, { lists: [{ id: AUDIENCE, name: 'Riverside Newsletter' }, { id: OTHER_AUDIENCE, name: 'Chapters' }], total_items: 2 }];
    }
    let m = /^\/3\.0\/lists\/([^/]+)(\/.*)?$/.exec(path);
    if (!m) return null;
    const listId = m[1]!;
    const audience = members.get(listId);
    if (!audience) return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
    const rest = m[2] ?? '';
    if (method === 'GET' && rest === '/merge-fields') return [200, { merge_fields: mergeFields[listId], list_id: listId, total_items: mergeFields[listId]!.length }];
    if (method === 'GET' && rest === '/members') {
      const count = Number(q.get('count') ?? 10);
      if (count > 1000) return problem(400, 'Invalid Resource', 'The resource submitted could not be validated.', { errors: [{ field: 'count', message: 'Must be at most 1000.' }] });
      const offset = Number(q.get('offset') ?? 0);
      const since = q.get('since_last_changed');
      const before = q.get('before_last_changed');
      let list = [...audience.values()];
      if (since) list = list.filter((x) => Date.parse(x.last_changed) > Date.parse(since));
      if (before) list = list.filter((x) => Date.parse(x.last_changed) < Date.parse(before));
      if (q.get('sort_field') === 'last_changed') {
        const dir = q.get('sort_dir') === 'DESC' ? -1 : 1;
        list.sort((a, b) => (Date.parse(a.last_changed) - Date.parse(b.last_changed) || a.id.localeCompare(b.id)) * dir);
      }
      return [200, { members: list.slice(offset, offset + count), list_id: listId, total_items: list.length }];
    }
    m = /^\/members\/([0-9a-f]{32})(\/tags)?$/.exec(rest);
    if (!m) return null;
    const id = m[1]!;
    const existing = audience.get(id);
    if (m[2]) {
      if (method !== 'POST') return null;
      if (!existing) return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
      for (const t of (body as { tags?: { name: string; status: string }[] }).tags ?? []) {
        if (t.status === 'active' && !existing.tags.some((x) => x.name === t.name)) existing.tags.push({ id: tagId++, name: t.name });
        if (t.status === 'inactive') existing.tags = existing.tags.filter((x) => x.name !== t.name);
      }
      existing.last_changed = stamp();
      return [204, null];
    }
    if (method === 'GET') return existing ? [200, existing] : problem(404, 'Resource Not Found', 'The requested resource could not be found.');
    if (method !== 'PUT') return null;
    const b = body as { email_address?: string; status?: string; status_if_new?: string; merge_fields?: Record<string, unknown> };
    const email = b.email_address ?? '';
    if (!EMAIL.test(email)) return problem(400, 'Invalid Resource', `${email} looks fake or invalid, please enter a real email address.`);
    if (hash(email) !== id) return problem(400, 'Invalid Resource', 'The email address does not match the subscriber hash.');
    for (const k of Object.keys(b.merge_fields ?? {})) {
      if (!mergeFields[listId]!.some((f) => f.tag === k)) {
        return problem(400, 'Invalid Resource', 'The resource submitted could not be validated.', { errors: [{ field: k, message: `Merge field ${k} does not exist.` }] });
      }
    }
    if (existing) {
      if (b.status === 'subscribed' && (existing.status === 'unsubscribed' || existing.status === 'cleaned')) {
        return problem(400, 'Member In Compliance State', `${email} is already a list member in compliance state due to unsubscribe, bounce, or compliance review and cannot be subscribed.`);
      }
      if (b.status) existing.status = b.status;
      existing.merge_fields = { ...existing.merge_fields, ...b.merge_fields };
      existing.last_changed = stamp();
      return [200, existing];
    }
    const status = b.status ?? b.status_if_new;
    if (!status) return problem(400, 'Invalid Resource', 'The resource submitted could not be validated.', { errors: [{ field: 'status', message: 'Status is required for new members (status_if_new).' }] });
    return [200, fake.add(listId, { email, status, merge: b.merge_fields ?? {} })];
  }

  /**
   * Batch operations (mailchimp.com/developer/marketing/api/batch-operations/): POST /3.0/batches
   * with `operations` ({ method, path, operation_id, body as a JSON string }) answers the batch
   * pending; each operation is done as its own call would be, and the batch is `started` at the
   * first look and `finished` at the next, its `response_body_url` then a signed link (no
   * credentials) to a .tar.gz of one JSON file: [{ status_code, operation_id, response }].
   */
  const batches = new Map<string, { looks: number; total: number; errored: number; archive: Buffer }>();
  function startBatch(body: unknown): Answer {
    const ops = (body as { operations?: { method?: string; path?: string; operation_id?: string; body?: string }[] })?.operations;
    if (!Array.isArray(ops) || !ops.length) return problem(400, 'Invalid Resource', 'The resource submitted could not be validated.', { errors: [{ field: 'operations', message: 'Schema describes array, object found instead' }] });
    fake.batchesStarted++;
    const id = randomUUID().replace(/-/g, '').slice(0, 10);
    const answers = ops.map((op) => {
      const [status, response] = route(String(op.method), `/3.0${op.path ?? ''}`, new URLSearchParams(), op.body ? JSON.parse(op.body) : undefined)
        ?? problem(404, 'Resource Not Found', 'The requested resource could not be found.');
      return { status_code: status, operation_id: op.operation_id ?? null, response: JSON.stringify(response ?? {}) };
    });
    batches.set(id, { looks: 0, total: ops.length, errored: answers.filter((a) => a.status_code >= 300).length, archive: tarGz([[`${id}.json`, JSON.stringify(answers)]]) });
    return [200, { id, status: 'pending', total_operations: ops.length, finished_operations: 0, errored_operations: 0, submitted_at: mcTime(new Date()), response_body_url: '' }];
  }
  function lookAtBatch(id: string): Answer {
    const b = batches.get(id);
    if (!b) return problem(404, 'Resource Not Found', 'The requested resource could not be found.');
    const finished = ++b.looks > 1;
    return [200, {
      id, status: finished ? 'finished' : 'started', total_operations: b.total, finished_operations: finished ? b.total : 0, errored_operations: finished ? b.errored : 0,
      response_body_url: finished ? `${BATCH_RESULTS_HOST}/${id}-response.tar.gz?X-Amz-Signature=fake` : '',
    }];
  }

  /**
   * OAuth 2.0 as Mailchimp documents it (mailchimp.com/developer/marketing/guides/access-user-data-oauth-2/):
   * GET /oauth2/authorize redirects back at once with a code (the user grants); POST /oauth2/token
   * takes grant_type=authorization_code with client_id, client_secret, redirect_uri and the code,
   * once, and answers an access token that never expires (`expires_in: 0`, no refresh token); GET
   * /oauth2/metadata with `Authorization: OAuth <token>` names the account's data centre.
   */
  const codes = new Map<string, string>();
  function oauth(req: { method: string; url: URL; raw: string; headers: http.IncomingHttpHeaders }): Answer | null {
    const path = req.url.pathname;
    if (req.method === 'GET' && path === '/oauth2/authorize') {
      const q = req.url.searchParams;
      if (q.get('client_id') !== MAILCHIMP_APP.clientId || !q.get('redirect_uri') || q.get('response_type') !== 'code') return [400, { error: 'invalid_request' }];
      const code = `mc-code-${randomUUID()}`;
      codes.set(code, q.get('redirect_uri')!);
      const back = new URL(q.get('redirect_uri')!);
      back.searchParams.set('code', code);
      if (q.get('state')) back.searchParams.set('state', q.get('state')!);
      return [302, null, { location: back.toString() }];
    }
    if (req.method === 'POST' && path === '/oauth2/token') {
      const f = new URLSearchParams(req.raw);
      if (f.get('client_id') !== MAILCHIMP_APP.clientId || f.get('client_secret') !== MAILCHIMP_APP.clientSecret) return [401, { error: 'invalid_client' }];
      const redirect = codes.get(f.get('code') ?? '');
      if (f.get('grant_type') !== 'authorization_code' || !redirect || redirect !== f.get('redirect_uri')) return [400, { error: 'invalid_grant' }];
      codes.delete(f.get('code')!);
      const token = `mc-oauth-${randomUUID().replace(/-/g, '')}`;
      fake.accessTokens.add(token);
      return [200, { access_token: token, expires_in: 0, scope: null }];
    }
    if (req.method === 'GET' && path === '/oauth2/metadata') {
      const token = /^OAuth (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      if (!fake.accessTokens.has(token)) return [401, { error: 'invalid_token', error_description: 'Invalid token' }];
      return [200, { dc: 'us21', role: 'owner', accountname: MAILCHIMP_ACCOUNT, user_id: 48151623, login_url: 'https://login.mailchimp.com', api_endpoint: 'https://us21.api.mailchimp.com' }];
    }
    return null;
  }

  const server = await startVendorServer((req, res) => {
    seen.push({ method: req.method, path: req.url.pathname, query: Object.fromEntries(req.url.searchParams), body: req.body, headers: req.headers });
    const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const password = auth ? Buffer.from(auth, 'base64').toString('utf8').split(':').slice(1).join(':') : '';
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const results = /^\/([0-9a-f]+)-response\.tar\.gz$/.exec(req.url.pathname);
    if (results && req.method === 'GET') {
      // the signed link to a batch's results: no credentials asked for, none to be sent
      const archive = batches.get(results[1]!)?.archive;
      if (!archive || req.headers.authorization) { res.writeHead(403); res.end(); return; }
      res.writeHead(200, { 'content-type': 'application/x-gzip', 'content-length': String(archive.length) });
      res.end(archive);
      return;
    }
    let answer: Answer | null = oauth(req);
    if (answer) { /* the OAuth endpoints answer for themselves */ }
    else if (bearer && !fake.accessTokens.has(bearer)) answer = problem(401, 'API Key Invalid', 'Your API key may be invalid, or you\'ve attempted to access the wrong datacenter.');
    else if (!bearer && password !== MAILCHIMP_KEY) answer = problem(401, 'API Key Invalid', "Your API key may be invalid, or you've attempted to access the wrong datacenter.");
    else if (throttled > 0) {
      throttled--;
      answer = problem(429, 'Too Many Requests', 'You have exceeded the limit of 10 simultaneous connections.');
      answer[2] = { ...answer[2], 'retry-after': String(throttleSeconds) };
    } else answer = route(req.method, req.url.pathname, req.url.searchParams, req.body);
    if (!answer) answer = problem(404, 'Resource Not Found', 'The requested resource could not be found.');
    const [status, body, headers] = answer;
    if (status === 204 || status === 302) { res.writeHead(status, headers ?? {}); res.end(); return; }
    sendJson(res, status, body, headers ?? {});
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
