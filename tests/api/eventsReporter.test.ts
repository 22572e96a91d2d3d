/**
 * The activity history through /events-reporter/v1: keyset paging with no duplicate or gap (same
 * times included, to the microsecond), every filter, SPEC.md section 5's messages, each role and
 * another tenant.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forTenant } from '../../server/db/tenancy.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const E = '/events-reporter/v1';
let server: TestServer;
let base: string;
let pool: pg.Pool;
const sessions: Record<string, Session & { tenantId: string }> = {};
let otherTenant: string;

interface EventOut {
  id: string; at: string; actor: { userId: string | null; name: string }; type: string; description: string;
  details: Record<string, unknown>; correlationId: string; formulaId: string | null; recordId: string | null;
}
interface Page { events: EventOut[]; nextCursor: string | null }
interface Seeded { id: string; at: string; type: string; formulaId: string | null; actorUserId: string | null; description: string }

async function as(email: string) {
  const s = await sessionFor(base, email);
  const me = await (await call(base, `/account-management/v1/User/organization/${s.orgId}/user`, { headers: s.headers })).json() as { activeTenantId: string };
  return { ...s, tenantId: me.activeTenantId, headers: { ...s.headers, tenantId: me.activeTenantId } };
}
const send = (who: string, path: string, headers: Record<string, string> = {}) => call(base, path, { headers: { ...sessions[who]!.headers, ...headers } });
const json = async <T>(res: Response) => res.json() as Promise<T>;
const query = (q: Record<string, string | string[] | number>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) for (const one of Array.isArray(v) ? v : [v]) p.append(k, String(one));
  return p.toString();
};

// a window of its own, so events written by other tests and the demo seed stay out of it
const FROM = '2021-03-01T00:00:00Z';
const TO = '2021-04-01T00:00:00Z';
const window = { from: FROM, to: TO };
const TYPES = ['formula.created', 'formula.part.saved', 'datasource.deleted'];
const formulaA = randomUUID();
const formulaB = randomUUID();
let adminUserId: string;
const seeded: Seeded[] = [];
/** the newest-first order: (at, id) descending, at to the microsecond */
const newestFirst = (rows: Seeded[]) => [...rows].sort((x, y) => (x.at === y.at ? (x.id < y.id ? 1 : -1) : x.at < y.at ? 1 : -1));
const micro = (iso: string) => iso.replace(/(\.\d+)?Z$/, (_, f: string | undefined) => `${(f ?? '.').padEnd(7, '0')}Z`);

/** Every page from the first, `limit` at a time; the events in order. */
async function walk(who: string, q: Record<string, string | string[] | number>, limit: number): Promise<{ events: EventOut[]; pages: number }> {
  const events: EventOut[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await send(who, `${E}/events?${query({ ...q, limit, ...(cursor ? { cursor } : {}) })}`);
    expect(res.status, await res.clone().text()).toBe(200);
    const page: Page = await json<Page>(res);
    expect(page.events.length).toBeLessThanOrEqual(limit);
    events.push(...page.events);
    cursor = page.nextCursor;
    pages += 1;
    expect(pages, 'pages end').toBeLessThan(500);
  } while (cursor);
  return { events, pages };
}

