/**
 * A HubSpot API session for one call of a connector, on the connector kit. HubSpot signs in two
 * ways: a private app's access token (a bearer token that does not expire), or OAuth (Connect: the
 * refresh token is exchanged at api.hubapi.com/oauth/v1/token with the app's id and secret in the
 * body, PKCE at the consent; access tokens live half an hour and HubSpot keeps the same refresh
 * token).
 *
 * Limits (developers.hubspot.com, API usage guidelines): a burst limit per ten seconds per app and
 * account (100 calls for the lowest tiers, paced here for every call), the CRM search endpoints five
 * requests a second per token (paced for searches on top of it), and a daily limit: a 429 whose
 * policyName is DAILY pauses the formula; any other 429 is waited out (Retry-After, else backoff).
 * Error bodies: { status: 'error', message, category, correlationId }.
 */
import { createHash } from 'node:crypto';
import { refused, type ConnectorContext } from '../connector.ts';
import { oauthClient } from '../oauth/flow.ts';
import { InvalidGrant, oauthSession, type OAuthSession } from '../kit/oauthSession.ts';
import { sharedPacer, type Pacer } from '../kit/pace.ts';
import { QuotaExhausted } from '../kit/problems.ts';
import { vendorClient, type VendorClient } from '../kit/vendorClient.ts';
import { form, FORM, requireField, vendorFetch } from '../vendorHttp.ts';

export const HUBSPOT_API = 'https://api.hubapi.com';
export const HUBSPOT_TOKEN_URL = 'https://api.hubapi.com/oauth/v1/token';
/** the burst limit of the lowest tiers: 100 calls in any ten seconds */
export const HUBSPOT_BURST = { calls: 100, windowMs: 10_000 };
/** the CRM search endpoints' own limit */
export const HUBSPOT_SEARCHES_PER_SECOND = 5;

const NAME = 'HubSpot';

/** HubSpot's words from an error body; a validation error's list of property errors read out. */
export function hubspotMessageOf(body: unknown): string {
  if (!body || typeof body !== 'object') return '';
  const o = body as { message?: unknown; errors?: { message?: unknown }[] };
  let message = typeof o.message === 'string' ? o.message : '';
  // "Property values were not valid: [{...,"message":"Email address x is invalid",...}]"
  const at = message.indexOf('[');
  if (at > 0) {
    try {
      const inner = JSON.parse(message.slice(at)) as { message?: unknown }[];
      const words = inner.map((e) => e.message).filter((m): m is string => typeof m === 'string');
      if (words.length) message = `${message.slice(0, at).replace(/:\s*$/, '')}: ${words.join('; ')}`;
    } catch { /* the message as it is */ }
  }
  if (!message && Array.isArray(o.errors)) message = o.errors.map((e) => e.message).filter((m) => typeof m === 'string').join('; ');
  return message.slice(0, 500);
}

export interface HubSpot {
  client: VendorClient;
  /** the searches' own pacer, for calls to /crm/v3/objects/{object}/search */
  searches: Pacer;
  session: OAuthSession | null;
  /** the account, as a hash of the credential that reaches it */
  account: string;
}

export const usesHubSpotOAuth = (settings: Record<string, string>) => settings.authenticationType === 'oauth';

export function hubspotSession(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): HubSpot {
  const oauth = usesHubSpotOAuth(ctx.settings);
  const store = ctx.dataSourceId ? ctx.grant : undefined;
  const session = oauth ? oauthSession({
    system: 'hubspot', name: NAME, settings: ctx.settings, store,
    async exchange(settings) {
      const app = oauthClient('hubspot', settings);
      if (!app) throw refused(`Enter the app's client ID and secret, or ask whoever runs Tributary to set them for ${NAME}.`);
      if (!settings.refreshToken) throw refused(`Not connected yet: use Connect to ${NAME}.`);
      const res = await vendorFetch('hubspot', NAME, HUBSPOT_TOKEN_URL, {
        method: 'POST', headers: FORM, signal: ctx.signal,
        body: form({ grant_type: 'refresh_token', client_id: app.clientId, client_secret: app.clientSecret, refresh_token: settings.refreshToken }),
      });
      const text = await res.text();
      let answer: { access_token?: string; refresh_token?: string; expires_in?: number; error?: string; status?: string; message?: string } = {};
      try { answer = JSON.parse(text) as typeof answer; } catch { /* below */ }
      // HubSpot answers a refresh token it no longer accepts with 400 BAD_REFRESH_TOKEN (or invalid_grant)
      if (res.status === 400 && (answer.error === 'invalid_grant' || answer.status === 'BAD_REFRESH_TOKEN')) throw new InvalidGrant();
      if (res.status !== 200) throw refused(`${NAME} did not accept the app's credentials or refresh token (HTTP ${res.status}${answer.message ? `: ${answer.message}` : ''}).`);
      const accessToken = requireField(answer.access_token, NAME, 'an access token');
      return {
        token: { accessToken, expiresOn: new Date(Date.now() + (answer.expires_in ?? 1800) * 1000) },
        rotated: answer.refresh_token && answer.refresh_token !== settings.refreshToken ? { refreshToken: answer.refresh_token } : undefined,
      };
    },
  }) : null;
  // the limits are the account's: keyed by the credential that reaches it
  const key = createHash('sha256').update(oauth ? `oauth:${ctx.settings.refreshToken ?? ''}` : `pat:${ctx.settings.accessToken ?? ''}`).digest('hex');
  const client = vendorClient({
    system: 'hubspot', name: NAME, baseUrl: HUBSPOT_API, signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    pace: sharedPacer(`hubspot:${key}`, HUBSPOT_BURST.calls, HUBSPOT_BURST.windowMs),
    async auth(force) {
      if (session) return { authorization: `Bearer ${await session.accessToken(force)}` };
      if (!ctx.settings.accessToken) throw refused('Enter the private app\'s access token.');
      return { authorization: `Bearer ${ctx.settings.accessToken}` };
    },
    messageOf: hubspotMessageOf,
    quota(res, body) {
      if (res.status !== 429 || (body as { policyName?: unknown } | null)?.policyName !== 'DAILY') return null;
      // HubSpot renews the daily limit at midnight in the account's time zone: look again in an hour
      const at = new Date(Date.now() + 60 * 60_000);
      return new QuotaExhausted(`${NAME}'s daily API limit is spent; the formula tries again at ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC (HubSpot renews it at midnight in the account's time zone).`, at);
    },
  });
  return { client, session, searches: sharedPacer(`hubspot-search:${key}`, HUBSPOT_SEARCHES_PER_SECOND), account: key };
}
