/**
 * The Sandbox CRM at matching scale: match keys written by every write (seed, upsert, import, the
 * backfill at start), searches on the indexed keys (EXPLAIN shows no sequential scan), batch
 * search answering many queries in order with what single searches answer, CSV import through
 * the integrations API, and no tenant ever seeing another's constituents.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import fs from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../server/log.ts';
import type { ConnectorContext, SearchQuery, SourceRecord } from '../../server/connectors/connector.ts';
import { sandboxCrmConnector as crm, sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { backfillSandboxKeys } from '../../server/connectors/sandboxCrm/seed.ts';
import type { Db } from '../../server/db/database.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { matchKey } from '../../src/domain/formula/matchKeys.ts';
import { MAX_UPLOAD_BYTES } from '../../src/domain/upload.ts';
import { csvOfSize, PNG } from '../support/flatFiles.ts';
import { integrations, tenantSession, type TenantSession } from '../support/connections.ts';
import { loadSandboxConstituents } from '../support/sandboxBulk.ts';
import { awaitImport, type ImportView } from '../support/sandboxImports.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let admin: TenantSession;
let viewer: TenantSession;
let pool: pg.Pool;
let ctx: ConnectorContext;
let otherCtx: ConnectorContext;
let otherTenant: string;
let sandboxId: string;
let otherSandboxId: string;

const IMPORT = (id: string) => `/integrations/v1/data-sources/${id}/sandbox-crm/import`;

beforeAll(async () => {
  // imports run as jobs
  server = await startTestServer({ work: true });
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  viewer = await tenantSession(server.url, 'view.only@demo.tributary.test');
  pool = new pg.Pool({ connectionString: server.databaseUrl, max: 4 });
  otherTenant = admin.tenants.find((t) => t.tenantId !== admin.tenantId)!.tenantId;
  const base = { settings: {}, dataDir: server.config.dataDir };
  ctx = { ...base, tenant: forTenant(server.database.db, admin.tenantId) };
  otherCtx = { ...base, tenant: forTenant(server.database.db, otherTenant) };
  const sandboxOf = async (tenantId: string) => {
    const res = await integrations(server.url, admin.withTenant(tenantId))('/data-sources');
    return ((await res.json()) as { dataSources: { id: string; system: string }[] }).dataSources.find((d) => d.system === 'sandbox-crm')!.id;
  };
  sandboxId = await sandboxOf(admin.tenantId);
  otherSandboxId = await sandboxOf(otherTenant);
});
afterAll(async () => {
  await pool?.end();
  await server?.close();
});

interface KeyRow {
  id: string; first_name: string | null; last_name: string; email: string | null; phone: string | null; line1: string | null; postal_code: string | null;
  email_key: string | null; phone_key: string | null; first_name_key: string | null; last_name_key: string | null; postal_key: string | null; address_key: string | null;
}

/** Each constituent's stored keys beside its values, for a tenant (or some of its constituents). */
async function keyRows(tenantId: string, where = 'true', params: unknown[] = []): Promise<KeyRow[]> {
  const { rows } = await pool.query<KeyRow>(`
    select c.id, c.first_name, c.last_name, c.email, c.phone, c.address_line1 as line1, c.postal_code,
      c.email_key, c.phone_key, c.first_name_key, c.last_name_key, c.postal_key, c.address_key
    from sandbox_constituents c
    where c.tenant_id = $1 and ${where}`, [tenantId, ...params]);
  return rows;
}

/** Rows whose stored keys are not what matchKey makes of their values. */
const wrongKeys = (rows: KeyRow[]) => rows.filter((r) => r.email_key !== matchKey('email', r.email) || r.phone_key !== matchKey('phone', r.phone)
  || r.first_name_key !== matchKey('firstName', r.first_name) || r.last_name_key !== matchKey('lastName', r.last_name)
  || r.postal_key !== matchKey('postalCode', r.postal_code) || r.address_key !== matchKey('addressLine1', r.line1));

