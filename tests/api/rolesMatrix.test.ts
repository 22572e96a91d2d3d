/**
 * SPEC.md section 6 as a table: for each role, one representative call of every area, each either
 * allowed or refused with a 403; tenants apart (a member of one never reads or changes another's
 * formula, connection, user or events); and a change of roles, tenants or deactivation holding
 * from the user's next request on another API process at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../server/db/embedded.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const AM = '/account-management/v1';
const F = '/web-api/v1/formulas';
const DS = '/integrations/v1/data-sources';

/** The areas of the product, each by one representative endpoint. */
const AREAS = [
  'connections.read', 'connections.write', 'formulas.read', 'formulas.create', 'formulas.run',
  'users.read', 'users.write', 'history.read', 'flags.admin',
] as const;
type Area = (typeof AREAS)[number];

const Y = true;
const n = false;
/**
 * SPEC.md section 6. Administrator: full access. Power User: connections and formulas.
 * Connection Manager: data sources. Formula Producer: create, run, modify formulas (reading the
 * data sources they use). Data Processor: actions in buckets, send records (reading formulas and
 * their history). User Manager: add, edit, deactivate, reactivate users. View Only: reads, not
 * stackable, overrides others. Other roles stack. Flags are administration: Administrators only.
 */
const MATRIX: [roles: string[], allowed: Record<Area, boolean>][] = [
  //                                       connections    formulas                       users             history  flags
  [['Administrator'], /*                */ { 'connections.read': Y, 'connections.write': Y, 'formulas.read': Y, 'formulas.create': Y, 'formulas.run': Y, 'users.read': Y, 'users.write': Y, 'history.read': Y, 'flags.admin': Y }],
  [['Power User'], /*                   */ { 'connections.read': Y, 'connections.write': Y, 'formulas.read': Y, 'formulas.create': Y, 'formulas.run': Y, 'users.read': n, 'users.write': n, 'history.read': Y, 'flags.admin': n }],
  [['Connection Manager'], /*           */ { 'connections.read': Y, 'connections.write': Y, 'formulas.read': n, 'formulas.create': n, 'formulas.run': n, 'users.read': n, 'users.write': n, 'history.read': n, 'flags.admin': n }],
  [['Formula Producer'], /*             */ { 'connections.read': Y, 'connections.write': n, 'formulas.read': Y, 'formulas.create': Y, 'formulas.run': Y, 'users.read': n, 'users.write': n, 'history.read': Y, 'flags.admin': n }],
  [['Data Processor'], /*               */ { 'connections.read': n, 'connections.write': n, 'formulas.read': Y, 'formulas.create': n, 'formulas.run': n, 'users.read': n, 'users.write': n, 'history.read': Y, 'flags.admin': n }],
  [['User Manager'], /*                 */ { 'connections.read': n, 'connections.write': n, 'formulas.read': n, 'formulas.create': n, 'formulas.run': n, 'users.read': Y, 'users.write': Y, 'history.read': n, 'flags.admin': n }],
  [['View Only'], /*                    */ { 'connections.read': Y, 'connections.write': n, 'formulas.read': Y, 'formulas.create': n, 'formulas.run': n, 'users.read': n, 'users.write': n, 'history.read': Y, 'flags.admin': n }],
  // View Only overrides whatever it is stacked with
  [['View Only', 'Formula Producer'], /**/ { 'connections.read': Y, 'connections.write': n, 'formulas.read': Y, 'formulas.create': n, 'formulas.run': n, 'users.read': n, 'users.write': n, 'history.read': Y, 'flags.admin': n }],
  [['View Only', 'User Manager'], /*    */ { 'connections.read': Y, 'connections.write': n, 'formulas.read': Y, 'formulas.create': n, 'formulas.run': n, 'users.read': n, 'users.write': n, 'history.read': Y, 'flags.admin': n }],
  // other roles stack
  [['Connection Manager', 'Formula Producer'], { 'connections.read': Y, 'connections.write': Y, 'formulas.read': Y, 'formulas.create': Y, 'formulas.run': Y, 'users.read': n, 'users.write': n, 'history.read': Y, 'flags.admin': n }],
  [['Data Processor', 'User Manager'], /**/ { 'connections.read': n, 'connections.write': n, 'formulas.read': Y, 'formulas.create': n, 'formulas.run': n, 'users.read': Y, 'users.write': Y, 'history.read': Y, 'flags.admin': n }],
];

