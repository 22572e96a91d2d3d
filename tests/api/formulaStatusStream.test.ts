/**
 * The formulas' status stream (GET /web-api/v1/formulas/status-stream) over real PostgreSQL
 * notifications: a snapshot first, a formula's status within a second of a change, nothing for
 * another tenant's subscriber, 403 without formula view, heartbeats, a closed stream leaving no
 * subscriber behind, and the stream living through a lost LISTEN connection.
 */
import { Hono } from 'hono';
import { createLocalJWKSet, decodeJwt, importJWK, SignJWT } from 'jose';
import { loadIdentityKeys } from '../../server/identity/keys.ts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FormulaStatus } from '../../src/domain/api/formulas.ts';
import { formulaStatusStream } from '../../src/domain/api/formulaStatusStream.ts';
import { createAuth } from '../../server/http/auth.ts';
import type { AppEnv } from '../../server/http/env.ts';
import { formulaStatusStreamRouter } from '../../server/http/formulaStatusStream.ts';
import { formulaStatusHub } from '../../server/services/formulaStatusHub.ts';
import { installErrorHandling } from '../../server/http/problem.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const F = '/web-api/v1/formulas';
const STREAM = formulaStatusStream.path;
const silent = pino({ level: 'silent' });
let server: TestServer;
let base: string;
/** the administrator in either demo tenant, and users of other roles in the first */
const headers: Record<'foodBank' | 'youthArts' | 'connections' | 'viewOnly', Record<string, string>> = {} as never;

interface Received { event: string; data: string }
interface Stream {
  res: Response;
  received: Received[];
  comments: number;
  /** the server ended the stream */
  ended: boolean;
  /** the first event (after those already taken) that matches, or an error after `ms` */
  next(match: (e: Received) => boolean, ms?: number): Promise<Received>;
  close(): void;
}

