/**
 * The generic HTTP connector against a local fake of a donations API (a real HTTP server started
 * here): each authentication type, JSON paging by page number, offset, next link and cursor,
 * records at a path, fields inferred from the first page, pulls since a watermark, a formula's
 * extra query and start date, run-once windows, and which failures are worth retrying.
 */
import { forTenant } from '../../server/db/tenancy.ts';
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpConnector } from '../../server/connectors/http/connector.ts';
import { ConnectionProblem, type ConnectorContext, type PullOptions, type SourceRecord } from '../../server/connectors/connector.ts';
import { integrations, tenantSession, type TenantSession } from '../support/connections.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let api: ReturnType<typeof integrations>;
let admin: TenantSession;
let donations: http.Server;
let base: string;
const requests: { url: string; auth: string | undefined; apiKey: string | undefined }[] = [];

/** 7 donations, each changed on its own day of January 2026 */
const DONATIONS = Array.from({ length: 7 }, (_, i) => ({
  id: `d${i + 1}`,
  donor: { name: `Donor ${i + 1}`, email: `donor${i + 1}@example.org` },
  amount: (i + 1) * 10,
  recurring: i % 2 === 0,
  updated_at: `2026-01-0${i + 1}T12:00:00Z`,
}));

function startFakeDonationsApi(): Promise<http.Server> {
  const srv = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    requests.push({ url: url.pathname + url.search, auth: req.headers.authorization, apiKey: req.headers['x-api-key'] as string | undefined });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const since = url.searchParams.get('updated_since');
    const recurring = url.searchParams.get('recurring');
    const rows = DONATIONS.filter((d) => (!since || d.updated_at > since) && (recurring === null || String(d.recurring) === recurring));
    switch (url.pathname) {
      case '/basic/donations':
        if (req.headers.authorization !== `Basic ${Buffer.from('tributary:open sesame').toString('base64')}`) return send(401, { error: 'no' });
        return send(200, rows);
      case '/bearer/donations':
        if (req.headers.authorization !== 'Bearer tok-123') return send(401, { error: 'no' });
        return send(200, { data: rows });
      case '/key/donations':
        if (req.headers['x-api-key'] !== 'key-456') return send(403, { error: 'no' });
        return send(200, { data: rows });
      case '/page/donations': {
        const page = Number(url.searchParams.get('page') ?? 1);
        const size = Number(url.searchParams.get('per_page') ?? 3);
        return send(200, { results: { items: rows.slice((page - 1) * size, page * size) } });
      }
      case '/offset/donations': {
        const offset = Number(url.searchParams.get('offset') ?? 0);
        const limit = Number(url.searchParams.get('limit') ?? 3);
        return send(200, { data: rows.slice(offset, offset + limit) });
      }
      case '/next/donations': {
        const at = Number(url.searchParams.get('at') ?? 0);
        const next = at + 3 < rows.length ? `/next/donations?at=${at + 3}${since ? `&updated_since=${encodeURIComponent(since)}` : ''}` : null;
        return send(200, { data: rows.slice(at, at + 3), links: { next } });
      }
      case '/escape/donations':
        return send(200, { data: rows.slice(0, 1), links: { next: 'http://elsewhere.invalid/steal' } });
      case '/cursor/donations': {
        const at = Number(url.searchParams.get('cursor') ?? 0);
        return send(200, { data: rows.slice(at, at + 2), meta: { next: at + 2 < rows.length ? String(at + 2) : null } });
      }
      case '/broken/donations':
        return send(500, { error: 'down' });
      case '/unavailable/donations':
        return send(503, { error: 'maintenance' });
      case '/busy/donations':
        return send(429, { error: 'slow down' });
      case '/unsorted/donations':
        // ignores updated_since: every record, newest first
        return send(200, { data: DONATIONS.slice().reverse() });
      case '/html/donations':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>not json</html>');
      default:
        return send(404, { error: 'not found' });
    }
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

beforeAll(async () => {
  // the API runs on this machine: loopback is a private address, allowed only when the operator says so
  [server, donations] = await Promise.all([startTestServer({ env: { CONNECTOR_ALLOW_PRIVATE_HOSTS: 'true' } }), startFakeDonationsApi()]);
  base = `http://127.0.0.1:${(donations.address() as net.AddressInfo).port}`;
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  api = integrations(server.url, admin.headers);
});
afterAll(async () => {
  await server?.close();
  await new Promise((r) => donations?.close(r));
});

const settings = (path: string, extra: Record<string, string> = {}) => ({ url: `${base}${path}`, authenticationType: 'none', paging: 'none', ...extra });
const ctxOf = (s: Record<string, string>): ConnectorContext => ({
  tenant: forTenant(server.database.db, admin.tenantId), settings: s, dataDir: server.config.dataDir, network: { allowPrivateHosts: true },
});

async function pullAll(s: Record<string, string>, since: string | null = null, options: PullOptions = {}) {
  const records: SourceRecord[] = [];
  let watermark: string | null = since;
  for await (const batch of httpConnector.pull(ctxOf(s), 'records', since, options)) {
    records.push(...batch.records);
    watermark = batch.watermark;
  }
  return { records, watermark };
}

const test = (s: Record<string, string>) => api('/data-sources/test', { method: 'POST', body: { system: 'http', settings: s } });

describe('HTTP connector authentication', () => {
  it('sends HTTP Basic, a bearer token or an API key header, and reports refusals as Connection Failed', async () => {
    expect((await test(settings('/basic/donations', { authenticationType: 'basic', username: 'tributary', password: 'open sesame' }))).status).toBe(200);
    expect((await test(settings('/bearer/donations', { authenticationType: 'bearer', token: 'tok-123', recordsPath: 'data' }))).status).toBe(200);
    expect((await test(settings('/key/donations', { authenticationType: 'api-key', apiKeyHeader: 'X-API-Key', apiKey: 'key-456', recordsPath: 'data' }))).status).toBe(200);

    const wrong = await test(settings('/bearer/donations', { authenticationType: 'bearer', token: 'nope', recordsPath: 'data' }));
    expect(wrong.status).toBe(422);
    expect(await wrong.json()).toMatchObject({ title: 'connection-failed', code: 'clientdatasource-connection-failed' });
  });

  it('reports a server error or an answer that is not JSON as a processing error (Connection Error)', async () => {
    const broken = await test(settings('/broken/donations'));
    expect(broken.status).toBe(502);
    expect(await broken.json()).toMatchObject({ title: 'connection-error', code: 'processing-error' });
    const html = await test(settings('/html/donations'));
    expect(await html.json()).toMatchObject({ code: 'processing-error', detail: expect.stringContaining('JSON') });
    const noArray = await test(settings('/bearer/donations', { authenticationType: 'bearer', token: 'tok-123' }));
    expect(await noArray.json()).toMatchObject({ code: 'processing-error', detail: expect.stringContaining('records path') });
  });

  it('tests a saved data source in a formula\'s context as a formula connection error', async () => {
    const created = await api('/data-sources', { method: 'POST', body: { system: 'http', displayName: 'Broken API', settings: settings('/broken/donations') } });
    const { id } = await created.json() as { id: string };
    const res = await api(`/data-sources/${id}/test?formulaId=${crypto.randomUUID()}`, { method: 'POST' });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ title: 'connection-error', code: 'formula-connection-error' });
  });
});