let server: TestServer;
let base: string;
let db: pg.Client;
let orgId: string;
let foodBank: string;
let youthArts: string;
/** the demo Administrator, of both tenants */
let admin: Session;
/** a formula of the Food Bank every role's run call may pause */
let foodBankFormula: string;
let made = 0;

interface Person { id: string; auth0Id: string; email: string; fullName: string }
/** A user who signs in with the demo password, with these roles in the Food Bank only. */
async function person(roles: string[], tenantId = foodBank): Promise<Person> {
  const email = `matrix.${++made}.${Date.now()}@example.org`;
  const fullName = `Matrix Person${made}`;
  const { rows: [row] } = await db.query<{ id: string; auth0_id: string }>(
    `insert into users (organization_id, auth0_id, email, full_name, password_hash)
     select organization_id, 'auth0|' || gen_random_uuid(), $1, $2, password_hash from users where email = 'administrator@demo.tributary.test'
     returning id, auth0_id`, [email, fullName]);
  await db.query('insert into memberships (user_id, tenant_id, roles) values ($1, $2, $3)', [row!.id, tenantId, roles]);
  return { id: row!.id, auth0Id: row!.auth0_id, email, fullName };
}
const withTenant = (s: Session, tenantId: string): Session => ({ ...s, headers: { ...s.headers, tenantId } });
const send = (s: Session, p: string, method = 'GET', body?: unknown) => call(base, p, { method, headers: s.headers, body });

/** Each area's call, and the status it answers when allowed. */
const CALLS: Record<Area, { status: number; call: (s: Session) => Promise<Response> }> = {
  'connections.read': { status: 200, call: (s) => send(s, DS) },
  'connections.write': { status: 201, call: (s) => send(s, DS, 'POST', { system: 'file-upload', displayName: `Matrix uploads ${++made}`, settings: {} }) },
  'formulas.read': { status: 200, call: (s) => send(s, F) },
  'formulas.create': { status: 201, call: (s) => send(s, F, 'POST', { name: `Matrix formula ${++made}` }) },
  'formulas.run': { status: 200, call: (s) => send(s, `${F}/${foodBankFormula}/pause`, 'POST') },
  'users.read': { status: 200, call: (s) => send(s, `${AM}/user/organization/${orgId}/users`) },
  'users.write': {
    status: 201,
    call: (s) => send(s, `${AM}/user/organization/${orgId}/users`, 'POST', {
      // a role every caller with users.write holds: a caller gives only roles they hold
      fullName: 'Matrix Newcomer', email: `matrix.new.${++made}@example.org`, memberships: [{ tenantId: foodBank, roles: ['User Manager'], accessExpiresOn: null }],
    }),
  },
  'history.read': {
    status: 200,
    call: (s) => send(s, `/events-reporter/v1/events?${new URLSearchParams({ from: new Date(Date.now() - 86_400_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString() })}`),
  },
  'flags.admin': { status: 200, call: (s) => send(s, '/web-api/v1/flags') },
};

