/**
 * A SKY API session for one call of a connector: the OAuth grant through the connector kit (the
 * refresh token exchanged at oauth2.sky.blackbaud.com/token with the application id and secret in
 * HTTP Basic; rotated on each refresh of a saved data source, kept while settings are only being
 * tested, since the user has not saved them yet), and the API client on api.sky.blackbaud.com
 * with the Bb-Api-Subscription-Key header. SKY API limits calls per second (paced on our side, and a
 * 429 with Retry-After waited for) and per day (403 "Out of call volume quota" with Retry-After: the formula pauses).
 * Both Blackbaud products on SKY API use it: Raiser's Edge NXT (renxt.ts) and Financial Edge NXT
 * (fenxt.ts), which read their lists the same way (lists.ts).
 */
import { createHash } from 'node:crypto';
import type { SystemId } from '../../../src/domain/connectors/types.ts';
import { refused, type ConnectorContext, type TestOutcome } from '../connector.ts';
import { oauthClient } from '../oauth/flow.ts';
import { InvalidGrant, oauthSession, type OAuthSession } from '../kit/oauthSession.ts';
import { sharedPacer } from '../kit/pace.ts';
import { QuotaExhausted, retryAfterMs } from '../kit/problems.ts';
import { defaultMessageOf, vendorClient, type VendorClient } from '../kit/vendorClient.ts';
import { basic, expectJson, form, FORM, requireField, vendorFetch } from '../vendorHttp.ts';

export const SKY_API = 'https://api.sky.blackbaud.com';
export const SKY_TOKEN_URL = 'https://oauth2.sky.blackbaud.com/token';
/** SKY API's rate limit per subscription (its Standard tier); a 429 past it is still waited for */
export const SKY_CALLS_PER_SECOND = 10;

interface SkyToken { access_token?: string; refresh_token?: string; expires_in?: number; environment_id?: string; environment_name?: string; legal_entity_name?: string }

export interface Sky {
  client: VendorClient;
  session: OAuthSession;
  /** the Blackbaud environment the grant leads to (its id, as in `p-…`), signing in first when no token is at hand; null when SKY did not say */
  environment(): Promise<string | null>;
}

/**
 * The access token and the environment it is for, kept as one sealed value (a token saved before
 * the environment was kept has no space, and no environment).
 */
const ENVIRONMENT_ID = /^[A-Za-z0-9-]{1,100}$/;
const joinToken = (environmentId: string | undefined, accessToken: string) => (environmentId && ENVIRONMENT_ID.test(environmentId) ? `${environmentId} ${accessToken}` : accessToken);
function splitToken(joined: string): { environmentId: string | null; accessToken: string } {
  const at = joined.indexOf(' ');
  return at < 0 ? { environmentId: null, accessToken: joined } : { environmentId: joined.slice(0, at), accessToken: joined.slice(at + 1) };
}

export function skySession(ctx: ConnectorContext, system: SystemId, name: string, opts: { sleep?: (ms: number) => Promise<void> } = {}): Sky {
  const store = ctx.dataSourceId ? ctx.grant : undefined;
  const session = oauthSession({
    system, name, settings: ctx.settings, store,
    async exchange(settings) {
      // the connection's application, else the server's (OAUTH_CLIENT_ID_<SYSTEM>)
      const app = oauthClient(system, settings);
      if (!app) throw refused(`Enter the application's ID and secret, or ask whoever runs Tributary to set them for ${name}.`);
      if (!settings.refreshToken) throw refused(`Not connected yet: use Connect to ${name}.`);
      const res = await vendorFetch(system, name, SKY_TOKEN_URL, {
        method: 'POST',
        headers: { ...FORM, authorization: basic(app.clientId, app.clientSecret) },
        body: form({ grant_type: 'refresh_token', refresh_token: settings.refreshToken, preserve_refresh_token: store ? undefined : 'true' }),
        signal: ctx.signal,
      });
      if (res.status === 400) {
        const text = await res.text();
        let code: unknown;
        try { code = (JSON.parse(text) as { error?: unknown }).error; } catch { /* not JSON: the generic refusal below */ }
        if (code === 'invalid_grant') throw new InvalidGrant();
        return expectJson(name, { status: res.status, text: async () => text }, 'the application credentials or refresh token') as never;
      }
      const token = await expectJson<SkyToken>(name, res, 'the application credentials or refresh token');
      const accessToken = requireField(token.access_token, name, 'an access token');
      return {
        token: { accessToken: joinToken(token.environment_id, accessToken), expiresOn: new Date(Date.now() + (token.expires_in ?? 3600) * 1000) },
        rotated: token.refresh_token && token.refresh_token !== settings.refreshToken ? { refreshToken: token.refresh_token } : undefined,
        about: token.environment_name ?? token.legal_entity_name,
      };
    },
  });
  const client = vendorClient({
    system, name, baseUrl: SKY_API, signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    // the limit is the subscription's, whichever data source or worker call uses it
    pace: sharedPacer(`${system}:${createHash('sha256').update(ctx.settings.subscriptionKey ?? '').digest('hex')}`, SKY_CALLS_PER_SECOND),
    auth: async (force) => ({ authorization: `Bearer ${splitToken(await session.accessToken(force)).accessToken}`, 'bb-api-subscription-key': ctx.settings.subscriptionKey ?? '' }),
    messageOf: defaultMessageOf,
    quota(res, body) {
      if (res.status !== 403) return null;
      const wait = retryAfterMs(res.header?.('retry-after'));
      if (wait === null && !/quota/i.test(defaultMessageOf(body))) return null;
      const ms = wait ?? 60 * 60_000;
      const at = new Date(Date.now() + ms);
      return new QuotaExhausted(`${name}'s daily API quota is spent; the formula goes on at ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC, when Blackbaud renews it.`, at);
    },
  });
  return { client, session, environment: async () => splitToken(await session.accessToken()).environmentId };
}

/**
 * A SKY API connection test: the refresh token itself is exchanged (not a token saved earlier),
 * then one read of the product's own API (`probe`) proves the subscription key and the
 * environment's access to that product.
 */
export async function skyTest(ctx: ConnectorContext, system: SystemId, name: string, probe: string): Promise<TestOutcome> {
  const { client, session } = skySession(ctx, system, name);
  await session.exchangeNow();
  await client.call({ path: probe, query: { limit: 1 } });
  const where = session.about();
  const rotated = session.rotated();
  return { detail: `Signed in to ${name}${where ? ` (${where})` : ''}.`, ...(rotated ? { updatedSecrets: rotated } : {}) };
}
