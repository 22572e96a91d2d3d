/**
 * Password guessing against the embedded provider's sign-in page: bursts of parallel guesses,
 * guesses spread over many e-mails from one address, and over many addresses. The throttle's
 * clock is the test's own, so waits pass without sleeping.
 */
import http from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { loadConfig } from '../../server/config.ts';
import { openDatabase, type Database } from '../../server/db/database.ts';
import { freePort } from '../../server/db/embedded.ts';
import { hashPassword } from '../../server/identity/passwords.ts';
import { createIdentity } from '../../server/identity/provider.ts';
import { createTestDatabase } from '../support/database.ts';
import { openSignInPage, postSignIn } from '../support/oidc.ts';
import { recordEvent } from '../../server/services/events.ts';

const PASSWORD = 'correct horse battery staple';
const OWNER = 'owner@example.org';
/** accounts a guesser tries one password on */
const OTHERS = Array.from({ length: 20 }, (_, i) => `member.${i}@example.org`);
const IP_FREE = 8;
const GLOBAL_PER_MINUTE = 12;

let database: Database;
let dropDatabase: () => Promise<void>;
let server: http.Server;
let baseUrl: string;
let cheapHash: string;
let now = Date.parse('2026-11-20T09:00:00Z');

type Answer = Awaited<ReturnType<typeof postSignIn>>;
/** answers whose password was checked (wrong, or right and signed in) */
const checked = (answers: Answer[]) => answers.filter((a) => a.status === 401 || a.status === 303).length;
const refused = (answers: Answer[]) => answers.filter((a) => a.status === 429).length;
const alertOf = (a: Answer) => /<p role="alert"[^>]*>([^<]*)<\/p>/.exec(a.body)?.[1];

async function loginCount(email: string) {
  const { rows } = await database.pool.query<{ login_count: number }>('select login_count from users where email = $1', [email]);
  return rows[0]!.login_count;
}

