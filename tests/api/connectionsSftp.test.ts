/**
 * The Secure FTP connector against a real SFTP server started here (ssh2's server): password and
 * SSH key sign-in, host key pinning, the folder's .csv, .xlsx and .xls files as objects, their
 * headers as fields, pulls since a watermark or within a run-once window, and what becomes of the
 * files once their rows are stored (left, moved or deleted).
 */
import { forTenant } from '../../server/db/tenancy.ts';
import dns from 'node:dns';
import dnsPromises from 'node:dns/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sftpConnector } from '../../server/connectors/sftp/connector.ts';
import { ConnectionProblem, type ConnectorContext, type SourceRecord } from '../../server/connectors/connector.ts';
import { integrations, tenantSession, type TenantSession } from '../support/connections.ts';
import { csvText, workbook } from '../support/flatFiles.ts';
import { startSftpServer, type TestSftpServer } from '../support/sftpServer.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { freePort } from '../../server/db/embedded.ts';

let server: TestServer;
let sftp: TestSftpServer;
let admin: TenantSession;
let api: ReturnType<typeof integrations>;

const T0 = 1_767_225_600; // 2026-01-01, seconds

beforeAll(async () => {
  // the SFTP server runs on this machine: loopback is a private address, allowed only when the operator says so
  [server, sftp] = await Promise.all([startTestServer({ env: { CONNECTOR_ALLOW_PRIVATE_HOSTS: 'true' } }), startSftpServer()]);
  admin = await tenantSession(server.url, 'administrator@demo.tributary.test');
  api = integrations(server.url, admin.headers);
  sftp.files.set('/out/gifts-2026-01.csv', { data: Buffer.from(csvText(3)), mtime: T0 });
  sftp.files.set('/out/donors.xlsx', {
    data: workbook([['Donor', 'Email', 'Pledged'], ['Ana Lima', 'ana@example.org', 250], ['Bo Chen', 'bo@example.org', 75]], 'xlsx'),
    mtime: T0 + 60,
  });
  sftp.files.set('/out/legacy.xls', { data: workbook([['Name', 'Gift'], ['Old Friend', 10]], 'biff8'), mtime: T0 + 120 });
  sftp.files.set('/out/readme.txt', { data: Buffer.from('not a table'), mtime: T0 + 180 });
  sftp.folders.add('/empty');
  sftp.folders.add('/private');
  sftp.forbidden.add('/private');
});
afterAll(async () => {
  await server?.close();
  await sftp?.close();
});

const passwordSettings = (extra: Record<string, string> = {}) => ({
  host: sftp.host, port: String(sftp.port), username: sftp.user, authenticationType: 'password', password: sftp.password, folder: '/out', ...extra,
});
const keySettings = (extra: Record<string, string> = {}) => ({
  host: sftp.host, port: String(sftp.port), username: sftp.user, authenticationType: 'ssh-key', privateKey: sftp.clientPrivateKey, folder: '/out', ...extra,
});

async function createSource(displayName: string, settings: Record<string, string>) {
  const res = await api('/data-sources', { method: 'POST', body: { system: 'sftp', displayName, settings } });
  expect(res.status).toBe(201);
  return (await res.json() as { id: string }).id;
}

const testSettings = (settings: Record<string, string>) =>
  api('/data-sources/test', { method: 'POST', body: { system: 'sftp', settings } });

