/**
 * A local OAuth 2.0 authorization server answering as SKY API and Salesforce document their
 * authorization code flow (with PKCE S256), one path prefix per system (point
 * CONNECTOR_BASE_URL_<SYSTEM> at `${url}/<system>`):
 * - SKY API (renxt, fenxt): GET /oauth/authorize, POST /token with the application's id and secret
 *   as HTTP Basic; the answer carries environment_name (developer.blackbaud.com/skyapi/docs/authorization/auth-code-flow).
 * - Salesforce: GET /services/oauth2/authorize, POST /services/oauth2/token with client_id and
 *   client_secret in the body; the answer carries instance_url (help.salesforce.com, OAuth 2.0 Web Server Flow).
 * The consent page is decided by `consent` (the user grants or declines) and answers at once with a
 * redirect to redirect_uri. The token endpoint checks everything a vendor checks: the grant type,
 * a code it issued and not yet used, the same redirect_uri and client, the verifier of the
 * challenge, and the application's credentials; each refusal is an RFC 6749 section 5.2 error. A
 * refresh token it issued is accepted with grant_type=refresh_token.
 */
import { createHash } from 'node:crypto';
import { sendJson, startVendorServer } from './harness.ts';

export const OAUTH_APPS = {
  renxt: { clientId: 'sky-app-id', clientSecret: 'sky-app-secret' },
  fenxt: { clientId: 'sky-app-id', clientSecret: 'sky-app-secret' },
  salesforce: { clientId: '3MVG9-consumer-key', clientSecret: 'sf-consumer-secret' },
} as const;
export type OAuthSystem = keyof typeof OAUTH_APPS;

const FLAVOUR: Record<OAuthSystem, { authorize: string; token: string; auth: 'basic' | 'body' }> = {
  renxt: { authorize: '/oauth/authorize', token: '/token', auth: 'basic' },
  fenxt: { authorize: '/oauth/authorize', token: '/token', auth: 'basic' },
  salesforce: { authorize: '/services/oauth2/authorize', token: '/services/oauth2/token', auth: 'body' },
};

interface Issued { system: OAuthSystem; clientId: string; redirectUri: string; challenge: string | null; used: boolean }

export interface OAuthServer {
  url: string;
  /** what the user does on the consent page */
  consent: 'grant' | 'deny';
  /** answer the token endpoint with this status instead (a vendor outage) */
  tokenFailsWith: number | null;
  /** every authorize request's parameters, and every token request's form, in order */
  authorizeRequests: Record<string, string>[];
  tokenRequests: { system: OAuthSystem; form: Record<string, string>; authorization: string | undefined }[];
  /** the refresh tokens handed out, by system */
  issuedRefreshTokens: string[];
  close(): Promise<void>;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

export async function startOAuthServer(): Promise<OAuthServer> {
  const codes = new Map<string, Issued>();
  let counter = 0;
  const state: Omit<OAuthServer, 'url' | 'close'> = { consent: 'grant', tokenFailsWith: null, authorizeRequests: [], tokenRequests: [], issuedRefreshTokens: [] };

  const server = await startVendorServer((req, res) => {
    const [, system, ...rest] = req.url.pathname.split('/');
    const path = `/${rest.join('/')}`;
    const send = (status: number, body: unknown) => sendJson(res, status, body);
    if (!system || !(system in FLAVOUR)) return send(404, { error: 'not_found' });
    const sys = system as OAuthSystem;
    const flavour = FLAVOUR[sys];
    const app = OAUTH_APPS[sys];

    if (req.method === 'GET' && path === flavour.authorize) {
      const q = Object.fromEntries(req.url.searchParams);
      state.authorizeRequests.push(q);
      // errors a vendor shows on its own page rather than redirecting (RFC 6749 section 4.1.2.1)
      if (q.client_id !== app.clientId || !q.redirect_uri) return send(400, { error: 'invalid_client' });
      const back = new URL(q.redirect_uri);
      if (q.state) back.searchParams.set('state', q.state);
      if (q.response_type !== 'code') back.searchParams.set('error', 'unsupported_response_type');
      else if (!q.code_challenge || q.code_challenge_method !== 'S256') back.searchParams.set('error', 'invalid_request');
      else if (state.consent === 'deny') back.searchParams.set('error', 'access_denied');
      else {
        const code = `code-${sys}-${++counter}`;
        codes.set(code, { system: sys, clientId: q.client_id, redirectUri: q.redirect_uri, challenge: q.code_challenge, used: false });
        back.searchParams.set('code', code);
      }
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }

    if (req.method === 'POST' && path === flavour.token) {
      const form = Object.fromEntries(new URLSearchParams(req.raw));
      state.tokenRequests.push({ system: sys, form, authorization: req.headers.authorization });
      if (state.tokenFailsWith) return send(state.tokenFailsWith, { error: 'temporarily_unavailable' });
      if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return send(400, { error: 'invalid_request' });
      const [clientId, clientSecret] = flavour.auth === 'basic'
        ? Buffer.from(/^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '', 'base64').toString('utf8').split(':')
        : [form.client_id, form.client_secret];
      if (clientId !== app.clientId || clientSecret !== app.clientSecret) return send(401, { error: 'invalid_client', error_description: 'client authentication failed' });
      // a refresh token this server issued buys a new access token (both vendors keep the refresh token by default)
      if (form.grant_type === 'refresh_token') {
        if (!form.refresh_token || !state.issuedRefreshTokens.includes(form.refresh_token)) return send(400, { error: 'invalid_grant', error_description: 'expired access/refresh token' });
        return send(200, sys === 'salesforce'
          ? { access_token: `access-refreshed-${++counter}`, instance_url: 'https://riverside.my.salesforce.com', token_type: 'Bearer', issued_at: String(Date.now()) }
          : { access_token: `access-refreshed-${++counter}`, token_type: 'bearer', expires_in: 3600, refresh_token: form.refresh_token, environment_name: 'Riverside Production' });
      }
      if (form.grant_type !== 'authorization_code') return send(400, { error: 'unsupported_grant_type' });
      const issued = form.code ? codes.get(form.code) : undefined;
      if (!issued || issued.used || issued.system !== sys) return send(400, { error: 'invalid_grant', error_description: 'authorization code is invalid or expired' });
      issued.used = true;
      if (issued.redirectUri !== form.redirect_uri) return send(400, { error: 'invalid_grant', error_description: 'redirect_uri mismatch' });
      if (!form.code_verifier || s256(form.code_verifier) !== issued.challenge) return send(400, { error: 'invalid_grant', error_description: 'invalid code verifier' });
      const refreshToken = `refresh-${sys}-${counter}-${Math.random().toString(36).slice(2, 10)}`;
      state.issuedRefreshTokens.push(refreshToken);
      return send(200, sys === 'salesforce'
        ? { access_token: `access-${counter}`, refresh_token: refreshToken, instance_url: 'https://riverside.my.salesforce.com', id: 'https://login.salesforce.com/id/00D/005', token_type: 'Bearer', issued_at: String(Date.now()), scope: 'api refresh_token' }
        : { access_token: `access-${counter}`, token_type: 'bearer', expires_in: 3600, refresh_token: refreshToken, refresh_token_expires_in: 31536000, environment_id: 'p-riverside', environment_name: 'Riverside Production', legal_entity_name: 'Riverside Food Bank' });
    }
    return send(404, { error: 'not_found' });
  });
  const api = state as OAuthServer;
  api.url = server.url;
  api.close = server.close;
  return api;
}