function importCsv(session: TenantSession, dataSourceId: string, csv: string | Uint8Array, fileName = 'constituents.csv', tenantId = session.tenantId, path = '') {
  const form = new FormData();
  form.append('file', new File([csv as BlobPart], fileName, { type: 'text/csv' }));
  return fetch(`${server.url}${IMPORT(dataSourceId)}${path}`, { method: 'POST', headers: session.withTenant(tenantId), body: form });
}
/** an import with the user's column choice (the `columns` parameter as the dialog sends it) */
const importChosen = (csv: string, columns: string) => importCsv(admin, sandboxId, csv, 'chosen.csv', admin.tenantId, `?columns=${encodeURIComponent(columns)}`);
/** the header row's columns, each with the field suggested for it */
const readColumns = (session: TenantSession, dataSourceId: string, csv: string | Uint8Array, fileName = 'constituents.csv') =>
  importCsv(session, dataSourceId, csv, fileName, session.tenantId, '/columns');

/** an import that started, followed to its end */
async function importToEnd(session: TenantSession, dataSourceId: string, csv: string | Uint8Array, fileName = 'constituents.csv', tenantId = session.tenantId) {
  const res = await importCsv(session, dataSourceId, csv, fileName, tenantId);
  const started = await res.json() as ImportView;
  expect(res.status, JSON.stringify(started)).toBe(202);
  return awaitImport(server.url, session.withTenant(tenantId), dataSourceId, started.id);
}

async function expectProblem(res: Response, status: number, title: string) {
  const body = await res.json() as { status: number; title: string; detail: string; code: string } & Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(body).toMatchObject({ status, title });
  expect(body.detail.length).toBeGreaterThan(5);
  return body;
}

const byEmail = (email: string): SearchQuery => ({ criteria: [{ field: 'email', value: email }] });

describe('match keys', () => {
  it('are written for every seeded constituent, by matchKey itself', async () => {
    for (const tenantId of [admin.tenantId, otherTenant]) {
      const rows = await keyRows(tenantId);
      expect(rows.length).toBeGreaterThanOrEqual(2500);
      expect(wrongKeys(rows)).toEqual([]);
      expect(rows.every((r) => r.email_key && r.phone_key && r.last_name_key && r.postal_key && r.address_key)).toBe(true);
    }
  });

  it('follow an upsert that creates, then one that changes the e-mail, phone and address', async () => {
    const [created] = await crm.upsert(ctx, 'constituents', [{
      idempotencyKey: 'keys-create', fields: { firstName: 'Zoë', lastName: "O'Hara-Núñez", email: ' Zoe.OHara@Example.ORG ', phone: '+1 (503) 555-0142', addressLine1: '12 Quay Street', postalCode: '97201-1234' },
    }]);
    let [row] = await keyRows(admin.tenantId, 'c.id = $2', [created!.id]);
    expect(row).toMatchObject({ email_key: 'zoe.ohara@example.org', phone_key: '5035550142', first_name_key: matchKey('firstName', 'Zoë'), last_name_key: 'oharanunez', postal_key: '97201' });
    expect(wrongKeys([row!])).toEqual([]);

    await crm.upsert(ctx, 'constituents', [{ idempotencyKey: 'keys-update', id: created!.id, fields: { email: 'zoe@example.net', phone: '503.555.0199', addressLine1: '7 Mill Lane', postalCode: '97209' } }]);
    [row] = await keyRows(admin.tenantId, 'c.id = $2', [created!.id]);
    expect(row).toMatchObject({ email_key: 'zoe@example.net', phone_key: '5035550199', postal_key: '97209', last_name_key: 'oharanunez' });
    expect(wrongKeys([row!])).toEqual([]);
  });

  it('are written again at start for constituents keyed by an older version of the rules, in batches, without touching modified_on', async () => {
    const { rows: before } = await pool.query<{ id: string; modified_on: Date }>(
      'select id, modified_on from sandbox_constituents where tenant_id = $1 order by id limit 300', [otherTenant]);
    // keys of another version of matchKey: missing, or computed by rules since changed
    await pool.query(`update sandbox_constituents set email_key = null, phone_key = null, first_name_key = 'stale', last_name_key = null, postal_key = null, address_key = null,
      keys_version = 0 where id = any($1)`, [before.map((r) => r.id)]);
    await backfillSandboxKeys(server.database.db, createLogger('silent'));
    const after = await keyRows(otherTenant, 'c.id = any($2)', [before.map((r) => r.id)]);
    expect(after).toHaveLength(300);
    expect(wrongKeys(after)).toEqual([]);
    const { rows: stamps } = await pool.query<{ id: string; modified_on: Date }>('select id, modified_on from sandbox_constituents where id = any($1) order by id', [before.map((r) => r.id)]);
    expect(stamps).toEqual(before);
    // done once: a second run finds nothing to write
    expect(await sandboxCrmStore(forTenant(server.database.db, otherTenant)).backfillKeys(100)).toBe(0);
  });
});

