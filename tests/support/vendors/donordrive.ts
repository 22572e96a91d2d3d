/**
 * A local fake of DonorDrive's Public API (github.com/DonorDrive/PublicAPI), version 1.1: GET
 * /api/events, /api/participants, /api/teams, /api/events/{eventID}/donations as arrays, with
 * `limit` (100 at most, more is 400), `offset` (past the end: 204), `orderBy` ("field ASC|DESC")
 * and a `where` of the one shape Tributary sends (`createdDateUTC > '2026-03-01T12:00:00.000+0000'`);
 * `version` other than 1.0 to 1.2 is 412. A token, when the fake wants one, is a bearer token
 * (401 `{ message }` otherwise); a 429 carries Retry-After. Stamps as DonorDrive writes them.
 */
import { sendJson, startVendorServer } from './harness.ts';

export const DD_TOKEN = 'dd-token';
type Obj = Record<string, unknown>;
export interface DdSeen { path: string; query: URLSearchParams; authorization: string | undefined }

export interface FakeDonorDrive {
  url: string;
  seen: DdSeen[];
  events: Obj[];
  participants: Obj[];
  teams: Obj[];
  donations: Obj[];
  event(name: string): Obj;
  donation(d: { eventID: number; displayName?: string; amount?: number; created: Date; participantID?: number; message?: string }): Obj;
  participant(p: { eventID: number; displayName: string; created: Date; teamID?: number }): Obj;
  team(t: { eventID: number; name: string; created: Date }): Obj;
  throttle(n: number): void;
  clear(): void;
  close(): Promise<void>;
}

export const ddStamp = (d: Date) => d.toISOString().replace('Z', '+0000');
const parse = (s: unknown) => Date.parse(String(s).replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));

export async function startFakeDonorDrive(): Promise<FakeDonorDrive> {
  const seen: DdSeen[] = [];
  let ids = 500;
  let throttled = 0;
  const fake: FakeDonorDrive = {
    url: '', seen, events: [], participants: [], teams: [], donations: [],
    event(name) { const e = { eventID: ++ids, name, type: 'Walk', timezone: 'America/New_York', sumDonations: 0, numDonations: 0 }; fake.events.push(e); return e; },
    donation(d) {
      const o = { donationID: (++ids).toString(16).toUpperCase().padStart(16, 'F'), avatarImageURL: '', eventID: d.eventID, createdDateUTC: ddStamp(d.created), ...(d.displayName ? { displayName: d.displayName } : {}), ...(d.amount !== undefined ? { amount: d.amount } : {}), ...(d.participantID ? { participantID: d.participantID } : {}), ...(d.message ? { message: d.message } : {}) };
      fake.donations.push(o);
      return o;
    },
    participant(p) { const o = { participantID: ++ids, eventID: p.eventID, displayName: p.displayName, createdDateUTC: ddStamp(p.created), teamID: p.teamID, sumDonations: 0, numDonations: 0, fundraisingGoal: 250 }; fake.participants.push(o); return o; },
    team(t) { const o = { teamID: ++ids, eventID: t.eventID, name: t.name, createdDateUTC: ddStamp(t.created), sumDonations: 0, numDonations: 0, numParticipants: 0 }; fake.teams.push(o); return o; },
    throttle(n) { throttled = n; },
    clear() { fake.events.length = 0; fake.participants.length = 0; fake.teams.length = 0; fake.donations.length = 0; seen.length = 0; },
    close: async () => {},
  };

  const server = await startVendorServer((req, res) => {
    const q = req.url.searchParams;
    seen.push({ path: req.url.pathname, query: q, authorization: req.headers.authorization });
    const auth = req.headers.authorization;
    if (auth && auth !== `Bearer ${DD_TOKEN}`) return sendJson(res, 401, { message: 'The API token furnished is invalid or has been revoked.' });
    if (!['1.0', '1.1', '1.2', null].includes(q.get('version'))) return sendJson(res, 412, { message: 'The version furnished is unsupported.' });
    if (throttled > 0) { throttled--; return sendJson(res, 429, { message: 'Too many requests.' }, { 'retry-after': '0' }); }
    let rows: Obj[];
    const ev = /^\/api\/events\/(\d+)\/(donations|participants|teams)$/.exec(req.url.pathname);
    if (ev) {
      if (!fake.events.some((e) => String(e.eventID) === ev[1])) return sendJson(res, 404, { message: 'The request could not be found for the ID or URL provided.' });
      rows = (fake[ev[2] as 'donations'] as Obj[]).filter((r) => String(r.eventID) === ev[1]);
    } else if (['/api/events', '/api/participants', '/api/teams'].includes(req.url.pathname)) {
      rows = [...(fake[req.url.pathname.slice(5) as 'events'] as Obj[])];
    } else {
      return sendJson(res, 404, { message: 'The request could not be found for the ID or URL provided.' });
    }
    const limit = q.has('limit') ? Number(q.get('limit')) : 100;
    if (!(limit >= 1 && limit <= 100)) return sendJson(res, 400, { message: 'The request could not be interpreted: limit must be between 1 and 100.' });
    const where = q.get('where');
    if (where) {
      const m = /^createdDateUTC > '(.+)'$/.exec(where);
      if (!m || Number.isNaN(parse(m[1]))) return sendJson(res, 400, { message: `The request could not be interpreted: where ${where}` });
      rows = rows.filter((r) => parse(r.createdDateUTC) > parse(m[1]));
    }
    const order = /^(\w+) (ASC|DESC)$/.exec(q.get('orderBy') ?? 'createdDateUTC DESC');
    if (order) {
      const key = (r: Obj) => (order[1] === 'createdDateUTC' ? parse(r.createdDateUTC) : Number(r[order[1]!]));
      rows.sort((a, b) => (order[2] === 'ASC' ? 1 : -1) * (key(a) - key(b)));
    }
    const offset = Number(q.get('offset') ?? 0);
    if (offset > 0 && offset >= rows.length) { res.writeHead(204); res.end(); return; }
    sendJson(res, 200, rows.slice(offset, offset + limit), { 'num-records': String(rows.length), 'api-version': q.get('version') ?? '1.0' });
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
