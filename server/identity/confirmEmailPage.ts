/**
 * The page a new sign-in e-mail's confirmation link opens, served by the embedded provider beside
 * its login page. Opening the link shows a button (mail scanners that open links confirm nothing);
 * pressing it makes the address the sign-in e-mail and ends the sessions signed in before.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { emailTaken } from '../db/accounts.ts';
import { users } from '../db/schema/accounts.ts';
import { escapeHtml, messagePage, STYLESHEET_PATH } from './loginPage.ts';
import { CONFIRM_EMAIL_PATH, consumeEmailConfirmation, isLinkToken } from './passwordReset.ts';
import { endSessions } from './sessions.ts';

const TITLE = 'Confirm your sign-in e-mail';

function confirmPage(token: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${TITLE}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="${STYLESHEET_PATH}"></head>
<body><main><h1>${TITLE}</h1>
<p>This address becomes the e-mail you sign in to Tributary with. You will be signed out everywhere and sign in with it.</p>
<form method="post" action="${CONFIRM_EMAIL_PATH}">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit">Confirm this address</button>
</form></main></body></html>
`;
}

const invalidLink = () => ({ status: 400, html: messagePage({ title: TITLE, message: 'This link is not valid.' }) });

/** The answer to GET (the button) or POST (the confirmation) of the page. */
export async function confirmEmailPage(db: Db, method: string, query: URLSearchParams, form: URLSearchParams | undefined): Promise<{ status: number; html: string }> {
  if (method === 'GET') {
    const token = query.get('token') ?? '';
    return isLinkToken(token) ? { status: 200, html: confirmPage(token) } : invalidLink();
  }
  const token = form?.get('token') ?? '';
  if (!isLinkToken(token)) return invalidLink();
  return db.transaction(async (tx) => {
    const found = await consumeEmailConfirmation(tx, token);
    const gone = { status: 410, html: messagePage({ title: TITLE, message: 'This link has expired, was already used or was replaced by a newer one. Ask your user manager for a new one.' }) };
    if (!found) return gone;
    // still the address asked for: a later change or a confirmation meanwhile wins
    const [user] = await tx.select({ id: users.id }).from(users)
      .where(and(eq(users.id, found.userId), sql`lower(${users.pendingEmail}) = lower(${found.email})`)).for('update').limit(1);
    if (!user) return gone;
    if (await emailTaken(tx, found.email, user.id)) {
      return { status: 409, html: messagePage({ title: TITLE, message: 'This address is already the sign-in e-mail of another account. Ask your user manager to choose another one.' }) };
    }
    await tx.update(users).set({ email: found.email, pendingEmail: null }).where(eq(users.id, user.id));
    await endSessions(tx, user.id);
    return { status: 200, html: messagePage({ title: TITLE, message: `Your sign-in e-mail is now ${found.email}.`, link: { href: '/', text: 'Sign in' } }) };
  });
}