/** Reads a stream as a browser without EventSource does: fetch, then the body chunk by chunk. */
async function open(h: Record<string, string>, fetchOf: (init: RequestInit) => Promise<Response> = (init) => fetch(`${base}${STREAM}`, init)): Promise<Stream> {
  const abort = new AbortController();
  const res = await fetchOf({ headers: { ...h, accept: 'text/event-stream' }, signal: abort.signal });
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  const stream: Stream = {
    res, received, comments: 0, ended: false,
    async next(match, ms = 5000) {
      const until = Date.now() + ms;
      for (;;) {
        const i = received.findIndex(match);
        if (i >= 0) return received.splice(i, 1)[0]!;
        const left = until - Date.now();
        if (left <= 0) throw new Error(`no matching event within ${ms} ms; received ${JSON.stringify(received)}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.add(() => { clearTimeout(t); resolve(); });
        });
      }
    },
    close: () => abort.abort(),
  };
  if (res.ok && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      const reader = res.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          stream.ended = true;
          break;
        }
        buffer += decoder.decode(value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (block.startsWith(':')) { stream.comments += 1; continue; }
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
          const data = [...block.matchAll(/^data: (.*)$/gm)].map((m) => m[1]).join('\n');
          received.push({ event, data });
        }
        for (const w of [...waiters]) { waiters.delete(w); w(); }
      }
    })().catch(() => undefined);
  }
  return stream;
}

const statusOf = (e: Received) => JSON.parse(e.data) as FormulaStatus;
const isStatusOf = (id: string, paused?: boolean) => (e: Received) => e.event === 'status' && statusOf(e).id === id && (paused === undefined || statusOf(e).paused === paused);
const hub = () => formulaStatusHub(server.database.pool, silent);

async function newFormula(h: Record<string, string>): Promise<string> {
  const res = await call(base, F, { method: 'POST', headers: h, body: { name: `Stream ${Math.random().toString(36).slice(2, 8)}` } });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function waitUntil(what: string, holds: () => boolean | Promise<boolean>, ms = 5000) {
  const until = Date.now() + ms;
  while (!(await holds())) {
    if (Date.now() > until) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  server = await startTestServer();
  base = server.url;
  const admin = await sessionFor(base, 'administrator@demo.tributary.test');
  const res = await call(base, `/account-management/v1/Tenant/organization/${admin.orgId}/user/${encodeURIComponent(admin.auth0Id)}`, { headers: admin.headers });
  const { tenants } = await res.json() as { tenants: { tenantId: string; name: string }[] };
  const foodBank = tenants.find((t) => t.name === 'Riverside Food Bank')!.tenantId;
  const youthArts = tenants.find((t) => t.name === 'Riverside Youth Arts')!.tenantId;
  headers.foodBank = { ...admin.headers, tenantId: foodBank };
  headers.youthArts = { ...admin.headers, tenantId: youthArts };
  headers.connections = { ...(await sessionFor(base, 'connection.manager@demo.tributary.test')).headers, tenantId: foodBank };
  headers.viewOnly = { ...(await sessionFor(base, 'view.only@demo.tributary.test')).headers, tenantId: foodBank };
}, 60_000);
afterAll(async () => { await server?.close(); });

describe('the status stream', () => {
  it('opens with every formula\'s status, then sends a formula\'s status within a second of its pause', async () => {
    const id = await newFormula(headers.foodBank);
    // a View Only user watches; an administrator pauses
    const stream = await open(headers.viewOnly);
    expect(stream.res.status).toBe(200);
    expect(stream.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const snapshot = JSON.parse((await stream.next((e) => e.event === 'snapshot')).data) as { statuses: FormulaStatus[] };
    expect(snapshot.statuses.find((s) => s.id === id)).toMatchObject({ id, paused: false, status: 'inactive' });

    const asked = Date.now();
    const paused = await call(base, `${F}/${id}/pause`, { method: 'POST', headers: headers.foodBank });
    expect(paused.status).toBe(200);
    const event = await stream.next(isStatusOf(id, true), 1000);
    expect(Date.now() - asked).toBeLessThan(1000);
    // the status GET /:id/status answers, as the contract describes it
    expect(statusOf(event)).toEqual(await (await call(base, `${F}/${id}/status`, { headers: headers.foodBank })).json());
    expect(statusOf(event)).toMatchObject({ paused: true, status: 'paused', jobStatus: 'paused' });

    const resumed = await call(base, `${F}/${id}/resume`, { method: 'POST', headers: headers.foodBank });
    expect(resumed.status).toBe(200);
    expect(statusOf(await stream.next(isStatusOf(id, false), 1000))).toMatchObject({ paused: false });
    stream.close();
  });

  it('tells nothing to a subscriber of another tenant', async () => {
    const id = await newFormula(headers.foodBank);
    const own = await open(headers.foodBank);
    const other = await open(headers.youthArts);
    await own.next((e) => e.event === 'snapshot');
    const otherSnapshot = JSON.parse((await other.next((e) => e.event === 'snapshot')).data) as { statuses: FormulaStatus[] };
    expect(otherSnapshot.statuses.map((s) => s.id)).not.toContain(id);

    await call(base, `${F}/${id}/pause`, { method: 'POST', headers: headers.foodBank });
    await own.next(isStatusOf(id, true), 1000);
    // time enough for a stray event to arrive
    await new Promise((r) => setTimeout(r, 500));
    expect(other.received).toEqual([]);

    // and the other way round
    const theirs = await newFormula(headers.youthArts);
    await call(base, `${F}/${theirs}/pause`, { method: 'POST', headers: headers.youthArts });
    await other.next(isStatusOf(theirs, true), 1000);
    await new Promise((r) => setTimeout(r, 300));
    expect(own.received.filter((e) => e.event === 'status' && statusOf(e).id === theirs)).toEqual([]);
    own.close();
    other.close();
  });

  it('refuses a role without formula view with 403, and a request that does not ask for an event stream with 400', async () => {
    const refused = await open(headers.connections);
    expect(refused.res.status).toBe(403);
    expect(refused.res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await refused.res.json()).toMatchObject({ title: 'forbidden' });

    const unauthenticated = await open({});
    expect(unauthenticated.res.status).toBe(401);

    const plain = await call(base, STREAM, { headers: headers.foodBank });
    expect(plain.status).toBe(400);
    expect(await plain.json()).toMatchObject({ title: 'bad-request' });
    expect(hub().subscriberCount).toBe(0);
  });

  it('cleans up a closed stream: no subscriber and no listening connection are left', async () => {
    expect(hub().subscriberCount).toBe(0);
    const streams = await Promise.all([open(headers.foodBank), open(headers.foodBank), open(headers.youthArts)]);
    for (const s of streams) await s.next((e) => e.event === 'snapshot');
    expect(hub().subscriberCount).toBe(3);
    expect(hub().listening).toBe(true);
    const listeners = async () => (await server.database.pool.query(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and query ilike 'LISTEN formula_status%' and state = 'idle'",
    )).rows[0].n as number;
    expect(await listeners()).toBe(1);

    streams[0]!.close();
    await waitUntil('one subscriber gone', () => hub().subscriberCount === 2);
    for (const s of streams.slice(1)) s.close();
    await waitUntil('every subscriber gone', () => hub().subscriberCount === 0);
    expect(hub().listening).toBe(false);
    await waitUntil('the LISTEN connection closed', async () => (await listeners()) === 0);
  });

  it('listens again when its connection is lost, and sends a fresh snapshot', async () => {
    const id = await newFormula(headers.foodBank);
    const stream = await open(headers.foodBank);
    try {
      await stream.next((e) => e.event === 'snapshot');
      // the snapshot is written while the hub still connects: its LISTEN must be there to be lost
      await waitUntil('the hub listening', () => hub().listening);
      const { rows } = await server.database.pool.query(
        "select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = current_database() and query ilike 'LISTEN formula_status%'",
      );
      expect(rows.map((r) => r.ended)).toEqual([true]);
      // changes meanwhile were announced to nobody: the snapshot after reconnecting carries them
      await stream.next((e) => e.event === 'snapshot', 5000);
      await call(base, `${F}/${id}/pause`, { method: 'POST', headers: headers.foodBank });
      await stream.next(isStatusOf(id, true), 1000);
    } finally {
      // a failure here must not leave a subscriber behind for the tests after it
      stream.close();
    }
    await waitUntil('every subscriber gone', () => hub().subscriberCount === 0);
  });

  it('sends a heartbeat comment on its interval', async () => {
    // the router as the app mounts it, with a short heartbeat
    const app = new Hono<AppEnv>();
    installErrorHandling(app);
    app.use('*', async (c, next) => { c.set('log', silent); await next(); });
    const identity = server.identity!;
    app.route('/', formulaStatusStreamRouter(server.services, createAuth(server.database.db, {
      keys: createLocalJWKSet(identity.publicJwks), issuer: identity.issuer, audience: server.config.auth.audience,
    }), { heartbeatMs: 100 }));
    const stream = await open(headers.foodBank, async (init) => app.request('/', init));
    expect(stream.res.status).toBe(200);
    await stream.next((e) => e.event === 'snapshot');
    await waitUntil('two heartbeats', () => stream.comments >= 2, 2000);
    stream.close();
    await waitUntil('every subscriber gone', () => hub().subscriberCount === 0);
  });
});

describe('a stream lives no longer than its access', () => {
  /** a View Only user of the Food Bank, made in the database with the demo password */
  async function viewer(): Promise<{ id: string; session: Session; headers: Record<string, string> }> {
    const email = `stream.viewer.${Date.now()}.${Math.random().toString(36).slice(2, 6)}@example.org`;
    const pool = server.database.pool;
    const { rows: [row] } = await pool.query<{ id: string }>(
      `insert into users (organization_id, auth0_id, email, full_name, password_hash)
       select organization_id, 'auth0|' || gen_random_uuid(), $1, 'Stream Viewer', password_hash from users where email = 'administrator@demo.tributary.test'
       returning id`, [email]);
    await pool.query('insert into memberships (user_id, tenant_id, roles) values ($1, $2, $3)', [row!.id, headers.foodBank!.tenantId, ['View Only']]);
    const session = await sessionFor(base, email);
    return { id: row!.id, session, headers: { ...session.headers, tenantId: headers.foodBank!.tenantId! } };
  }

  it.each([
    ['removed from the tenant', (id: string) => server.database.pool.query('delete from memberships where user_id = $1', [id])],
    ['deactivated', (id: string) => server.database.pool.query('update users set deactivated_on = now() where id = $1', [id])],
  ] as const)('a user %s receives no more statuses, and the stream closes', async (_what, change) => {
    const id = await newFormula(headers.foodBank);
    const person = await viewer();
    const stream = await open(person.headers);
    await stream.next((e) => e.event === 'snapshot');
    await change(person.id);
    await call(base, `${F}/${id}/pause`, { method: 'POST', headers: headers.foodBank });
    await waitUntil('the stream closed', () => stream.ended, 3000);
    expect(stream.received.filter((e) => e.event === 'status')).toEqual([]);
    await waitUntil('its subscriber gone', () => hub().subscriberCount === 0);
  });

  it('closes when its access token expires', async () => {
    const person = await viewer();
    const keys = await loadIdentityKeys(server.database.pool);
    const real = decodeJwt(person.session.tokens.access_token);
    const soon = Math.floor(Date.now() / 1000) + 2;
    const short = await new SignJWT({ ...real, exp: soon }).setProtectedHeader({ alg: 'RS256', kid: keys.signing.kid! })
      .sign(await importJWK(keys.signing, 'RS256'));
    const stream = await open({ ...person.headers, authorization: `Bearer ${short}` });
    expect(stream.res.status).toBe(200);
    await stream.next((e) => e.event === 'snapshot');
    await waitUntil('the stream closed at expiry', () => stream.ended, 4000);
    expect(Date.now()).toBeGreaterThanOrEqual(soon * 1000);
  });
});
