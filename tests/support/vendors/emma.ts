/**
 * A local fake of the Emma API (api.e2ma.net/{account_id}/…), answering as Emma documents it
 * (api.myemma.com): HTTP Basic with the public key as user name and the private key as password;
 * GET /fields (the account's member fields); GET /members with `start` and `end` (at most 500 a
 * call; no date filter), members as { member_id, email, status, member_status_id, fields,
 * member_since, last_modified_at } with dates written `@D:2026-01-05T09:00:00`; GET
 * /members/email/{email} and /members/{id} (404 when there is none); POST /members/add (create or
 * update by e-mail: `added` says which; the status of a member who opted out is kept; an address
 * Emma cannot use is refused); POST /members (bulk: an import, looked at under
 * /members/imports/{id}, its members under …/members). Errors are `{ "error": "…" }`; throttle(n) answers 429.
 */
import type http from 'node:http';
import { sendJson, startVendorServer } from './harness.ts';

export const EMMA_ACCOUNT = '1700123';
export const EMMA_KEYS = { publicApiKey: 'emma-public-key', privateApiKey: 'emma-private-key' };
export const EMMA_GROUP = '4321';

export interface EmmaMember {
  member_id: number; email: string; status: string; member_status_id: string; fields: Record<string, string>;
  member_since: string; last_modified_at: string | null; groups: number[];
}
export interface EmmaSeen { method: string; path: string; query: Record<string, string>; body: unknown; headers: http.IncomingHttpHeaders }

export interface FakeEmma {
  url: string;
  seen: EmmaSeen[];
  members: Map<number, EmmaMember>;
  add(m: { email: string; fields?: Record<string, string>; status?: 'active' | 'opt-out'; changedAt?: Date }): EmmaMember;
  /** bulk imports received (POST /members) */
  importsStarted: number;
  throttle(n: number): void;
  close(): Promise<void>;
}

const FIELDS = [
  { field_id: 101, shortcut_name: 'first_name', display_name: 'First Name', field_type: 'text', widget_type: 'text' },
  { field_id: 102, shortcut_name: 'last_name', display_name: 'Last Name', field_type: 'text', widget_type: 'text' },
  { field_id: 103, shortcut_name: 'postal_code', display_name: 'Postal code', field_type: 'text', widget_type: 'text' },
  { field_id: 104, shortcut_name: 'birthday', display_name: 'Birthday', field_type: 'date', widget_type: 'date' },
  { field_id: 105, shortcut_name: 'volunteer_hours', display_name: 'Volunteer hours', field_type: 'numeric', widget_type: 'text' },
];
const EMAIL = /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i;
const emmaTime = (d: Date) => `@D:${d.toISOString().slice(0, 19)}`;

