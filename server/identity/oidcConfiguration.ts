/**
 * The embedded provider's oidc-provider configuration (DESIGN.md section 5): one public SPA client
 * (PKCE, refresh-token rotation), JWT access tokens for the API audience, Auth0's routes, sessions
 * and tokens kept in PostgreSQL, and pages a person can read in place of OAuth errors.
 */
import type pg from 'pg';
import { and, eq, isNull } from 'drizzle-orm';
import { errors, type Account, type Configuration, type Grant } from 'oidc-provider';
import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import { users } from '../db/schema/accounts.ts';
import { pgAdapterFactory } from './adapter.ts';
import type { IdentityKeys } from './keys.ts';
import { autoSubmitPage, escapeHtml, messagePage } from './loginPage.ts';
import { sessionEnded } from './sessions.ts';

const DAY = 24 * 60 * 60;
const TTL = {
  AccessToken: 60 * 60,
  IdToken: 60 * 60,
  AuthorizationCode: 60,
  RefreshToken: 14 * DAY,
  Session: 14 * DAY,
  Grant: 14 * DAY,
  Interaction: 60 * 60,
};
const API_SCOPE = 'openid profile email offline_access';

export const ROUTES = {
  authorization: '/authorize',
  token: '/oauth/token',
  end_session: '/v2/logout',
  jwks: '/.well-known/jwks.json',
  revocation: '/oauth/revoke',
  userinfo: '/userinfo',
} as const;

/** What a person is told when the provider cannot go on (renderError). */
function friendlyError(opts: { status: number; error: string | undefined; route: string | undefined; publicUrl: string }) {
  const signingOut = opts.route?.startsWith('end_session') ?? false;
  const title = signingOut ? 'Sign-out problem' : 'Sign-in problem';
  const back = { href: opts.publicUrl, text: 'Go to Tributary' };
  if (opts.status >= 500) return { title, message: 'Something went wrong on our side. Please try again in a few minutes.', link: back };
  if (opts.error === 'invalid_client') {
    return { title, message: 'This sign-in request did not come from Tributary. Open Tributary and sign in from there.', link: back };
  }
  if (opts.error === 'invalid_redirect_uri') {
    return {
      title,
      message: 'Tributary was opened at an address it does not sign in from. Open it at this address and sign in there:',
      link: { href: opts.publicUrl, text: opts.publicUrl },
    };
  }
  if (signingOut) {
    return { title, message: 'This sign-out link is not one Tributary can use. Open Tributary and sign out from its menu.', link: back };
  }
  return { title, message: 'This sign-in link has expired or is incomplete. Open Tributary and sign in again.', link: back };
}

