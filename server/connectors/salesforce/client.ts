/**
 * A Salesforce REST API session for one call of a connector, on the connector kit. Our own small
 * client (no SDK: jsforce is not among the project's packages, and the few resources used here,
 * query, describe and sObject Collections, are plain JSON over HTTPS).
 *
 * Sign-in: the token endpoint of the login host (login.salesforce.com, test.salesforce.com for a
 * sandbox org, or the org's My Domain) with the connection's flow: the refresh token Connect saved
 * (web server flow), the username-password flow or client credentials. The answer names the org's
 * instance URL, where every API call goes; it is sealed together with the access token it came
 * with, so a token saved by another worker is always used against its own org's host. Salesforce's token answer carries
 * no lifetime (sessions last as the org's session settings say, two hours by default): a token is
 * taken to live an hour, and a 401 sooner refreshes it once (vendorClient).
 *
 * Limits: every answer's Sforce-Limit-Info (`api-usage=18/15000`) is read into `usage`; a spent
 * daily allowance (403 REQUEST_LIMIT_EXCEEDED) pauses the formula; 429/503 with Retry-After are
 * waited for through vendorClient. Error bodies are Salesforce's list of { message, errorCode, fields }.
 */
import type { SystemId } from '../../../src/domain/connectors/types.ts';
import { salesforceLoginHost } from '../../../src/domain/connectors/oauth.ts';
import { processingError, refused, transientProblem, type ConnectorContext } from '../connector.ts';
import { oauthClient } from '../oauth/flow.ts';
import { InvalidGrant, oauthSession, type OAuthSession } from '../kit/oauthSession.ts';
import { QuotaExhausted } from '../kit/problems.ts';
import { vendorClient, type VendorCall, type VendorClient } from '../kit/vendorClient.ts';
import { form, FORM, requireField, vendorFetch } from '../vendorHttp.ts';

/** The REST API version every call uses: set here and nowhere else. */
export const SALESFORCE_API_VERSION = 'v62.0';
/** The API's root on an org's instance. */
export const API_ROOT = `/services/data/${SALESFORCE_API_VERSION}`;
/** How long a token is taken to live: Salesforce does not say, and a 401 refreshes one sooner. */
export const ASSUMED_TOKEN_LIFETIME_MS = 60 * 60_000;

const NAME = 'Salesforce';

interface TokenAnswer { access_token?: string; instance_url?: string; error?: string; error_description?: string }

/** Salesforce's error items: { message, errorCode, fields } in error bodies, { statusCode, message, fields } in collection results. */
export interface SalesforceError { message?: string; errorCode?: string; statusCode?: string; fields?: string[] }

/** The vendor's words for an error item: "REQUIRED_FIELD_MISSING: Required fields are missing: [LastName] (LastName)". */
export function errorWords(e: SalesforceError): string {
  const code = e.errorCode ?? e.statusCode;
  const fields = e.fields?.length ? ` (${e.fields.join(', ')})` : '';
  return `${code ? `${code}: ` : ''}${e.message ?? ''}${fields}`.trim();
}

export function salesforceMessageOf(body: unknown): string {
  const list = Array.isArray(body) ? body as SalesforceError[] : body && typeof body === 'object' ? [body as SalesforceError] : [];
  return list.map(errorWords).filter(Boolean).join('; ').slice(0, 500);
}

/** Sforce-Limit-Info's daily API usage: `api-usage=25/15000` (other parts, such as per-app usage, follow after `;`). */
export function limitInfo(header: string | undefined): { used: number; max: number } | null {
  const m = /api-usage=(\d+)\/(\d+)/.exec(header ?? '');
  return m ? { used: Number(m[1]), max: Number(m[2]) } : null;
}

/** Where a connection signs in: its My Domain, else test.salesforce.com for a sandbox org, else login.salesforce.com. */
export const salesforceTokenUrl = (settings: Record<string, string>) => `${salesforceLoginHost(settings)}/services/oauth2/token`;

