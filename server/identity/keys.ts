/**
 * The embedded provider's signing key and cookie secrets, generated on first start and kept in
 * identity_keys so a restart signs nobody out. Insert-if-absent then re-read: two processes
 * starting together end up with the same key.
 */
import { generateKeyPair as generateKeyPairCb, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type pg from 'pg';
import { calculateJwkThumbprint, type JWK } from 'jose';

const generateKeyPair = promisify(generateKeyPairCb);

export interface IdentityKeys {
  /** private RSA JWK with kid, alg RS256, use sig */
  signing: JWK;
  /** public part of the signing key */
  publicJwk: JWK;
  cookieKeys: string[];
}

async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('rsa', { modulusLength: 2048 });
  const jwk = privateKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint({ kty: 'RSA', n: jwk.n!, e: jwk.e! });
  return { ...jwk, kid, alg: 'RS256', use: 'sig' };
}

async function ensure<T>(pool: pg.Pool, kind: string, create: () => Promise<T>): Promise<T> {
  const read = async () => (await pool.query<{ material: T }>('select material from identity_keys where kind = $1', [kind])).rows[0]?.material;
  const existing = await read();
  if (existing) return existing;
  await pool.query(
    'insert into identity_keys (kind, material) values ($1, $2) on conflict (kind) do nothing',
    [kind, JSON.stringify(await create())],
  );
  const stored = await read();
  if (!stored) throw new Error(`identity key "${kind}" could not be stored`);
  return stored;
}

export async function loadIdentityKeys(pool: pg.Pool): Promise<IdentityKeys> {
  const signing = await ensure<JWK>(pool, 'signing', newSigningKey);
  const cookies = await ensure<{ keys: string[] }>(pool, 'cookies', async () => ({
    keys: [randomBytes(32).toString('base64url'), randomBytes(32).toString('base64url')],
  }));
  const { kty, n, e, kid, alg, use } = signing;
  return { signing, publicJwk: { kty, n, e, kid, alg, use }, cookieKeys: cookies.keys };
}