describe('search on the keys', () => {
  it('finds a constituent by phone written any way, and by ZIP or ZIP+4', async () => {
    await crm.upsert(ctx, 'constituents', [{
      idempotencyKey: 'formats-1', fields: { firstName: 'Bill', lastName: 'Fairweather', email: 'bill.fairweather@example.org', phone: '(541) 555-0175', addressLine1: '300 Harbour View', postalCode: '97365-2211' },
    }]);
    for (const phone of ['541-555-0175', '541.555.0175', '+1 541 555 0175', '1-541-555-0175', '5415550175', '(541)5550175']) {
      const found = await crm.search(ctx, 'constituents', { criteria: [{ field: 'phone', value: phone }] });
      expect(found.map((r) => r.fields.lastName), phone).toEqual(['Fairweather']);
    }
    for (const zip of ['97365', '97365-2211', '97365 9999', ' 97365-0000 ']) {
      const found = await crm.search(ctx, 'constituents', { criteria: [{ field: 'lastName', value: 'FAIRWEATHER' }, { field: 'postalCode', value: zip }] });
      expect(found.map((r) => r.fields.lastName), zip).toEqual(['Fairweather']);
    }
    // too few digits to be a phone: nothing, not everyone
    expect(await crm.search(ctx, 'constituents', { criteria: [{ field: 'phone', value: '0175' }] })).toEqual([]);
    // the interactive Match Search still finds parts of raw values
    const partial = await crm.search(ctx, 'constituents', { criteria: [{ field: 'phone', operator: 'contains', value: '555-0175' }] });
    expect(partial.map((r) => r.fields.lastName)).toContain('Fairweather');
    const starts = await crm.search(ctx, 'constituents', { criteria: [{ field: 'lastName', operator: 'starts-with', value: 'fairw' }] });
    expect(starts.map((r) => r.fields.lastName)).toEqual(['Fairweather']);
  });

  it('uses the key indexes: no sequential scan of constituents for a phone or e-mail search, single or batched', async () => {
    // a few thousand more constituents, so the planner has a table worth an index
    const load = await loadSandboxConstituents(server.database.db, otherTenant, 6000, (i) => ({
      lastName: `Planner${i % 300}`, firstName: 'Pat', email: `planner${i}@example.org`, phone: `+1 (212) 555-${String(i).padStart(4, '0')}`,
      addressLine1: `${i} Broad Street`, postalCode: `100${String(i % 100).padStart(2, '0')}`, city: 'New York', state: 'NY',
    }));
    expect(load).toMatchObject({ imported: 6000, refused: 0 });

    const logged: { query: string; params: unknown[] }[] = [];
    const db = drizzle(server.database.pool, { logger: { logQuery: (query, params) => { logged.push({ query, params }); } } }) as unknown as Db;
    const scope = sandboxCrmStore(forTenant(db, otherTenant));
    const plans: [string, () => Promise<unknown>][] = [
      ['phone', () => scope.search('constituents', { criteria: [{ field: 'phone', value: '212.555.0042' }] })],
      ['e-mail', () => scope.search('constituents', byEmail('PLANNER42@example.org'))],
      ['batched phones', () => scope.searchMany('constituents', ['212 555 0042', '212-555-0043', '(212) 555-0044'].map((value) => ({ criteria: [{ field: 'phone', value }] })))],
      ['batched e-mails', () => scope.searchMany('constituents', ['planner42@example.org', 'planner43@example.org'].map(byEmail))],
    ];
    for (const [label, run] of plans) {
      logged.length = 0;
      const answer = await run();
      expect(JSON.stringify(answer), label).toMatch(/Planner4[234]/);
      const { query, params } = logged.find((l) => /sandbox_constituents/.test(l.query))!;
      const { rows } = await pool.query(`explain (format json) ${query}`, params);
      const nodes: { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string }[] = [];
      const walk = (n: Record<string, unknown>) => { nodes.push(n as never); for (const child of (n.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child); };
      walk((rows[0]['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]!.Plan);
      const onConstituents = nodes.filter((n) => n['Relation Name'] === 'sandbox_constituents');
      expect(onConstituents.map((n) => n['Node Type']), label).not.toContain('Seq Scan');
      expect(onConstituents.map((n) => n['Index Name']), label).toContainEqual(expect.stringMatching(/sandbox_constituents_(phone|email)_key_idx/));
    }
  });
});

describe('searchMany', () => {
  let seeded: SourceRecord[];
  beforeAll(async () => {
    seeded = [];
    for await (const batch of crm.pull(ctx, 'constituents', null, { batchSize: 5000 })) {
      seeded.push(...batch.records.filter((r) => /^SC-00\d{4}$/.test(String(r.fields.lookupId))));
    }
    expect(seeded).toHaveLength(2500);
  });

  it('answers 1,000 queries in one call, in order, with what each single search answers', async () => {
    const f = (r: SourceRecord) => r.fields as Record<string, string>;
    const pickRecord = (i: number) => seeded[(i * 7919) % seeded.length]!;
    const queries: SearchQuery[] = Array.from({ length: 1000 }, (_, i): SearchQuery => {
      const r = f(pickRecord(i));
      switch (i % 8) {
        case 0: return byEmail(r.email!.toUpperCase());
        case 1: return { criteria: [{ field: 'lastName', value: r.lastName! }, { field: 'postalCode', value: `${r.postalCode}-0001` }], limit: 5 };
        case 2: return { criteria: [{ field: 'phone', value: r.phone!.replace(/^\+1(\d{3})(\d{3})(\d{4})$/, '($1) $2-$3') }] };
        case 3: return { criteria: [{ field: 'lookupId', value: ` ${r.lookupId!.toLowerCase()} ` }] };
        case 4: return { criteria: [{ field: 'firstName', value: r.firstName ?? 'x' }, { field: 'lastName', value: r.lastName! }, { field: 'city', value: r.city ?? 'x' }] };
        case 5: return byEmail(`nobody-${i}@example.org`);
        case 6: return { criteria: [{ field: 'addressLine1', value: r.addressLine1 ?? 'x' }, { field: 'state', value: (r.state ?? 'x').toLowerCase() }] };
        default: return { criteria: [{ field: 'email', value: '   ' }] };
      }
    });
    const started = performance.now();
    const answers = await crm.searchMany!(ctx, 'constituents', queries);
    const ms = performance.now() - started;
    expect(answers).toHaveLength(1000);
    expect(ms).toBeLessThan(30_000);
    for (const [i, q] of queries.entries()) {
      const single = await crm.search(ctx, 'constituents', q);
      expect(answers[i], `query ${i}: ${JSON.stringify(q)}`).toEqual(single);
    }
    // the queries built from a constituent find it; the others find nothing
    queries.forEach((_, i) => {
      if (i % 8 === 5 || i % 8 === 7) expect(answers[i], `query ${i}`).toEqual([]);
      else expect(answers[i]!.map((r) => r.id), `query ${i}`).toContain(pickRecord(i).id);
    });
    expect(answers.filter((_, i) => i % 8 === 1).every((a) => a.length <= 5)).toBe(true);
  });

  it('searches gifts by constituent, lookup id, amount and date, and refuses fields it cannot search', async () => {
    const gifts = await crm.search(ctx, 'gifts', { criteria: [{ field: 'constituentLookupId', value: 'SC-000005' }] });
    const g = gifts[0]!.fields as Record<string, string>;
    const queries: SearchQuery[] = [
      { criteria: [{ field: 'constituentLookupId', value: 'sc-000005' }] },
      { criteria: [{ field: 'lookupId', value: g.lookupId! }] },
      { criteria: [{ field: 'amount', value: g.amount! }, { field: 'date', value: g.date! }] },
      { criteria: [{ field: 'date', value: '2026-02-30' }] },
      { criteria: [{ field: 'amount', value: 'ten' }] },
      { criteria: [{ field: 'constituentLookupId', value: '' }] },
    ];
    const answers = await crm.searchMany!(ctx, 'gifts', queries);
    expect(answers[0]).toEqual(gifts);
    expect(answers[1]!.map((r) => r.id)).toEqual([gifts[0]!.id]);
    expect(answers[2]!.map((r) => r.id)).toContain(gifts[0]!.id);
    expect(answers[2]).toEqual(await crm.search(ctx, 'gifts', queries[2]!));
    expect(answers.slice(3)).toEqual([[], [], []]);
    await expect(crm.searchMany!(ctx, 'constituents', [byEmail('a@example.org'), { criteria: [{ field: 'shoeSize', value: '9' }] }])).rejects.toThrow(/cannot be searched by shoeSize/);
    await expect(crm.searchMany!(ctx, 'pledges', [byEmail('a@example.org')])).rejects.toThrow(/no object pledges/);
    expect(await crm.searchMany!(ctx, 'constituents', [])).toEqual([]);
  });

  it('never answers with another tenant\'s constituents', async () => {
    const [only] = await crm.upsert(ctx, 'constituents', [{ idempotencyKey: 'only-in-a', fields: { lastName: 'Solitary', email: 'only-in-a@example.org', phone: '+1 971 555 0100' } }]);
    const queries: SearchQuery[] = [
      byEmail('only-in-a@example.org'),
      { criteria: [{ field: 'phone', value: '971-555-0100' }] },
      { criteria: [{ field: 'lastName', value: 'Solitary' }] },
      ...seeded.slice(0, 200).map((r) => byEmail(String(r.fields.email))),
      ...seeded.slice(0, 200).map((r) => ({ criteria: [{ field: 'lookupId', value: String(r.fields.lookupId) }] })),
    ];
    const theirs = await crm.searchMany!(otherCtx, 'constituents', queries);
    expect(theirs.slice(0, 3)).toEqual([[], [], []]);
    const ids = theirs.flat().map((r) => r.id);
    expect(ids).not.toContain(only!.id);
    const { rows } = await pool.query('select count(*)::int as n from sandbox_constituents where id = any($1) and tenant_id <> $2', [ids, otherTenant]);
    expect(rows[0].n).toBe(0);
    // the same lookup ids exist in both tenants: each finds its own
    expect(theirs.slice(203).every((a) => a.length === 1)).toBe(true);
  });
});

describe('importing constituents from CSV', () => {
  it('imports a file with the usual header spellings, refusing bad rows with their reasons', async () => {
    const csv = [
      'Title,First Name,Surname,E-mail Address,Mobile,Street,Address 2,Town,State,ZIP,Country,Lookup ID,Notes',
      'Dr.,Amelia,Importer,Amelia.Importer@Example.org,(415) 555-0101,1 Import Way,Unit 2,Oakland,CA,94607-1234,United States,IMP-1,first',
      ',Bo,Importer,bo.importer@example.org,415.555.0102,,,,,,,,no lookup id: one is made',
      'Mr.,No,,no.last@example.org,,,,,,,,IMP-3,no last name',
      ',Bad,Mail,not-an-address,,,,,,,,IMP-4,bad e-mail',
      ',Dup,Licate,dup@example.org,,,,,,,,IMP-1,same lookup id as row 2',
      ',Old,Timer,old@example.org,,,,,,,,SC-000001,lookup id already in the CRM',
      '',
      '"Quoted, Jr.",Cleo,"Comma, Smith",cleo@example.org,+1 415 555 0107,"2 Quote St, Apt 3",,Oakland,CA,94607,,IMP-8,"multi',
      'line note"',
    ].join('\r\n');
    const view = await importToEnd(admin, sandboxId, csv);
    expect(view.status, JSON.stringify(view)).toBe('imported');
    expect(view.result).toEqual({
      imported: 3,
      refusedCount: 4,
      refused: [
        { row: 4, reason: 'The last name is missing.' },
        { row: 5, reason: 'The e-mail address is not valid.' },
        { row: 6, reason: 'The lookup ID is also given in row 2.' },
        { row: 7, reason: 'The lookup ID is already used by another constituent.' },
      ],
    });
    const [amelia] = await crm.search(ctx, 'constituents', byEmail('amelia.importer@example.org'));
    expect(amelia!.fields).toMatchObject({
      title: 'Dr.', firstName: 'Amelia', lastName: 'Importer', phone: '(415) 555-0101', addressLine1: '1 Import Way', addressLine2: 'Unit 2',
      city: 'Oakland', state: 'CA', postalCode: '94607-1234', country: 'United States', lookupId: 'IMP-1',
    });
    const [bo] = await crm.search(ctx, 'constituents', { criteria: [{ field: 'phone', value: '4155550102' }] });
    expect(bo!.fields).toMatchObject({ firstName: 'Bo', lookupId: expect.stringMatching(/^SC-\d{6,}$/) });
    const [cleo] = await crm.search(ctx, 'constituents', { criteria: [{ field: 'lookupId', value: 'IMP-8' }] });
    expect(cleo!.fields).toMatchObject({ title: 'Quoted, Jr.', lastName: 'Comma, Smith', addressLine1: '2 Quote St, Apt 3' });
    expect(wrongKeys(await keyRows(admin.tenantId, "c.last_name in ('Importer', 'Comma, Smith')"))).toEqual([]);
    expect(await crm.search(ctx, 'constituents', byEmail('old@example.org'))).toEqual([]);
  });

  it('keeps middle and preferred names, which searches answer and sends change', async () => {
    const view = await importToEnd(admin, sandboxId, 'First name,Middle name,Nickname,Last name,Email\nSun-hee,Mi,Sunny,Otherly,sunny.otherly@example.org\nF.,Scott,,Otherly,scott.otherly@example.org\n');
    expect(view.result).toEqual({ imported: 2, refused: [], refusedCount: 0 });
    const [sunny] = await crm.search(ctx, 'constituents', byEmail('sunny.otherly@example.org'));
    expect(sunny!.fields).toMatchObject({ firstName: 'Sun-hee', middleName: 'Mi', preferredName: 'Sunny', lastName: 'Otherly' });
    const [found] = await crm.searchMany!(ctx, 'constituents', [byEmail('scott.otherly@example.org')]);
    expect(found![0]!.fields).toMatchObject({ firstName: 'F.', middleName: 'Scott', preferredName: null });
    // a send changes them as it changes any other field
    const [written] = await crm.upsert(ctx, 'constituents', [{ id: sunny!.id, idempotencyKey: crypto.randomUUID(), fields: { preferredName: 'Sun' } }]);
    expect(written).toMatchObject({ outcome: 'updated' });
    expect((await crm.search(ctx, 'constituents', byEmail('sunny.otherly@example.org')))[0]!.fields).toMatchObject({ middleName: 'Mi', preferredName: 'Sun' });
    expect((await crm.describeFields(ctx, 'constituents')).map((f) => f.name)).toEqual(expect.arrayContaining(['middleName', 'preferredName']));
  });

  it('imports a file of thousands of rows in batches, keys and all', async () => {
    const rows = ['First name,Last name,Email,Phone,Address line 1,City,State,Postal code'];
    for (let i = 0; i < 12_000; i++) rows.push(`Bulk${i},Batchley,bulk${i}@example.org,+1 (646) 55${String(i).padStart(5, '0')},${i} Bulk Road,Albany,NY,12207-${String(i % 10000).padStart(4, '0')}`);
    const view = await importToEnd(admin, sandboxId, `${rows.join('\n')}\n`);
    expect(view.result).toEqual({ imported: 12_000, refused: [], refusedCount: 0 });
    expect(wrongKeys(await keyRows(admin.tenantId, "c.last_name = 'Batchley'"))).toEqual([]);
    const answers = await crm.searchMany!(ctx, 'constituents', [byEmail('bulk11999@example.org'), { criteria: [{ field: 'phone', value: '646-550-0007' }] }]);
    expect(answers.map((a) => a.map((r) => r.fields.firstName))).toEqual([['Bulk11999'], ['Bulk7']]);
  });

  it('refuses a file none of whose rows can be imported, naming the rows and reasons', async () => {
    const view = await importToEnd(admin, sandboxId, 'First name,Last name,Email\nAnn,,ann@example.org\nBen,Stone,not-mail\n');
    expect(view).toMatchObject({ status: 'refused', imported: 0, problem: { title: 'import-rows-refused', detail: "None of the file's 2 rows could be imported." } });
    expect(view.problem).toMatchObject({ refusedCount: 2, refused: [{ row: 2, reason: 'The last name is missing.' }, { row: 3, reason: 'The e-mail address is not valid.' }] });
    expect(await crm.search(ctx, 'constituents', { criteria: [{ field: 'lastName', value: 'Stone' }, { field: 'firstName', value: 'Ben' }] })).toEqual([]);
  });

  it('lists the first 100 refused rows and counts them all', async () => {
    const rows = ['Last name,Email,Lookup ID', 'Keeper,keeper@example.org,KEEP-1'];
    for (let i = 0; i < 150; i++) rows.push(`Refused${i},bad-${i},`);
    const body = (await importToEnd(admin, sandboxId, rows.join('\n'))).result!;
    expect(body.imported).toBe(1);
    expect(body.refusedCount).toBe(150);
    expect(body.refused.map((r) => r.row)).toEqual(Array.from({ length: 100 }, (_, i) => i + 3));
  });

  it('refuses what is not a CSV of constituents: another type, too big, empty, no last name column, two columns for one field', async () => {
    await expectProblem(await importCsv(admin, sandboxId, PNG, 'picture.csv'), 415, 'file-type-not-accepted');
    await expectProblem(await importCsv(admin, sandboxId, 'a,b\n1,2\n', 'constituents.xlsx'), 415, 'file-type-not-accepted');
    await expectProblem(await importCsv(admin, sandboxId, csvOfSize(MAX_UPLOAD_BYTES + 1)), 413, 'file-too-large');
    await expectProblem(await importCsv(admin, sandboxId, ''), 422, 'file-empty');
    await expectProblem(await importCsv(admin, sandboxId, 'Last name,Email\n'), 422, 'file-empty');
    const noLastName = await expectProblem(await importCsv(admin, sandboxId, 'First name,Email\nAnn,ann@example.org\n'), 422, 'file-wrong-structure');
    expect(noLastName.detail).toMatch(/last name column/);
    await expectProblem(await importCsv(admin, sandboxId, 'Last name,Email,E-mail\nStone,a@example.org,b@example.org\n'), 422, 'import-columns-conflict');
    // an export of another CRM carries both: which one is the lookup ID is the person's to say
    const both = await expectProblem(await importCsv(admin, sandboxId, 'constituent_id,Last name,lookup_id\nC-1,Stone,L-1\n'), 422, 'import-columns-conflict');
    expect(both.detail).toBe('The columns "constituent_id" (column 1) and "lookup_id" (column 3) both give the Lookup ID of a constituent. '
      + 'Keep one of them, or rename the other, and import the file again.');
    expect(both).toMatchObject({ field: 'lookupId', columns: [{ column: 1, header: 'constituent_id' }, { column: 3, header: 'lookup_id' }] });
    expect((await pool.query("select count(*)::int as n from sandbox_constituents where lookup_id in ('C-1', 'L-1')")).rows[0].n).toBe(0);
    const json = await fetch(`${server.url}${IMPORT(sandboxId)}`, { method: 'POST', headers: { ...admin.headers, 'content-type': 'application/json' }, body: '{}' });
    await expectProblem(json, 415, 'unsupported-media-type');
  });

  it('reads a file\'s header row and suggests a field for each column, one column per field, keeping nothing', async () => {
    const res = await readColumns(admin, sandboxId, 'constituent_id,First,Surname,Notes,lookup_id,E-mail Address\nC-1,Ann,Stone,,L-1,ann@example.org\n');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      columns: [
        { header: 'constituent_id', field: 'lookupId' }, { header: 'First', field: 'firstName' }, { header: 'Surname', field: 'lastName' },
        { header: 'Notes', field: null }, { header: 'lookup_id', field: null }, { header: 'E-mail Address', field: 'email' },
      ],
    });
    // the dialog sends the first 64KB of a file: a row cut short at the end is not read
    const cut = 'Last name,Notes\nStone,"a long note cut';
    expect(await (await readColumns(admin, sandboxId, cut)).json()).toEqual({ columns: [{ header: 'Last name', field: 'lastName' }, { header: 'Notes', field: null }] });
    // semicolons, as spreadsheets of some locales save them, are read as the import reads them
    expect(await (await readColumns(admin, sandboxId, 'Nachname;Vorname;Email\nStone;Ann;a@example.org\n')).json())
      .toEqual({ columns: [{ header: 'Nachname', field: null }, { header: 'Vorname', field: null }, { header: 'Email', field: 'email' }] });
    await expectProblem(await readColumns(admin, sandboxId, PNG, 'picture.csv'), 415, 'file-type-not-accepted');
    await expectProblem(await readColumns(admin, sandboxId, '\n\n'), 422, 'file-empty');
    await expectProblem(await readColumns(viewer, sandboxId, 'Last name\n'), 403, 'forbidden');
    await expectProblem(await readColumns(admin, otherSandboxId, 'Last name\n'), 404, 'not-found');
    // nothing of the files read is kept
    const kept = await fs.readdir(path.join(server.config.dataDir, 'files'), { recursive: true }).catch(() => [] as string[]);
    expect(kept.filter((f) => String(f).endsWith('.columns'))).toEqual([]);
  });

  it('imports with the columns the user chose, whatever their headers say', async () => {
    const view = await (async () => {
      const res = await importChosen('Nachname,Vorname,Mail,Notes\nChosenly,Ann,ann.chosen@example.org,likes owls\n', 'lastName,firstName,email,');
      const started = await res.json() as ImportView;
      expect(res.status, JSON.stringify(started)).toBe(202);
      return awaitImport(server.url, admin.headers, sandboxId, started.id);
    })();
    expect(view.result).toEqual({ imported: 1, refused: [], refusedCount: 0 });
    const [ann] = await crm.search(ctx, 'constituents', byEmail('ann.chosen@example.org'));
    expect(ann!.fields).toMatchObject({ firstName: 'Ann', lastName: 'Chosenly', email: 'ann.chosen@example.org' });
    // both ids of another CRM's export: the person says which one is the lookup ID
    const both = await importChosen('constituent_id,Last name,lookup_id\nC-77,Twoid,L-77\n', ',lastName,lookupId');
    const started = await both.json() as ImportView;
    expect(both.status, JSON.stringify(started)).toBe(202);
    expect((await awaitImport(server.url, admin.headers, sandboxId, started.id)).result).toMatchObject({ imported: 1 });
    const { rows } = await pool.query("select lookup_id from sandbox_constituents where last_name = 'Twoid' and tenant_id = $1", [admin.tenantId]);
    expect(rows).toEqual([{ lookup_id: 'L-77' }]);
  });

  it('refuses a column choice that does not fit the file, names a field twice, has no last name, or names an unknown field, writing nothing', async () => {
    const csv = 'Nachname,Mail\nRefusedchoice,r@example.org\n';
    const narrow = await expectProblem(await importChosen(csv, 'lastName'), 422, 'file-wrong-structure');
    expect(narrow.detail).toBe('The column choice names 1 column, but the file\'s header row has 2. Choose the columns again for this file.');
    const twice = await expectProblem(await importChosen(csv, 'lastName,lastName'), 422, 'import-columns-conflict');
    expect(twice.detail).toBe('Two columns give the Last name: choose it for one column only.');
    const none = await expectProblem(await importChosen(csv, ',email'), 422, 'file-wrong-structure');
    expect(none.detail).toBe('Choose the column that gives the last name: every constituent needs one.');
    const unknown = await expectProblem(await importChosen(csv, 'lastName,shoeSize'), 400, 'bad-request');
    expect(unknown.detail).toMatch(/^columns names a field the import does not know/);
    expect((await pool.query("select count(*)::int as n from sandbox_constituents where last_name = 'Refusedchoice'")).rows[0].n).toBe(0);
  });

  it('imports only into the caller\'s tenant, with datasource edit', async () => {
    // another tenant's data source is as unknown as a missing one
    await expectProblem(await importCsv(admin, otherSandboxId, 'Last name\nIntruder\n'), 404, 'not-found');
    await expectProblem(await importCsv(admin, crypto.randomUUID(), 'Last name\nNobody\n'), 404, 'not-found');
    await expectProblem(await importCsv(viewer, sandboxId, 'Last name\nViewer\n'), 403, 'forbidden');
    const { rows } = await pool.query("select count(*)::int as n from sandbox_constituents where last_name in ('Intruder', 'Nobody', 'Viewer')");
    expect(rows[0].n).toBe(0);
    // the other tenant imports into its own
    const view = await importToEnd(admin, otherSandboxId, 'Last name,Email\nNeighbour,neighbour@example.org\n', 'n.csv', otherTenant);
    expect(view.result).toMatchObject({ imported: 1 });
    expect(await crm.search(ctx, 'constituents', byEmail('neighbour@example.org'))).toEqual([]);
    expect(await crm.search(otherCtx, 'constituents', byEmail('neighbour@example.org'))).toHaveLength(1);
  });
});
