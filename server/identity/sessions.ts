/**
 * Ending a user's sessions at once: after a password reset, deactivation, removal from a tenant or
 * a change of sign-in e-mail. Access tokens are JWTs that stay valid until they expire, so the
 * user row carries the time sessions became invalid, read on every request (server/http/auth.ts)
 * and at every token refresh (the provider's findAccount); the provider's sessions, grants, codes
 * and refresh tokens of the user are deleted as well, so nothing signs in silently again.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { users } from '../db/schema/accounts.ts';
import { oidcPayloads } from '../db/schema/identity.ts';
import type { Executor } from '../db/tenancy.ts';

/** oidc-provider's models that keep a user signed in */
const SIGNED_IN_KINDS = ['Session', 'Grant', 'AuthorizationCode', 'RefreshToken', 'AccessToken'];

export async function endSessions(db: Executor, userId: string): Promise<void> {
  // clock_timestamp, not now(): a token issued while the surrounding transaction ran is refused too
  const [user] = await db.update(users).set({ sessionsValidAfter: sql`clock_timestamp()` })
    .where(eq(users.id, userId)).returning({ auth0Id: users.auth0Id });
  if (!user) return;
  await db.delete(oidcPayloads)
    .where(and(inArray(oidcPayloads.kind, SIGNED_IN_KINDS), sql`${oidcPayloads.payload}->>'accountId' = ${user.auth0Id}`));
}

/**
 * Whether a sign-in made at `signedInAt` (epoch seconds, as tokens carry it) is over. Tokens name
 * whole seconds, so one from the very second sessions ended is refused too.
 */
export function sessionEnded(validAfter: Date | null | undefined, signedInAt: number | undefined): boolean {
  if (!validAfter) return false;
  if (typeof signedInAt !== 'number') return true;
  return signedInAt * 1000 < Math.ceil(validAfter.getTime() / 1000) * 1000;
}

/** How long a sign-in now must wait so its tokens are not of the second the user's sessions ended (ms). */
export function signInWait(validAfter: Date | null | undefined, now = Date.now()): number {
  if (!validAfter) return 0;
  const firstValid = Math.ceil(validAfter.getTime() / 1000) * 1000;
  return Math.max(0, Math.min(firstValid - now, 1000));
}