describe('Secure FTP connection test', () => {
  it('signs in with a password and counts the folder\'s CSV and Excel files', async () => {
    const id = await createSource('Partner SFTP (password)', passwordSettings());
    const res = await api(`/data-sources/${id}/test`, { method: 'POST' });
    expect(res.status).toBe(200);
    const body = await res.json() as { status: string; detail: string };
    expect(body.status).toBe('success');
    expect(body.detail).toContain('/out holds 3 .csv, .xlsx or .xls files');
    expect(body.detail).toContain(sftp.hostKeyFingerprint);
    expect(sftp.logins.at(-1)).toEqual({ method: 'password', ok: true });
  });

  it('signs in with an SSH key', async () => {
    const id = await createSource('Partner SFTP (key)', keySettings());
    const res = await api(`/data-sources/${id}/test`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(sftp.logins.at(-1)).toEqual({ method: 'publickey', ok: true });
    // the key is a secret: never shown again
    const view = await (await api(`/data-sources/${id}`)).text();
    expect(view).not.toContain('PRIVATE KEY');
    expect(JSON.parse(view).settings.privateKey).toEqual({ saved: true });
  });

  it('reports a refused password as Connection Failed', async () => {
    const res = await testSettings(passwordSettings({ password: 'wrong-password' }));
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({
      title: 'connection-failed', code: 'clientdatasource-connection-failed',
      detail: 'The SFTP server refused the user name and password.',
    });
  });

  it('reports a key the server does not know as Connection Failed', async () => {
    const res = await testSettings(keySettings({ privateKey: sftp.strangerPrivateKey }));
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ code: 'clientdatasource-connection-failed', detail: 'The SFTP server refused the user name and SSH key.' });
  });

  it('connects only to the pinned host key when a fingerprint is set', async () => {
    expect((await testSettings(passwordSettings({ hostKeyFingerprint: sftp.hostKeyFingerprint }))).status).toBe(200);
    const other = `SHA256:${'A'.repeat(43)}`;
    const res = await testSettings(passwordSettings({ hostKeyFingerprint: other }));
    expect(res.status).toBe(422);
    expect((await res.json() as { detail: string }).detail).toContain('does not match the fingerprint');
  });

  it('names a missing or unreadable folder, and a port nobody listens on', async () => {
    const missing = await testSettings(passwordSettings({ folder: '/nowhere' }));
    expect(await missing.json()).toMatchObject({ code: 'clientdatasource-connection-failed', detail: 'The folder /nowhere does not exist on the server.' });
    const forbidden = await testSettings(passwordSettings({ folder: '/private' }));
    expect(await forbidden.json()).toMatchObject({ detail: 'The user may not read the folder /private.' });
    const empty = await testSettings(passwordSettings({ folder: '/empty' }));
    expect((await empty.json() as { detail: string }).detail).toContain('holds 0');
    const closed = await testSettings(passwordSettings({ port: String(await freePort()) }));
    expect(closed.status).toBe(422);
    expect((await closed.json() as { detail: string }).detail).toMatch(/refused the connection/);
  });

  it('connects to the address it checked, whatever a second DNS answer says', async () => {
    // the check resolves the name to the SFTP server; a later lookup would lead to 127.0.0.2, where nothing listens
    const checked = vi.spyOn(dnsPromises, 'lookup').mockResolvedValue([{ address: sftp.host, family: 4 }] as never);
    const later = vi.spyOn(dns, 'lookup').mockImplementation(((_h: string, o: unknown, cb?: (...a: unknown[]) => void) => {
      const callback = (typeof o === 'function' ? o : cb) as (...a: unknown[]) => void;
      if (typeof o === 'object' && (o as { all?: boolean }).all) callback(null, [{ address: '127.0.0.2', family: 4 }]);
      else callback(null, '127.0.0.2', 4);
    }) as never);
    try {
      const ctx: ConnectorContext = { tenant: forTenant(server.database.db, admin.tenantId), settings: passwordSettings({ host: 'sftp.rebind.test' }), dataDir: server.config.dataDir, network: { allowPrivateHosts: true } };
      const outcome = await sftpConnector.test(ctx);
      expect(outcome.detail).toContain('Connected to sftp.rebind.test');
      expect(sftp.logins.at(-1)).toEqual({ method: 'password', ok: true });
    } finally {
      checked.mockRestore();
      later.mockRestore();
    }
  });

  it('tests an edit with the saved password when the form leaves it empty', async () => {
    const id = await createSource('Partner SFTP (edit)', passwordSettings());
    const res = await api('/data-sources/test', { method: 'POST', body: { system: 'sftp', dataSourceId: id, settings: { ...passwordSettings(), password: '' } } });
    expect(res.status).toBe(200);
  });
});

