/**
 * The flat file service through its API, with a real clamd (tests/support/clamav.ts) scanning
 * every upload: each outcome of SPEC.md section 4 as a problem with its own title and SPEC's
 * message, the 15MB limit to the byte, tenant scoping, uploads when no scanner is configured,
 * bodies that break off or run on (the service answers, keeps serving, and leaves no file behind),
 * and files uploaded to a file-upload formula: kept whole until the file upload connector has
 * pulled every row and the engine acknowledged them.
 */
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { Hono } from 'hono';
import { createLocalJWKSet } from 'jose';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ConnectorContext, SourceRecord } from '../../server/connectors/connector.ts';
import { fileUploadConnector } from '../../server/connectors/fileSources/fileUpload.ts';
import { clamavScanner } from '../../server/connectors/flatFile/clamav.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import { createAuth } from '../../server/http/auth.ts';
import type { AppEnv } from '../../server/http/env.ts';
import { cleanFileName, flatFileServiceRouter } from '../../server/http/flatFileService.ts';
import { installErrorHandling } from '../../server/http/problem.ts';
import { uploadsService } from '../../server/services/uploads.ts';
import { MESSAGES, PROBLEM_TITLES } from '../../src/domain/errors.ts';
import { MAX_UPLOAD_BYTES, SAMPLE_ROWS, outcomeForProblem, type UploadSummary } from '../../src/domain/upload.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { csvOfSize, csvText, eicar, PNG, workbook } from '../support/flatFiles.ts';
import { problemDefects, send, sendAborted } from '../support/fuzz.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const FF = '/flat-file-service/v1';
const clamavSocket = inject('clamavSocket');

let server: TestServer;
let admin: Session;
let tenantA: string;
let tenantB: string;

async function tenantsOf(base: string, s: Session): Promise<string[]> {
  const res = await call(base, `/account-management/v1/Tenant/organization/${s.orgId}/user/${encodeURIComponent(s.auth0Id)}`, { headers: s.headers });
  return ((await res.json()) as { tenants: { tenantId: string }[] }).tenants.map((t) => t.tenantId);
}

function upload(base: string, s: Session, tenantId: string, fileName: string, content: Uint8Array | string, type = 'text/csv') {
  const form = new FormData();
  form.append('file', new File([content as BlobPart], fileName, { type }));
  return fetch(`${base}${FF}/uploads`, { method: 'POST', headers: { ...s.headers, tenantId }, body: form });
}

async function expectProblem(res: Response, status: number, title: string) {
  const body = await res.json() as { status: number; title: string; detail: string; code: string };
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  expect(body).toMatchObject({ status, title, code: title });
  expect(body.detail.length).toBeGreaterThan(5);
  return body;
}

beforeAll(async () => {
  server = await startTestServer({ env: clamavSocket ? { CLAMAV_SOCKET: clamavSocket } : {} });
  admin = await sessionFor(server.url, 'administrator@demo.tributary.test');
  [tenantA, tenantB] = await tenantsOf(server.url, admin) as [string, string];
});
afterAll(async () => { await server?.close(); });

