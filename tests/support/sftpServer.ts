/**
 * A real SFTP server for the Secure FTP connector's tests, built with ssh2's server: password
 * and public key authentication, and a small file system held in memory whose files can be read,
 * renamed and removed (nothing written), with folders the user may not read or may not change.
 */
import { timingSafeEqual } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import ssh2, { type AuthContext, type Connection, type SFTPWrapper } from 'ssh2';

const { Server, utils } = ssh2;
const STATUS = { OK: 0, EOF: 1, NO_SUCH_FILE: 2, PERMISSION_DENIED: 3, FAILURE: 4, OP_UNSUPPORTED: 8 };
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

export interface SftpFile { data: Buffer; mtime: number }

export interface TestSftpServer {
  host: string;
  port: number;
  hostKeyFingerprint: string;
  user: string;
  password: string;
  /** the client's private key (OpenSSH), whose public key the server accepts */
  clientPrivateKey: string;
  /** another private key, which the server does not accept */
  strangerPrivateKey: string;
  /** path -> file; folders are implied by paths, plus these */
  files: Map<string, SftpFile>;
  folders: Set<string>;
  /** folders the user may not read */
  forbidden: Set<string>;
  /** folders the user may read but not change (rename into or out of, remove from) */
  readOnly: Set<string>;
  logins: { method: string; ok: boolean }[];
  close(): Promise<void>;
}

const same = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/**
 * An ed25519 key pair that ssh2 can read back: about 3 in 1,000 of the private keys its
 * generateKeyPairSync makes are refused by its own parser ("Malformed OpenSSH private key").
 */
function keyPair(): ReturnType<typeof utils.generateKeyPairSync> {
  for (;;) {
    const pair = utils.generateKeyPairSync('ed25519');
    if (!(utils.parseKey(pair.private) instanceof Error) && !(utils.parseKey(pair.public) instanceof Error)) return pair;
  }
}

