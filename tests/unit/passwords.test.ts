import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { CURRENT_PARAMS, OWASP_HASH_COST, hashPassword, needsRehash, useHashCost, verifyPassword } from '../../server/identity/passwords.ts';

describe('password hashes', () => {
  it("hash with OWASP's scrypt cost (N=2^17, r=8, p=1) and carry the parameters with the hash", async () => {
    expect(CURRENT_PARAMS).toEqual({ N: 131072, r: 8, p: 1 });
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{86}==$/);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horsE', hash)).toBe(false);
    expect(needsRehash(hash)).toBe(false);
    // a fresh salt every time
    const cheap = { N: 1024, r: 8, p: 1 };
    expect(await hashPassword('correct horse', cheap)).not.toBe(await hashPassword('correct horse', cheap));
    // three hashes at full cost (about 0.3 s each alone) share two cores with the whole suite
  }, 60_000);

  it('still verify hashes made with the older cost, and ask for them to be replaced', async () => {
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync('correct horse', salt, 64, { N: 16384, r: 8, p: 1 });
    const old = `scrypt$16384$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
    expect(await verifyPassword('correct horse', old)).toBe(true);
    expect(await verifyPassword('wrong', old)).toBe(false);
    expect(needsRehash(old)).toBe(true);
  });

  it('refuse malformed hashes and parameters that would exhaust memory, without running them', async () => {
    const good = await hashPassword('pw', { N: 1024, r: 8, p: 1 });
    const [, , , , salt, key] = good.split('$');
    for (const stored of [
      null, undefined, '', 'plain', `bcrypt$1024$8$1$${salt}$${key}`, `scrypt$1024$8$1$${salt}`,
      `scrypt$${2 ** 24}$8$1$${salt}$${key}`, `scrypt$1000$8$1$${salt}$${key}`, `scrypt$1024$999$1$${salt}$${key}`,
      `scrypt$1024$8$1$${salt}$`, `scrypt$1024$8$1$${salt}$${key}$extra`,
    ]) {
      expect(await verifyPassword('pw', stored), String(stored)).toBe(false);
    }
    expect(await verifyPassword('pw', good)).toBe(true);
  });

  it("take a cheaper cost only outside production (PASSWORD_HASH_COST), and replace hashes of any other cost", async () => {
    expect(loadConfig({}).passwordHashCost).toBe(17);
    expect(loadConfig({ NODE_ENV: 'production' }).passwordHashCost).toBe(17);
    expect(loadConfig({ PASSWORD_HASH_COST: '10' }).passwordHashCost).toBe(10);
    expect(loadConfig({ NODE_ENV: 'production', PASSWORD_HASH_COST: '18' }).passwordHashCost).toBe(18);
    expect(() => loadConfig({ NODE_ENV: 'production', PASSWORD_HASH_COST: '10' })).toThrow('PASSWORD_HASH_COST must be a whole number from 17 to 20 in production, got "10"');
    for (const bad of ['9', '21', '12.5', 'cheap']) {
      expect(() => loadConfig({ PASSWORD_HASH_COST: bad }), bad).toThrow(`PASSWORD_HASH_COST must be a whole number from 10 to 20, got "${bad}"`);
    }
    const owasp = await hashPassword('correct horse');
    try {
      useHashCost(10);
      const cheap = await hashPassword('correct horse');
      expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
      expect(await verifyPassword('correct horse', cheap)).toBe(true);
      expect(needsRehash(cheap)).toBe(false);
      expect(needsRehash(owasp)).toBe(true);
    } finally {
      useHashCost(OWASP_HASH_COST);
    }
    expect(needsRehash(owasp)).toBe(false);
  });
});