describe.skipIf(!clamavSocket)('uploads scanned by clamd', () => {
  it('success: keeps the headers and the first 20 rows of a CSV, scanned clean, and serves them again', async () => {
    const res = await upload(server.url, admin, tenantA, 'supporters.csv', csvText(45));
    expect(res.status, await res.clone().text()).toBe(201);
    const body = await res.json() as UploadSummary;
    expect(body).toMatchObject({
      fileName: 'supporters.csv', detectedType: 'csv', scanStatus: 'clean', rowCount: 45,
      headers: ['First name', 'Last name', 'Email', 'Amount'],
    });
    expect(body.sampleRows).toHaveLength(SAMPLE_ROWS);
    expect(body.sampleRows[0]).toEqual(['Ann1', 'Smith1', 'ann1@example.org', '1.50']);
    expect(body.sampleRows.at(-1)![0]).toBe('Ann20');

    const again = await call(server.url, `${FF}/uploads/${body.id}`, { headers: { ...admin.headers, tenantId: tenantA } });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(body);
    // another tenant of the same user does not see it
    const elsewhere = await call(server.url, `${FF}/uploads/${body.id}`, { headers: { ...admin.headers, tenantId: tenantB } });
    await expectProblem(elsewhere, 404, 'not-found');
  });

  it('success: reads Excel workbooks (.xlsx with shared strings, and .xls) by content', async () => {
    const rows = [['Name', 'Gift', 'Date'], ['Ann', 10.5, new Date(Date.UTC(2024, 0, 15))], ['Bob', 3, new Date(Date.UTC(2024, 1, 1))]];
    for (const [name, bookType] of [['gifts.xlsx', 'xlsx'], ['gifts.xls', 'biff8']] as const) {
      const res = await upload(server.url, admin, tenantA, name, workbook(rows, bookType, { sharedStrings: true }), 'application/octet-stream');
      expect(res.status, await res.clone().text()).toBe(201);
      expect(await res.json()).toMatchObject({
        detectedType: name.endsWith('x') ? 'xlsx' : 'xls', headers: ['Name', 'Gift', 'Date'], rowCount: 2,
        sampleRows: [['Ann', '10.5', '2024-01-15'], ['Bob', '3', '2024-02-01']], scanStatus: 'clean',
      });
    }
  });

  it('unsupported-type: an extension other than CSV or Excel, and an image named .csv', async () => {
    const pdf = await expectProblem(await upload(server.url, admin, tenantA, 'report.pdf', '%PDF-1.7\n'), 415, 'file-type-not-accepted');
    expect(PROBLEM_TITLES['file-type-not-accepted']).toBe(MESSAGES.fileType);
    expect(outcomeForProblem(pdf.title, 415)).toBe('unsupported-type');
    const disguised = await expectProblem(await upload(server.url, admin, tenantA, 'photo.csv', PNG), 415, 'file-type-not-accepted');
    expect(disguised.detail).toMatch(/PNG image/);
    // a Word document (a ZIP) renamed .xlsx
    const docx = workbook([['a']], 'xlsx');
    const renamed = Buffer.from(docx.toString('latin1').replaceAll('xl/workbook.xml', 'xl/workbook.xmm'), 'latin1');
    await expectProblem(await upload(server.url, admin, tenantA, 'letter.xlsx', renamed), 415, 'file-type-not-accepted');
  });

  it('size-too-big: exactly 15MB is accepted and one byte more is refused with 413', async () => {
    const exact = csvOfSize(MAX_UPLOAD_BYTES);
    expect(exact.length).toBe(15 * 1024 * 1024);
    const ok = await upload(server.url, admin, tenantA, 'exactly-15mb.csv', exact);
    expect(ok.status, await ok.clone().text()).toBe(201);
    expect(await ok.json()).toMatchObject({ size: MAX_UPLOAD_BYTES, scanStatus: 'clean', headers: ['id', 'name', 'notes'] });

    const over = await upload(server.url, admin, tenantA, 'too-big.csv', csvOfSize(MAX_UPLOAD_BYTES + 1));
    const problem = await expectProblem(over, 413, 'file-too-large');
    expect(PROBLEM_TITLES[problem.title as 'file-too-large']).toBe('File size cannot exceed 15MB');
  });

  it('file-name-too-long: a name of 150 characters is refused, 149 accepted', async () => {
    const name = (n: number) => `${'n'.repeat(n - 4)}.csv`;
    await expectProblem(await upload(server.url, admin, tenantA, name(150), csvText(1)), 422, 'file-name-too-long');
    const ok = await upload(server.url, admin, tenantA, name(149), csvText(1));
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as UploadSummary).fileName).toHaveLength(149);
  });

  it('empty: no bytes, only blank lines, and a header without rows', async () => {
    await expectProblem(await upload(server.url, admin, tenantA, 'nothing.csv', ''), 422, 'file-empty');
    await expectProblem(await upload(server.url, admin, tenantA, 'blank.csv', '\r\n\r\n  \r\n'), 422, 'file-empty');
    const headerOnly = await expectProblem(await upload(server.url, admin, tenantA, 'header.csv', 'Name,Email\r\n'), 422, 'file-empty');
    expect(headerOnly.detail).toMatch(/no rows/);
  });

  it('wrong-structure: duplicate or missing headers, values without a header, an unclosed quote', async () => {
    const dup = await expectProblem(await upload(server.url, admin, tenantA, 'dup.csv', 'Email,Name,email\r\na,b,c\r\n'), 422, 'file-wrong-structure');
    expect(dup.detail).toBe('Columns 1 and 3 have the same header.');
    await expectProblem(await upload(server.url, admin, tenantA, 'gap.csv', 'Email,,Name\r\na,b,c\r\n'), 422, 'file-wrong-structure');
    await expectProblem(await upload(server.url, admin, tenantA, 'wide.csv', 'Email,Name\r\na,b,c\r\n'), 422, 'file-wrong-structure');
    await expectProblem(await upload(server.url, admin, tenantA, 'quote.csv', 'Email,Name\r\n"a,b\r\n'), 422, 'file-wrong-structure');
  });

  it('virus-found: the EICAR test file, alone, inside a CSV and inside an .xlsx, is refused and not stored', async () => {
    const alone = await expectProblem(await upload(server.url, admin, tenantA, 'eicar.csv', eicar()), 422, 'virus-found');
    expect(PROBLEM_TITLES[alone.title as 'virus-found']).toBe('Virus found in file');
    expect(alone.detail).toMatch(/Tributary\.Test\.EICAR/);
    await expectProblem(await upload(server.url, admin, tenantA, 'gifts.csv', `Name,Note\r\nAnn,${eicar()}\r\n`), 422, 'virus-found');
    await expectProblem(await upload(server.url, admin, tenantA, 'gifts.xlsx', workbook([['Name', 'Note'], ['Ann', eicar()]], 'xlsx', { sharedStrings: true })), 422, 'virus-found');
    const stored = await server.database.pool.query('select count(*)::int as n from uploads where file_name like $1', ['eicar%']);
    expect(stored.rows[0].n).toBe(0);
  });

  it('the real clamd refuses a stream over its StreamMaxLength (20M here) as too large, never as clean', async () => {
    const scanner = clamavScanner({ socket: clamavSocket });
    expect(await scanner.scan(Buffer.alloc(21 * 1024 * 1024, 0x61))).toEqual({ status: 'too-large' });
    // clamd answers and closes while this thread is held between two writes; when its answer is
    // lost with the socket (tests/unit/flatFileClamav.test.ts forces that), the file is read again
    let opened = 0;
    async function* heldPastTheLimit() {
      yield Buffer.alloc(20 * 1024 * 1024 - 1000, 0x61);
      for (let i = 0; i < 5; i++) {
        const until = Date.now() + 100;
        while (Date.now() < until) { /* held */ }
        yield Buffer.alloc(4096, 0x61);
      }
    }
    expect(await scanner.scan(() => (++opened === 1 ? heldPastTheLimit() : Buffer.alloc(21 * 1024 * 1024, 0x61)))).toEqual({ status: 'too-large' });
    expect(await scanner.scan(Buffer.from(eicar()))).toEqual({ status: 'infected', signature: 'Tributary.Test.EICAR.UNOFFICIAL' });
    expect(await scanner.scan(Buffer.from(csvText(3)))).toEqual({ status: 'clean' });
  });

  it('arbitrary bytes and malformed CSV never make the service answer with a 5xx', async () => {
    const csvish = fc.array(fc.constantFrom('"', ',', ';', '\r\n', '\n', 'a', 'Name', ' ', 'é', '\u0000'), { maxLength: 120 }).map((p) => Buffer.from(p.join('')));
    await fc.assert(fc.asyncProperty(
      fc.oneof(fc.uint8Array({ maxLength: 2048 }).map((b) => Buffer.from(b)), csvish), fc.constantFrom('a.csv', 'a.xlsx', 'a.xls'),
      async (bytes, name) => {
        const res = await upload(server.url, admin, tenantA, name, bytes, 'application/octet-stream');
        expect([201, 413, 415, 422], await res.clone().text()).toContain(res.status);
      },
    ), { numRuns: 60 });
  });

  it('needs a tenant and the formula create permission; no part named "file" is a 400', async () => {
    const noTenant = await fetch(`${server.url}${FF}/uploads`, { method: 'POST', headers: admin.headers, body: new FormData() });
    await expectProblem(noTenant, 400, 'bad-request');
    const viewer = await sessionFor(server.url, 'view.only@demo.tributary.test');
    const [viewerTenant] = await tenantsOf(server.url, viewer);
    await expectProblem(await upload(server.url, viewer, viewerTenant!, 'a.csv', csvText(1)), 403, 'forbidden');
    const form = new FormData();
    form.append('other', 'x');
    await expectProblem(await fetch(`${server.url}${FF}/uploads`, { method: 'POST', headers: { ...admin.headers, tenantId: tenantA }, body: form }), 400, 'bad-request');
    const json = await call(server.url, `${FF}/uploads`, { method: 'POST', headers: { ...admin.headers, tenantId: tenantA }, body: { file: 'x' } });
    await expectProblem(json, 415, 'unsupported-media-type');
  });
});