export async function startFakeEmma(): Promise<FakeEmma> {
  const seen: EmmaSeen[] = [];
  const members = new Map<number, EmmaMember>();
  let nextId = 200_001;
  let clock = Date.parse('2026-01-05T09:00:00Z');
  const stamp = (at?: Date) => emmaTime(new Date(at ? at.getTime() : (clock = Math.max(clock + 1000, Math.floor(Date.now() / 1000) * 1000))));
  let throttled = 0;

  interface ImportMember { member_id: number; change_type: 'a' | 'u'; member_status_id: string; email: string }
  const imports = new Map<number, { looks: number; affected: ImportMember[]; skipped: number; sourceFilename: string }>();
  let nextImport = 9001;

  const fake: FakeEmma = {
    url: '', seen, members, importsStarted: 0,
    add(m) {
      const at = stamp(m.changedAt);
      const member: EmmaMember = {
        member_id: nextId++, email: m.email, status: m.status ?? 'active', member_status_id: m.status === 'opt-out' ? 'o' : 'a',
        fields: { ...m.fields }, member_since: at, last_modified_at: at, groups: [],
      };
      members.set(member.member_id, member);
      return member;
    },
    throttle(n) { throttled = n; },
    close: async () => {},
  };
  const view = ({ groups: _groups, ...m }: EmmaMember) => m;

  function route(method: string, path: string, q: URLSearchParams, body: Record<string, unknown>): [number, unknown] | null {
    if (method === 'GET' && path === '/fields') return [200, FIELDS];
    if (method === 'GET' && path === '/members') {
      const start = Number(q.get('start') ?? 0);
      const end = Number(q.get('end') ?? start + 500);
      if (end - start > 500) return [400, { error: 'You may request at most 500 members at a time.' }];
      return [200, [...members.values()].sort((a, b) => a.member_id - b.member_id).slice(start, end).map(view)];
    }
    let m = /^\/members\/email\/(.+)$/.exec(path);
    if (method === 'GET' && m) {
      const email = decodeURIComponent(m[1]!).toLowerCase();
      const found = [...members.values()].find((x) => x.email.toLowerCase() === email);
      return found ? [200, view(found)] : [404, { error: 'No member with that email address.' }];
    }
    m = /^\/members\/(\d+)$/.exec(path);
    if (method === 'GET' && m) {
      const found = members.get(Number(m[1]));
      return found ? [200, view(found)] : [404, { error: 'Member not found.' }];
    }
    // bulk: POST /members { members: [{ email, fields }], source_filename, group_ids } answers an
    // import id; the import is unfinished at its first look and done at the next; its members
    // (added 'a' or updated 'u') listed with `start` and `end`; an address Emma cannot use is skipped
    if (method === 'POST' && path === '/members') {
      const list = Array.isArray(body.members) ? body.members as { email?: unknown; fields?: Record<string, string> }[] : null;
      if (!list?.length) return [400, { error: 'members is required.' }];
      fake.importsStarted++;
      const id = nextImport++;
      const affected: ImportMember[] = [];
      let skipped = 0;
      for (const item of list) {
        const email = typeof item.email === 'string' ? item.email : '';
        if (!EMAIL.test(email)) { skipped++; continue; }
        let member = [...members.values()].find((x) => x.email.toLowerCase() === email.toLowerCase());
        const added = !member;
        if (!member) member = fake.add({ email, fields: item.fields ?? {} });
        else { member.fields = { ...member.fields, ...item.fields }; member.last_modified_at = stamp(); }
        for (const g of (body.group_ids as number[] | undefined) ?? []) if (!member.groups.includes(g)) member.groups.push(g);
        affected.push({ member_id: member.member_id, change_type: added ? 'a' : 'u', member_status_id: member.member_status_id, email: member.email });
      }
      imports.set(id, { looks: 0, affected, skipped, sourceFilename: String(body.source_filename ?? '') });
      return [200, { import_id: id }];
    }
    m = /^\/members\/imports\/(\d+)(\/members)?$/.exec(path);
    if (method === 'GET' && m) {
      const found = imports.get(Number(m[1]));
      if (!found) return [404, { error: 'Import not found.' }];
      if (m[2]) {
        const start = Number(q.get('start') ?? 0);
        const end = Number(q.get('end') ?? start + 500);
        if (end - start > 500) return [400, { error: 'You may request at most 500 members at a time.' }];
        return [200, found.affected.slice(start, end)];
      }
      const finished = ++found.looks > 1;
      return [200, {
        import_id: Number(m[1]), status: finished ? 'o' : 'p', style: 'api', account_id: Number(EMMA_ACCOUNT), source_filename: found.sourceFilename,
        import_started: emmaTime(new Date()), import_finished: finished ? emmaTime(new Date()) : null, error_message: null,
        num_members_updated: found.affected.filter((a) => a.change_type === 'u').length, num_skipped: found.skipped, num_duplicates: 0, num_fields_added: 0,
      }];
    }
    if (method === 'POST' && path === '/members/add') {
      const email = typeof body.email === 'string' ? body.email : '';
      if (!EMAIL.test(email)) return [400, { error: `Invalid email address: ${email}` }];
      const given = (body.fields ?? {}) as Record<string, string>;
      const unknown = Object.keys(given).filter((k) => !FIELDS.some((f) => f.shortcut_name === k));
      if (unknown.length) return [400, { error: `Unknown field: ${unknown.join(', ')}` }];
      let member = [...members.values()].find((x) => x.email.toLowerCase() === email.toLowerCase());
      const added = !member;
      if (!member) member = fake.add({ email, fields: given });
      else {
        // an existing member's status is kept: one who opted out stays opted out
        member.fields = { ...member.fields, ...given };
        member.last_modified_at = stamp();
      }
      for (const g of (body.group_ids as number[] | undefined) ?? []) if (!member.groups.includes(g)) member.groups.push(g);
      return [200, { status: member.member_status_id, added, member_id: member.member_id }];
    }
    return null;
  }

  const server = await startVendorServer((req, res) => {
    const [, account, ...rest] = req.url.pathname.split('/');
    const path = `/${rest.join('/')}`;
    seen.push({ method: req.method, path, query: Object.fromEntries(req.url.searchParams), body: req.body, headers: req.headers });
    const auth = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64').toString('utf8');
    if (auth !== `${EMMA_KEYS.publicApiKey}:${EMMA_KEYS.privateApiKey}`) return sendJson(res, 401, { error: 'Unauthorized.' });
    if (account !== EMMA_ACCOUNT) return sendJson(res, 404, { error: 'Account not found.' });
    if (throttled > 0) { throttled--; return sendJson(res, 429, { error: 'Too many requests.' }); }
    const answer = route(req.method, path, req.url.searchParams, (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, unknown>)
      ?? [404, { error: 'Not found.' }];
    sendJson(res, answer[0], answer[1]);
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
