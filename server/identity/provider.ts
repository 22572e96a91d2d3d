/**
 * The embedded Auth0-compatible OpenID provider (DESIGN.md section 5): oidc-provider with Auth0's
 * routes, one public SPA client (PKCE, refresh-token rotation), JWT access tokens for the API
 * audience, users and password hashes from the database, its own sign-in page, signing key,
 * cookie secrets, sessions and tokens persisted in PostgreSQL.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { JWK } from 'jose';
import { and, eq, isNull, sql } from 'drizzle-orm';
import Provider, {
  errors,
  type Account,
  type Configuration,
  type Grant,
  type Interaction,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import type { Config } from '../config.ts';
import { ACCOUNT_DEACTIVATED, accessEnded, membershipsOf } from '../db/accounts.ts';
import type { Db } from '../db/database.ts';
import { users } from '../db/schema/accounts.ts';
import { forTenant, type TenantScope } from '../db/tenancy.ts';
import { isAccessExpired } from '../../src/domain/roles.ts';
import { loginFailures } from '../db/schema/identity.ts';
import { hashPassword, needsRehash, verifyPassword } from './passwords.ts';
import { pgAdapterFactory, purgeExpired } from './adapter.ts';
import { loadIdentityKeys } from './keys.ts';
import { createSignInThrottle, tooManyAttempts } from './throttle.ts';
import { CONFIRM_EMAIL_PATH, RESET_PATH } from './passwordReset.ts';
import { confirmEmailPage } from './confirmEmailPage.ts';
import { passwordResetPage } from './resetPage.ts';
import { sessionEnded, signInWait } from './sessions.ts';
import {
  STATIC_PREFIX, autoSubmitPage, escapeHtml, loginPage, messagePage, staticAssets,
} from './loginPage.ts';

export interface Identity {
  /** `${config.publicUrl}/` (with the trailing slash: the Auth0 SDK expects iss = `${domain}/`) */
  issuer: string;
  /** true when this request's path belongs to the provider */
  owns(pathname: string): boolean;
  /** node handler for those requests */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** the public signing keys, for verifying access tokens in-process with jose.createLocalJWKSet */
  publicJwks: { keys: JWK[] };
}

export const WRONG_CREDENTIALS = 'Wrong e-mail or password.';

type SignInOutcome = 'succeeded' | 'wrong-password' | 'throttled' | 'account-deactivated' | 'access-expired';
/** the activity history's description, after the user's name */
const SIGN_IN_OUTCOMES: Record<SignInOutcome, string> = {
  'succeeded': 'signed in',
  'wrong-password': 'was refused sign-in: wrong password',
  'throttled': 'was refused sign-in: too many attempts',
  'account-deactivated': 'was refused sign-in: the account is deactivated',
  'access-expired': 'was refused sign-in: temporary access has ended',
};
const LOGIN_BODY_LIMIT = 10 * 1024;

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

const ROUTES = {
  authorization: '/authorize',
  token: '/oauth/token',
  end_session: '/v2/logout',
  jwks: '/.well-known/jwks.json',
  revocation: '/oauth/revoke',
  userinfo: '/userinfo',
} as const;
const EXACT_PATHS = new Set<string>([...Object.values(ROUTES), RESET_PATH, CONFIRM_EMAIL_PATH]);
const PREFIXES = ['/authorize/', '/v2/logout/', '/.well-known/', '/interaction/', STATIC_PREFIX];
const LOGOUT_PASSTHROUGH = ['id_token_hint', 'post_logout_redirect_uri', 'state', 'ui_locales', 'logout_hint'];
const ERROR_EVENTS = [
  'authorization.error', 'grant.error', 'end_session.error', 'end_session_confirm.error', 'end_session_success.error',
  'revocation.error', 'userinfo.error', 'jwks.error', 'discovery.error', 'introspection.error',
] as const;

/** compared against for unknown e-mails, so every attempt costs one scrypt; made once per process */
let dummyHashPromise: Promise<string> | undefined;
const dummyHashOnce = () => (dummyHashPromise ??= hashPassword(randomBytes(16).toString('hex')));

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

/**
 * Writes an event to a tenant's activity history: the services' one writer of events
 * (server/services/events.ts), handed in by server/main.ts, since the provider is below the services.
 */
export type ActivityRecorder = (tenant: TenantScope, event: {
  actor: { userId: string; name: string }; type: string; description: string; details: Record<string, unknown>; correlationId: string;
}) => Promise<unknown>;

