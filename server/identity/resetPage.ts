/**
 * The page a password-reset link opens, served by the embedded provider beside its login page: a
 * new password, set once. The token in the form is the only credential, so a forged POST without
 * it changes nothing.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { emailTaken } from '../db/accounts.ts';
import { users } from '../db/schema/accounts.ts';
import { hashPassword } from './passwords.ts';
import { endSessions } from './sessions.ts';
import { consumeResetToken, RESET_PATH, isLinkToken } from './passwordReset.ts';
import { escapeHtml, messagePage, STYLESHEET_PATH } from './loginPage.ts';

export const PASSWORD_MIN_LENGTH = 12;
const TITLE = 'Choose a new password';

function formPage(token: string, error?: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${TITLE}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${STYLESHEET_PATH}"></head>
<body><main><h1>${TITLE}</h1>
${error ? `<p role="alert" class="alert">${escapeHtml(error)}</p>\n` : ''}<form method="post" action="${RESET_PATH}">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<label for="password">New password (at least ${PASSWORD_MIN_LENGTH} characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="${PASSWORD_MIN_LENGTH}" required autofocus>
<button type="submit">Set password</button>
</form></main></body></html>
`;
}

const invalidLink = () => ({ status: 400, html: messagePage({ title: TITLE, message: 'This link is not valid.' }) });

/** The answer to GET (the form) or POST (the new password) of the reset page. */
export async function passwordResetPage(db: Db, method: string, query: URLSearchParams, form: URLSearchParams | undefined): Promise<{ status: number; html: string }> {
  if (method === 'GET') {
    const token = query.get('token') ?? '';
    return isLinkToken(token) ? { status: 200, html: formPage(token) } : invalidLink();
  }
  const token = form?.get('token') ?? '';
  const password = form?.get('password') ?? '';
  if (!isLinkToken(token)) return invalidLink();
  if ([...password].length < PASSWORD_MIN_LENGTH || password.length > 200) {
    return { status: 400, html: formPage(token, `A password has ${PASSWORD_MIN_LENGTH} to 200 characters.`) };
  }
  const userId = await consumeResetToken(db, token);
  if (!userId) return { status: 410, html: messagePage({ title: TITLE, message: 'This link has expired or was already used. Ask your user manager for a new one.' }) };
  const passwordHash = await hashPassword(password);
  const taken = { status: 409, html: messagePage({ title: TITLE, message: 'This e-mail address already signs in to another Tributary account, so it cannot be this one\'s. Ask your user manager to use another address.' }) };
  try {
    const refused = await db.transaction(async (tx) => {
      // a user created with an address that was then another account's: the link reached its
      // owner, so the address becomes theirs now, if it is free
      const [user] = await tx.select({ email: users.email, pendingEmail: users.pendingEmail }).from(users).where(eq(users.id, userId)).for('update').limit(1);
      if (user && !user.email && user.pendingEmail) {
        if (await emailTaken(tx, user.pendingEmail, userId)) return taken;
        await tx.update(users).set({ email: user.pendingEmail, pendingEmail: null }).where(eq(users.id, userId));
      }
      await tx.update(users).set({ passwordHash }).where(eq(users.id, userId));
      // whoever signed in with the old password is signed out
      await endSessions(tx, userId);
      return null;
    });
    if (refused) return refused;
  } catch (err) {
    // taken meanwhile: the unique index refused it
    if ((err as { code?: string }).code === '23505' || (err as { cause?: { code?: string } }).cause?.code === '23505') return taken;
    throw err;
  }
  return { status: 200, html: messagePage({ title: TITLE, message: 'Your password has been set.', link: { href: '/', text: 'Sign in' } }) };
}