beforeAll(async () => {
  server = await startTestServer();
  base = server.url;
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  for (const [who, email] of Object.entries({
    admin: 'administrator@demo.tributary.test', power: 'power.user@demo.tributary.test', producer: 'formula.producer@demo.tributary.test',
    processor: 'data.processor@demo.tributary.test', viewer: 'view.only@demo.tributary.test', connections: 'connection.manager@demo.tributary.test',
    users: 'user.manager@demo.tributary.test', none: 'no.roles@demo.tributary.test',
  })) sessions[who] = await as(email);
  const admin = sessions.admin!;
  adminUserId = admin.auth0Id.replace(/^auth0\|/, '');
  const me = await json<{ tenants: { tenantId: string }[] }>(await send('admin', `/account-management/v1/User/organization/${admin.orgId}/user`));
  otherTenant = me.tenants.find((t) => t.tenantId !== admin.tenantId)!.tenantId;
  for (const who of ['power', 'producer', 'processor', 'viewer', 'connections', 'users']) expect(sessions[who]!.tenantId, who).toBe(admin.tenantId);
  // a member without a role has no login details to name a tenant: it names its own
  sessions.none = { ...sessions.none!, tenantId: admin.tenantId, headers: { ...sessions.none!.headers, tenantId: admin.tenantId } };

  // 120 events over 30 distinct times, four at each: the same time must not lose or repeat any
  const tenant = forTenant(server.database.db, admin.tenantId);
  for (let i = 0; i < 120; i += 1) {
    const at = new Date(Date.parse('2021-03-02T00:00:00Z') + Math.floor(i / 4) * 7_200_000);
    const description = i % 10 === 0 ? `Saved 100% of the mapping_${i}` : i % 10 === 1 ? `Saved 1000 of the mappingX${i}` : `Event number ${i} for the Spring Appeal`;
    const row = await tenant.events.insert({
      at, actorUserId: i % 2 ? adminUserId : null, actorName: i % 2 ? 'Ada Administrator' : 'System', type: TYPES[i % 3]!,
      description, details: { i }, correlationId: `corr-${i}`, formulaId: i % 5 === 0 ? formulaA : i % 5 === 1 ? formulaB : null,
    });
    seeded.push({ id: row.id, at: micro(at.toISOString()), type: row.type, formulaId: row.formulaId, actorUserId: row.actorUserId, description });
  }
  // five more within one millisecond: a cursor that kept milliseconds only would skip some
  for (let u = 1; u <= 5; u += 1) {
    const at = `2021-03-15T12:00:00.12340${u}Z`;
    const { rows } = await pool.query<{ id: string }>(
      `insert into activity_events (tenant_id, at, actor_name, type, description, details, correlation_id)
       values ($1, $2::timestamptz, 'System', 'record.sent', $3, '{}', 'corr-micro') returning id`, [admin.tenantId, at, `Sent record ${u}`]);
    seeded.push({ id: rows[0]!.id, at, type: 'record.sent', formulaId: null, actorUserId: null, description: `Sent record ${u}` });
  }
  // the other tenant's, in the same window
  await forTenant(server.database.db, otherTenant).events.insert({
    at: new Date('2021-03-10T00:00:00Z'), actorName: 'System', type: 'other.tenant.only', description: 'Saved the mapping elsewhere', details: {}, correlationId: 'corr-other',
  });
});
afterAll(async () => { await pool?.end(); await server?.close(); });

describe('paging', () => {
  it.each([1, 7, 50, 200])('walks every event of the window newest first, %i at a time, none twice or missed', async (limit) => {
    const { events, pages } = await walk('viewer', window, limit);
    expect(events.map((e) => e.id)).toEqual(newestFirst(seeded).map((s) => s.id));
    expect(pages).toBe(Math.max(1, Math.ceil(seeded.length / limit)));
  });

  it('answers SPEC.md section 3\'s columns, a default page of 50, and no cursor after the last page', async () => {
    const page = await json<Page>(await send('viewer', `${E}/events?${query(window)}`));
    expect(page.events).toHaveLength(50);
    expect(page.nextCursor).toEqual(expect.any(String));
    const newest = newestFirst(seeded)[0]!;
    expect(page.events[0]).toEqual({
      id: newest.id, at: expect.any(String), actor: newest.actorUserId ? { userId: adminUserId, name: 'Ada Administrator' } : { userId: null, name: 'System' },
      type: newest.type, description: newest.description, details: expect.any(Object), correlationId: expect.stringMatching(/^corr-/),
      formulaId: newest.formulaId, recordId: null,
    });
    const small = await json<Page>(await send('viewer', `${E}/events?${query({ from: '2021-03-15T12:00:00Z', to: '2021-03-15T12:00:01Z' })}`));
    expect(small.events.map((e) => e.description)).toEqual(['Sent record 5', 'Sent record 4', 'Sent record 3', 'Sent record 2', 'Sent record 1']);
    expect(small.nextCursor).toBeNull();
  });

  it('includes the start and excludes the end', async () => {
    const at = '2021-03-02T02:00:00.000Z';
    const onStart = await json<Page>(await send('viewer', `${E}/events?${query({ from: at, to: '2021-03-02T02:00:00.001Z' })}`));
    expect(onStart.events).toHaveLength(4);
    const onEnd = await json<Page>(await send('viewer', `${E}/events?${query({ from: '2021-03-02T00:00:00Z', to: at })}`));
    expect(onEnd.events.every((e) => e.at < at)).toBe(true);
    expect(onEnd.events).toHaveLength(4);
    // a date-time with an offset names the same instant
    const offset = await json<Page>(await send('viewer', `${E}/events?${query({ from: '2021-03-02T04:00:00+02:00', to: '2021-03-02T04:00:00.001+02:00' })}`));
    expect(offset.events.map((e) => e.id).sort()).toEqual(onStart.events.map((e) => e.id).sort());
  });
});

