/**
 * OAuth 2.0 authorization code with PKCE against the vendors of src/domain/connectors/oauth.ts:
 * the application's credentials (the connection's own, or the server's), the authorize URL, and
 * the exchange of the code at the vendor's token endpoint. Both hosts follow
 * CONNECTOR_BASE_URL_<SYSTEM> (vendorHttp.ts), so tests point them at a local fake.
 */
import { createHash } from 'node:crypto';
import { connectorFor } from '../../../src/domain/connectors/catalogue.ts';
import type { OAuthVendor } from '../../../src/domain/connectors/oauth.ts';
import type { SystemId } from '../../../src/domain/connectors/types.ts';
import { basic, form, FORM, vendorFetch, vendorUrl } from '../vendorHttp.ts';

export interface OAuthClient { clientId: string; clientSecret: string }

const variableSuffix = (system: SystemId) => system.toUpperCase().replace(/-/g, '_');
/** The server's application for a system: OAUTH_CLIENT_ID_<SYSTEM> and OAUTH_CLIENT_SECRET_<SYSTEM>. */
export const clientVariables = (system: SystemId) => ({ id: `OAUTH_CLIENT_ID_${variableSuffix(system)}`, secret: `OAUTH_CLIENT_SECRET_${variableSuffix(system)}` });

/**
 * The application a connection signs in as: the id and secret in its settings, else the server's
 * (set together or not at all); null when neither is there.
 */
export function oauthClient(system: SystemId, settings: Record<string, string | undefined>, env: NodeJS.ProcessEnv = process.env): OAuthClient | null {
  if (settings.clientId) return settings.clientSecret ? { clientId: settings.clientId, clientSecret: settings.clientSecret } : null;
  const names = clientVariables(system);
  const clientId = env[names.id];
  const clientSecret = env[names.secret];
  return clientId && clientSecret ? { clientId, clientSecret } : null;
}

/** Checks the server's applications at start: an id without its secret (or the other way round) is a mistake. */
export function checkClientVariables(systems: readonly SystemId[], env: NodeJS.ProcessEnv = process.env): void {
  for (const system of systems) {
    const names = clientVariables(system);
    if (Boolean(env[names.id]) !== Boolean(env[names.secret])) throw new Error(`${names.id} and ${names.secret} are set together or not at all`);
  }
}

const base64url = (b: Buffer) => b.toString('base64url');

/** RFC 7636: the S256 challenge of a verifier. */
export const codeChallenge = (verifier: string) => base64url(createHash('sha256').update(verifier, 'ascii').digest());

export function authorizeUrl(vendor: OAuthVendor, settings: Record<string, string>, p: { clientId: string; redirectUri: string; state: string; codeVerifier: string }): string {
  const url = new URL(vendorUrl(vendor.system, vendor.authorizeUrl(settings)).url);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', p.clientId);
  url.searchParams.set('redirect_uri', p.redirectUri);
  url.searchParams.set('state', p.state);
  if (vendor.scopes.length) url.searchParams.set('scope', vendor.scopes.join(' '));
  if (vendor.pkce) {
    url.searchParams.set('code_challenge', codeChallenge(p.codeVerifier));
    url.searchParams.set('code_challenge_method', 'S256');
  }
  return url.toString();
}

/** The exchange failed: `reason` says why in words the form can show. */
export class ExchangeFailed extends Error {
  override readonly name = 'ExchangeFailed';
}

export interface GrantedTokens {
  /** what is kept (OAuthVendor.keeps): the refresh token, or a lasting access token */
  grant: string;
  /** where the grant leads, as the vendor names it (a SKY API environment, a Salesforce instance) */
  where: string | null;
}

/** An OAuth error code as RFC 6749 section 5.2 spells them; anything else is not repeated to the user. */
const errorCode = (value: unknown) => (typeof value === 'string' && /^[a-z_]{1,64}$/.test(value) ? value : null);

/** Exchanges the code for tokens (RFC 6749 section 4.1.3); the refresh token (or a lasting access token) is what is kept. */
export async function exchangeCode(vendor: OAuthVendor, settings: Record<string, string>, client: OAuthClient, p: { code: string; redirectUri: string; codeVerifier: string }): Promise<GrantedTokens> {
  const name = connectorFor(vendor.system).name;
  const fields: Record<string, string | undefined> = {
    grant_type: 'authorization_code', code: p.code, redirect_uri: p.redirectUri,
    ...(vendor.pkce ? { code_verifier: p.codeVerifier } : {}),
    ...(vendor.clientAuthentication === 'body' ? { client_id: client.clientId, client_secret: client.clientSecret } : {}),
  };
  const res = await vendorFetch(vendor.system, name, vendor.tokenUrl(settings), {
    method: 'POST',
    headers: { ...FORM, accept: 'application/json', ...(vendor.clientAuthentication === 'basic' ? { authorization: basic(client.clientId, client.clientSecret) } : {}) },
    body: form(fields),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try { body = JSON.parse(text) as Record<string, unknown>; } catch { /* said below */ }
  if (res.status === 401 || (res.status === 400 && body.error === 'invalid_client')) {
    throw new ExchangeFailed(`it did not accept the application's ID and secret (HTTP ${res.status})`);
  }
  if (res.status >= 400 && res.status < 500) {
    const code = errorCode(body.error);
    throw new ExchangeFailed(code === 'invalid_grant'
      ? 'the authorization was not valid any more (invalid_grant)'
      : `it refused the request (HTTP ${res.status}${code ? `, ${code}` : ''})`);
  }
  if (res.status >= 500) throw new ExchangeFailed(`it answered with a server error (HTTP ${res.status}); try again later`);
  if (res.status !== 200) throw new ExchangeFailed(`it answered with HTTP ${res.status}`);
  const kept = vendor.keeps === 'access-token' ? body.access_token : body.refresh_token;
  if (typeof kept !== 'string' || !kept) throw new ExchangeFailed(`it answered without ${vendor.keeps === 'access-token' ? 'an access token' : 'a refresh token'}`);
  const where = [body.environment_name, body.legal_entity_name, body.instance_url].find((x): x is string => typeof x === 'string' && x.length > 0 && x.length <= 200);
  return { grant: kept, where: where ?? null };
}
