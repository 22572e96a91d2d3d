/**
 * The flat file service through its API, with a real clamd (tests/support/clamav.ts) scanning
 * every upload: each outcome of SPEC.md section 4 as a problem with its own title and SPEC's
 * message, the 15MB limit to the byte, tenant scoping, and uploads when no scanner is configured.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { clamavScanner } from '../../server/connectors/flatFile/clamav.ts';
import { MESSAGES, PROBLEM_TITLES } from '../../src/domain/errors.ts';
import { MAX_UPLOAD_BYTES, SAMPLE_ROWS, outcomeForProblem, type UploadSummary } from '../../src/domain/upload.ts';
import { call, sessionFor, type Session } from '../support/api.ts';
import { csvOfSize, csvText, eicar, PNG, workbook } from '../support/flatFiles.ts';
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
