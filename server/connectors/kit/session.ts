/**
 * Sessions a vendor hands out for credentials that do not expire themselves (Engaging Networks'
 * session token for the API user's token, Marketing Cloud's client-credentials access token): one
 * per account in this process, reused until a minute before it expires, obtained again when a
 * call is refused with it (`force`), and obtained once at a time however many calls want it.
 */
import { EXPIRY_MARGIN_MS } from './oauthSession.ts';

export interface Session<T = Record<string, never>> { token: string; expiresOn: number; about: T }

const sessions = new Map<string, Promise<Session<unknown>>>();

/** The account's session (keyed by `key`, a hash of its credentials), obtained with `obtain` when there is none good. */
export async function vendorSession<T>(key: string, force: boolean, obtain: () => Promise<Session<T>>): Promise<Session<T>> {
  const held = sessions.get(key) as Promise<Session<T>> | undefined;
  if (held && !force) {
    const s = await held.catch(() => null);
    if (s && s.expiresOn - EXPIRY_MARGIN_MS > Date.now()) return s;
  }
  const fresh = obtain();
  sessions.set(key, fresh);
  // a failed sign-in is not kept: the next call tries again
  fresh.catch(() => { if (sessions.get(key) === fresh) sessions.delete(key); });
  return fresh;
}