describe('HTTP connector paging and pulls', () => {
  it('follows page numbers', async () => {
    const { records } = await pullAll(settings('/page/donations', { paging: 'page', pageParam: 'page', limitParam: 'per_page', pageSize: '3', recordsPath: 'results.items' }));
    expect(records.map((r) => r.id)).toEqual(['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7']);
    expect(requests.filter((r) => r.url.startsWith('/page/')).map((r) => r.url).slice(-3)).toEqual([
      '/page/donations?page=1&per_page=3', '/page/donations?page=2&per_page=3', '/page/donations?page=3&per_page=3',
    ]);
  });

  it('follows offsets, next links and cursors', async () => {
    const offset = await pullAll(settings('/offset/donations', { paging: 'offset', offsetParam: 'offset', limitParam: 'limit', pageSize: '3', recordsPath: 'data' }));
    expect(offset.records).toHaveLength(7);
    const next = await pullAll(settings('/next/donations', { paging: 'next-link', nextLinkPath: 'links.next', recordsPath: 'data' }));
    expect(next.records.map((r) => r.id)).toEqual(['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7']);
    const cursor = await pullAll(settings('/cursor/donations', { paging: 'cursor', cursorParam: 'cursor', cursorPath: 'meta.next', recordsPath: 'data' }));
    expect(cursor.records.map((r) => r.id)).toEqual(['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7']);
  });

  it('never follows a next link to another site with the credentials', async () => {
    const s = settings('/escape/donations', { paging: 'next-link', nextLinkPath: 'links.next', recordsPath: 'data', authenticationType: 'bearer', token: 'tok-123' });
    await expect(pullAll(s)).rejects.toThrow(/another site/);
  });

  it('flattens nested fields and pulls only what changed since the watermark', async () => {
    const s = settings('/next/donations', { paging: 'next-link', nextLinkPath: 'links.next', recordsPath: 'data', sinceParam: 'updated_since', watermarkField: 'updated_at' });
    const first = await pullAll(s);
    expect(first.records[0]!.fields).toEqual({ id: 'd1', 'donor.name': 'Donor 1', 'donor.email': 'donor1@example.org', amount: 10, recurring: true, updated_at: '2026-01-01T12:00:00Z' });
    expect(first.watermark).toBe('2026-01-07T12:00:00Z');
    const again = await pullAll(s, first.watermark);
    expect(again.records).toEqual([]);
    const fromFifth = await pullAll(s, '2026-01-04T12:00:00Z');
    expect(fromFifth.records.map((r) => r.id)).toEqual(['d5', 'd6', 'd7']);
    expect(requests.at(-1)!.url).toContain('updated_since=2026-01-04T12%3A00%3A00Z');
  });

  it('lists one object and infers field types from the first page', async () => {
    const created = await api('/data-sources', {
      method: 'POST',
      body: { system: 'http', displayName: 'Donations API', settings: settings('/bearer/donations', { authenticationType: 'bearer', token: 'tok-123', recordsPath: 'data' }) },
    });
    const { id } = await created.json() as { id: string };
    const objects = await (await api(`/data-sources/${id}/objects`)).json() as { objects: { name: string }[] };
    expect(objects.objects).toEqual([{ name: 'records', label: 'Records of /bearer/donations' }]);
    const { fields } = await (await api(`/data-sources/${id}/objects/records/fields`)).json() as { fields: { name: string; type: string }[] };
    expect(Object.fromEntries(fields.map((f) => [f.name, f.type]))).toEqual({
      'id': 'string', 'donor.name': 'string', 'donor.email': 'email', 'amount': 'number', 'recurring': 'boolean', 'updated_at': 'datetime',
    });
    // the token was sent, and is not in the saved view
    expect(requests.at(-1)!.auth).toBe('Bearer tok-123');
    expect(await (await api(`/data-sources/${id}`)).text()).not.toContain('tok-123');
  });
});

