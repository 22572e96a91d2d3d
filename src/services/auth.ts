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

/** What the app reads of the SDK's React context: its state, and the calls the adapter makes. */
export type AuthSdkState = Auth0Like & Pick<Auth0ContextInterface<User>, 'isLoading' | 'isAuthenticated' | 'error'>;

/** The SDK's own test for a sign-in response in the address: a code (or an error) with its state. */
const SIGN_IN_RESPONSE = [/[?&](?:connect_)?code=[^&]+|[?&]error=[^&]+/, /[?&]state=[^&]+/];
/** The cookie the SDK sets at every sign-in (`auth0.<clientId>.is.authenticated`), its `_legacy_` twin, and the older name without a client id. */
const SESSION_COOKIE = /(?:^|;\s*)(?:_legacy_)?auth0\.(?:[^=;]+\.)?is\.authenticated=/;
/** The prefix of the SDK's token cache in localStorage, from which it reads the user even without the cookie. */
const CACHE_PREFIX = '@@auth0spajs@@';

/**
 * Whether the SDK may find a session when the page opens, read at once and before the SDK is
 * loaded: a sign-in response in the address, the SDK's session cookie, or its token cache. Where
 * none is there the visitor is a guest, and the SDK (a large package) waits until they sign in.
 * Anything that cannot be read counts as a possible session.
 */
export function sessionMayExist(place: { search: string; cookie: () => string; storageKeys: () => string[] }): boolean {
  if (SIGN_IN_RESPONSE.every((re) => re.test(place.search))) return true;
  try {
    return SESSION_COOKIE.test(place.cookie()) || place.storageKeys().some((key) => key.startsWith(CACHE_PREFIX));
  } catch {
    return true;
  }
}

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
