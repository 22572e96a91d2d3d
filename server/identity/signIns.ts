/**
 * What the sign-in page writes besides the session: a sign-in, or its refusal, in the activity
 * history of the user's tenants; throttled attempts once per e-mail while they wait; a password
 * hash made with older parameters replaced while the password is at hand.
 */
import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import { isAccessExpired } from '../../src/domain/roles.ts';
import { membershipsOf } from '../db/accounts.ts';
import type { Db } from '../db/database.ts';
import { users } from '../db/schema/accounts.ts';
import { forTenant, type TenantScope } from '../db/tenancy.ts';
import { hashPassword } from './passwords.ts';

export type SignInOutcome = 'succeeded' | 'wrong-password' | 'throttled' | 'account-deactivated' | 'access-expired';
/** the activity history's description, after the user's name */
export const SIGN_IN_OUTCOMES: Record<SignInOutcome, string> = {
  'succeeded': 'signed in',
  'wrong-password': 'was refused sign-in: wrong password',
  'throttled': 'was refused sign-in: too many attempts',
  'account-deactivated': 'was refused sign-in: the account is deactivated',
  'access-expired': 'was refused sign-in: temporary access has ended',
};

/**
 * Writes an event to a tenant's activity history: the services' one writer of events
 * (server/services/events.ts), handed in by server/main.ts, since the provider is below the services.
 */
export type ActivityRecorder = (tenant: TenantScope, event: {
  actor: { userId: string; name: string }; type: string; description: string; details: Record<string, unknown>; correlationId: string;
}) => Promise<unknown>;

export function signInRecords(deps: {
  db: Db; log: Logger; recordEvent: ActivityRecorder;
  /** epoch milliseconds for sign-in throttling; tests move it instead of waiting */
  clock?: () => number;
}) {
  const { db, log } = deps;

  /** Deactivated users too: their refusal is said, and recorded. */
  async function userByEmail(email: string) {
    const [user] = await db.select({
      id: users.id, auth0Id: users.auth0Id, email: users.email, fullName: users.fullName,
      passwordHash: users.passwordHash, deactivatedOn: users.deactivatedOn, sessionsValidAfter: users.sessionsValidAfter,
    }).from(users).where(sql`lower(${users.email}) = ${email}`).limit(1);
    return user;
  }

  /** When every tenant of the user was temporary access that has ended: the last end. A user with no tenant signs in (the app says why it shows nothing). */
  async function accessEndedOn(userId: string): Promise<Date | undefined> {
    const all = await membershipsOf(db, [userId]);
    if (all.length === 0 || !all.every((m) => isAccessExpired(m.expires))) return undefined;
    return new Date(Math.max(...all.map((m) => m.expires!.getTime())));
  }

  /**
   * A sign-in, or its refusal, in the activity history of every tenant the user belongs to (expired
   * ones included), with the user as the actor. A failure to record is logged: it never decides a sign-in.
   */
  async function recordSignIn(user: Pick<SignInUser, 'id' | 'auth0Id' | 'email' | 'fullName'>, outcome: SignInOutcome, remote: string | undefined) {
    const correlationId = randomUUID();
    try {
      const tenantIds = new Set((await membershipsOf(db, [user.id])).map((m) => m.tenantId));
      for (const tenantId of tenantIds) {
        await deps.recordEvent(forTenant(db, tenantId), {
          actor: { userId: user.id, name: user.fullName },
          type: outcome === 'succeeded' ? 'signin.succeeded' : 'signin.refused',
          description: `${user.fullName} ${SIGN_IN_OUTCOMES[outcome]}`,
          details: { auth0Id: user.auth0Id, email: user.email, ...(outcome === 'succeeded' ? {} : { reason: outcome }), ip: remote ?? null },
          correlationId,
        });
      }
    } catch (err) {
      log.warn({ err, sub: user.auth0Id, outcome, correlationId }, 'could not record a sign-in event');
    }
  }

  /**
   * Throttled attempts are refused without counting, as cheaply as possible: their event is
   * written once per e-mail while it waits (per process), so a flood cannot become a flood of writes.
   */
  const throttledUntil = new Map<string, number>();
  async function recordThrottled(email: string, remote: string | undefined, retryAfterMs: number) {
    const now = (deps.clock ?? Date.now)();
    if ((throttledUntil.get(email) ?? 0) > now) return;
    if (throttledUntil.size >= 10_000) {
      for (const [key, until] of throttledUntil) if (until <= now) throttledUntil.delete(key);
      if (throttledUntil.size >= 10_000) return;
    }
    throttledUntil.set(email, now + retryAfterMs);
    try {
      const user = await userByEmail(email);
      if (user) await recordSignIn(user, 'throttled', remote);
    } catch (err) {
      log.warn({ err }, 'could not record a throttled sign-in');
    }
  }

  /** A hash made with older scrypt parameters is replaced while the password is at hand. */
  async function upgradeHash(userId: string, oldHash: string, password: string) {
    try {
      const fresh = await hashPassword(password);
      // only if nobody changed the password meanwhile
      await db.update(users).set({ passwordHash: fresh }).where(and(eq(users.id, userId), eq(users.passwordHash, oldHash)));
      log.info({ userId }, 'password hash upgraded');
    } catch (err) {
      log.warn({ err, userId }, 'could not upgrade a password hash');
    }
  }

  return { userByEmail, accessEndedOn, recordSignIn, recordThrottled, upgradeHash };
}

export type SignInUser = NonNullable<Awaited<ReturnType<ReturnType<typeof signInRecords>['userByEmail']>>>;