describe('Secure FTP objects, fields and pulls', () => {
  let id: string;
  let ctx: ConnectorContext;
  beforeAll(async () => {
    id = await createSource('Partner SFTP (objects)', passwordSettings());
    ctx = { tenant: forTenant(server.database.db, admin.tenantId), settings: passwordSettings(), dataDir: server.config.dataDir, network: { allowPrivateHosts: true } };
  });

  it('lists the folder\'s .csv, .xlsx and .xls files, newest first, and nothing else', async () => {
    const res = await api(`/data-sources/${id}/objects`);
    expect(res.status).toBe(200);
    const { objects } = await res.json() as { objects: { name: string }[] };
    expect(objects.map((o) => o.name)).toEqual(['*', 'legacy.xls', 'donors.xlsx', 'gifts-2026-01.csv']);
  });

  it('describes each file\'s headers as fields', async () => {
    const csv = await (await api(`/data-sources/${id}/objects/gifts-2026-01.csv/fields`)).json() as { fields: { name: string }[] };
    expect(csv.fields.map((f) => f.name)).toEqual(['First name', 'Last name', 'Email', 'Amount']);
    const xlsx = await (await api(`/data-sources/${id}/objects/donors.xlsx/fields`)).json() as { fields: { name: string }[] };
    expect(xlsx.fields.map((f) => f.name)).toEqual(['Donor', 'Email', 'Pledged']);
    const xls = await (await api(`/data-sources/${id}/objects/legacy.xls/fields`)).json() as { fields: { name: string }[] };
    expect(xls.fields.map((f) => f.name)).toEqual(['Name', 'Gift']);
    const none = await api(`/data-sources/${id}/objects/missing.csv/fields`);
    expect(none.status).toBe(400);
  });

  it('pulls every row of every file, oldest file first, then only what changed since the watermark', async () => {
    const all: SourceRecord[] = [];
    let watermark: string | null = null;
    for await (const batch of sftpConnector.pull(ctx, '*', null, { batchSize: 2 })) {
      all.push(...batch.records);
      watermark = batch.watermark;
    }
    expect(all.map((r) => r.id)).toEqual([
      'gifts-2026-01.csv#2', 'gifts-2026-01.csv#3', 'gifts-2026-01.csv#4', 'donors.xlsx#2', 'donors.xlsx#3', 'legacy.xls#2',
    ]);
    expect(all[0]!.fields).toEqual({ 'First name': 'Ann1', 'Last name': 'Smith1', Email: 'ann1@example.org', Amount: '1.50' });
    expect(all[3]!.fields).toEqual({ Donor: 'Ana Lima', Email: 'ana@example.org', Pledged: '250' });
    expect(all[5]!.fields).toEqual({ Name: 'Old Friend', Gift: '10' });

    const again: SourceRecord[] = [];
    for await (const batch of sftpConnector.pull(ctx, '*', watermark)) again.push(...batch.records);
    expect(again).toEqual([]);

    sftp.files.set('/out/gifts-2026-02.csv', { data: Buffer.from(csvText(2)), mtime: T0 + 3600 });
    const next: SourceRecord[] = [];
    for await (const batch of sftpConnector.pull(ctx, 'gifts-*.csv', watermark)) next.push(...batch.records);
    expect(next.map((r) => r.id)).toEqual(['gifts-2026-02.csv#2', 'gifts-2026-02.csv#3']);
  });

  it('keeps the object list until it is refreshed', async () => {
    sftp.files.set('/out/late.csv', { data: Buffer.from(csvText(1)), mtime: T0 + 7200 });
    const cached = await (await api(`/data-sources/${id}/objects`)).json() as { objects: { name: string }[]; refreshedOn: string };
    expect(cached.objects.map((o) => o.name)).not.toContain('late.csv');
    const refreshed = await (await api(`/data-sources/${id}/objects/refresh`, { method: 'POST' })).json() as { objects: { name: string }[]; refreshedOn: string };
    expect(refreshed.objects.map((o) => o.name)).toContain('late.csv');
    expect(Date.parse(refreshed.refreshedOn)).toBeGreaterThanOrEqual(Date.parse(cached.refreshedOn));
  });
});

