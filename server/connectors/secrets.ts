/**
 * Connector credentials at rest (DESIGN.md section 6): AES-256-GCM with a 32-byte key from
 * SECRET_KEY (base64), or, by default, one generated once into `<DATA_DIR>/secret.key` with mode
 * 0600. Each sealed value records the version of the key that sealed it (the key's fingerprint),
 * so a changed key is reported as such instead of as corrupt data.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface Sealed {
  ciphertext: Buffer;
  iv: Buffer;
  tag: Buffer;
  keyVersion: string;
}

export interface SecretBox {
  /** the version recorded with each sealed value */
  keyVersion: string;
  seal(secrets: Record<string, string>, associatedData: string): Sealed;
  open(sealed: Sealed, associatedData: string): Record<string, string>;
  /**
   * An HMAC-SHA256 of `data` under a key derived from the secret key for one `purpose` only (a
   * signed OAuth state, a PKCE verifier), so the one key serves each use without mixing them.
   */
  mac(purpose: string, data: string): Buffer;
}

export class SecretKeyError extends Error {
  override readonly name = 'SecretKeyError';
}

const KEY_BYTES = 32;
const IV_BYTES = 12;

/** A short, stable name for a key that reveals nothing usable about it. */
export function keyFingerprint(key: Buffer): string {
  return `k1:${createHash('sha256').update('tributary-secret-key-version').update(key).digest('hex').slice(0, 16)}`;
}

function decodeKey(text: string, where: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new SecretKeyError(`${where} must be the base64 of exactly 32 bytes (got ${key.length} bytes).`);
  return key;
}

/**
 * The key: SECRET_KEY when given; otherwise the key file, created on first use. Two processes
 * starting together agree on one key: the file is created exclusively and the loser reads it.
 */
export function loadSecretKey(opts: { secretKey?: string | undefined; dataDir: string }): Buffer {
  if (opts.secretKey) return decodeKey(opts.secretKey, 'SECRET_KEY');
  const file = path.join(opts.dataDir, 'secret.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const mode = fs.statSync(file).mode & 0o777;
  if (mode & 0o077) fs.chmodSync(file, 0o600);
  return decodeKey(fs.readFileSync(file, 'utf8'), file);
}

/**
 * The key only if one exists: SECRET_KEY, or the key file; null when there is neither. Never
 * creates one, for processes (npm run worker) that must open what another process sealed: a key of
 * their own would make every saved credential unreadable to them.
 */
export function loadExistingSecretKey(opts: { secretKey?: string | undefined; dataDir: string }): Buffer | null {
  if (opts.secretKey) return decodeKey(opts.secretKey, 'SECRET_KEY');
  const file = path.join(opts.dataDir, 'secret.key');
  if (!fs.existsSync(file)) return null;
  return decodeKey(fs.readFileSync(file, 'utf8'), file);
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) throw new SecretKeyError('The secret key must be 32 bytes.');
  const keyVersion = keyFingerprint(key);
  const macKeys = new Map<string, Buffer>();
  const macKey = (purpose: string) => {
    let k = macKeys.get(purpose);
    if (!k) macKeys.set(purpose, k = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `tributary-mac:${purpose}`, 32)));
    return k;
  };
  return {
    keyVersion,
    mac: (purpose, data) => createHmac('sha256', macKey(purpose)).update(data, 'utf8').digest(),
    seal(secrets, associatedData) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      // the row's identity is authenticated with it: a ciphertext copied to another row does not open
      cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(JSON.stringify(secrets), 'utf8'), cipher.final()]);
      return { ciphertext, iv, tag: cipher.getAuthTag(), keyVersion };
    },
    open(sealed, associatedData) {
      if (sealed.keyVersion !== keyVersion) {
        throw new SecretKeyError('These credentials were saved with another secret key. Restore that SECRET_KEY, or enter the credentials again.');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
      decipher.setAAD(Buffer.from(associatedData, 'utf8'));
      decipher.setAuthTag(sealed.tag);
      try {
        const text = Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
        return JSON.parse(text) as Record<string, string>;
      } catch {
        throw new SecretKeyError('The saved credentials could not be decrypted: they were altered or belong to another record.');
      }
    },
  };
}
