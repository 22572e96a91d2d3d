/**
 * An OAuth 2.0 session with a vendor from a saved refresh token: the access token is reused until
 * a minute before it expires, refreshed under the data source's lock when it nears expiry (or the
 * vendor refuses it early), a rotated refresh token is saved at once, and a grant the vendor
 * refuses marks the data source as needing reconnecting and fails with words, never a loop of
 * refreshes. Without a store (settings tested before they are saved) each session refreshes once
 * and reports a rotated refresh token for the caller to keep.
 */
import type { AccessToken, GrantStore, RefreshOutcome } from './grant.ts';
import { GrantRevoked, needsReconnectingMessage } from './problems.ts';

/** A token this close to its expiry is refreshed first: a call never starts with a dying one. */
export const EXPIRY_MARGIN_MS = 60_000;

/** The vendor's token exchange: a refresh token for an access token (and perhaps a new refresh token). */
export type TokenExchange = (settings: Record<string, string>) => Promise<RefreshOutcome>;

/** Thrown by a TokenExchange when the vendor says the grant is no good (OAuth `invalid_grant`). */
export class InvalidGrant extends Error {
  override readonly name = 'InvalidGrant';
}

export interface OAuthSession {
  /** a good access token (refreshed first when `force`, after the vendor refused the last one) */
  accessToken(force?: boolean): Promise<string>;
  /** a new access token from the refresh token itself, whatever is saved (a connection test proves the grant) */
  exchangeNow(): Promise<string>;
  /** the settings as they are now (a rotated refresh token included) */
  settings(): Record<string, string>;
  /** secrets rotated during this session, for a caller without a store */
  rotated(): Record<string, string> | undefined;
  /** what the vendor said about the grant at this session's last refresh */
  about(): string | undefined;
}

export function oauthSession(opts: {
  system: string;
  name: string;
  settings: Record<string, string>;
  store?: GrantStore | undefined;
  exchange: TokenExchange;
  now?: () => number;
}): OAuthSession {
  const now = opts.now ?? Date.now;
  let settings = { ...opts.settings };
  let token: AccessToken | null = null;
  let rotated: Record<string, string> | undefined;
  let about: string | undefined;
  const good = (t: AccessToken | null) => (t && t.expiresOn.getTime() - EXPIRY_MARGIN_MS > now() ? t : null);

  const exchange = async (latest: Record<string, string>) => {
    try {
      const outcome = await opts.exchange(latest);
      about = outcome.about ?? about;
      return outcome;
    } catch (err) {
      if (!(err instanceof InvalidGrant)) throw err;
      const message = needsReconnectingMessage(opts.name);
      await opts.store?.needsReconnecting(message);
      throw new GrantRevoked(opts.system, message);
    }
  };

  return {
    settings: () => settings,
    rotated: () => rotated,
    about: () => about,
    async exchangeNow() {
      if (!opts.store) return this.accessToken(true);
      const result = await opts.store.refresh(() => null, exchange);
      token = result.token;
      settings = result.settings;
      return token.accessToken;
    },
    async accessToken(force = false) {
      if (!force && good(token)) return token!.accessToken;
      if (!opts.store) {
        const outcome = await exchange(settings);
        if (outcome.rotated) { rotated = { ...rotated, ...outcome.rotated }; settings = { ...settings, ...outcome.rotated }; }
        token = outcome.token;
        return token.accessToken;
      }
      const refused = force ? token?.accessToken : undefined;
      if (!force) {
        // another worker's token, saved since this one last looked
        if (!good(token)) token = good(await opts.store.saved(settings.refreshToken ?? '')) ?? token;
        if (good(token)) return token!.accessToken;
      }
      // another worker may have refreshed while this one waited for the lock: its token serves
      const result = await opts.store.refresh((_latest, saved) => {
        const t = good(saved);
        return t && t.accessToken !== refused ? t : null;
      }, exchange);
      token = result.token;
      settings = result.settings;
      return token.accessToken;
    },
  };
}
