/** The identity adapter: the unmodified Auth0 SDK, configured with SPEC.md's identity constants. */
import { Auth0Client } from '@auth0/auth0-spa-js';
import { IDENTITY, type AppConfig } from '../domain/identity.ts';

export interface AuthUser { sub: string; email: string; name: string }

export interface AuthService {
  /** completes a sign-in redirect when the address holds code and state, and removes both from it */
  handleRedirect(): Promise<{ returnTo?: string } | null>;
  isAuthenticated(): Promise<boolean>;
  user(): Promise<AuthUser | undefined>;
  accessToken(opts?: { refresh?: boolean }): Promise<string>;
  login(returnTo?: string): Promise<void>;
  logout(): Promise<void>;
  clientId: string;
}

export function createAuthService(config: AppConfig): AuthService {
  const client = new Auth0Client({
    domain: config.auth.domain,
    clientId: config.auth.clientId,
    authorizationParams: { audience: config.auth.audience, redirect_uri: window.location.origin, scope: IDENTITY.scope },
    useRefreshTokens: true,
    useRefreshTokensFallback: false,
    cacheLocation: 'localstorage',
    leeway: IDENTITY.leewaySeconds,
    httpTimeoutInSeconds: IDENTITY.httpTimeoutSeconds,
    authorizeTimeoutInSeconds: IDENTITY.authorizeTimeoutSeconds,
  });
  return {
    clientId: config.auth.clientId,
    async handleRedirect() {
      const q = new URLSearchParams(window.location.search);
      if (!((q.has('code') || q.has('error')) && q.has('state'))) return null;
      const result = await client.handleRedirectCallback<{ returnTo?: string }>();
      // the sign-in response's own parameters leave the address (iss: RFC 9207)
      for (const k of ['code', 'state', 'iss', 'error', 'error_description']) q.delete(k);
      const rest = q.toString();
      window.history.replaceState({}, document.title, `${window.location.pathname}${rest ? `?${rest}` : ''}`);
      return result.appState ?? {};
    },
    isAuthenticated: () => client.isAuthenticated(),
    user: () => client.getUser<AuthUser>(),
    async accessToken(opts) {
      const token = await client.getTokenSilently({ cacheMode: opts?.refresh ? 'off' : 'on' });
      if (!token) throw new Error('No access token');
      return token;
    },
    login: (returnTo) => client.loginWithRedirect({ appState: { returnTo } }),
    logout: () => client.logout({ logoutParams: { returnTo: window.location.origin } }),
  };
}