beforeAll(async () => {
  server = await startTestServer();
  base = server.url;
  db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  const tenants = (await db.query<{ id: string; name: string }>('select id, name from tenants')).rows;
  foodBank = tenants.find((t) => t.name === 'Riverside Food Bank')!.id;
  youthArts = tenants.find((t) => t.name === 'Riverside Youth Arts')!.id;
  admin = withTenant(await sessionFor(base, 'administrator@demo.tributary.test'), foodBank);
  orgId = admin.orgId;
  const formula = await send(admin, F, 'POST', { name: 'Matrix pause target' });
  expect(formula.status).toBe(201);
  foodBankFormula = ((await formula.json()) as { id: string }).id;
  // it takes seconds to start: it does so while the tests before the ones that need it run
  secondApi = startSecondApi();
  secondApi.catch(() => {});
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  await db?.end();
  await server?.close();
});

let child: ChildProcess | undefined;
let dataDir: string | undefined;
/** the second API process's address, once it answers */
let secondApi: Promise<string>;

/** A second API process on the same database, answering for the same public address (so the same issuer). */
async function startSecondApi(): Promise<string> {
  const port = await freePort();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-matrix-'));
  const root = path.resolve(import.meta.dirname, '../..');
  const started = spawn(process.execPath, ['--import', 'tsx', '-e', `
    const { loadConfig } = await import(${JSON.stringify(path.join(root, 'server/config.ts'))});
    const { createLogger } = await import(${JSON.stringify(path.join(root, 'server/log.ts'))});
    const { startServer } = await import(${JSON.stringify(path.join(root, 'server/main.ts'))});
    await startServer(loadConfig(), createLogger('silent'), { work: false });
    console.log('READY');
  `], {
    cwd: root,
    env: {
      ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, DATABASE_URL: server.databaseUrl,
      DATA_DIR: dataDir, SECRET_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  child = started;
  await new Promise<void>((resolve, reject) => {
    started.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('READY')) resolve(); });
    started.on('exit', (code) => reject(new Error(`the second API process exited with ${code}`)));
  });
  return `http://127.0.0.1:${port}`;
}

describe('SPEC.md section 6: each role, each area', () => {
  it.each(MATRIX.map(([roles, allowed]) => [roles.join(' + '), roles, allowed] as const))('%s', async (_name, roles, allowed) => {
    const who = await person([...roles]);
    const s = withTenant(await sessionFor(base, who.email), foodBank);
    const answered: Record<string, number> = {};
    for (const area of AREAS) answered[area] = (await CALLS[area].call(s)).status;
    const expected = Object.fromEntries(AREAS.map((area) => [area, allowed[area] ? CALLS[area].status : 403]));
    expect(answered).toEqual(expected);
    // the login details say the same as the server's checks
    const me = await (await send(s, `${AM}/User/organization/${orgId}/user`)).json() as { roles: string[] };
    expect(me.roles).toEqual(roles.includes('View Only') ? ['View Only'] : roles);
  });
});

