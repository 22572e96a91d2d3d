/**
 * Secure FTP (SPEC.md section 5: .csv, .xlsx and .xls): ssh2 with a password or an SSH key, the
 * host key optionally pinned by its SHA256 fingerprint. Objects are the folder's files. The host
 * is resolved and checked once (network.ts) and ssh2 connects to that address. Messages name
 * what failed by code, never with the server's own words. Once a formula's rows are stored, the
 * files read are left, moved to another folder on the server, or deleted, as its settings say.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Client, type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { ConnectionProblem, refused, NotSupported, transientProblem, type Connector, type ConnectorContext } from '../connector.ts';
import {
  collectedFiles, folderFields, folderObjects, parseFileWatermark, pullFolder, tabularFiles, type Folder, type FolderFile,
} from '../fileSources/folderSource.ts';
import { PUBLIC_ONLY, resolveHost } from '../network.ts';

export const SFTP_TIMEOUT_MS = 10_000;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

/** OpenSSH's form of a host key fingerprint: SHA256: and unpadded base64. */
export function sshFingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=$/, '')}`;
}

/** What becomes of a file once its rows are stored (the formula's afterRead setting). */
export type AfterRead = 'leave' | 'move' | 'delete';

/** The folder's files, and what a formula may do with them once read. */
interface SftpFolder extends Folder {
  /** moves the file into `target` on the same server, under a free name; answers that name */
  move(name: string, target: string): Promise<string>;
  remove(name: string): Promise<void>;
  /** refuses a folder that is missing or not a folder */
  checkFolder(target: string): Promise<void>;
}

interface Session { folder: SftpFolder; fingerprint: string; close(): void }

const sftpCode = (err: unknown) => (err as { code?: number }).code;
/** An SFTP status code for a message (a number from the protocol; the text beside it is the server's). */
const statusOf = (err: unknown) => {
  const code = sftpCode(err);
  return typeof code === 'number' ? ` (SFTP status ${code})` : '';
};

async function open(ctx: ConnectorContext): Promise<Session> {
  const settings = ctx.settings;
  const checked = await resolveHost(settings.host!, ctx.network ?? PUBLIC_ONLY);
  // the fingerprint's one padding character is optional (src/domain/connectors/files.ts)
  const pinned = settings.hostKeyFingerprint?.replace(/=$/, '');
  let seenFingerprint = '';
  let hostKeyRefused = false;
  const byKey = settings.authenticationType === 'ssh-key';
  const config: ConnectConfig = {
    // the address that was checked, so a second DNS answer cannot lead elsewhere
    host: checked.address,
    port: Number(settings.port || 22),
    username: settings.username,
    readyTimeout: SFTP_TIMEOUT_MS,
    hostVerifier: (key: Buffer) => {
      seenFingerprint = sshFingerprint(key);
      if (pinned && pinned !== seenFingerprint) { hostKeyRefused = true; return false; }
      return true;
    },
    ...(byKey
      ? { privateKey: settings.privateKey, ...(settings.passphrase ? { passphrase: settings.passphrase } : {}) }
      : { password: settings.password, tryKeyboard: false }),
  };
  return new Promise((resolve, reject) => {
    const client = new Client();
    let settled = false;
    const fail = (err: Error) => { if (!settled) { settled = true; client.end(); reject(err); } };
    client.on('error', (err: Error & { level?: string; code?: string }) => {
      if (hostKeyRefused) return fail(refused(`The server's host key (${seenFingerprint}) does not match the fingerprint in the settings.`));
      if (err.level === 'client-authentication') return fail(refused(`The SFTP server refused the user name and ${byKey ? 'SSH key' : 'password'}.`));
      if (err.level === 'client-timeout') return fail(transientProblem(refused(`The SFTP server did not answer within ${SFTP_TIMEOUT_MS / 1000} seconds.`)));
      if (err.code === 'ECONNREFUSED') return fail(transientProblem(refused(`${settings.host} refused the connection on port ${config.port}.`)));
      if (err.code === 'ECONNRESET' || err.code === 'ETIMEDOUT') return fail(transientProblem(refused(`The SFTP connection to ${settings.host} dropped.`)));
      if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return fail(refused(`The host ${settings.host} could not be found.`));
      return fail(refused(`The SFTP connection to ${settings.host} failed${typeof err.code === 'string' && /^[A-Z0-9_]{2,40}$/.test(err.code) ? ` (${err.code})` : ''}.`));
    });
    client.on('ready', () => {
      client.sftp((err, sftp) => {
        if (err) return fail(refused('The server does not offer SFTP.'));
        settled = true;
        resolve({ folder: sftpFolder(sftp, settings.folder || '/'), fingerprint: seenFingerprint, close: () => client.end() });
      });
    });
    try {
      client.connect(config);
      // SFTP is request and answer in small packets: with Nagle's algorithm each answer waits for the
      // peer's delayed ACK (40 ms on Linux), a quarter of a second for a connection and its folder
      client.setNoDelay(true);
    } catch (err) {
      // ssh2 parses the key synchronously
      const msg = (err as Error).message;
      fail(refused(/passphrase|decrypt|encrypted/i.test(msg) ? 'The SSH key is encrypted: enter its passphrase, or check it.' : `The SSH key could not be read: ${msg}.`));
    }
  });
}

