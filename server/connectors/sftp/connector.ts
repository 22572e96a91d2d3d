/**
 * Secure FTP (SPEC.md section 5: .csv, .xlsx and .xls): ssh2 with a password or an SSH key, the
 * host key optionally pinned by its SHA256 fingerprint. Objects are the folder's files. The host
 * is resolved and checked once (network.ts) and ssh2 connects to that address. Messages name
 * what failed by code, never with the server's own words.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Client, type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { refused, NotSupported, type Connector, type ConnectorContext } from '../connector.ts';
import { folderFields, folderObjects, pullFolder, tabularFiles, type Folder, type FolderFile } from '../fileSources/folderSource.ts';
import { PUBLIC_ONLY, resolveHost } from '../network.ts';

export const SFTP_TIMEOUT_MS = 10_000;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

/** OpenSSH's form of a host key fingerprint: SHA256: and unpadded base64. */
export function sshFingerprint(key: Buffer): string {
  return `SHA256:${createHash('sha256').update(key).digest('base64').replace(/=+$/, '')}`;
}

interface Session { folder: Folder; fingerprint: string; close(): void }

const sftpCode = (err: unknown) => (err as { code?: number }).code;
/** An SFTP status code for a message (a number from the protocol; the text beside it is the server's). */
const statusOf = (err: unknown) => {
  const code = sftpCode(err);
  return typeof code === 'number' ? ` (SFTP status ${code})` : '';
};

async function open(ctx: ConnectorContext): Promise<Session> {
  const settings = ctx.settings;
  const checked = await resolveHost(settings.host!, ctx.network ?? PUBLIC_ONLY);
  const pinned = settings.hostKeyFingerprint?.replace(/=+$/, '');
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
      if (err.level === 'client-timeout') return fail(refused(`The SFTP server did not answer within ${SFTP_TIMEOUT_MS / 1000} seconds.`));
      if (err.code === 'ECONNREFUSED') return fail(refused(`${settings.host} refused the connection on port ${config.port}.`));
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
    } catch (err) {
      // ssh2 parses the key synchronously
      const msg = (err as Error).message;
      fail(refused(/passphrase|decrypt|encrypted/i.test(msg) ? 'The SSH key is encrypted: enter its passphrase, or check it.' : `The SSH key could not be read: ${msg}.`));
    }
  });
}

function sftpFolder(sftp: SFTPWrapper, folder: string): Folder {
  const full = (name: string) => {
    if (name.includes('/') || name === '..' || name === '.') throw refused(`${name} is not a file name.`);
    return path.posix.join(folder, name);
  };
  return {
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

async function withFolder<T>(ctx: ConnectorContext, fn: (folder: Folder, session: Session) => Promise<T>): Promise<T> {
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
      yield* pullFolder(session.folder, object, since, options?.batchSize);
    } finally {
      session.close();
    }
  },
  async search() { throw new NotSupported('Secure FTP', 'search'); },
  async upsert() { throw new NotSupported('Secure FTP', 'writing records'); },
};