export async function createIdentity(opts: {
  config: Config; db: Db; pool: pg.Pool; log: Logger;
  /** records sign-ins and their refusals */
  recordEvent: ActivityRecorder;
  /** epoch milliseconds for sign-in throttling; tests move it instead of waiting */
  clock?: () => number;
}): Promise<Identity> {
  const { config, db, pool } = opts;
  const log = opts.log.child({ component: 'identity' });
  const publicUrl = new URL(config.publicUrl);
  const publicOrigin = publicUrl.origin;
  const issuer = `${config.publicUrl}/`;
  const audience = config.auth.audience;
  const clientId = config.auth.clientId;
  // an origin that is not a valid URL (e.g. `http://demo.127.0.0.1:4000`, derived from an IP publicUrl) is left out
  const validOrigins = config.appOrigins.flatMap((o) => {
    const parsed = URL.parse(o);
    if (!parsed || !/^https?:$/.test(parsed.protocol)) {
      log.warn({ origin: o }, 'ignoring an app origin that is not a valid http(s) URL');
      return [];
    }
    return [parsed.origin];
  });
  if (!validOrigins.includes(publicUrl.origin)) validOrigins.unshift(publicUrl.origin);
  const appOrigins = new Set(validOrigins);
  // redirect_uri and returnTo: each origin with and without the trailing slash (the SDK uses window.location.origin)
  const appUris = [...appOrigins].flatMap((origin) => [origin, `${origin}/`]);
  const secure = publicUrl.protocol === 'https:';

  const keys = await loadIdentityKeys(pool);
  const throttle = createSignInThrottle(pool, config.signInThrottle, opts.clock);
  const dummyHash = await dummyHashOnce();

  async function findUserBySub(sub: string) {
    const [user] = await db.select({ email: users.email, fullName: users.fullName, sessionsValidAfter: users.sessionsValidAfter })
      .from(users)
      .where(and(eq(users.auth0Id, sub), isNull(users.deactivatedOn)))
      .limit(1);
    return user;
  }

  const configuration: Configuration = {
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

  const provider = new Provider(issuer, configuration);
  // URLs and cookie security follow config.publicUrl, whatever address the server listens on
  provider.proxy = true;
  // every listener here: Koa's default 'error' listener would write to the console
  const events = provider as unknown as EventEmitter;
  events.on('error', (err: unknown) => log.error({ err }, 'identity provider error'));
  events.on('server_error', (_ctx: unknown, err: unknown) => log.error({ err }, 'identity provider server error'));
  for (const event of ERROR_EVENTS) {
    events.on(event, (_ctx: unknown, err: { message?: string; error_description?: string }) => {
      log.info({ event, error: err?.message, description: err?.error_description }, 'identity request rejected');
    });
  }
  events.on('grant.revoked', (_ctx: unknown, grantId: string) => log.info({ grantId }, 'grant revoked'));

  // oidc-provider's form_post page (also used by /v2/logout when nobody is signed in) has an inline
  // script that the server's CSP blocks: serve the same form with the external auto-submit script.
  provider.use(async (ctx, next) => {
    await next();
    if (typeof ctx.body === 'string' && ctx.body.includes('<title>Submitting Callback</title>')) {
      const action = /<form method="post" action="([^"]*)">/.exec(ctx.body)?.[1] ?? '';
      const inputs = ctx.body.match(/<input type="hidden" name="[^"]*" value="[^"]*"\/>/g) ?? [];
      ctx.body = autoSubmitPage({
        title: 'Continuing to Tributary', heading: 'Continuing…', actionHtml: action, inputsHtml: inputs.join('\n'), button: 'Continue',
      });
    }
  });

  const callback = provider.callback();

  let lastPurge = 0;
  function maybePurge() {
    const now = Date.now();
    if (now - lastPurge < 10 * 60 * 1000) return;
    lastPurge = now;
    purgeExpired(pool).catch((err: unknown) => log.warn({ err }, 'could not purge expired identity rows'));
  }

  function sendHtml(res: ServerResponse, status: number, html: string) {
    res.statusCode = status;
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.end(html);
  }

  function expiredPage(res: ServerResponse) {
    sendHtml(res, 400, messagePage({
      title: 'Sign-in expired',
      message: 'This sign-in page has expired or was opened in another browser. Go back to Tributary and sign in again.',
      link: { href: config.publicUrl, text: 'Return to Tributary' },
    }));
  }

  async function readForm(req: IncomingMessage): Promise<URLSearchParams | 'too-large' | 'bad-type'> {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') return 'bad-type';
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > LOGIN_BODY_LIMIT) return 'too-large';
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > LOGIN_BODY_LIMIT) return 'too-large';
      chunks.push(chunk);
    }
    return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  }

  /** a one-time link's page: the password reset's or the new e-mail's confirmation */
  async function handleLinkPage(req: IncomingMessage, res: ServerResponse, url: URL) {
    const title = url.pathname === RESET_PATH ? 'Password reset' : 'E-mail confirmation';
    if (req.method !== 'GET' && req.method !== 'POST') {
      res.setHeader('Allow', 'GET, POST');
      return sendHtml(res, 405, messagePage({ title, message: 'This page takes GET and POST only.' }));
    }
    const form = req.method === 'POST' ? await readForm(req) : undefined;
    if (form === 'too-large' || form === 'bad-type') return sendHtml(res, form === 'too-large' ? 413 : 415, messagePage({ title, message: 'The form could not be read.' }));
    const page = url.pathname === RESET_PATH ? passwordResetPage : confirmEmailPage;
    const answer = await page(db, req.method, url.searchParams, form);
    sendHtml(res, answer.status, answer.html);
  }

  async function loadInteraction(req: IncomingMessage, res: ServerResponse, uid: string): Promise<Interaction | undefined> {
    try {
      const details = await provider.interactionDetails(req, res);
      return details.uid === uid ? details : undefined;
    } catch (err) {
      if (err instanceof errors.SessionNotFound) return undefined;
      throw err;
    }
  }

  async function finishConsent(req: IncomingMessage, res: ServerResponse, interaction: Interaction) {
    const { prompt: { details }, params, session } = interaction;
    const accountId = session?.accountId;
    if (!accountId) return expiredPage(res);
    let grant = interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined;
    grant ??= new provider.Grant({ accountId, clientId: String(params.client_id) });
    const missingScope = details.missingOIDCScope as string[] | undefined;
    const missingClaims = details.missingOIDCClaims as string[] | undefined;
    const missingResource = details.missingResourceScopes as Record<string, string[]> | undefined;
    if (missingScope?.length) grant.addOIDCScope(missingScope.join(' '));
    if (missingClaims?.length) grant.addOIDCClaims(missingClaims);
    for (const [indicator, scopes] of Object.entries(missingResource ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  async function showInteraction(req: IncomingMessage, res: ServerResponse, uid: string) {
    const interaction = await loadInteraction(req, res, uid);
    if (!interaction) return expiredPage(res);
    switch (interaction.prompt.name) {
      case 'login': {
        const hint = interaction.params.login_hint;
        return sendHtml(res, 200, loginPage({
          action: `/interaction/${uid}/login`,
          email: typeof hint === 'string' ? hint : undefined,
        }));
      }
      case 'consent':
        return finishConsent(req, res, interaction);
      default:
        log.warn({ prompt: interaction.prompt.name }, 'unsupported interaction prompt');
        return sendHtml(res, 400, messagePage({ title: 'Sign-in problem', message: 'This sign-in request is not supported.' }));
    }
  }

  async function submitLogin(req: IncomingMessage, res: ServerResponse, uid: string) {
    const origin = req.headers.origin;
    if (origin && origin !== 'null' && origin !== publicOrigin) {
      return sendHtml(res, 403, messagePage({ title: 'Sign-in problem', message: 'This form was submitted from another site.' }));
    }
    const form = await readForm(req);
    if (form === 'too-large') {
      res.setHeader('Connection', 'close');
      return sendHtml(res, 413, messagePage({ title: 'Sign-in problem', message: 'The form was too large.' }));
    }
    if (form === 'bad-type') {
      return sendHtml(res, 415, messagePage({ title: 'Sign-in problem', message: 'The form could not be read.' }));
    }
    const interaction = await loadInteraction(req, res, uid);
    if (!interaction || interaction.prompt.name !== 'login') return expiredPage(res);

    const action = `/interaction/${uid}/login`;
    const typed = (form.get('email') ?? '').trim();
    const email = typed.toLowerCase();
    const password = form.get('password') ?? '';

    if (!email || !password) {
      return sendHtml(res, 401, loginPage({ action, email: typed, error: WRONG_CREDENTIALS }));
    }

    const remote = req.socket.remoteAddress;
    // counted as a failure before the password is checked, so parallel guesses cannot outrun the count
    const admission = await throttle.admit(email, remote);
    if (!admission.admitted) {
      log.warn({ email, ip: remote, retryAfterMs: admission.retryAfterMs }, 'sign-in refused: too many attempts');
      await recordThrottled(email, remote, admission.retryAfterMs);
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000))));
      return sendHtml(res, 429, loginPage({ action, email: typed, error: tooManyAttempts(admission.retryAfterMs) }));
    }

    const user = await userByEmail(email);
    // the scrypt work is done whether or not the e-mail exists
    const verified = await verifyPassword(password, user?.passwordHash ?? dummyHash);
    if (!user || !user.passwordHash || !verified) {
      await db.insert(loginFailures).values({ email, ip: remote ?? 'unknown' });
      log.info({ email, ip: remote }, 'sign-in failed');
      if (user) await recordSignIn(user, 'wrong-password', remote);
      return sendHtml(res, 401, loginPage({ action, email: typed, error: WRONG_CREDENTIALS }));
    }
    // said only to whoever knows the password; the attempt stays counted by the throttle
    if (user.deactivatedOn) {
      log.info({ sub: user.auth0Id, ip: remote }, 'sign-in refused: account deactivated');
      await recordSignIn(user, 'account-deactivated', remote);
      return sendHtml(res, 401, loginPage({ action, email: typed, error: ACCOUNT_DEACTIVATED }));
    }
    const ended = await accessEndedOn(user.id);
    if (ended) {
      log.info({ sub: user.auth0Id, ip: remote }, 'sign-in refused: temporary access ended');
      await recordSignIn(user, 'access-expired', remote);
      return sendHtml(res, 403, loginPage({ action, email: typed, error: accessEnded(ended, 'Tributary') }));
    }

    await admission.succeeded();
    // tokens name whole seconds, and those of the second the user's sessions ended are refused:
    // a sign-in right after that waits for the next second instead of being refused
    const wait = signInWait(user.sessionsValidAfter);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (needsRehash(user.passwordHash)) await upgradeHash(user.id, user.passwordHash, password);
    await db.update(users).set({ loginCount: sql`${users.loginCount} + 1` }).where(eq(users.id, user.id));
    log.info({ sub: user.auth0Id }, 'signed in');
    await recordSignIn(user, 'succeeded', remote);
    await provider.interactionFinished(req, res, { login: { accountId: user.auth0Id } }, { mergeWithLastSubmission: false });
  }

  type SignInUser = NonNullable<Awaited<ReturnType<typeof userByEmail>>>;

  /** Deactivated users too: their refusal is said, and recorded. */
  async function userByEmail(email: string) {
    const [user] = await db.select({
      id: users.id, auth0Id: users.auth0Id, email: users.email, fullName: users.fullName,
      passwordHash: users.passwordHash, deactivatedOn: users.deactivatedOn, sessionsValidAfter: users.sessionsValidAfter,
    }).from(users).where(sql`lower(${users.email}) = ${email}`).limit(1);
    return user;
  }

  /** When every tenant of the user was temporary access that has ended: the last end. A user with no tenant signs in (the app says why it shows nothing). */
  async function accessEndedOn(userId: string): Promise<Date | undefined> {
    const all = await membershipsOf(db, [userId]);
    if (all.length === 0 || !all.every((m) => isAccessExpired(m.expires))) return undefined;
    return new Date(Math.max(...all.map((m) => m.expires!.getTime())));
  }

  /**
   * A sign-in, or its refusal, in the activity history of every tenant the user belongs to (expired
   * ones included), with the user as the actor. A failure to record is logged: it never decides a sign-in.
   */
  async function recordSignIn(user: Pick<SignInUser, 'id' | 'auth0Id' | 'email' | 'fullName'>, outcome: SignInOutcome, remote: string | undefined) {
    const correlationId = randomUUID();
    try {
      const tenantIds = new Set((await membershipsOf(db, [user.id])).map((m) => m.tenantId));
      for (const tenantId of tenantIds) {
        await opts.recordEvent(forTenant(db, tenantId), {
          actor: { userId: user.id, name: user.fullName },
          type: outcome === 'succeeded' ? 'signin.succeeded' : 'signin.refused',
          description: `${user.fullName} ${SIGN_IN_OUTCOMES[outcome]}`,
          details: { auth0Id: user.auth0Id, email: user.email, ...(outcome === 'succeeded' ? {} : { reason: outcome }), ip: remote ?? null },
          correlationId,
        });
      }
    } catch (err) {
      log.warn({ err, sub: user.auth0Id, outcome, correlationId }, 'could not record a sign-in event');
    }
  }

  /**
   * Throttled attempts are refused without counting, as cheaply as possible: their event is
   * written once per e-mail while it waits (per process), so a flood cannot become a flood of writes.
   */
  const throttledUntil = new Map<string, number>();
  async function recordThrottled(email: string, remote: string | undefined, retryAfterMs: number) {
    const now = (opts.clock ?? Date.now)();
    if ((throttledUntil.get(email) ?? 0) > now) return;
    if (throttledUntil.size >= 10_000) {
      for (const [key, until] of throttledUntil) if (until <= now) throttledUntil.delete(key);
      if (throttledUntil.size >= 10_000) return;
    }
    throttledUntil.set(email, now + retryAfterMs);
    try {
      const user = await userByEmail(email);
      if (user) await recordSignIn(user, 'throttled', remote);
    } catch (err) {
      log.warn({ err }, 'could not record a throttled sign-in');
    }
  }

  /** A hash made with older scrypt parameters is replaced while the password is at hand. */
  async function upgradeHash(userId: string, oldHash: string, password: string) {
    try {
      const fresh = await hashPassword(password);
      // only if nobody changed the password meanwhile
      await db.update(users).set({ passwordHash: fresh }).where(and(eq(users.id, userId), eq(users.passwordHash, oldHash)));
      log.info({ userId }, 'password hash upgraded');
    } catch (err) {
      log.warn({ err, userId }, 'could not upgrade a password hash');
    }
  }

  async function handleInteraction(req: IncomingMessage, res: ServerResponse, pathname: string) {
    const match = /^\/interaction\/([\w-]+)(\/login)?$/.exec(pathname);
    if (!match) return sendHtml(res, 404, messagePage({ title: 'Not found', message: 'This page does not exist.' }));
    const uid = match[1]!;
    const isLogin = Boolean(match[2]);
    if (!isLogin && (req.method === 'GET' || req.method === 'HEAD')) return showInteraction(req, res, uid);
    if (isLogin && req.method === 'POST') return submitLogin(req, res, uid);
    res.setHeader('Allow', isLogin ? 'POST' : 'GET, HEAD');
    return sendHtml(res, 405, messagePage({ title: 'Not allowed', message: 'This method is not allowed here.' }));
  }

  function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string) {
    const asset = staticAssets[pathname];
    if (!asset || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.statusCode = 200;
    res.setHeader('Content-Type', asset.type);
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end(req.method === 'HEAD' ? undefined : asset.body);
  }

  /** Auth0's /v2/logout?client_id&returnTo becomes RP-initiated logout with post_logout_redirect_uri. */
  function rewriteLogout(req: IncomingMessage, url: URL) {
    const q = url.searchParams;
    const out = new URLSearchParams();
    const returnTo = q.get('returnTo');
    const client = q.get('client_id') ?? (returnTo ? clientId : null);
    if (client) out.set('client_id', client);
    for (const name of LOGOUT_PASSTHROUGH) {
      const value = q.get(name);
      if (value) out.set(name, value);
    }
    if (returnTo && !out.has('post_logout_redirect_uri')) out.set('post_logout_redirect_uri', returnTo);
    const query = out.toString();
    req.url = query ? `${ROUTES.end_session}?${query}` : ROUTES.end_session;
  }

  return {
    issuer,
    publicJwks: { keys: [keys.publicJwk] },
    owns(pathname: string) {
      return EXACT_PATHS.has(pathname) || PREFIXES.some((p) => pathname.startsWith(p));
    },
    handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const { pathname } = url;
      // pin the origin the provider sees (issuer, endpoint URLs, cookie security) to publicUrl
      req.headers['x-forwarded-host'] = publicUrl.host;
      req.headers['x-forwarded-proto'] = publicUrl.protocol.replace(':', '');
      maybePurge();

      if (pathname.startsWith(STATIC_PREFIX)) return serveStatic(req, res, pathname);
      if (pathname === RESET_PATH || pathname === CONFIRM_EMAIL_PATH) {
        handleLinkPage(req, res, url).catch((err: unknown) => {
          log.error({ err, pathname }, 'one-time link page failed');
          if (!res.headersSent) sendHtml(res, 500, messagePage({ title: 'Something went wrong', message: 'Something went wrong. Please try again later.' }));
          else res.end();
        });
        return;
      }
      if (pathname.startsWith('/interaction/')) {
        handleInteraction(req, res, pathname).catch((err: unknown) => {
          log.error({ err }, 'sign-in page failed');
          if (!res.headersSent) {
            sendHtml(res, 500, messagePage({ title: 'Sign-in problem', message: 'Something went wrong. Please try again later.' }));
          } else {
            res.end();
          }
        });
        return;
      }
      if (pathname === ROUTES.end_session && req.method === 'GET') rewriteLogout(req, url);
      void callback(req, res);
    },
  };
}

