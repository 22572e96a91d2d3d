/**
 * One-time links of the embedded provider: password resets, and confirmations of a new sign-in
 * e-mail. A link carries a random token; only its SHA-256 is stored (oidc_payloads, so the identity
 * cleanup job drops expired ones), and it works once, for a day.
 */
import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, ne } from 'drizzle-orm';
import type { Executor } from '../db/tenancy.ts';
import { oidcPayloads } from '../db/schema/identity.ts';

const KIND = 'PasswordReset';
export const RESET_PATH = '/reset-password';
const LIFETIME_MS = 24 * 60 * 60 * 1000;

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');

/** A new link for the user; an earlier unused link of theirs stays valid until it expires. */
export async function createResetLink(db: Executor, userId: string, publicUrl: string, now = new Date()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.insert(oidcPayloads).values({
    kind: KIND, id: digest(token), payload: { userId }, uid: userId, expiresAt: new Date(now.getTime() + LIFETIME_MS),
  });
  return `${publicUrl}${RESET_PATH}?token=${token}`;
}

/** The user a link is for, while it is unused and unexpired; it is used up at once. */
export async function consumeResetToken(db: Executor, token: string, now = new Date()): Promise<string | undefined> {
  const [row] = await db.update(oidcPayloads).set({ consumedAt: now })
    .where(and(eq(oidcPayloads.kind, KIND), eq(oidcPayloads.id, digest(token)), isNull(oidcPayloads.consumedAt), gt(oidcPayloads.expiresAt, now)))
    .returning({ payload: oidcPayloads.payload });
  return (row?.payload as { userId?: string } | undefined)?.userId;
}

const EMAIL_KIND = 'EmailConfirmation';
export const CONFIRM_EMAIL_PATH = '/confirm-email';

/** What a reset or confirmation link's token looks like (32 random bytes, base64url); anything else is refused before a lookup. */
export const isLinkToken = (token: string): boolean => /^[\w-]{20,100}$/.test(token);

/** A link that makes `email` the user's sign-in e-mail; only the newest address asked for can be confirmed. */
export async function createEmailConfirmationLink(db: Executor, userId: string, email: string, publicUrl: string, now = new Date()): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db.delete(oidcPayloads).where(and(eq(oidcPayloads.kind, EMAIL_KIND), eq(oidcPayloads.uid, userId), ne(oidcPayloads.id, digest(token))));
  await db.insert(oidcPayloads).values({
    kind: EMAIL_KIND, id: digest(token), payload: { userId, email }, uid: userId, expiresAt: new Date(now.getTime() + LIFETIME_MS),
  });
  return `${publicUrl}${CONFIRM_EMAIL_PATH}?token=${token}`;
}

/** The user and address a confirmation link is for, while it is unused and unexpired; it is used up at once. */
export async function consumeEmailConfirmation(db: Executor, token: string, now = new Date()): Promise<{ userId: string; email: string } | undefined> {
  const [row] = await db.update(oidcPayloads).set({ consumedAt: now })
    .where(and(eq(oidcPayloads.kind, EMAIL_KIND), eq(oidcPayloads.id, digest(token)), isNull(oidcPayloads.consumedAt), gt(oidcPayloads.expiresAt, now)))
    .returning({ payload: oidcPayloads.payload });
  const payload = row?.payload as { userId?: string; email?: string } | undefined;
  return payload?.userId && payload.email ? { userId: payload.userId, email: payload.email } : undefined;
}
