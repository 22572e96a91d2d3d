/**
 * Sign-in throttling for the embedded provider. Three counters of failed sign-ins, each a row of
 * sign_in_throttle: one per e-mail (a day's window), one per client address (an hour's window,
 * whatever e-mail is typed) and one for everyone (a minute's window, bounding the scrypt work that
 * failed guesses can cause).
 *
 * An attempt is counted as a failure *before* its password is checked, in one transaction that
 * locks the rows it touches, so parallel guesses cannot all slip through between a read and a
 * write: once a counter reaches its free failures, every further attempt is refused unchecked
 * and uncounted. A successful sign-in takes its own count back.
 *
 * Past the free failures an e-mail or address waits an interval that doubles with each further
 * failure (up to a maximum) instead of being locked out, so a guesser slows to a crawl while the
 * owner can still get in; the global counter pauses everyone only until its minute is over.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { SignInThrottleSettings } from '../config.ts';

/** One counter's state; times in epoch milliseconds. */
export interface Counter {
  failures: number;
  windowStart: number;
  blockedUntil: number | null;
}

export interface Rule {
  /** failures in a window before attempts must wait */
  free: number;
  windowMs: number;
  /** true: past the free failures, wait until the window ends (rather than a doubling delay) */
  untilWindowEnds: boolean;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export function rulesFor(s: SignInThrottleSettings) {
  return {
    account: { free: s.freeFailures, windowMs: DAY, untilWindowEnds: false },
    address: { free: s.ipFreeFailures, windowMs: HOUR, untilWindowEnds: false },
    global: { free: s.globalFailuresPerMinute, windowMs: MINUTE, untilWindowEnds: true },
  } satisfies Record<string, Rule>;
}

/** The wait after the free failures are used up: first, 2 × first, 4 × first ... at most max. */
export function delayMs(failuresPastFree: number, s: SignInThrottleSettings): number {
  const doubled = s.firstDelaySeconds * 1000 * 2 ** Math.min(Math.max(failuresPastFree, 0), 40);
  return Math.min(doubled, s.maxDelaySeconds * 1000);
}

/** The counter as it stands at `now`: a window that has passed (and blocks nothing) starts over. */
export function settle(c: Counter, rule: Rule, now: number): Counter {
  const blocked = c.blockedUntil !== null && c.blockedUntil > now;
  if (!blocked && now >= c.windowStart + rule.windowMs) return { failures: 0, windowStart: now, blockedUntil: null };
  return c;
}

/** The counter after one more failure at `now` (on a counter that blocks nothing). */
export function withFailure(c: Counter, rule: Rule, s: SignInThrottleSettings, now: number): Counter {
  const failures = c.failures + 1;
  if (failures < rule.free) return { failures, windowStart: c.windowStart, blockedUntil: null };
  const blockedUntil = rule.untilWindowEnds ? c.windowStart + rule.windowMs : now + delayMs(failures - rule.free, s);
  return { failures, windowStart: c.windowStart, blockedUntil };
}

/**
 * The part of a client address one person is likely to control: an IPv4 address, or the /64 an
 * IPv6 subscriber is usually given (each address of it would otherwise count apart).
 */
export function addressOf(remote: string | undefined): string {
  if (!remote) return 'unknown';
  // an IPv6 zone (fe80::1%eth0) names the interface, not the client
  const address = remote.split('%')[0]!.toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(':')) return address;
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(8 - left.length - right.length, 0)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => (g.replace(/^0+/, '') || g.slice(0, 1))).join(':')}::/64`;
}

export type Admission =
  | { admitted: true; /** the password was right: take this attempt's count back */ succeeded(): Promise<void> }
  | { admitted: false; retryAfterMs: number };

export interface SignInThrottle {
  /** counts the attempt as a failure, or refuses it without counting when a counter blocks */
  admit(email: string, remoteAddress: string | undefined): Promise<Admission>;
}

interface Row { key: string; failures: number; window_start: Date; blocked_until: Date | null }

export function createSignInThrottle(pool: pg.Pool, settings: SignInThrottleSettings, clock: () => number = Date.now): SignInThrottle {
  const rules = rulesFor(settings);
  return {
    async admit(email, remoteAddress) {
      // e-mails are hashed: the table should not become a list of addresses people typed
      const accountKey = `email:${createHash('sha256').update(email).digest('base64url')}`;
      const counters = [
        { key: accountKey, rule: rules.account },
        { key: `ip:${addressOf(remoteAddress)}`, rule: rules.address },
        { key: 'global', rule: rules.global },
      ].sort((a, b) => (a.key < b.key ? -1 : 1)); // one lock order for every transaction: no deadlocks
      const now = clock();
      const waitOf = (rows: Row[]) => {
        const byKey = new Map(rows.map((r) => [r.key, r]));
        const states = counters.map(({ key, rule }) => {
          const row = byKey.get(key);
          const counter = row
            ? settle({ failures: row.failures, windowStart: row.window_start.getTime(), blockedUntil: row.blocked_until?.getTime() ?? null }, rule, now)
            : { failures: 0, windowStart: now, blockedUntil: null };
          return { key, rule, counter };
        });
        const waits = states.map(({ counter }) => (counter.blockedUntil ?? 0) - now).filter((ms) => ms > 0);
        return { states, wait: waits.length ? Math.max(...waits) : 0 };
      };

      // a plain read first: during a flood most attempts are refused here, without queueing for the locks
      const seen = waitOf((await pool.query<Row>(
        'select key, failures, window_start, blocked_until from sign_in_throttle where key = any($1)',
        [counters.map((c) => c.key)],
      )).rows);
      if (seen.wait > 0) return { admitted: false, retryAfterMs: seen.wait };

      const client = await pool.connect();
      try {
        await client.query('begin');
        // creates missing rows and locks all of them until commit
        const { rows } = await client.query<Row>(
          `insert into sign_in_throttle as t (key, failures, window_start)
           values ${counters.map((_, i) => `($${i + 2}, 0, $1)`).join(', ')}
           on conflict (key) do update set failures = t.failures
           returning key, failures, window_start, blocked_until`,
          [new Date(now), ...counters.map((c) => c.key)],
        );
        const { states, wait } = waitOf(rows);
        if (wait > 0) {
          await client.query('commit');
          return { admitted: false, retryAfterMs: wait };
        }
        const next = states.map(({ key, rule, counter }) => ({ key, ...withFailure(counter, rule, settings, now) }));
        await client.query(
          `update sign_in_throttle as t
              set failures = v.failures, window_start = v.window_start, blocked_until = v.blocked_until
             from unnest($1::text[], $2::int[], $3::timestamptz[], $4::timestamptz[]) as v(key, failures, window_start, blocked_until)
            where t.key = v.key`,
          [
            next.map((n) => n.key), next.map((n) => n.failures), next.map((n) => new Date(n.windowStart)),
            next.map((n) => (n.blockedUntil === null ? null : new Date(n.blockedUntil))),
          ],
        );
        await client.query('commit');
      } catch (err) {
        await client.query('rollback').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }

      const others = counters.filter((c) => c.key !== accountKey);
      return {
        admitted: true,
        async succeeded() {
          // the owner got in: the e-mail starts afresh; the address and everyone's count drop by this attempt
          await pool.query('delete from sign_in_throttle where key = $1', [accountKey]);
          await pool.query(
            `update sign_in_throttle as t
                set failures = greatest(t.failures - 1, 0),
                    blocked_until = case when t.failures - 1 < v.free then null else t.blocked_until end
               from unnest($1::text[], $2::int[]) as v(key, free)
              where t.key = v.key`,
            [others.map((c) => c.key), others.map((c) => c.rule.free)],
          );
        },
      };
    },
  };
}

/** "Too many sign-in attempts. Try again in 2 minutes." */
export function tooManyAttempts(retryAfterMs: number): string {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const wait = seconds < 60
    ? `${seconds} second${seconds === 1 ? '' : 's'}`
    : `${Math.ceil(seconds / 60)} minute${Math.ceil(seconds / 60) === 1 ? '' : 's'}`;
  return `Too many sign-in attempts. Try again in ${wait}.`;
}
