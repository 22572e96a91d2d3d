/** Calls a gateway service as the browser does: bearer token plus the identity headers. */
import { decodeJwt } from 'jose';
import { signIn, type Tokens } from './oidc.ts';
import { DEMO_PASSWORD } from '../../server/db/seed.ts';

export interface Session {
  tokens: Tokens;
  headers: Record<string, string>;
  orgId: string;
  auth0Id: string;
  email: string;
}

export async function orgIdFor(baseUrl: string, subdomain = 'demo'): Promise<string> {
  const res = await fetch(`${baseUrl}/account-management/v1/authentication/organization/subdomain/${subdomain}`);
  return ((await res.json()) as { organizationId: string }).organizationId;
}

export async function sessionFor(baseUrl: string, email: string, password = DEMO_PASSWORD): Promise<Session> {
  const tokens = await signIn({ baseUrl, email, password });
  const orgId = await orgIdFor(baseUrl);
  const auth0Id = decodeJwt(tokens.access_token).sub!;
  return {
    tokens, orgId, auth0Id, email,
    headers: {
      authorization: `Bearer ${tokens.access_token}`,
      orgId, clientId: 'tributary-app', userId: auth0Id, userEmail: email,
    },
  };
}

export function call(baseUrl: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  return fetch(`${baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
  });
}