describe('tenants apart', () => {
  let other: { formula: string; dataSource: string; user: string; event: string };
  let member: Session;

  beforeAll(async () => {
    // made by the Administrator of both tenants, in the Youth Arts
    const there = withTenant(admin, youthArts);
    const formula = ((await (await send(there, F, 'POST', { name: 'Youth Arts only' })).json()) as { id: string }).id;
    const dataSource = ((await (await send(there, DS, 'POST', { system: 'file-upload', displayName: 'Youth Arts uploads', settings: {} })).json()) as { id: string }).id;
    const user = ((await (await send(there, `${AM}/user/organization/${orgId}/users`, 'POST', {
      fullName: 'Yara Youtharts', email: 'yara.youtharts@example.org', memberships: [{ tenantId: youthArts, roles: ['View Only'], accessExpiresOn: null }],
    })).json()) as { user: { auth0Id: string } }).user.auth0Id;
    const event = (await db.query<{ id: string }>('select id from activity_events where tenant_id = $1 and formula_id = $2', [youthArts, formula])).rows[0]!.id;
    other = { formula, dataSource, user, event };
    // an Administrator of the Food Bank only: every policy, in one tenant
    member = withTenant(await sessionFor(base, (await person(['Administrator'])).email), foodBank);
  });

  it('another tenant\'s formula, connection, user and events are not found from one\'s own tenant', async () => {
    const users = `${AM}/user/organization/${orgId}/users/${encodeURIComponent(other.user)}`;
    const attempts: [string, string, unknown?][] = [
      [`${F}/${other.formula}`, 'GET'],
      [`${F}/${other.formula}`, 'PATCH', { name: 'Taken over' }],
      [`${F}/${other.formula}/pause`, 'POST'],
      [`${F}/${other.formula}`, 'DELETE'],
      [`${DS}/${other.dataSource}`, 'GET'],
      [`${DS}/${other.dataSource}`, 'PATCH', { displayName: 'Taken over' }],
      [`${DS}/${other.dataSource}`, 'DELETE'],
      [users, 'GET'],
      [users, 'PUT', { fullName: 'Yara Taken', email: 'yara.youtharts@example.org', memberships: [{ tenantId: foodBank, roles: ['View Only'], accessExpiresOn: null }] }],
      [`${users}/deactivate`, 'POST'],
      [users, 'DELETE'],
      [`/events-reporter/v1/events/${other.event}`, 'GET'],
    ];
    for (const [p, method, body] of attempts) expect((await send(member, p, method, body)).status, `${method} ${p}`).toBe(404);
    const history = await (await CALLS['history.read'].call(member)).json() as { events: { id: string }[] };
    expect(history.events.map((e) => e.id)).not.toContain(other.event);
    const list = await (await send(member, F)).json() as { formulas: { id: string }[] };
    expect(list.formulas.map((f) => f.id)).not.toContain(other.formula);

    // nothing changed over there
    const there = withTenant(admin, youthArts);
    expect(await (await send(there, `${F}/${other.formula}`)).json()).toMatchObject({ name: 'Youth Arts only' });
    expect(await (await send(there, `${DS}/${other.dataSource}`)).json()).toMatchObject({ displayName: 'Youth Arts uploads' });
    expect(await (await send(there, users)).json()).toMatchObject({ user: { fullName: 'Yara Youtharts', active: true } });
  });

  it('naming the other tenant is refused outright', async () => {
    const asOther = withTenant(member, youthArts);
    for (const area of AREAS) {
      const res = await CALLS[area].call(asOther);
      expect(res.status, area).toBe(403);
      expect(await res.json()).toMatchObject({ title: 'no-tenant-access' });
    }
    expect((await send(asOther, `${F}/${other.formula}`)).status).toBe(403);
    expect((await send(asOther, `/events-reporter/v1/events/${other.event}`)).status).toBe(403);
  });
});

describe('a change holds from the next request, on every API process', () => {
  let second: string;

  beforeAll(async () => {
    second = await secondApi;
  }, 120_000);

  it('deactivation, roles, temporary access and tenants changed on one process hold on the other at once', async () => {
    const who = await person(['Formula Producer']);
    let s = withTenant(await sessionFor(base, who.email), foodBank);
    const onSecond = () => call(second, F, { headers: s.headers });
    const manage = (suffix: string, method: string, body?: unknown) =>
      send(admin, `${AM}/user/organization/${orgId}/users/${encodeURIComponent(who.auth0Id)}${suffix}`, method, body);
    const asMember = (roles: string[], accessExpiresOn: string | null = null) =>
      ({ fullName: who.fullName, email: who.email, memberships: [{ tenantId: foodBank, roles, accessExpiresOn }] });

    expect((await onSecond()).status).toBe(200);

    expect((await manage('/deactivate', 'POST')).status).toBe(200);
    const refused = await onSecond();
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ code: 'account-deactivated' });
    expect((await manage('/reactivate', 'POST')).status).toBe(200);
    // deactivation ended the sessions of before, on every process: the user signs in again
    expect(await (await onSecond()).json()).toMatchObject({ status: 401, code: 'session-ended' });
    s = withTenant(await sessionFor(base, who.email), foodBank);
    expect((await onSecond()).status).toBe(200);

    expect((await manage('', 'PUT', asMember(['Connection Manager']))).status).toBe(200);
    expect((await onSecond()).status).toBe(403);
    expect((await manage('', 'PUT', asMember(['Formula Producer']))).status).toBe(200);
    expect((await onSecond()).status).toBe(200);

    expect((await manage('', 'PUT', asMember(['Formula Producer'], new Date(Date.now() - 60_000).toISOString()))).status).toBe(200);
    const expired = await onSecond();
    expect(expired.status).toBe(403);
    expect(await expired.json()).toMatchObject({ code: 'access-expired' });
    expect((await manage('', 'PUT', asMember(['Formula Producer']))).status).toBe(200);
    expect((await onSecond()).status).toBe(200);

    expect((await manage(`/tenants/${foodBank}`, 'DELETE')).status).toBe(204);
    expect(await (await onSecond()).json()).toMatchObject({ status: 401, code: 'session-ended' });
    s = withTenant(await sessionFor(base, who.email), foodBank);
    const removed = await onSecond();
    expect(removed.status).toBe(403);
    expect(await removed.json()).toMatchObject({ title: 'no-tenant-access' });
  });
});

