/**
 * Password hashes for the embedded identity provider: scrypt with a per-password salt, stored as
 * `scrypt$N$r$p$salt$hash` so a hash made with older parameters still verifies and can be
 * replaced on the next successful sign-in.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export interface ScryptParams { N: number; r: number; p: number }

/** OWASP's current recommendation for scrypt (N=2^17, r=8, p=1). */
export const CURRENT_PARAMS: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };
const LEN = 64;

/** log2 of N: OWASP's, and the range a configured cost may take (what `plausible` accepts) */
export const OWASP_HASH_COST = Math.log2(CURRENT_PARAMS.N);
export const MIN_HASH_COST = 10;
export const MAX_HASH_COST = 20;

// the parameters new hashes are made with: OWASP's unless the identity provider was configured
// with another cost (config.passwordHashCost; tests use a cheap one, production never less)
let active: ScryptParams = CURRENT_PARAMS;

/** Makes new hashes with N = 2^cost; hashes made with other parameters are upgraded at the next sign-in. */
export function useHashCost(cost: number): void {
  if (!Number.isInteger(cost) || cost < MIN_HASH_COST || cost > MAX_HASH_COST) throw new Error(`scrypt cost ${cost} is out of range`);
  active = { ...CURRENT_PARAMS, N: 2 ** cost };
}

// the libuv thread pool runs scrypt, so the event loop stays free while a hash is computed
const scrypt = (pw: string, salt: Buffer, len: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(pw, salt, len, opts, (e, k) => (e ? reject(e) : resolve(k))));

/** scrypt needs 128 * N * r bytes; Node refuses anything above 32 MiB unless maxmem says more. */
const maxmem = ({ N, r }: ScryptParams) => 128 * N * r + 16 * 1024 * 1024;

/** Parameters a stored hash may carry: anything else is refused rather than run (a huge N would exhaust memory). */
function plausible({ N, r, p }: ScryptParams): boolean {
  return Number.isInteger(N) && N >= 2 ** 10 && N <= 2 ** 20 && (N & (N - 1)) === 0
    && Number.isInteger(r) && r >= 1 && r <= 32 && Number.isInteger(p) && p >= 1 && p <= 16;
}

function parse(stored: string | null | undefined) {
  if (!stored) return undefined;
  const [scheme, n, rr, pp, salt, hash, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash || rest.length) return undefined;
  const params = { N: Number(n), r: Number(rr), p: Number(pp) };
  if (!plausible(params)) return undefined;
  return { params, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
}

export async function hashPassword(password: string, params: ScryptParams = active): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, LEN, { ...params, maxmem: maxmem(params) });
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed || parsed.hash.length < 16) return false;
  const key = await scrypt(password, parsed.salt, parsed.hash.length, { ...parsed.params, maxmem: maxmem(parsed.params) });
  return timingSafeEqual(key, parsed.hash);
}

/** true when the hash was made with other parameters than today's (checked after a successful verify). */
export function needsRehash(stored: string | null | undefined): boolean {
  const parsed = parse(stored);
  if (!parsed) return true;
  const { N, r, p } = parsed.params;
  return N !== active.N || r !== active.r || p !== active.p || parsed.hash.length !== LEN;
}