const statOf = (sftp: SFTPWrapper, file: string) => new Promise<{ isDirectory(): boolean } | { missing: true; err: unknown }>((resolve) => {
  sftp.stat(file, (err, stats) => resolve(err ? { missing: true, err } : stats));
});
const isMissing = (s: Awaited<ReturnType<typeof statOf>>): s is { missing: true; err: unknown } => 'missing' in s;

/** "gifts.csv" -> "gifts (1).csv", "gifts (2).csv" ... */
export function suffixed(name: string, n: number): string {
  const ext = path.posix.extname(name);
  return `${name.slice(0, name.length - ext.length)} (${n})${ext}`;
}
const MAX_SUFFIX = 100;
/** "/out/" and "/out" name one folder */
const folderPath = (p: string) => (p ? path.posix.normalize(p).replace(/(.)\/$/, '$1') : '');

function sftpFolder(sftp: SFTPWrapper, folder: string): SftpFolder {
  const full = (name: string) => {
    if (name.includes('/') || name === '..' || name === '.') throw refused(`${name} is not a file name.`);
    return path.posix.join(folder, name);
  };
  const rename = (from: string, to: string) => new Promise<unknown>((resolve) => { sftp.rename(from, to, (err) => resolve(err ?? null)); });
  return {
    async checkFolder(target) {
      const stats = await statOf(sftp, target);
      if (isMissing(stats)) {
        if (sftpCode(stats.err) === 2) throw refused(`The folder ${target} does not exist on the server: create it, or choose another folder for processed files.`);
        throw refused(`The folder ${target} could not be read${statusOf(stats.err)}.`);
      }
      if (!stats.isDirectory()) throw refused(`${target} on the server is a file, not a folder.`);
    },
    async move(name, target) {
      const from = full(name);
      // plain SFTP rename never replaces a file; a name already taken gets a suffix
      for (let n = 0; n <= MAX_SUFFIX; n++) {
        const candidate = n === 0 ? name : suffixed(name, n);
        const to = path.posix.join(target, candidate);
        const there = await statOf(sftp, to);
        if (!isMissing(there)) continue;
        const err = await rename(from, to);
        if (!err) return candidate;
        const code = sftpCode(err);
        if (code === 2 && isMissing(await statOf(sftp, from))) return candidate; // moved or removed by someone else meanwhile
        if (code === 4 && !isMissing(await statOf(sftp, to))) continue; // taken between the check and the rename
        if (code === 3) throw refused(`The user may not move ${name} into ${target}${statusOf(err)}.`);
        if (code === 8) throw refused(`The SFTP server does not let files be moved${statusOf(err)}; choose to leave files in the folder.`);
        throw refused(`${name} could not be moved to ${target}${statusOf(err)}.`);
      }
      throw refused(`${name} could not be moved to ${target}: ${MAX_SUFFIX} files of that name are there already.`);
    },
    remove: (name) => new Promise<void>((resolve, reject) => {
      sftp.unlink(full(name), (err) => {
        if (!err || sftpCode(err) === 2) return resolve();
        if (sftpCode(err) === 3) return reject(refused(`The user may not delete ${name} from ${folder}${statusOf(err)}.`));
        if (sftpCode(err) === 8) return reject(refused(`The SFTP server does not let files be deleted${statusOf(err)}; choose to leave files in the folder.`));
        reject(refused(`${name} could not be deleted from ${folder}${statusOf(err)}.`));
      });
    }),
    list: () => new Promise<FolderFile[]>((resolve, reject) => {
      sftp.readdir(folder, (err, entries) => {
        if (err) {
          const code = sftpCode(err);
          if (code === 2) return reject(refused(`The folder ${folder} does not exist on the server.`));
          if (code === 3) return reject(refused(`The user may not read the folder ${folder}.`));
          return reject(refused(`The folder ${folder} could not be read${statusOf(err)}.`));
        }
        resolve(entries
          .filter((e) => ((e.attrs.mode ?? 0) & S_IFMT) === S_IFREG)
          .map((e) => ({ name: e.filename, size: e.attrs.size ?? 0, modifiedMs: (e.attrs.mtime ?? 0) * 1000 })));
      });
    }),
    read: (name, maxBytes) => new Promise<Buffer>((resolve, reject) => {
      const file = full(name);
      const tooLarge = () => refused(`${name} is larger than ${Math.round(maxBytes / 1024 / 1024)}MB.`);
      sftp.stat(file, (err, stats) => {
        if (err) return reject(refused(`${name} could not be read${statusOf(err)}.`));
        if (stats.size > maxBytes) return reject(tooLarge());
        // streamed and counted: a file that grows after stat still stops at the limit
        const chunks: Buffer[] = [];
        let total = 0;
        const stream = sftp.createReadStream(file);
        stream.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > maxBytes) { stream.destroy(); reject(tooLarge()); return; }
          chunks.push(chunk);
        });
        stream.on('error', (err2: unknown) => reject(refused(`${name} could not be read${statusOf(err2)}.`)));
        stream.on('end', () => resolve(Buffer.concat(chunks)));
      });
    }),
  };
}

