/** The identity adapter over the unmodified Auth0 SDK (@auth0/auth0-react's context). */
import type { Auth0ContextInterface, User } from '@auth0/auth0-react';
import { IDENTITY, type AppConfig } from '../domain/identity.ts';

export interface AuthUser { sub: string; email: string; name: string }

export interface AuthService {
  user(): AuthUser | undefined;
  accessToken(): Promise<string>;
  login(): Promise<void>;
  /** ends the session here and at the provider (leaves the page) */
  logout(): Promise<void>;
  /** forgets the session in this browser only (login_required, missing refresh token) */
  logoutLocally(): Promise<void>;
  clientId: string;
}

export type Auth0Like = Pick<Auth0ContextInterface<User>, 'loginWithRedirect' | 'logout' | 'getAccessTokenSilently' | 'user'>;

/** Options for <Auth0Provider>, with SPEC.md section 9's identity constants. */
export function auth0ProviderOptions(config: AppConfig) {
  return {
    domain: config.auth.domain,
    clientId: config.auth.clientId,
    authorizationParams: { audience: config.auth.audience, redirect_uri: window.location.origin, scope: IDENTITY.scope },
    useRefreshTokens: true,
    useRefreshTokensFallback: false,
    cacheLocation: 'localstorage' as const,
    leeway: IDENTITY.leewaySeconds,
    httpTimeoutInSeconds: IDENTITY.httpTimeoutSeconds,
    authorizeTimeoutInSeconds: IDENTITY.authorizeTimeoutSeconds,
    /** the sign-in response's parameters (code, state, iss) leave the address */
    onRedirectCallback: () => window.history.replaceState({}, document.title, '/'),
  };
}

/** `current` always returns the latest context, which changes as the SDK's state does. */
export function auth0Adapter(current: () => Auth0Like, clientId: string): AuthService {
  return {
    clientId,
    user: () => current().user as AuthUser | undefined,
    async accessToken() {
      const token = await current().getAccessTokenSilently();
      if (!token) throw new Error('No access token');
      return token;
    },
    login: () => current().loginWithRedirect(),
    logout: () => current().logout({ logoutParams: { returnTo: window.location.origin } }),
    logoutLocally: () => current().logout({ openUrl: false }),
  };
}