export async function startSftpServer(opts: { user?: string; password?: string } = {}): Promise<TestSftpServer> {
  const user = opts.user ?? 'tributary';
  const password = opts.password ?? 'river-Pass-2026';
  const hostKey = keyPair();
  const client = keyPair();
  const stranger = keyPair();
  const allowed = utils.parseKey(client.public);
  if (allowed instanceof Error) throw allowed;
  const allowedKey = Array.isArray(allowed) ? allowed[0]! : allowed;

  const files = new Map<string, SftpFile>();
  const folders = new Set<string>(['/']);
  const forbidden = new Set<string>();
  const readOnly = new Set<string>();
  const logins: TestSftpServer['logins'] = [];

  const isFolder = (p: string) => folders.has(p) || [...files.keys()].some((f) => f.startsWith(p === '/' ? '/' : `${p}/`));
  const attrsOf = (p: string) => {
    const f = files.get(p);
    if (f) return { mode: S_IFREG | 0o644, uid: 1000, gid: 1000, size: f.data.length, atime: f.mtime, mtime: f.mtime };
    if (isFolder(p)) return { mode: S_IFDIR | 0o755, uid: 1000, gid: 1000, size: 4096, atime: 0, mtime: 0 };
    return null;
  };
  const childrenOf = (dir: string) => {
    const names = new Set<string>();
    const prefix = dir === '/' ? '/' : `${dir}/`;
    for (const p of [...files.keys(), ...folders]) {
      if (p !== dir && p.startsWith(prefix)) names.add(p.slice(prefix.length).split('/')[0]!);
    }
    return [...names].sort();
  };

  function serveSftp(sftp: SFTPWrapper) {
    const handles = new Map<number, { kind: 'file'; path: string } | { kind: 'dir'; path: string; done: boolean }>();
    let next = 0;
    const newHandle = (h: { kind: 'file'; path: string } | { kind: 'dir'; path: string; done: boolean }) => {
      const id = next++;
      handles.set(id, h);
      const buf = Buffer.alloc(4);
      buf.writeUInt32BE(id);
      return buf;
    };
    const get = (buf: Buffer) => (buf.length === 4 ? handles.get(buf.readUInt32BE(0)) : undefined);
    const norm = (p: string) => path.posix.normalize(p.startsWith('/') ? p : `/${p}`).replace(/(.)\/$/, '$1');

    sftp.on('REALPATH', (reqId, p) => {
      const abs = norm(p === '.' || p === '' ? '/' : p);
      sftp.name(reqId, [{ filename: abs, longname: abs, attrs: attrsOf(abs) ?? {} as never }]);
    });
    const stat = (reqId: number, p: string) => {
      const a = attrsOf(norm(p));
      if (!a) return sftp.status(reqId, STATUS.NO_SUCH_FILE);
      sftp.attrs(reqId, a);
    };
    sftp.on('STAT', stat);
    sftp.on('LSTAT', stat);
    sftp.on('OPENDIR', (reqId, p) => {
      const dir = norm(p);
      if (forbidden.has(dir)) return sftp.status(reqId, STATUS.PERMISSION_DENIED);
      if (!isFolder(dir) || files.has(dir)) return sftp.status(reqId, STATUS.NO_SUCH_FILE);
      sftp.handle(reqId, newHandle({ kind: 'dir', path: dir, done: false }));
    });
    sftp.on('READDIR', (reqId, handle) => {
      const h = get(handle);
      if (!h || h.kind !== 'dir') return sftp.status(reqId, STATUS.FAILURE);
      if (h.done) return sftp.status(reqId, STATUS.EOF);
      h.done = true;
      sftp.name(reqId, childrenOf(h.path).map((name) => {
        const full = h.path === '/' ? `/${name}` : `${h.path}/${name}`;
        return { filename: name, longname: name, attrs: attrsOf(full)! };
      }));
    });
    sftp.on('OPEN', (reqId, p, flags) => {
      const file = norm(p);
      if (flags !== 1 /* READ only */) return sftp.status(reqId, STATUS.PERMISSION_DENIED);
      if (!files.has(file)) return sftp.status(reqId, STATUS.NO_SUCH_FILE);
      sftp.handle(reqId, newHandle({ kind: 'file', path: file }));
    });
    sftp.on('FSTAT', (reqId, handle) => {
      const h = get(handle);
      const a = h && attrsOf(h.path);
      if (!a) return sftp.status(reqId, STATUS.FAILURE);
      sftp.attrs(reqId, a);
    });
    sftp.on('READ', (reqId, handle, offset, length) => {
      const h = get(handle);
      const f = h?.kind === 'file' ? files.get(h.path) : undefined;
      if (!f) return sftp.status(reqId, STATUS.FAILURE);
      if (offset >= f.data.length) return sftp.status(reqId, STATUS.EOF);
      sftp.data(reqId, f.data.subarray(offset, Math.min(f.data.length, offset + length)));
    });
    sftp.on('CLOSE', (reqId, handle) => {
      const ok = handle.length === 4 && handles.delete(handle.readUInt32BE(0));
      sftp.status(reqId, ok ? STATUS.OK : STATUS.FAILURE);
    });
    const writable = (p: string) => !readOnly.has(path.posix.dirname(p)) && !forbidden.has(path.posix.dirname(p));
    sftp.on('REMOVE', (reqId, p) => {
      const file = norm(p);
      if (!files.has(file)) return sftp.status(reqId, STATUS.NO_SUCH_FILE);
      if (!writable(file)) return sftp.status(reqId, STATUS.PERMISSION_DENIED);
      files.delete(file);
      sftp.status(reqId, STATUS.OK);
    });
    // as OpenSSH's server does for SFTP v3: a rename never replaces an existing file
    sftp.on('RENAME', (reqId, oldPath, newPath) => {
      const from = norm(oldPath), to = norm(newPath);
      const f = files.get(from);
      if (!f || !isFolder(path.posix.dirname(to))) return sftp.status(reqId, STATUS.NO_SUCH_FILE);
      if (!writable(from) || !writable(to)) return sftp.status(reqId, STATUS.PERMISSION_DENIED);
      if (attrsOf(to)) return sftp.status(reqId, STATUS.FAILURE);
      files.delete(from);
      files.set(to, f);
      sftp.status(reqId, STATUS.OK);
    });
    for (const op of ['WRITE', 'MKDIR', 'RMDIR', 'SETSTAT', 'FSETSTAT', 'SYMLINK', 'READLINK'] as const) {
      sftp.on(op as never, (reqId: number) => sftp.status(reqId, STATUS.OP_UNSUPPORTED));
    }
  }

  const server = new Server({ hostKeys: [hostKey.private] }, (conn: Connection) => {
    // as an SSH server does (OpenSSH sets TCP_NODELAY): small packets go out at once (ssh2 has it, its types do not)
    (conn as Connection & { setNoDelay(noDelay: boolean): void }).setNoDelay(true);
    conn.on('authentication', (ctx: AuthContext) => {
      if (ctx.username !== user) { logins.push({ method: ctx.method, ok: false }); return ctx.reject(); }
      if (ctx.method === 'password') {
        const ok = same(Buffer.from(ctx.password), Buffer.from(password));
        logins.push({ method: 'password', ok });
        return ok ? ctx.accept() : ctx.reject();
      }
      if (ctx.method === 'publickey') {
        if (ctx.key.algo !== allowedKey.type || !same(ctx.key.data, allowedKey.getPublicSSH())) {
          logins.push({ method: 'publickey', ok: false });
          return ctx.reject();
        }
        if (!ctx.signature) return ctx.accept(); // the client asks whether this key would do
        const ok = allowedKey.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) === true;
        logins.push({ method: 'publickey', ok });
        return ok ? ctx.accept() : ctx.reject();
      }
      ctx.reject(['password', 'publickey']);
    });
    conn.on('ready', () => {
      conn.on('session', (accept) => {
        const session = accept();
        session.on('sftp', (acceptSftp) => serveSftp(acceptSftp()));
      });
    });
    conn.on('error', () => { /* the client went away */ });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const parsedHost = utils.parseKey(hostKey.public);
  const hostPublic = (Array.isArray(parsedHost) ? parsedHost[0]! : parsedHost as Exclude<typeof parsedHost, Error>).getPublicSSH();
  const { sshFingerprint } = await import('../../server/connectors/sftp/connector.ts');
  return {
    host: '127.0.0.1', port, user, password,
    hostKeyFingerprint: sshFingerprint(hostPublic),
    clientPrivateKey: client.private,
    strangerPrivateKey: stranger.private,
    files, folders, forbidden, readOnly, logins,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