/** The token exchange for the connection's way of signing in. */
export async function exchangeToken(system: SystemId, settings: Record<string, string>, signal: AbortSignal | undefined) {
  const type = settings.authenticationType;
  let body: Record<string, string | undefined>;
  if (type === 'oauth') {
    const app = oauthClient(system, settings);
    if (!app) throw refused(`Enter the connected app's consumer key and secret, or ask whoever runs Tributary to set them for ${NAME}.`);
    if (!settings.refreshToken) throw refused(`Not connected yet: use Connect to ${NAME}.`);
    body = { grant_type: 'refresh_token', client_id: app.clientId, client_secret: app.clientSecret, refresh_token: settings.refreshToken };
  } else if (type === 'client-credentials') {
    body = { grant_type: 'client_credentials', client_id: settings.clientId, client_secret: settings.clientSecret };
  } else {
    body = {
      grant_type: 'password', client_id: settings.clientId, client_secret: settings.clientSecret,
      username: settings.username, password: `${settings.password ?? ''}${settings.securityToken ?? ''}`,
    };
  }
  const res = await vendorFetch(system, NAME, salesforceTokenUrl(settings), { method: 'POST', headers: FORM, body: form(body), signal });
  const text = await res.text();
  let answer: TokenAnswer = {};
  try { answer = JSON.parse(text) as TokenAnswer; } catch { /* below */ }
  if (res.status === 400 && answer.error === 'invalid_grant') {
    // a refresh token Salesforce no longer accepts: the data source needs reconnecting
    if (type === 'oauth') throw new InvalidGrant();
    throw refused(`${NAME} refused the sign-in: ${answer.error_description ?? 'authentication failure'}.`);
  }
  // an outage at the sign-in is worth retrying, as one at any other call is
  if (res.status >= 500) throw transientProblem(processingError(`${NAME} answered with a server error (HTTP ${res.status}). Try again later.`));
  if (res.status !== 200) throw refused(`${NAME} did not accept the credentials (HTTP ${res.status}${answer.error ? `: ${answer.error}` : ''}).`);
  const accessToken = requireField(answer.access_token, NAME, 'an access token');
  const instanceUrl = requireField(answer.instance_url, NAME, 'an instance URL');
  if (!/^https:\/\/[^/]+$/.test(instanceUrl.replace(/\/$/, ''))) throw processingError(`${NAME} answered with an instance URL that is not an https host.`);
  return { accessToken, instanceUrl: instanceUrl.replace(/\/$/, '') };
}

export interface SalesforceApi {
  /** a call on the org's instance (paths under API_ROOT, or nextRecordsUrl as Salesforce gives it) */
  call<T = unknown>(req: VendorCall): Promise<T>;
  /** the daily API usage Salesforce reported last, if it did */
  usage(): { used: number; max: number } | null;
  /** the org's instance URL, once a token is at hand */
  instanceUrl(): string | null;
  /** the org's instance URL, signing in first when no token is at hand */
  instance(): Promise<string>;
  session: OAuthSession;
  client: VendorClient;
}

/** The access token and its org's instance URL, kept as one sealed value. */
const joinToken = (instanceUrl: string, accessToken: string) => `${instanceUrl} ${accessToken}`;
function splitToken(joined: string): { instanceUrl: string; accessToken: string } {
  const at = joined.indexOf(' ');
  return { instanceUrl: joined.slice(0, at), accessToken: joined.slice(at + 1) };
}

export function salesforceApi(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): SalesforceApi {
  const system: SystemId = 'salesforce';
  const store = ctx.dataSourceId ? ctx.grant : undefined;
  let usage: { used: number; max: number } | null = null;
  let instanceUrl: string | null = null;
  const session = oauthSession({
    system, name: NAME, settings: ctx.settings, store,
    async exchange(settings) {
      const t = await exchangeToken(system, settings, ctx.signal);
      return {
        token: { accessToken: joinToken(t.instanceUrl, t.accessToken), expiresOn: new Date(Date.now() + ASSUMED_TOKEN_LIFETIME_MS) },
        about: new URL(t.instanceUrl).host,
      };
    },
  });
  const token = async (force = false) => {
    const t = splitToken(await session.accessToken(force));
    instanceUrl = t.instanceUrl;
    return t.accessToken;
  };
  const client = vendorClient({
    system, name: NAME, signal: ctx.signal, ...(opts.sleep ? { sleep: opts.sleep } : {}),
    baseUrl: () => instanceUrl ?? salesforceLoginHost(session.settings()),
    auth: async (force) => ({ authorization: `Bearer ${await token(force)}` }),
    messageOf: salesforceMessageOf,
    observe(res) { usage = limitInfo(res.header?.('sforce-limit-info')) ?? usage; },
    quota(res, body) {
      if (res.status !== 403 || !Array.isArray(body) || !(body as SalesforceError[]).some((e) => e.errorCode === 'REQUEST_LIMIT_EXCEEDED')) return null;
      // the allowance is counted over a rolling 24 hours: an hour on, some of it is free again
      const at = new Date(Date.now() + 60 * 60_000);
      const seen = usage ? ` (${usage.used} of ${usage.max} requests used)` : '';
      return new QuotaExhausted(`${NAME}'s daily API request allowance is spent${seen}; the formula goes on at ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC.`, at);
    },
  });
  return {
    session, client,
    usage: () => usage,
    instanceUrl: () => instanceUrl,
    async instance() {
      await token();
      return instanceUrl!;
    },
    async call<T>(req: VendorCall): Promise<T> {
      // the instance URL comes with a token: one is at hand before the first call is addressed
      await token();
      return client.call<T>(req);
    },
  };
}
