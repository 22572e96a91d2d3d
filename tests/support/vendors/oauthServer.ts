/**
 * A local OAuth 2.0 authorization server answering as SKY API and Salesforce document their
 * authorization code flow (with PKCE S256), one path prefix per system (point
 * CONNECTOR_BASE_URL_<SYSTEM> at `${url}/<system>`):
 * - SKY API (renxt, fenxt): GET /oauth/authorize, POST /token with the application's id and secret
 *   as HTTP Basic; the answer carries environment_name (developer.blackbaud.com/skyapi/docs/authorization/auth-code-flow).
 * - Salesforce: GET /services/oauth2/authorize, POST /services/oauth2/token with client_id and
 *   client_secret in the body; the answer carries instance_url (help.salesforce.com, OAuth 2.0 Web Server Flow).
 *   An access token it issued is accepted at GET /services/data/vXX.X/ (the call a connection test makes).
 * The consent page is decided by `consent` (the user grants or declines) and answers at once with a
 * redirect to redirect_uri. The token endpoint checks everything a vendor checks: the grant type,
 * a code it issued and not yet used, the same redirect_uri and client, the verifier of the
 * challenge, and the application's credentials; each refusal is an RFC 6749 section 5.2 error. A
 * refresh token it issued is accepted with grant_type=refresh_token. Those checks (codeGrants) serve
 * the SKY API fake's own consent and token endpoints too.
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

/** An answer the fake sends: a status and a JSON body. */
export interface Refusal { status: number; body: { error: string; error_description?: string } }

/** What the user does on the consent page, and the authorize requests seen, shared by a fake and its checks. */
export interface ConsentState {
  consent: 'grant' | 'deny';
  authorizeRequests: Record<string, string>[];
}

/**
 * The authorization code grant as a vendor checks it, for any fake that serves one (this server,
 * and the SKY API fake, tests/support/vendors/skyApi.ts): the authorize request, the application's
 * credentials at the token endpoint, and the code's redemption.
 */