async function withFolder<T>(ctx: ConnectorContext, fn: (folder: SftpFolder, session: Session) => Promise<T>): Promise<T> {
  const session = await open(ctx);
  try {
    return await fn(session.folder, session);
  } finally {
    session.close();
  }
}

export const sftpConnector: Connector = {
  system: 'sftp',
  test: (ctx) => withFolder(ctx, async (folder, session) => {
    const files = await tabularFiles(folder);
    return {
      detail: `Connected to ${ctx.settings.host} as ${ctx.settings.username} (host key ${session.fingerprint}); ${ctx.settings.folder || '/'} holds ${files.length} .csv, .xlsx or .xls file${files.length === 1 ? '' : 's'}.`,
    };
  }),
  listObjects: (ctx) => withFolder(ctx, (folder) => folderObjects(folder)),
  describeFields: (ctx, object) => withFolder(ctx, (folder) => folderFields(folder, object)),
  async *pull(ctx, object, since, options) {
    const session = await open(ctx);
    try {
      yield* pullFolder(session.folder, object, since, options);
    } finally {
      session.close();
    }
  },
  /** Moves or deletes the files read whole up to the watermark; files left behind are safe to act on again. */
  async acknowledge(ctx, object, watermark, options) {
    const settings = options?.settings ?? {};
    const afterRead = (settings.afterRead || 'leave') as AfterRead;
    if (afterRead === 'leave') return;
    if (afterRead !== 'move' && afterRead !== 'delete') throw refused(`"${afterRead}" is not something Tributary does with a file once read.`);
    const mark = parseFileWatermark(watermark);
    if (!mark) return;
    const source = folderPath(ctx.settings.folder || '/');
    const target = afterRead === 'move' ? folderPath(settings.processedFolder ?? '') : '';
    if (afterRead === 'move') {
      if (!target.startsWith('/')) throw refused('Choose the folder processed files are moved to (an absolute path such as /processed).');
      if (target === source) throw refused(`Processed files cannot be moved to ${target}: that is the folder being read. Choose another folder.`);
    }
    await withFolder(ctx, async (folder) => {
      const files = await collectedFiles(folder, object, mark, options?.window);
      if (files.length === 0) return;
      if (afterRead === 'move') await folder.checkFolder(target);
      const failed: ConnectionProblem[] = [];
      for (const file of files) {
        try {
          if (afterRead === 'move') await folder.move(file.name, target);
          else await folder.remove(file.name);
        } catch (err) {
          if (!(err instanceof ConnectionProblem)) throw err;
          failed.push(err);
        }
      }
      if (failed.length === 0) return;
      const first = failed[0]!;
      const others = failed.length - 1;
      // every file is tried, so one file the server will not let go of does not hold back the rest
      throw others === 0 ? first : refused(`${first.message} ${others} other file${others === 1 ? '' : 's'} could not be ${afterRead === 'move' ? 'moved' : 'deleted'} either.`);
    });
  },
  async search() { throw new NotSupported('Secure FTP', 'search'); },
  async upsert() { throw new NotSupported('Secure FTP', 'writing records'); },
};