describe('when the scanner is not there', () => {
  let noScanner: TestServer;
  let deadScanner: TestServer;
  beforeAll(async () => {
    [noScanner, deadScanner] = await Promise.all([
      startTestServer(),
      startTestServer({ env: { CLAMAV_SOCKET: '/nonexistent/tributary/clamd.sock' } }),
    ]);
  });
  afterAll(async () => { await Promise.all([noScanner?.close(), deadScanner?.close()]); });

  it('no scanner configured: the upload succeeds and says it was not scanned, never clean', async () => {
    const s = await sessionFor(noScanner.url, 'administrator@demo.tributary.test');
    const [t] = await tenantsOf(noScanner.url, s);
    const res = await upload(noScanner.url, s, t!, 'supporters.csv', csvText(3));
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ scanStatus: 'not-scanned', rowCount: 3 });
  });

  it('unreachable-server: a configured scanner that does not answer refuses the file (503), never passes it unscanned', async () => {
    const s = await sessionFor(deadScanner.url, 'administrator@demo.tributary.test');
    const [t] = await tenantsOf(deadScanner.url, s);
    const problem = await expectProblem(await upload(deadScanner.url, s, t!, 'supporters.csv', csvText(3)), 503, 'virus-scanner-unavailable');
    expect(outcomeForProblem(problem.title, 503)).toBe('unreachable-server');
    const stored = await deadScanner.database.pool.query('select count(*)::int as n from uploads');
    expect(stored.rows[0].n).toBe(0);
  });
});

