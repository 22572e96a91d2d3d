/** AES-256-GCM for connector credentials (DESIGN.md section 6): the key, sealing, and what refuses to open. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createSecretBox, keyFingerprint, loadSecretKey, SecretKeyError } from '../../server/connectors/secrets.ts';

const dirs: string[] = [];
const tempDir = () => { const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-key-')); dirs.push(d); return d; };
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

describe('the secret key', () => {
  it('is generated once into DATA_DIR/secret.key with mode 0600, and read back on the next start', () => {
    const dir = tempDir();
    const first = loadSecretKey({ dataDir: dir });
    expect(first).toHaveLength(32);
    const stat = fs.statSync(path.join(dir, 'secret.key'));
    expect(stat.mode & 0o777).toBe(0o600);
    expect(loadSecretKey({ dataDir: dir }).equals(first)).toBe(true);
  });

  it('comes from SECRET_KEY when set, which must be 32 bytes of base64', () => {
    const key = randomBytes(32);
    expect(loadSecretKey({ secretKey: key.toString('base64'), dataDir: tempDir() }).equals(key)).toBe(true);
    expect(() => loadSecretKey({ secretKey: randomBytes(16).toString('base64'), dataDir: tempDir() })).toThrow(/exactly 32 bytes/);
  });

  it('tightens a key file others could read', () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'secret.key'), randomBytes(32).toString('base64'), { mode: 0o644 });
    loadSecretKey({ dataDir: dir });
    expect(fs.statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
  });
});

describe('sealing', () => {
  const box = createSecretBox(randomBytes(32));

  it('round-trips, with a fresh IV each time and nothing readable in the ciphertext', () => {
    const secrets = { password: 'correct horse battery staple', apiKey: 'sk_live_abc' };
    const a = box.seal(secrets, 'data-source:t1:d1');
    const b = box.seal(secrets, 'data-source:t1:d1');
    expect(a.iv).toHaveLength(12);
    expect(a.tag).toHaveLength(16);
    expect(a.iv.equals(b.iv)).toBe(false);
    expect(a.ciphertext.equals(b.ciphertext)).toBe(false);
    expect(a.ciphertext.toString('latin1')).not.toContain('horse');
    expect(a.keyVersion).toBe(box.keyVersion);
    expect(box.open(a, 'data-source:t1:d1')).toEqual(secrets);
  });

  it('refuses a ciphertext moved to another row, altered, or sealed with another key', () => {
    const sealed = box.seal({ token: 't' }, 'data-source:t1:d1');
    expect(() => box.open(sealed, 'data-source:t2:d1')).toThrow(SecretKeyError);
    const flipped = Buffer.from(sealed.ciphertext);
    flipped[0]! ^= 1;
    expect(() => box.open({ ...sealed, ciphertext: flipped }, 'data-source:t1:d1')).toThrow(/altered/);
    const other = createSecretBox(randomBytes(32));
    expect(() => other.open(sealed, 'data-source:t1:d1')).toThrow(/another secret key/);
  });

  it('names key versions without revealing the key', () => {
    const key = randomBytes(32);
    expect(keyFingerprint(key)).toMatch(/^k1:[0-9a-f]{16}$/);
    expect(keyFingerprint(key)).not.toContain(key.toString('hex').slice(0, 8));
  });
});