export interface CodeGrants {
  /** what a vendor answers an authorize request at once, before asking the user: a refusal, or a redirect with an error; null when it may ask */
  problem(system: OAuthSystem, query: Record<string, string>): { redirect: string } | Refusal | null;
  /**
   * GET authorize: the redirect_uri to send the browser back to (with the code, or the error, and
   * the state), or the refusal a vendor shows on its own page rather than redirecting (RFC 6749
   * section 4.1.2.1). `decision` is the user's on a consent page; without one, `state.consent` decides.
   */
  authorize(system: OAuthSystem, query: Record<string, string>, decision?: 'grant' | 'deny'): { redirect: string } | Refusal;
  /** the application's id and secret, as the vendor takes them (HTTP Basic or in the body); a refusal when wrong */
  authenticate(system: OAuthSystem, authorization: string | undefined, form: Record<string, string>): Refusal | null;
  /** grant_type=authorization_code: a code issued for this system, not used yet, the same redirect_uri, the challenge's verifier; a refusal when not */
  redeem(system: OAuthSystem, form: Record<string, string>): Refusal | null;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url');

export function codeGrants(state: ConsentState): CodeGrants {
  const codes = new Map<string, Issued>();
  let counter = 0;
  const back = (q: Record<string, string>, error?: string) => {
    const url = new URL(q.redirect_uri!);
    if (q.state) url.searchParams.set('state', q.state);
    if (error) url.searchParams.set('error', error);
    return url;
  };
  const problem: CodeGrants['problem'] = (sys, q) => {
    if (q.client_id !== OAUTH_APPS[sys].clientId || !q.redirect_uri) return { status: 400, body: { error: 'invalid_client' } };
    if (q.response_type !== 'code') return { redirect: back(q, 'unsupported_response_type').toString() };
    if (!q.code_challenge || q.code_challenge_method !== 'S256') return { redirect: back(q, 'invalid_request').toString() };
    return null;
  };
  return {
    problem,
    authorize(sys, q, decision) {
      state.authorizeRequests.push(q);
      const refused = problem(sys, q);
      if (refused) return refused;
      if ((decision ?? state.consent) === 'deny') return { redirect: back(q, 'access_denied').toString() };
      const code = `code-${sys}-${++counter}`;
      codes.set(code, { system: sys, clientId: q.client_id!, redirectUri: q.redirect_uri!, challenge: q.code_challenge!, used: false });
      const url = back(q);
      url.searchParams.set('code', code);
      return { redirect: url.toString() };
    },
    authenticate(sys, authorization, form) {
      const app = OAUTH_APPS[sys];
      const [clientId, clientSecret] = FLAVOUR[sys].auth === 'basic'
        ? Buffer.from(/^Basic (.+)$/.exec(authorization ?? '')?.[1] ?? '', 'base64').toString('utf8').split(':')
        : [form.client_id, form.client_secret];
      return clientId === app.clientId && clientSecret === app.clientSecret ? null : { status: 401, body: { error: 'invalid_client', error_description: 'client authentication failed' } };
    },
    redeem(sys, form) {
      if (form.grant_type !== 'authorization_code') return { status: 400, body: { error: 'unsupported_grant_type' } };
      const issued = form.code ? codes.get(form.code) : undefined;
      if (!issued || issued.used || issued.system !== sys) return { status: 400, body: { error: 'invalid_grant', error_description: 'authorization code is invalid or expired' } };
      issued.used = true;
      if (issued.redirectUri !== form.redirect_uri) return { status: 400, body: { error: 'invalid_grant', error_description: 'redirect_uri mismatch' } };
      if (!form.code_verifier || s256(form.code_verifier) !== issued.challenge) return { status: 400, body: { error: 'invalid_grant', error_description: 'invalid code verifier' } };
      return null;
    },
  };
}

export interface OAuthServer extends ConsentState {
  url: string;
  /** answer the token endpoint with this status instead (a vendor outage) */
  tokenFailsWith: number | null;
  /** every token request's form, in order (every authorize request's parameters are in authorizeRequests) */
  tokenRequests: { system: OAuthSystem; form: Record<string, string>; authorization: string | undefined }[];
  /** the refresh tokens handed out, by system */
  issuedRefreshTokens: string[];
  close(): Promise<void>;
}

export async function startOAuthServer(): Promise<OAuthServer> {
  let counter = 0;
  const state: Omit<OAuthServer, 'url' | 'close'> = { consent: 'grant', tokenFailsWith: null, authorizeRequests: [], tokenRequests: [], issuedRefreshTokens: [] };
  const grants = codeGrants(state);
  const accessTokens = new Set<string>();
  const issue = (token: string) => { accessTokens.add(token); return token; };

  const server = await startVendorServer((req, res) => {
    const [, system, ...rest] = req.url.pathname.split('/');
    const path = `/${rest.join('/')}`;
    const send = (status: number, body: unknown) => sendJson(res, status, body);
    if (!system || !(system in FLAVOUR)) return send(404, { error: 'not_found' });
    const sys = system as OAuthSystem;
    const flavour = FLAVOUR[sys];

    if (req.method === 'GET' && path === flavour.authorize) {
      const answer = grants.authorize(sys, Object.fromEntries(req.url.searchParams));
      if (!('redirect' in answer)) return send(answer.status, answer.body);
      res.writeHead(302, { location: answer.redirect });
      return res.end();
    }

    if (req.method === 'POST' && path === flavour.token) {
      const form = Object.fromEntries(new URLSearchParams(req.raw));
      state.tokenRequests.push({ system: sys, form, authorization: req.headers.authorization });
      if (state.tokenFailsWith) return send(state.tokenFailsWith, { error: 'temporarily_unavailable' });
      if (!req.form) return send(400, { error: 'invalid_request' });
      const unknownClient = grants.authenticate(sys, req.headers.authorization, form);
      if (unknownClient) return send(unknownClient.status, unknownClient.body);
      // a refresh token this server issued buys a new access token (both vendors keep the refresh token by default)
      if (form.grant_type === 'refresh_token') {
        if (!form.refresh_token || !state.issuedRefreshTokens.includes(form.refresh_token)) return send(400, { error: 'invalid_grant', error_description: 'expired access/refresh token' });
        return send(200, sys === 'salesforce'
          ? { access_token: issue(`access-refreshed-${++counter}`), instance_url: 'https://riverside.my.salesforce.com', token_type: 'Bearer', issued_at: String(Date.now()) }
          : { access_token: `access-refreshed-${++counter}`, token_type: 'bearer', expires_in: 3600, refresh_token: form.refresh_token, environment_name: 'Riverside Production' });
      }
      const refusal = grants.redeem(sys, form);
      if (refusal) return send(refusal.status, refusal.body);
      counter++;
      const refreshToken = `refresh-${sys}-${counter}-${Math.random().toString(36).slice(2, 10)}`;
      state.issuedRefreshTokens.push(refreshToken);
      return send(200, sys === 'salesforce'
        ? { access_token: issue(`access-${counter}`), refresh_token: refreshToken, instance_url: 'https://riverside.my.salesforce.com', id: 'https://login.salesforce.com/id/00D/005', token_type: 'Bearer', issued_at: String(Date.now()), scope: 'api refresh_token' }
        : { access_token: `access-${counter}`, token_type: 'bearer', expires_in: 3600, refresh_token: refreshToken, refresh_token_expires_in: 31536000, environment_id: 'p-riverside', environment_name: 'Riverside Production', legal_entity_name: 'Riverside Food Bank' });
    }
    if (sys === 'salesforce' && req.method === 'GET' && /^\/services\/data\/v\d+\.\d\/$/.test(path)) {
      if (!accessTokens.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) return send(401, [{ errorCode: 'INVALID_SESSION_ID', message: 'Session expired or invalid' }]);
      return send(200, { sobjects: `${path}sobjects`, query: `${path}query` });
    }
    return send(404, { error: 'not_found' });
  });
  const api = state as OAuthServer;
  api.url = server.url;
  api.close = server.close;
  return api;
}