describe('filters', () => {
  const expectIds = (events: EventOut[], rows: Seeded[]) => expect(events.map((e) => e.id)).toEqual(newestFirst(rows).map((s) => s.id));

  it('by formula, across pages', async () => {
    const { events } = await walk('viewer', { ...window, formulaId: formulaA }, 9);
    expectIds(events, seeded.filter((s) => s.formulaId === formulaA));
    expect((await json<Page>(await send('viewer', `${E}/events?${query({ ...window, formulaId: randomUUID() })}`))).events).toEqual([]);
  });

  it('by type: one, repeated, or a comma list', async () => {
    expectIds((await walk('viewer', { ...window, type: 'formula.created' }, 200)).events, seeded.filter((s) => s.type === 'formula.created'));
    const two = seeded.filter((s) => s.type === 'formula.created' || s.type === 'record.sent');
    expectIds((await walk('viewer', { ...window, type: ['formula.created', 'record.sent'] }, 11)).events, two);
    expectIds((await walk('viewer', { ...window, type: 'formula.created, record.sent' }, 200)).events, two);
  });

  it('by actor: the system, or one user', async () => {
    expectIds((await walk('viewer', { ...window, actor: 'system' }, 13)).events, seeded.filter((s) => s.actorUserId === null));
    expectIds((await walk('viewer', { ...window, actor: adminUserId }, 13)).events, seeded.filter((s) => s.actorUserId === adminUserId));
    expect((await json<Page>(await send('viewer', `${E}/events?${query({ ...window, actor: randomUUID() })}`))).events).toEqual([]);
  });

  it('by text in the description, any case, with % and _ taken literally', async () => {
    expectIds((await walk('viewer', { ...window, q: 'spring APPEAL' }, 17)).events, seeded.filter((s) => /spring appeal/i.test(s.description)));
    expectIds((await walk('viewer', { ...window, q: '100%' }, 200)).events, seeded.filter((s) => s.description.includes('100%')));
    expectIds((await walk('viewer', { ...window, q: 'mapping_' }, 200)).events, seeded.filter((s) => s.description.includes('mapping_')));
    // an empty search is no search
    expect((await walk('viewer', { ...window, q: '   ' }, 200)).events).toHaveLength(seeded.length);
  });

  it('all at once', async () => {
    const q = { ...window, formulaId: formulaA, type: 'formula.created', actor: 'system', q: 'the' };
    const expected = seeded.filter((s) => s.formulaId === formulaA && s.type === 'formula.created' && s.actorUserId === null && /the/i.test(s.description));
    expect(expected.length).toBeGreaterThan(1);
    expectIds((await walk('viewer', q, 1)).events, expected);
  });

  it('lists the types the tenant\'s history holds, each once and in order', async () => {
    const { types } = await json<{ types: string[] }>(await send('viewer', `${E}/event-types`));
    expect(types).toEqual(expect.arrayContaining([...TYPES, 'record.sent']));
    expect(types).toEqual([...new Set(types)].sort());
    expect(types).not.toContain('other.tenant.only');
  });
});