beforeAll(async () => {
  const db = await createTestDatabase();
  dropDatabase = db.drop;
  database = await openDatabase(db.url);
  const { rows: [org] } = await database.pool.query<{ id: string }>(
    "insert into organizations (name, subdomain) values ('Demo', 'demo') returning id",
  );
  // this file counts how many passwords get checked, not what a check costs: cheap hashes keep it fast
  cheapHash = await hashPassword(PASSWORD, { N: 2 ** 10, r: 8, p: 1 });
  for (const email of [OWNER, ...OTHERS]) {
    await database.pool.query(
      "insert into users (organization_id, auth0_id, email, full_name, password_hash) values ($1, 'auth0|' || gen_random_uuid(), $2, $2, $3)",
      [org!.id, email, cheapHash],
    );
  }
  const port = await freePort();
  const config = loadConfig({
    PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, DATABASE_URL: db.url, LOG_LEVEL: 'silent',
    SIGNIN_IP_FREE_FAILURES: String(IP_FREE), SIGNIN_GLOBAL_FAILURES_PER_MINUTE: String(GLOBAL_PER_MINUTE),
  });
  baseUrl = config.publicUrl;
  const identity = await createIdentity({ config, db: database.db, pool: database.pool, log: pino({ level: 'silent' }), clock: () => now, recordEvent });
  server = http.createServer((req, res) => {
    if (identity.owns(new URL(req.url!, 'http://x').pathname)) identity.handle(req, res);
    else { res.statusCode = 404; res.end(); }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
});

afterAll(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  await database?.close();
  await dropDatabase?.();
});

beforeEach(async () => {
  // every test starts with no failures counted and the owner's hash as seeded (a sign-in upgrades it)
  await database.pool.query('delete from sign_in_throttle');
  await database.pool.query('update users set password_hash = $1', [cheapHash]);
});

describe('sign-in throttling', () => {
  it('checks only 5 of 100 parallel guesses; at the limit even the right password waits, and gets in once the wait is over', async () => {
    const page = await openSignInPage({ baseUrl });
    const guesses = Array.from({ length: 100 }, (_, i) => ({ email: OWNER, password: `guess-${i}` }));
    const burst = await Promise.all(guesses.map((g) => postSignIn(page, g)));
    expect(checked(burst)).toBe(5);
    expect(refused(burst)).toBe(95);

    const withRight = [...guesses.slice(0, 50), { email: OWNER, password: PASSWORD }, ...guesses.slice(50)];
    const second = await Promise.all(withRight.map((g) => postSignIn(page, g)));
    expect(second.map((a) => a.status)).toEqual(withRight.map(() => 429));
    expect(await loginCount(OWNER)).toBe(0);
    expect(alertOf(second[50]!)).toBe('Too many sign-in attempts. Try again in 1 second.');
    expect(second[50]!.headers['retry-after']).toBe('1');

    // a short wait, not a lockout
    now += 1000;
    const owner = await postSignIn(page, { email: OWNER, password: PASSWORD });
    expect(owner.status).toBe(303);
    expect(await loginCount(OWNER)).toBe(1);
    // that sign-in upgraded the cheap hash; put it back so the next checks stay fast
    await database.pool.query('update users set password_hash = $1', [cheapHash]);

    // signing in starts the count afresh: five more failures before the next wait
    const again = await openSignInPage({ baseUrl });
    for (let i = 0; i < 5; i++) expect((await postSignIn(again, { email: OWNER, password: `again-${i}` }, '127.0.0.2')).status).toBe(401);
    expect((await postSignIn(again, { email: OWNER, password: PASSWORD }, '127.0.0.2')).status).toBe(429);
  });

  it('doubles the wait with each further failure; refused attempts do not lengthen it', async () => {
    const page = await openSignInPage({ baseUrl });
    const wrong = { email: OWNER, password: 'Winter2026!' };
    const right = { email: OWNER, password: PASSWORD };
    for (let i = 0; i < 5; i++) expect((await postSignIn(page, wrong)).status).toBe(401);
    expect(alertOf(await postSignIn(page, wrong))).toBe('Too many sign-in attempts. Try again in 1 second.');

    now += 1000;
    expect((await postSignIn(page, wrong)).status).toBe(401);
    const doubled = await postSignIn(page, right);
    expect(doubled.status).toBe(429);
    expect(alertOf(doubled)).toBe('Too many sign-in attempts. Try again in 2 seconds.');
    now += 1000;
    expect(alertOf(await postSignIn(page, wrong))).toBe('Too many sign-in attempts. Try again in 1 second.');

    now += 1000;
    expect((await postSignIn(page, wrong)).status).toBe(401);
    expect(alertOf(await postSignIn(page, right))).toBe('Too many sign-in attempts. Try again in 4 seconds.');
    now += 4000;
    expect((await postSignIn(page, right)).status).toBe(303);
  });

  it('slows one address guessing across many e-mails, and nobody at another address', async () => {
    const page = await openSignInPage({ baseUrl });
    const spray = await Promise.all(OTHERS.map((email) => postSignIn(page, { email, password: 'Winter2026!' }, '127.0.0.3')));
    expect(checked(spray)).toBe(IP_FREE);
    expect(refused(spray)).toBe(OTHERS.length - IP_FREE);
    expect(alertOf(spray.find((a) => a.status === 429)!)).toMatch(/^Too many sign-in attempts\. Try again in \d+ seconds?\.$/);

    const elsewhere = await postSignIn(page, { email: OTHERS[0]!, password: PASSWORD }, '127.0.0.4');
    expect(elsewhere.status).toBe(303);
  });

  it('bounds the failed checks of a minute across all addresses, then lets sign-in resume', async () => {
    const page = await openSignInPage({ baseUrl });
    // three addresses, five e-mails each: no address or e-mail reaches its own limit
    const spread = await Promise.all(OTHERS.slice(0, 15).map((email, i) =>
      postSignIn(page, { email, password: 'Winter2026!' }, `127.0.1.${1 + (i % 3)}`)));
    expect(checked(spread)).toBe(GLOBAL_PER_MINUTE);
    expect(refused(spread)).toBe(15 - GLOBAL_PER_MINUTE);

    const paused = await postSignIn(page, { email: OWNER, password: PASSWORD }, '127.0.1.9');
    expect(paused.status).toBe(429);
    expect(Number(paused.headers['retry-after'])).toBeLessThanOrEqual(60);

    now += 60_000;
    expect((await postSignIn(page, { email: OWNER, password: PASSWORD }, '127.0.1.9')).status).toBe(303);
  });
});