describe('HTTP connector and what a formula asks of it', () => {
  const next = (extra: Record<string, string> = {}) => settings('/next/donations', {
    paging: 'next-link', nextLinkPath: 'links.next', recordsPath: 'data', sinceParam: 'updated_since', watermarkField: 'updated_at', ...extra,
  });
  const urlsSince = (n: number) => requests.slice(n).map((r) => r.url);

  it('adds the formula\'s query pairs to every request, next links included', async () => {
    const before = requests.length;
    const { records } = await pullAll(next(), null, { settings: { query: 'recurring=true&campaign=spring%20gala' } });
    expect(records.map((r) => r.id)).toEqual(['d1', 'd3', 'd5', 'd7']);
    const urls = urlsSince(before);
    expect(urls).toHaveLength(2);
    for (const u of urls) {
      const q = new URL(u, 'http://x').searchParams;
      expect(q.get('recurring')).toBe('true');
      expect(q.get('campaign')).toBe('spring gala');
      expect(q.getAll('recurring')).toHaveLength(1);
    }
  });

  it('starts the first pull at the formula\'s date, and later pulls at the watermark', async () => {
    const before = requests.length;
    const first = await pullAll(next(), null, { settings: { changedAfter: '2026-01-05' } });
    expect(first.records.map((r) => r.id)).toEqual(['d5', 'd6', 'd7']);
    expect(urlsSince(before)[0]).toContain('updated_since=2026-01-05');
    expect(first.watermark).toBe('2026-01-07T12:00:00Z');
    const later = await pullAll(next(), first.watermark, { settings: { changedAfter: '2026-01-05' } });
    expect(later.records).toEqual([]);
    expect(requests.at(-1)!.url).toContain('updated_since=2026-01-07T12%3A00%3A00Z');
  });

  it('run once asks from the window\'s start, drops what changed after its end, and moves no watermark', async () => {
    const window = { from: new Date('2026-01-02T00:00:00Z'), to: new Date('2026-01-04T23:59:59Z') };
    const before = requests.length;
    const once = await pullAll(next(), '2026-01-06T12:00:00Z', { window });
    expect(once.records.map((r) => r.id)).toEqual(['d2', 'd3', 'd4']);
    expect(once.watermark).toBe('2026-01-06T12:00:00Z');
    expect(urlsSince(before)[0]).toContain('updated_since=2026-01-02T00%3A00%3A00.000Z');
    // an API that ignores the parameter: the window's start is kept here too
    const unsorted = await pullAll(settings('/unsorted/donations', { recordsPath: 'data', watermarkField: 'updated_at' }), null, { window });
    expect(unsorted.records.map((r) => r.id)).toEqual(['d4', 'd3', 'd2']);
    expect(unsorted.watermark).toBeNull();
    // without a watermark parameter or field a window cannot be asked for
    await expect(pullAll(settings('/unsorted/donations', { recordsPath: 'data' }), null, { window })).rejects.toThrow(/watermark parameter or watermark field/);
  });

  it('keeps the newest watermark when the API answers newest first', async () => {
    const { watermark } = await pullAll(settings('/unsorted/donations', { recordsPath: 'data', watermarkField: 'updated_at' }));
    expect(watermark).toBe('2026-01-07T12:00:00Z');
  });

  it('marks server errors and rate limits as worth retrying, and a refusal as not', async () => {
    const failure = (path: string, extra: Record<string, string> = {}) => pullAll(settings(path, extra)).then(() => null, (e: unknown) => e);
    for (const path of ['/broken/donations', '/unavailable/donations', '/busy/donations']) {
      const problem = await failure(path);
      expect(problem, path).toBeInstanceOf(ConnectionProblem);
      expect(problem, path).toMatchObject({ code: 'processing-error', transient: true });
    }
    expect(await failure('/busy/donations')).toMatchObject({ message: expect.stringContaining('slow down (HTTP 429)') });
    expect(await failure('/bearer/donations', { authenticationType: 'bearer', token: 'nope', recordsPath: 'data' })).toMatchObject({ code: 'clientdatasource-connection-failed', transient: false });
    expect(await failure('/missing/donations')).toMatchObject({ transient: false });
  });
});