describe('refusals', () => {
  const refused = async (q: string, message: string | RegExp) => {
    const res = await send('viewer', `${E}/events${q ? `?${q}` : ''}`);
    expect(res.status, q).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = await json<{ title: string; code: string; detail: string }>(res);
    expect(problem, q).toMatchObject({ title: 'bad-request', code: 'validation-failed' });
    expect(problem.detail, q).toMatch(message);
  };

  it('needs both dates, the start earlier than the end (SPEC.md section 5)', async () => {
    await refused('', /The start date is required.*The end date is required/);
    await refused(query({ to: TO }), 'The start date is required');
    await refused(query({ from: FROM }), 'The end date is required');
    await refused(query({ from: '', to: TO }), 'The start date is required');
    await refused(query({ from: TO, to: FROM }), 'The start date must be earlier than the end date');
    await refused(query({ from: FROM, to: FROM }), 'The start date must be earlier than the end date');
    await refused(query({ from: '2020-01-01T00:00:00Z', to: '2021-01-02T00:00:00Z' }), 'The dates can be at most 366 days apart');
    for (const bad of ['yesterday', '2021-03-01', '2021-02-30T00:00:00Z', '2021-03-01T25:00:00Z', '1614556800000']) {
      await refused(query({ from: bad, to: TO }), 'Dates must be ISO date-times');
    }
    await refused(query({ from: [FROM, FROM], to: TO }), 'Give from once.');
  });

  it('needs 3 characters to search (SPEC.md section 5), and refuses other malformed filters', async () => {
    await refused(query({ ...window, q: 'ab' }), 'Query search needs at least 3 characters');
    await refused(query({ ...window, q: ' ab ' }), 'Query search needs at least 3 characters');
    await refused(query({ ...window, q: 'x'.repeat(201) }), 'Query search can be 200 characters at most');
    await refused(query({ ...window, q: 'abc\u0000' }), 'NUL');
    await refused(query({ ...window, formulaId: 'not-a-uuid' }), 'formulaId must be a formula id.');
    await refused(query({ ...window, formulaId: "1' or '1'='1" }), 'formulaId must be a formula id.');
    await refused(query({ ...window, actor: 'someone' }), 'actor must be system or a user id.');
    await refused(query({ ...window, type: 'formula created' }), 'A type is a dotted name');
    await refused(query({ ...window, type: Array.from({ length: 51 }, (_, i) => `t${i}`) }), 'Filter by 50 types at most.');
    for (const limit of ['0', '201', 'abc', '-1', '1.5', '']) await refused(query({ ...window, limit }), 'limit must be a whole number from 1 to 200.');
  });

  it('refuses a bad cursor with a 400, never a server error', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64url');
    const id = seeded[0]!.id;
    for (const cursor of [
      'garbage', '!!!', 'x'.repeat(300), b64('garbage'), b64(`2021-03-01T00:00:00.000000Z|not-a-uuid`), b64(`2021-13-01T00:00:00.000000Z|${id}`),
      b64(`2021-02-30T00:00:00.000000Z|${id}`), b64(`2021-03-01T24:61:00.000000Z|${id}`), b64(`2021-03-01T00:00:00Z|${id}`), b64(`|${id}`),
      b64(`2021-03-01T00:00:00.000000Z|${id}|more`), b64('\u0000'),
    ]) await refused(query({ ...window, cursor }), /cursor is not valid/);
  });
});

describe('dates PostgreSQL cannot store', () => {
  const refused = async (q: string, message: string | RegExp) => {
    const res = await send('viewer', `${E}/events?${q}`);
    expect(res.status, `${q}: ${await res.clone().text()}`).toBe(400);
    const problem = await json<{ title: string; detail: string }>(res);
    expect(problem.detail, q).toMatch(message);
  };

  it('refuses activity history from year 0000, or from a date that is none, with a 400', async () => {
    for (const [from, to] of [
      ['0000-01-01T00:00:00Z', '0000-06-01T00:00:00Z'], ['0000-12-31T00:00:00Z', '0001-01-02T00:00:00Z'],
      ['0001-01-01T00:00:00+01:00', '0001-06-01T00:00:00Z'], ['2026-02-31T00:00:00Z', '2026-03-05T00:00:00Z'],
      ['2026-01-01T00:00:00+16:00', '2026-01-05T00:00:00Z'],
    ] as [string, string][]) await refused(query({ from, to }), 'Dates must be ISO date-times');
    // the first day PostgreSQL and JavaScript agree on is searchable
    expect((await send('viewer', `${E}/events?${query({ from: '0001-01-01T00:00:00Z', to: '0001-06-01T00:00:00Z' })}`)).status).toBe(200);
  });

  it('refuses a cursor naming a time PostgreSQL cannot hold', async () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64url');
    const id = seeded[0]!.id;
    for (const at of ['0000-01-01T00:00:00.000000Z', '2021-02-29T00:00:00.000000Z', '2021-04-31T00:00:00.000000Z', '-0001-01-01T00:00:00.000000Z']) {
      for (const cursor of [b64(JSON.stringify([at, id])), b64(`${at}|${id}`)]) await refused(query({ ...window, cursor }), /cursor is not valid/);
    }
  });
});