describe('Secure FTP files once read: left, moved or deleted, and run once', () => {
  const DROP = '/drop';
  const ctx = (): ConnectorContext => ({
    tenant: forTenant(server.database.db, admin.tenantId), settings: passwordSettings({ folder: DROP }), dataDir: server.config.dataDir, network: { allowPrivateHosts: true },
  });
  const put = (name: string, rows: number, mtime: number) => sftp.files.set(`${DROP}/${name}`, { data: Buffer.from(csvText(rows)), mtime });
  const namesIn = (folder: string) => [...sftp.files.keys()].filter((p) => p.startsWith(`${folder}/`)).map((p) => p.slice(folder.length + 1)).sort();
  const clear = (...folders: string[]) => { for (const p of [...sftp.files.keys()]) if (folders.some((f) => p.startsWith(`${f}/`))) sftp.files.delete(p); };
  async function pullAll(object: string, since: string | null, options: Parameters<typeof sftpConnector.pull>[3] = {}) {
    const records: SourceRecord[] = [];
    const marks: (string | null)[] = [];
    for await (const b of sftpConnector.pull(ctx(), object, since, options)) { records.push(...b.records); marks.push(b.watermark); }
    return { records, marks, watermark: marks.at(-1) ?? since };
  }
  const move = { afterRead: 'move', processedFolder: '/processed' };

  beforeAll(() => {
    sftp.folders.add(DROP);
    sftp.folders.add('/processed');
    sftp.folders.add('/locked');
    sftp.readOnly.add('/locked');
  });

  it('moves the files read whole up to the watermark into the processed folder, a taken name getting a suffix', async () => {
    clear(DROP, '/processed');
    put('a.csv', 2, T0);
    put('b.csv', 3, T0 + 60);
    put('c.csv', 1, T0 + 120);
    sftp.files.set('/processed/b.csv', { data: Buffer.from('older'), mtime: T0 - 86_400 });

    // batches of 2: the watermark moves past a.csv with its last batch only
    const { records, marks, watermark } = await pullAll('*', null, { batchSize: 2 });
    expect(records).toHaveLength(6);
    const afterA = marks[0]!;
    expect(JSON.parse(afterA)).toEqual({ t: T0 * 1000, n: 'a.csv' });
    // b.csv's first batch: a position inside b.csv, which is not read whole yet
    expect(JSON.parse(marks[1]!)).toEqual({ t: (T0 + 60) * 1000, n: 'b.csv', line: 3 });

    await sftpConnector.acknowledge!(ctx(), '*', marks[1]!, { settings: move });
    expect(namesIn(DROP)).toEqual(['b.csv', 'c.csv']);
    expect(namesIn('/processed')).toEqual(['a.csv', 'b.csv']);

    put('d.csv', 1, T0 + 180); // arrives after the pull: not read, so not moved
    await sftpConnector.acknowledge!(ctx(), '*', watermark!, { settings: move });
    expect(namesIn(DROP)).toEqual(['d.csv']);
    expect(namesIn('/processed')).toEqual(['a.csv', 'b (1).csv', 'b.csv', 'c.csv']);
    expect(sftp.files.get('/processed/b.csv')!.data.toString()).toBe('older');
    expect(sftp.files.get('/processed/b (1).csv')!.data.toString()).toBe(csvText(3));
    // acknowledged again (a retry after a crash): nothing left to do, nothing fails
    await sftpConnector.acknowledge!(ctx(), '*', watermark!, { settings: move });
    expect(namesIn(DROP)).toEqual(['d.csv']);
  });

  it('moves only the files the formula reads (its object), and deletes when told to', async () => {
    clear(DROP, '/processed');
    put('gifts-1.csv', 1, T0);
    put('notes.csv', 1, T0 + 10);
    put('gifts-2.csv', 1, T0 + 20);
    const { watermark } = await pullAll('gifts-*.csv', null);
    await sftpConnector.acknowledge!(ctx(), 'gifts-*.csv', watermark!, { settings: { afterRead: 'delete' } });
    expect(namesIn(DROP)).toEqual(['notes.csv']);
    expect(namesIn('/processed')).toEqual([]);
  });

  it('leaves the files where they are by default, without connecting at all', async () => {
    clear(DROP);
    put('a.csv', 1, T0);
    const { watermark } = await pullAll('*', null);
    const logins = sftp.logins.length;
    await sftpConnector.acknowledge!(ctx(), '*', watermark!, { settings: { afterRead: 'leave' } });
    await sftpConnector.acknowledge!(ctx(), '*', watermark!, {});
    expect(sftp.logins.length).toBe(logins);
    expect(namesIn(DROP)).toEqual(['a.csv']);
  });

  it('keeps a file that changed after it was read, to be read again', async () => {
    clear(DROP);
    put('a.csv', 1, T0);
    const { watermark } = await pullAll('*', null);
    put('a.csv', 2, T0 + 300);
    await sftpConnector.acknowledge!(ctx(), '*', watermark!, { settings: { afterRead: 'delete' } });
    expect(namesIn(DROP)).toEqual(['a.csv']);
    expect((await pullAll('*', watermark)).records).toHaveLength(2);
  });

  it('reports what stops a move as a connection problem that says what to do', async () => {
    clear(DROP);
    put('a.csv', 1, T0);
    put('b.csv', 1, T0 + 1);
    const { watermark } = await pullAll('*', null);
    const problem = (settings: Record<string, string>) => sftpConnector.acknowledge!(ctx(), '*', watermark!, { settings }).then(() => null, (e: unknown) => e);

    const missing = await problem({ afterRead: 'move', processedFolder: '/archive' });
    expect(missing).toBeInstanceOf(ConnectionProblem);
    expect(missing).toMatchObject({ code: 'clientdatasource-connection-failed', transient: false, message: 'The folder /archive does not exist on the server: create it, or choose another folder for processed files.' });
    expect(await problem({ afterRead: 'move', processedFolder: '/locked' })).toMatchObject({
      message: 'The user may not move a.csv into /locked (SFTP status 3). 1 other file could not be moved either.',
    });
    expect(await problem({ afterRead: 'move', processedFolder: '/drop/' })).toMatchObject({ message: expect.stringContaining('that is the folder being read') });
    expect(await problem({ afterRead: 'move', processedFolder: '/drop/a.csv' })).toMatchObject({ message: '/drop/a.csv on the server is a file, not a folder.' });
    expect(await problem({ afterRead: 'move' })).toMatchObject({ message: expect.stringContaining('Choose the folder') });
    expect(namesIn(DROP)).toEqual(['a.csv', 'b.csv']);

    // a folder the user may read but not change
    sftp.readOnly.add(DROP);
    try {
      expect(await problem({ afterRead: 'delete' })).toMatchObject({ message: 'The user may not delete a.csv from /drop (SFTP status 3). 1 other file could not be deleted either.' });
    } finally {
      sftp.readOnly.delete(DROP);
    }
  });

  it('run once reads only the files modified within the window, whatever the watermark, and acknowledges only those', async () => {
    clear(DROP, '/processed');
    put('jan.csv', 1, T0);
    put('feb.csv', 2, T0 + 31 * 86_400);
    put('mar.csv', 1, T0 + 59 * 86_400);
    const window = { from: new Date((T0 + 30 * 86_400) * 1000), to: new Date((T0 + 40 * 86_400) * 1000) };
    // a watermark past every file does not hide February from a run once
    const { watermark: end } = await pullAll('*', null);
    const once = await pullAll('*', end, { window });
    expect(once.records.map((r) => r.id)).toEqual(['feb.csv#2', 'feb.csv#3']);
    await sftpConnector.acknowledge!(ctx(), '*', once.watermark!, { settings: move, window });
    expect(namesIn(DROP)).toEqual(['jan.csv', 'mar.csv']);
    expect(namesIn('/processed')).toEqual(['feb.csv']);
  });
});