describe('reading a source with saved credentials needs formula run or edit, not view', () => {
  it.each([
    [['View Only'], false], [['Data Processor'], false], [['Formula Producer'], true], [['Power User'], true],
  ] as const)('%s', async (roles, allowed) => {
    const s = withTenant(await sessionFor(base, (await person([...roles])).email), foodBank);
    for (const [method, p, body] of [['POST', 'dry-run', { limit: 10 }], ['GET', 'sample', undefined]] as const) {
      const res = await send(s, `${F}/${foodBankFormula}/${p}`, method, body);
      if (allowed) expect(res.status, `${method} ${p}`).not.toBe(403);
      else expect(await res.json(), `${method} ${p}`).toMatchObject({ status: 403, title: 'forbidden' });
    }
  });
});

describe('refused requests', () => {
  it('are one event per user, endpoint and minute, and past 30 a minute are answered 429', async () => {
    const nobody = await person([]);
    const s = withTenant(await sessionFor(base, nobody.email), foodBank);
    // all within one minute: the server runs in this process, so rather than wait for the next
    // minute, its clock starts one here and runs on from there
    const minute = (Math.floor(Date.now() / 60_000) + 1) * 60_000;
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, now: minute + 500 });
    try {
      await refusals(s, nobody, new Date(minute).toISOString().slice(0, 16));
    } finally {
      vi.useRealTimers();
    }
  }, 60_000);
});

async function refusals(s: Session, nobody: Person, minute: string) {
  const answers = await Promise.all(Array.from({ length: 60 }, () => send(s, F, 'POST', { name: 'Not mine' })));
  const statuses = answers.map((r) => r.status);
  expect(statuses.filter((x) => x === 403)).toHaveLength(30);
  expect(statuses.filter((x) => x === 429)).toHaveLength(30);
  const limited = answers.find((r) => r.status === 429)!;
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  expect(await limited.json()).toMatchObject({ title: 'too-many-requests', status: 429 });
  const events = await db.query<{ description: string; details: { count: number; minute: string } }>(
    "select description, details from activity_events where type = 'permission.refused' and actor_user_id = $1", [nobody.id]);
  expect(events.rows).toHaveLength(1);
  expect(events.rows[0]!.details.count).toBe(60);
  expect(events.rows[0]!.details.minute).toBe(minute);
  expect(events.rows[0]!.description).toBe(`${nobody.fullName} was refused POST /web-api/v1/formulas: it needs formula create permission (60 times this minute)`);
  // another endpoint is another event
  expect((await send(s, DS, 'POST', { system: 'file-upload', displayName: 'Not mine', settings: {} })).status).toBe(403);
  expect((await db.query("select 1 from activity_events where type = 'permission.refused' and actor_user_id = $1", [nobody.id])).rowCount).toBe(2);
}