describe('one event', () => {
  it('is read by its id; a malformed, unknown or other tenant\'s id is not found', async () => {
    const s = seeded[3]!;
    const res = await send('viewer', `${E}/events/${s.id}`);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id: s.id, type: s.type, description: s.description, details: { i: 3 }, correlationId: 'corr-3' });
    const foreign = await json<Page>(await send('admin', `${E}/events?${query(window)}`, { tenantId: otherTenant }));
    expect(foreign.events.map((e) => e.type)).toEqual(['other.tenant.only']);
    for (const id of [foreign.events[0]!.id, randomUUID(), 'not-an-id', "1'%20or%20'1'%3D'1"]) {
      const missing = await send('viewer', `${E}/events/${id}`);
      expect(missing.status, id).toBe(404);
      expect(await json(missing)).toMatchObject({ title: 'not-found' });
    }
    // its own tenant reads it
    expect((await send('admin', `${E}/events/${foreign.events[0]!.id}`, { tenantId: otherTenant })).status).toBe(200);
  });
});

describe('who may read the history', () => {
  it('every role with history view (SPEC.md section 6)', async () => {
    for (const who of ['admin', 'power', 'producer', 'processor', 'viewer']) {
      for (const path of [`${E}/events?${query(window)}`, `${E}/event-types`, `${E}/events/${seeded[0]!.id}`]) {
        expect((await send(who, path)).status, `${who} ${path}`).toBe(200);
      }
    }
    // Power User is View Only in the other tenant: still history view there
    expect((await send('power', `${E}/events?${query(window)}`, { tenantId: otherTenant })).status).toBe(200);
  });

  it('no role without it, nor without a token', async () => {
    for (const who of ['connections', 'users', 'none']) {
      for (const path of [`${E}/events?${query(window)}`, `${E}/event-types`, `${E}/events/${seeded[0]!.id}`]) {
        const res = await send(who, path);
        expect(res.status, `${who} ${path}`).toBe(403);
        expect(await res.text()).not.toContain(seeded[0]!.id);
      }
    }
    // a tenant the user is no member of
    expect((await send('producer', `${E}/events?${query(window)}`, { tenantId: otherTenant })).status).toBe(403);
    expect((await call(base, `${E}/events?${query(window)}`)).status).toBe(401);
  });

  it('never sees another tenant\'s events, however it filters', async () => {
    const all = await walk('admin', window, 200);
    expect(all.events.map((e) => e.type)).not.toContain('other.tenant.only');
    expect((await walk('admin', { ...window, q: 'elsewhere' }, 200)).events).toEqual([]);
    expect((await walk('admin', { ...window, type: 'other.tenant.only' }, 200)).events).toEqual([]);
    const theirs = await json<Page>(await send('admin', `${E}/events?${query({ ...window, q: 'elsewhere' })}`, { tenantId: otherTenant }));
    expect(theirs.events.map((e) => e.type)).toEqual(['other.tenant.only']);
  });
});

describe('events the product writes', () => {
  it('a formula created through the web API shows with its actor and correlation id', async () => {
    const from = new Date(Date.now() - 60_000).toISOString();
    const created = await call(base, '/web-api/v1/formulas', {
      method: 'POST', headers: { ...sessions.producer!.headers, 'x-correlation-id': 'history-check-1' }, body: { name: 'Autumn appeal' },
    });
    expect(created.status).toBe(201);
    const { id } = await json<{ id: string }>(created);
    const to = new Date(Date.now() + 60_000).toISOString();
    const page = await json<Page>(await send('viewer', `${E}/events?${query({ from, to, formulaId: id })}`));
    expect(page.events).toEqual([expect.objectContaining({
      type: 'formula.created', formulaId: id, correlationId: 'history-check-1',
      actor: { userId: sessions.producer!.auth0Id.replace(/^auth0\|/, ''), name: 'Fran Formula' },
    })]);
  });
});