export function oidcConfiguration(deps: {
  config: Config; db: Db; pool: pg.Pool; keys: IdentityKeys;
  /** the app's origins: where sign-in may return, with and without the trailing slash */
  appOrigins: Set<string>; appUris: string[];
  /** cookies only over https, as the public URL says */
  secure: boolean;
}): Configuration {
  const { config, db, pool, keys, appOrigins, appUris, secure } = deps;
  const audience = config.auth.audience;
  const clientId = config.auth.clientId;

async function findUserBySub(sub: string) {
  const [user] = await db.select({ email: users.email, fullName: users.fullName, sessionsValidAfter: users.sessionsValidAfter })
    .from(users)
    .where(and(eq(users.auth0Id, sub), isNull(users.deactivatedOn)))
    .limit(1);
  return user;
}

return {
  adapter: pgAdapterFactory(pool),
  clients: [{
    client_id: clientId,
    client_name: 'Tributary',
    application_type: 'web',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    redirect_uris: appUris,
    post_logout_redirect_uris: appUris,
    id_token_signed_response_alg: 'RS256',
  }],
  jwks: { keys: [keys.signing as never] },
  cookies: {
    keys: keys.cookieKeys,
    long: { httpOnly: true, sameSite: 'lax', secure },
    short: { httpOnly: true, sameSite: 'lax', secure },
  },
  routes: ROUTES,
  scopes: ['openid', 'profile', 'email', 'offline_access'],
  claims: {
    acr: null,
    sid: null,
    auth_time: null,
    iss: null,
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name', 'nickname'],
  },
  // the API refuses access tokens of a sign-in that has ended; refreshed tokens keep the sign-in's time
  extraTokenClaims: async (ctx, token) => {
    if (token.kind !== 'AccessToken') return undefined;
    const entities = (ctx?.oidc?.entities ?? {}) as Record<string, { authTime?: number } | undefined>;
    const authTime = entities.AuthorizationCode?.authTime ?? entities.RotatedRefreshToken?.authTime ?? entities.RefreshToken?.authTime;
    return typeof authTime === 'number' ? { auth_time: authTime } : undefined;
  },
  // the SDK reads name and email from the id token only
  conformIdTokenClaims: false,
  // the audience reaches only /authorize (Auth0's parameter, turned into a resource indicator)
  extraParams: ['audience'],
  responseTypes: ['code'],
  pkce: { required: () => true },
  clientBasedCORS: (_ctx, origin) => appOrigins.has(origin),
  // oidc-provider drops offline_access from the scope unless prompt=consent (OIDC Core 11), which the
  // SDK never sends: the SPA client gets a refresh token anyway. Such tokens stay bound to the
  // provider session (expiresWithSession), so /v2/logout revokes them.
  issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  rotateRefreshToken: true,
  ttl: {
    AccessToken: TTL.AccessToken,
    IdToken: TTL.IdToken,
    AuthorizationCode: TTL.AuthorizationCode,
    Session: TTL.Session,
    Grant: TTL.Grant,
    Interaction: TTL.Interaction,
    // absolute lifetime: a rotated token lives only as long as the one it replaces had left
    RefreshToken: (ctx) => {
      const rotated = ctx?.oidc?.entities.RotatedRefreshToken;
      return rotated ? Math.max(1, rotated.remainingTTL) : TTL.RefreshToken;
    },
    ClientCredentials: 600,
    DeviceCode: 600,
    BackchannelAuthenticationRequest: 600,
  },
  // also asked at every refresh and resumed sign-in: a sign-in from before the user's sessions
  // ended (server/identity/sessions.ts) finds no account, so it cannot be refreshed or resumed
  findAccount: async (ctx, sub, token) => {
    const user = await findUserBySub(sub);
    if (!user?.email) return undefined;
    const email = user.email;
    const signedInAt = token ? (token as { authTime?: number }).authTime ?? token.iat
      : (ctx?.oidc?.session as { loginTs?: number } | undefined)?.loginTs;
    if (sessionEnded(user.sessionsValidAfter, signedInAt)) return undefined;
    const account: Account = {
      accountId: sub,
      claims: async () => ({
        sub,
        email,
        email_verified: true,
        name: user.fullName,
        nickname: email.split('@')[0],
      }),
    };
    return account;
  },
  // first-party client: no consent screen; the grant covers what is requested
  loadExistingGrant: async (ctx) => {
    const { client, session, account } = ctx.oidc;
    if (!client || !session || !account) return undefined;
    const grantId = ctx.oidc.result?.consent?.grantId || session.grantIdFor(client.clientId);
    let grant: Grant | undefined = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
    if (grant && (grant.accountId !== account.accountId || grant.clientId !== client.clientId)) grant = undefined;
    grant ??= new ctx.oidc.provider.Grant({ accountId: account.accountId, clientId: client.clientId });
    const oidcScopes = [...ctx.oidc.requestParamOIDCScopes];
    if (oidcScopes.length) grant.addOIDCScope(oidcScopes.join(' '));
    const claims = [...ctx.oidc.requestParamClaims];
    if (claims.length) grant.addOIDCClaims(claims);
    for (const [indicator, server] of Object.entries(ctx.oidc.resourceServers ?? {})) {
      const scopes = [...ctx.oidc.requestParamScopes].filter((s) => server.scopes.has(s));
      if (scopes.length) grant.addResourceScope(indicator, scopes.join(' '));
    }
    await grant.save();
    return grant;
  },
  interactions: {
    url: (_ctx, interaction) => `/interaction/${interaction.uid}`,
  },
  features: {
    devInteractions: { enabled: false },
    introspection: { enabled: false },
    // on by default in oidc-provider, but not offered: its endpoint is not among the routes served
    // here (discovery would advertise a URL that answers 404), and the SDK never uses it
    pushedAuthorizationRequests: { enabled: false },
    // the API accepts access tokens as bearer tokens only and never checks a proof of possession,
    // so a DPoP-bound token would be no safer: do not advertise DPoP
    dPoP: { enabled: false },
    userinfo: { enabled: true },
    revocation: {
      enabled: true,
      allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (ctx) => {
        const requested = ctx.oidc.params?.audience;
        return typeof requested === 'string' && requested ? requested : audience;
      },
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, resourceIndicator) => {
        if (resourceIndicator !== audience) throw new errors.InvalidTarget();
        return {
          scope: API_SCOPE,
          audience: resourceIndicator,
          accessTokenFormat: 'jwt',
          accessTokenTTL: TTL.AccessToken,
          jwt: { sign: { alg: 'RS256' } },
        };
      },
    },
    rpInitiatedLogout: {
      enabled: true,
      logoutSource: async (ctx, form) => {
        const action = /action="([^"]*)"/.exec(form)?.[1] ?? ROUTES.end_session + '/confirm';
        const xsrf = /name="xsrf" value="([^"]*)"/.exec(form)?.[1] ?? '';
        ctx.type = 'html';
        ctx.body = autoSubmitPage({
          title: 'Signing out of Tributary',
          heading: 'Signing out…',
          actionHtml: escapeHtml(action),
          inputsHtml: `<input type="hidden" name="xsrf" value="${escapeHtml(xsrf)}">\n<input type="hidden" name="logout" value="yes">`,
          button: 'Sign out',
        });
      },
      postLogoutSuccessSource: async (ctx) => {
        ctx.type = 'html';
        ctx.body = messagePage({
          title: 'Signed out',
          message: 'You have signed out of Tributary.',
          link: { href: config.publicUrl, text: 'Return to Tributary' },
        });
      },
    },
  },
  // a plain explanation and a way back, never an OAuth error code or a stack trace; the error
  // itself is logged by the event listeners below
  renderError: async (ctx, out) => {
    ctx.type = 'html';
    ctx.body = messagePage(friendlyError({ status: ctx.status || 500, error: out.error, route: ctx.oidc?.route, publicUrl: config.publicUrl }));
  },
};
}
