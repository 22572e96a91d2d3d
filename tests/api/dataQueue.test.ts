/**
 * The Data Queue through /web-api/v1/data-queue: a user's own tabs (at most 5, SPEC.md's name rule
 * and message), cards placed, removed and reordered (the whole order at once, stale or foreign ids
 * refused), the record counts of every card from one grouped query, another user's and another
 * tenant's tabs and formulas as not found, and a role without formula view refused.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATA_QUEUE_MESSAGES, MAX_TABS } from '../../src/domain/dataQueue.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const Q = '/web-api/v1/data-queue';
const F = '/web-api/v1/formulas';
let server: TestServer;
let base: string;
const sessions: Record<string, Session & { tenantId: string }> = {};
let otherTenant: string;

interface Tab { id: string; name: string; formulaIds: string[] }
interface Queue { tabs: Tab[]; counts: Record<string, Record<string, number>> }

async function as(email: string) {
  const s = await sessionFor(base, email);
  const me = await (await call(base, `/account-management/v1/User/organization/${s.orgId}/user`, { headers: s.headers })).json() as { activeTenantId: string };
  return { ...s, tenantId: me.activeTenantId, headers: { ...s.headers, tenantId: me.activeTenantId } };
}
const send = (who: string, path: string, init: { method?: string; body?: unknown; tenantId?: string } = {}) =>
  call(base, path, { ...init, headers: { ...sessions[who]!.headers, ...(init.tenantId ? { tenantId: init.tenantId } : {}) } });
const json = async <T>(res: Response) => res.json() as Promise<T>;
const queue = async (who: string) => {
  const res = await send(who, `${Q}/tabs`);
  expect(res.status, await res.clone().text()).toBe(200);
  return json<Queue>(res);
};
async function newTab(who: string, name: string): Promise<Tab> {
  const res = await send(who, `${Q}/tabs`, { method: 'POST', body: { name } });
  expect(res.status, await res.clone().text()).toBe(201);
  return json<Tab>(res);
}
async function newFormula(who = 'admin', name = 'Spring appeal', tenantId?: string): Promise<string> {
  const res = await send(who, F, { method: 'POST', body: { name }, tenantId });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}
const place = (who: string, tabId: string, formulaId: string) => send(who, `${Q}/tabs/${tabId}/cards/${formulaId}`, { method: 'PUT' });
const reorder = (who: string, tabId: string, formulaIds: string[]) => send(who, `${Q}/tabs/${tabId}/order`, { method: 'PUT', body: { formulaIds } });
async function clearTabs(who: string) {
  for (const t of (await queue(who)).tabs) expect((await send(who, `${Q}/tabs/${t.id}`, { method: 'DELETE' })).status).toBe(204);
}

beforeAll(async () => {
  server = await startTestServer();
  base = server.url;
  for (const [who, email] of Object.entries({
    admin: 'administrator@demo.tributary.test', power: 'power.user@demo.tributary.test', viewer: 'view.only@demo.tributary.test',
    connections: 'connection.manager@demo.tributary.test',
  })) sessions[who] = await as(email);
  const admin = sessions.admin!;
  const me = await (await call(base, `/account-management/v1/User/organization/${admin.orgId}/user`, { headers: admin.headers })).json() as { tenants: { tenantId: string }[] };
  otherTenant = me.tenants.find((t) => t.tenantId !== admin.tenantId)!.tenantId;
});
afterAll(async () => { await server?.close(); });

describe('tabs', () => {
  it('are created in order, renamed and deleted, at most 5', async () => {
    await clearTabs('viewer');
    const names = ['Major gifts', 'Events 2026', 'Año nuevo', 'a-b c', 'Fifth'];
    for (const name of names) await newTab('viewer', `  ${name} `);
    expect((await queue('viewer')).tabs.map((t) => t.name)).toEqual(names);
    const sixth = await send('viewer', `${Q}/tabs`, { method: 'POST', body: { name: 'Sixth' } });
    expect(sixth.status).toBe(409);
    expect(await json(sixth)).toMatchObject({ title: 'tab-limit', detail: DATA_QUEUE_MESSAGES.tabLimit });
    expect(MAX_TABS).toBe(5);

    const [first] = (await queue('viewer')).tabs;
    const renamed = await send('viewer', `${Q}/tabs/${first!.id}`, { method: 'PATCH', body: { name: 'Mid-level donors' } });
    expect(renamed.status).toBe(200);
    expect(await json(renamed)).toMatchObject({ id: first!.id, name: 'Mid-level donors', formulaIds: [] });
    expect((await send('viewer', `${Q}/tabs/${first!.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await queue('viewer')).tabs.map((t) => t.name)).toEqual(names.slice(1));
    // a place is free again
    await newTab('viewer', 'Sixth');
    expect((await queue('viewer')).tabs.at(-1)!.name).toBe('Sixth');
  });

  it('are at most 5 however many are created at once', async () => {
    for (const round of [0, 3]) {
      await clearTabs('admin');
      // none, or three already: ten at once must still stop at five
      for (let i = 0; i < round; i++) await newTab('admin', `Kept ${i}`);
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send('admin', `${Q}/tabs`, { method: 'POST', body: { name: `Parallel ${i}` } })));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 201), statuses.join(' ')).toHaveLength(MAX_TABS - round);
      expect(statuses.filter((s) => s !== 201).every((s) => s === 409), statuses.join(' ')).toBe(true);
      expect((await queue('admin')).tabs).toHaveLength(MAX_TABS);
    }
    await clearTabs('admin');
  });

  it('refuse names beyond 40 characters or with special characters, with SPEC.md\'s message', async () => {
    for (const name of ['x'.repeat(41), 'Gifts!', 'a/b', 'under_score', 'emoji 🎉']) {
      const res = await send('power', `${Q}/tabs`, { method: 'POST', body: { name } });
      expect(res.status, name).toBe(400);
      expect((await json<{ detail: string }>(res)).detail, name).toBe(DATA_QUEUE_MESSAGES.tabName);
    }
    const blank = await send('power', `${Q}/tabs`, { method: 'POST', body: { name: '   ' } });
    expect(blank.status).toBe(400);
    expect((await json<{ detail: string }>(blank)).detail).toBe(DATA_QUEUE_MESSAGES.tabNameRequired);
    expect((await newTab('power', 'x'.repeat(40))).name).toHaveLength(40);
    const tab = (await queue('power')).tabs.at(-1)!;
    const rename = await send('power', `${Q}/tabs/${tab.id}`, { method: 'PATCH', body: { name: 'no#way' } });
    expect(rename.status).toBe(400);
    expect((await json<{ detail: string }>(rename)).detail).toBe(DATA_QUEUE_MESSAGES.tabName);
  });

  it('are each user\'s own: another user\'s tab is not found', async () => {
    await clearTabs('admin');
    const mine = await newTab('admin', 'Admin only');
    const theirs = await queue('power');
    expect(theirs.tabs.map((t) => t.id)).not.toContain(mine.id);
    const f = await newFormula();
    expect((await send('power', `${Q}/tabs/${mine.id}`, { method: 'PATCH', body: { name: 'Taken' } })).status).toBe(404);
    expect((await send('power', `${Q}/tabs/${mine.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await place('power', mine.id, f)).status).toBe(404);
    expect((await reorder('power', mine.id, [])).status).toBe(404);
    expect((await queue('admin')).tabs.find((t) => t.id === mine.id)).toMatchObject({ name: 'Admin only', formulaIds: [] });
    // and a malformed id is as unknown
    expect((await send('admin', `${Q}/tabs/not-a-tab`, { method: 'DELETE' })).status).toBe(404);
  });

  it('of another tenant are not found, nor are another tenant\'s formulas', async () => {
    await clearTabs('admin');
    const tab = await newTab('admin', 'Food Bank');
    const foreignFormula = await newFormula('admin', 'Youth Arts formula', otherTenant);
    expect((await send('admin', `${Q}/tabs`, { tenantId: otherTenant }).then(json<Queue>)).tabs.map((t) => t.id)).not.toContain(tab.id);
    expect((await send('admin', `${Q}/tabs/${tab.id}`, { method: 'PATCH', body: { name: 'Moved' }, tenantId: otherTenant })).status).toBe(404);
    expect((await send('admin', `${Q}/tabs/${tab.id}`, { method: 'DELETE', tenantId: otherTenant })).status).toBe(404);
    expect((await place('admin', tab.id, foreignFormula)).status).toBe(404);
    expect((await place('admin', tab.id, randomUUID())).status).toBe(404);
    expect((await queue('admin')).tabs.find((t) => t.id === tab.id)!.formulaIds).toEqual([]);
  });

  it('need formula view', async () => {
    expect((await send('connections', `${Q}/tabs`)).status).toBe(403);
    expect((await send('connections', `${Q}/tabs`, { method: 'POST', body: { name: 'Mine' } })).status).toBe(403);
  });
});

describe('cards', () => {
  it('are placed last, kept once, removed, and reordered by the whole order', async () => {
    await clearTabs('admin');
    const tab = await newTab('admin', 'Appeals');
    const [a, b, c] = [await newFormula('admin', 'A'), await newFormula('admin', 'B'), await newFormula('admin', 'C')];
    for (const f of [a, b, c, a]) expect((await place('admin', tab.id, f)).status).toBe(200);
    expect((await queue('admin')).tabs[0]!.formulaIds).toEqual([a, b, c]);

    const moved = await reorder('admin', tab.id, [c, a, b]);
    expect(moved.status, await moved.clone().text()).toBe(200);
    expect(await json(moved)).toMatchObject({ formulaIds: [c, a, b] });
    expect((await queue('admin')).tabs[0]!.formulaIds).toEqual([c, a, b]);

    // stale (a card missing or added meanwhile), repeated or foreign ids: refused, nothing changes
    for (const ids of [[c, a], [c, a, b, randomUUID()], [c, a, a], [c, a, randomUUID()]]) {
      const res = await reorder('admin', tab.id, ids);
      expect(res.status, JSON.stringify(ids)).toBe(409);
      expect(await json(res)).toMatchObject({ title: 'tab-order-stale' });
    }
    expect((await reorder('admin', tab.id, ['not-a-uuid'])).status).toBe(400);
    expect((await queue('admin')).tabs[0]!.formulaIds).toEqual([c, a, b]);

    const removed = await send('admin', `${Q}/tabs/${tab.id}/cards/${a}`, { method: 'DELETE' });
    expect(await json(removed)).toMatchObject({ formulaIds: [c, b] });
    expect((await send('admin', `${Q}/tabs/${tab.id}/cards/${a}`, { method: 'DELETE' })).status).toBe(404);
    // a formula deleted leaves every tab
    expect((await send('admin', `${F}/${b}`, { method: 'DELETE' })).status).toBe(204);
    expect((await queue('admin')).tabs[0]!.formulaIds).toEqual([c]);
  });

  it('count records per bucket screen, for every formula at once', async () => {
    const f = await newFormula('admin', 'Counted');
    const g = await newFormula('admin', 'Counted too');
    const tenantId = sessions.admin!.tenantId;
    const row = (formulaId: string, bucket: string, state: string, customBucket: string | null = null) =>
      sql`(${tenantId}::uuid, ${formulaId}::uuid, ${randomUUID()}, ${bucket}, ${customBucket}, ${state}, '{}'::jsonb, ${randomUUID()})`;
    await server.database.db.execute(sql`insert into records (tenant_id, formula_id, source_key, bucket, custom_bucket, state, raw, idempotency_key) values ${sql.join([
      row(f, 'new', 'ready'), row(f, 'new', 'ready'), row(f, 'one-to-one-match', 'ready'),
      row(f, 'new', 'needs-attention'), row(f, 'one-to-many-match', 'needs-attention'),
      row(f, 'exception', 'failed'), row(f, 'validation-exception', 'needs-attention', 'Missing email'), row(f, 'new', 'sent'),
      row(g, 'relationship-match', 'needs-attention'),
    ], sql`, `)}`);
    const { counts } = await queue('viewer');
    expect(counts[f]).toEqual({
      'ready-records': 3, 'needs-attention': 3, 'new-records': 3, exception: 1, 'formula-exceptions': 0, 'related-records': 0,
      'validation-exceptions/Missing email': 1,
    });
    expect(counts[g]).toMatchObject({ 'related-records': 1, 'needs-attention': 1, 'ready-records': 0 });
    // another tenant's records are not counted here, nor these there
    expect((await send('admin', `${Q}/tabs`, { tenantId: otherTenant }).then(json<Queue>)).counts[f]).toBeUndefined();
  });
});

describe('the welcome page\'s first steps', () => {
  const onboarding = async (who: string, tenantId?: string) => {
    const res = await send(who, `${Q}/onboarding`, { tenantId });
    expect(res.status, await res.clone().text()).toBe(200);
    return json<{ dataSource: boolean; formula: boolean; reviewedRecord: boolean; teammate: boolean }>(res);
  };

  it('say what the tenant has done: a data source, a formula, a record sent, a second member', async () => {
    const demo = await onboarding('admin');
    // the demo tenant has its data sources, its demo formula and several members
    expect(demo).toMatchObject({ dataSource: true, formula: true, teammate: true });

    const db = server.database.db;
    await db.execute(sql`delete from record_tallies where tenant_id = ${otherTenant} and state = 'sent'`);
    expect((await onboarding('admin', otherTenant)).reviewedRecord).toBe(false);
    // a record sent, as the kept tallies count it (never a scan of the records)
    await db.execute(sql`insert into record_tallies (tenant_id, formula_id, bucket, custom_bucket, state, n) values (${otherTenant}, ${randomUUID()}, 'new', null, 'sent', 1)`);
    expect((await onboarding('admin', otherTenant)).reviewedRecord).toBe(true);
    await newFormula('admin', 'First steps', otherTenant);
    expect((await onboarding('admin', otherTenant)).formula).toBe(true);
  });

  it('need formula view, and are the caller\'s tenant\'s only', async () => {
    expect((await send('connections', `${Q}/onboarding`)).status).toBe(403);
    expect((await send('viewer', `${Q}/onboarding`, { tenantId: otherTenant })).status).toBeGreaterThanOrEqual(403);
  });
});