describe('uploads that break off or go wrong midway', () => {
  // the server's store folder is its own, so what is left in it (or still open) is this server's doing
  let storeDir: string;
  let srv: TestServer;
  let s: Session;
  let tenant: string;
  beforeAll(async () => {
    srv = await startTestServer();
    storeDir = path.join(srv.config.dataDir, 'files');
    s = await sessionFor(srv.url, 'administrator@demo.tributary.test');
    [tenant] = await tenantsOf(srv.url, s) as [string];
  });
  afterAll(async () => {
    await srv?.close();
  });

  const filesInStore = (): string[] => (fs.existsSync(storeDir) ? fs.readdirSync(storeDir, { recursive: true, encoding: 'utf8' }) : [])
    .filter((f) => fs.statSync(path.join(storeDir, f), { throwIfNoEntry: false })?.isFile());
  /** descriptors this process still holds on the store's files (a stream that never ended) */
  const openInStore = (): string[] => fs.readdirSync('/proc/self/fd').flatMap((fd) => {
    try { return [fs.readlinkSync(`/proc/self/fd/${fd}`)]; } catch { return []; }
  }).filter((p) => p.startsWith(storeDir));
  const until = async (ok: () => boolean, ms = 5000) => {
    for (const end = Date.now() + ms; !ok() && Date.now() < end;) await new Promise((r) => setTimeout(r, 20));
    return ok();
  };
  const multipartHeaders = () => ({ ...s.headers, tenantId: tenant, 'content-type': 'multipart/form-data; boundary=xx' });
  const part = (fileName: string, name = 'file') => `--xx\r\nContent-Disposition: form-data; name="${name}"; filename="${fileName}"\r\nContent-Type: text/csv\r\n\r\n`;
  const stillServing = async () => {
    expect((await fetch(`${srv.url}/health`)).status).toBe(200);
    const ok = await upload(srv.url, s, tenant, 'after.csv', csvText(2));
    expect(ok.status, await ok.clone().text()).toBe(201);
  };

  it.each([
    ['after the bytes of a CSV file', `${part('a.csv')}abc`],
    ['after the bytes of a file of another type', `${part('a.pdf')}abc`],
    ['after the bytes of a part not named "file"', `${part('b.csv', 'other')}abc`],
    ['inside the part headers', '--xx\r\nContent-Disposition: form-da'],
    ['inside the first boundary', '--x'],
  ])('a body that ends %s, without its closing boundary, is a 400 problem; nothing stays in the store', async (_when, body) => {
    const res = await send(srv.url, { method: 'POST', path: `${FF}/uploads`, headers: multipartHeaders(), body });
    expect(res.status, res.text).toBe(400);
    expect(problemDefects(res)).toEqual([]);
    expect(JSON.parse(res.text)).toMatchObject({ title: 'bad-request', detail: 'The upload could not be read as multipart/form-data.' });
    expect(filesInStore()).toEqual([]);
    await stillServing();
  });

  it('a client that goes away mid-upload leaves no file in the store and nothing open; the next upload works', async () => {
    const sent = Buffer.concat([Buffer.from(part('big.csv')), csvOfSize(2 * 1024 * 1024)]);
    await sendAborted(srv.url, {
      method: 'POST', path: `${FF}/uploads`, headers: multipartHeaders(), body: sent, declaredLength: sent.length + 4 * 1024 * 1024,
      // the file has reached the store before the client goes
      beforeAbort: async () => { expect(await until(() => filesInStore().length > 0)).toBe(true); },
    });
    expect(await until(() => filesInStore().length === 0 && openInStore().length === 0), 'nothing left in or open on the store').toBe(true);
    await stillServing();
    expect(filesInStore()).toEqual([]);
  });

  it.each(['huge.csv', 'huge.pdf'])('a body far past the limit sent without a length (%s) is cut off with 413; the open file part does not take the process down', async (fileName) => {
    const body = Buffer.concat([Buffer.from(part(fileName)), Buffer.alloc(MAX_UPLOAD_BYTES + 3 * 1024 * 1024, 0x61)]);
    const res = await send(srv.url, { method: 'POST', path: `${FF}/uploads`, headers: multipartHeaders(), body, chunked: true });
    expect(res.status, res.text).toBe(413);
    expect(problemDefects(res)).toEqual([]);
    expect(JSON.parse(res.text)).toMatchObject({ title: 'file-too-large' });
    expect(await until(() => filesInStore().length === 0 && openInStore().length === 0)).toBe(true);
    await stillServing();
  });

  it('a store that cannot take the file is a 500 problem that shows nothing of it, and uploads work again once it can', async () => {
    // the tenant's folder is taken by a file, so the store cannot make it
    fs.rmSync(path.join(storeDir, tenant), { recursive: true, force: true });
    fs.mkdirSync(storeDir, { recursive: true });
    fs.writeFileSync(path.join(storeDir, tenant), 'not a folder');
    try {
      const res = await send(srv.url, { method: 'POST', path: `${FF}/uploads`, headers: multipartHeaders(), body: `${part('a.csv')}${csvText(3)}\r\n--xx--\r\n` });
      expect(res.status, res.text).toBe(500);
      expect(problemDefects(res)).toEqual([]);
      expect(JSON.parse(res.text)).toMatchObject({ title: 'server-error' });
      expect(res.text).not.toMatch(/ENOTDIR|EEXIST|files\//);
    } finally {
      fs.rmSync(path.join(storeDir, tenant));
    }
    await stillServing();
    expect(filesInStore()).toEqual([]);
  });

  it('strips format characters from file names, so a right-to-left override cannot disguise a name', async () => {
    // shown by a bidi-aware screen as "reportvsc.pdf"
    const spoof = await upload(srv.url, s, tenant, 'report\u202Efdp.csv', csvText(1));
    expect(spoof.status, await spoof.clone().text()).toBe(201);
    const body = await spoof.json() as UploadSummary;
    expect(body.fileName).toBe('reportfdp.csv');
    const again = await call(srv.url, `${FF}/uploads/${body.id}`, { headers: { ...s.headers, tenantId: tenant } });
    expect(((await again.json()) as UploadSummary).fileName).toBe('reportfdp.csv');

    const invisible = await upload(srv.url, s, tenant, '\uFEFFsupp\u200Borters\u2066\u00AD\u2069.csv', csvText(1));
    expect(((await invisible.json()) as UploadSummary).fileName).toBe('supporters.csv');
  });

  it('cleanFileName removes every format and control character and keeps the rest of the name', () => {
    const format = ['\u00AD', '\u061C', '\u200B', '\u200C', '\u200D', '\u200E', '\u200F', '\u202A', '\u202E', '\u2060', '\u2066', '\u2069', '\uFEFF', '\u{E0001}', '\u{E0041}'];
    expect(cleanFileName(`a${format.join('')}b.csv`)).toBe('ab.csv');
    expect(cleanFileName('a\u0000\u0007\u001b\u007f\u0085\u009f\u2028\u2029b.csv')).toBe('ab.csv');
    expect(cleanFileName('C:\\Users\\ann\\Zoë Ölund — 2024 (final) 📎.csv')).toBe('Zoë Ölund — 2024 (final) 📎.csv');
    expect(cleanFileName('\u202E  ../../spaced.csv \u200B')).toBe('spaced.csv');
  });
});

describe('files uploaded to a file-upload formula', () => {
  // the server's store folder is its own, and no scanner: what is kept and removed is this server's doing
  let dataDir: string;
  let srv: TestServer;
  let s: Session;
  let tenant: string;
  let otherTenant: string;
  beforeAll(async () => {
    srv = await startTestServer();
    dataDir = srv.config.dataDir;
    s = await sessionFor(srv.url, 'administrator@demo.tributary.test');
    [tenant, otherTenant] = await tenantsOf(srv.url, s) as [string, string];
  });
  afterAll(async () => {
    await srv?.close();
  });

  async function formula(tenantId: string, usesFileUpload: boolean): Promise<string> {
    const res = await call(srv.url, '/web-api/v1/formulas', { method: 'POST', headers: { ...s.headers, tenantId }, body: { name: 'Gala sign-ups', usesFileUpload } });
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { id: string }).id;
  }
  function uploadTo(formulaId: string | undefined, fileName: string, content: Uint8Array | string, tenantId = tenant) {
    const form = new FormData();
    form.append('file', new File([content as BlobPart], fileName, { type: 'text/csv' }));
    return fetch(`${srv.url}${FF}/uploads${formulaId ? `?formulaId=${formulaId}` : ''}`, { method: 'POST', headers: { ...s.headers, tenantId }, body: form });
  }
  const scope = () => forTenant(srv.database.db, tenant);
  const ctx = (): ConnectorContext => ({ tenant: scope(), settings: {}, dataDir });
  const stored = (key: string) => path.join(dataDir, 'files', ...key.split('/'));
  const storeFiles = () => {
    const dir = path.join(dataDir, 'files');
    return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => fs.statSync(path.join(dir, f)).isFile()) : [];
  };
  async function pullAll(uploadId: string, since: string | null, batchSize?: number) {
    const batches: { records: SourceRecord[]; watermark: string | null }[] = [];
    for await (const b of fileUploadConnector.pull(ctx(), uploadId, since, batchSize ? { batchSize } : {})) batches.push(b);
    return { batches, records: batches.flatMap((b) => b.records), watermark: batches.at(-1)?.watermark ?? null };
  }

  it('keeps the whole file for its formula, with the formula and the file key on the upload', async () => {
    const formulaId = await formula(tenant, true);
    const before = storeFiles().length;
    const res = await uploadTo(formulaId, 'gala.csv', csvText(45));
    expect(res.status, await res.clone().text()).toBe(201);
    const body = await res.json() as UploadSummary;
    expect(body).toMatchObject({ formulaId, rowCount: 45, headers: ['First name', 'Last name', 'Email', 'Amount'], scanStatus: 'not-scanned' });
    expect(body.sampleRows).toHaveLength(SAMPLE_ROWS);
    const row = (await scope().uploads.get(body.id))!;
    expect(row).toMatchObject({ formulaId, fileKey: expect.stringMatching(new RegExp(`^${tenant}/`)) });
    expect(fs.readFileSync(stored(row.fileKey!), 'utf8')).toBe(csvText(45));
    expect(storeFiles()).toHaveLength(before + 1);
    expect((await scope().uploads.forFormula(formulaId, { waiting: true })).map((u) => u.id)).toEqual([body.id]);

    // without a formula only the headers and sample are kept, as before
    const plain = await uploadTo(undefined, 'sample.csv', csvText(3));
    const plainRow = (await scope().uploads.get(((await plain.json()) as UploadSummary).id))!;
    expect(plainRow).toMatchObject({ formulaId: null, fileKey: null });
    expect(storeFiles()).toHaveLength(before + 1);
    expect((await pullAll(plainRow.id, null)).records).toEqual([]);
  });

  it('pulls every row of a 5,000-row CSV in batches, resumes after the last row collected, and acknowledging the end deletes the file', async () => {
    const formulaId = await formula(tenant, true);
    const body = await (await uploadTo(formulaId, 'members.csv', csvText(5000))).json() as UploadSummary;
    expect(body.rowCount).toBe(5000);
    const key = (await scope().uploads.get(body.id))!.fileKey!;

    const all = await pullAll(body.id, null, 1000);
    expect(all.records).toHaveLength(5000);
    expect(all.batches.map((b) => b.records.length)).toEqual([1000, 1000, 1000, 1000, 1000, 0]);
    expect(all.records[0]).toEqual({ id: `${body.id}#2`, fields: { 'First name': 'Ann1', 'Last name': 'Smith1', Email: 'ann1@example.org', Amount: '1.50' } });
    expect(all.records.at(-1)!.fields).toMatchObject({ 'First name': 'Ann5000' });
    expect(new Set(all.records.map((r) => r.id)).size).toBe(5000);

    // a run that stopped after two batches goes on from row 2,002 (line 2,002: the header is line 1)
    const afterTwo = all.batches[1]!.watermark;
    const rest = await pullAll(body.id, afterTwo, 1000);
    expect(rest.records).toHaveLength(3000);
    expect(rest.records[0]!.id).toBe(`${body.id}#2002`);

    // acknowledging part of the file keeps it; the end deletes it and keeps the headers and sample
    await fileUploadConnector.acknowledge!(ctx(), body.id, afterTwo!);
    expect(fs.existsSync(stored(key))).toBe(true);
    await fileUploadConnector.acknowledge!(ctx(), body.id, all.watermark!);
    expect(fs.existsSync(stored(key))).toBe(false);
    const row = (await scope().uploads.get(body.id))!;
    expect(row).toMatchObject({ fileKey: null, formulaId, rowCount: 5000, headers: ['First name', 'Last name', 'Email', 'Amount'] });
    expect(row.sampleRows).toHaveLength(SAMPLE_ROWS);
    const again = await call(srv.url, `${FF}/uploads/${body.id}`, { headers: { ...s.headers, tenantId: tenant } });
    expect(((await again.json()) as UploadSummary).sampleRows).toEqual(body.sampleRows);
    // collected: nothing more to pull, and a second acknowledgement changes nothing
    expect((await pullAll(body.id, null)).records).toEqual([]);
    await fileUploadConnector.acknowledge!(ctx(), body.id, all.watermark!);
    expect((await scope().uploads.forFormula(formulaId, { waiting: true }))).toEqual([]);
  });

  it('reads every row of a kept Excel workbook too', async () => {
    const formulaId = await formula(tenant, true);
    const rows = [['Name', 'Gift'], ...Array.from({ length: 30 }, (_, i) => [`Donor ${i + 1}`, i + 1])];
    const body = await (await uploadTo(formulaId, 'gifts.xlsx', workbook(rows, 'xlsx'))).json() as UploadSummary;
    const { records, batches } = await pullAll(body.id, null, 25);
    expect(batches.map((b) => b.records.length)).toEqual([25, 5]);
    expect(records.at(-1)).toEqual({ id: `${body.id}#31`, fields: { Name: 'Donor 30', Gift: '30' } });
  });

  it('refuses a formula of another tenant, one that does not take uploaded files, and an id that is not one', async () => {
    const before = storeFiles().length;
    const refusal = async (res: Response) => {
      const body = await res.json() as { title: string; code: string; detail: string; errors: Record<string, string> };
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(body).toMatchObject({ title: 'bad-request', code: 'validation-failed' });
      return body;
    };
    const foreign = await formula(otherTenant, true);
    expect(await refusal(await uploadTo(foreign, 'a.csv', csvText(2)))).toMatchObject({
      detail: 'There is no such formula.', errors: { formulaId: 'Choose one of your file-upload formulas' },
    });
    // the same formula is accepted in its own tenant
    expect((await uploadTo(foreign, 'a.csv', csvText(2), otherTenant)).status).toBe(201);

    const scheduled = await formula(tenant, false);
    expect(await refusal(await uploadTo(scheduled, 'a.csv', csvText(2)))).toMatchObject({
      detail: 'This formula does not take its records from uploaded files.', errors: { formulaId: 'Choose a file-upload formula' },
    });
    expect((await refusal(await uploadTo('not-a-formula', 'a.csv', csvText(2)))).detail).toMatch(/formulaId/);
    expect(storeFiles()).toHaveLength(before + 1);
    const refusedRows = await srv.database.pool.query('select count(*)::int as n from uploads where formula_id = any($1)', [[scheduled]]);
    expect(refusedRows.rows[0].n).toBe(0);
  });

  it('queues the formula\'s run once the upload is stored, and only for a formula\'s file', async () => {
    const calls: { tenantId: string; formulaId: string; uploadId: string; correlationId: string; stored: boolean }[] = [];
    const identity = srv.identity!;
    const app = new Hono<AppEnv>();
    installErrorHandling(app);
    app.use('*', async (c, next) => {
      c.set('requestId', 'req-1');
      c.set('correlationId', 'corr-formula-file');
      c.set('log', pino({ level: 'silent' }));
      await next();
    });
    const auth = createAuth(srv.database.db, { keys: createLocalJWKSet(identity.publicJwks), issuer: identity.issuer, audience: srv.config.auth.audience });
    app.route(FF, flatFileServiceRouter({
      files: srv.services.files,
      uploads: uploadsService({ store: srv.services.files, scanner: null }),
      formulaRuns: {
        queueFile: async (scoped, who, formulaId, uploadId) => {
          calls.push({ tenantId: scoped.tenantId, formulaId, uploadId, correlationId: who.correlationId, stored: !!(await scoped.uploads.get(uploadId))?.fileKey });
          if (calls.length === 2) throw new Error('the queue is down');
          return null;
        },
      },
    }, auth));
    const post = (formulaId: string | undefined, again = false) => {
      const form = new FormData();
      form.append('file', new File([csvText(4)], 'late.csv', { type: 'text/csv' }));
      return app.request(`${FF}/uploads${formulaId ? `?formulaId=${formulaId}${again ? '&again=true' : ''}` : ''}`, { method: 'POST', headers: { ...s.headers, tenantId: tenant }, body: form });
    };
    const formulaId = await formula(tenant, true);
    const first = await post(formulaId);
    expect(first.status, await first.clone().text()).toBe(201);
    const { id } = await first.json() as UploadSummary;
    expect(calls).toEqual([{ tenantId: tenant, formulaId, uploadId: id, correlationId: 'corr-formula-file', stored: true }]);
    expect((await post(undefined)).status).toBe(201);
    expect(calls).toHaveLength(1);
    // the same file again is asked first and queues nothing
    expect((await post(formulaId)).status).toBe(409);
    expect(calls).toHaveLength(1);
    // a run that could not be queued does not undo the upload: the file waits for its formula
    const second = await post(formulaId, true);
    expect(second.status).toBe(201);
    expect(calls).toHaveLength(2);
    expect((await scope().uploads.forFormula(formulaId, { waiting: true })).map((u) => u.id)).toEqual([id, calls[1]!.uploadId]);
  });
});
