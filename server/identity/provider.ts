/**
 * The embedded Auth0-compatible OpenID provider (DESIGN.md section 5): oidc-provider with Auth0's
 * routes (configured in oidcConfiguration.ts), users and password hashes from the database, its
 * own sign-in page (what a sign-in records: signIns.ts), signing key, cookie secrets, sessions and
 * tokens persisted in PostgreSQL.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { JWK } from 'jose';
import { eq, sql } from 'drizzle-orm';
import Provider, { errors, type Interaction, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config.ts';
import { ACCOUNT_DEACTIVATED, accessEnded } from '../db/accounts.ts';
import type { Db } from '../db/database.ts';
import { users } from '../db/schema/accounts.ts';
import { loginFailures } from '../db/schema/identity.ts';
import { hashPassword, needsRehash, useHashCost, verifyPassword } from './passwords.ts';
import { purgeExpired } from './adapter.ts';
import { loadIdentityKeys } from './keys.ts';
import { oidcConfiguration, ROUTES } from './oidcConfiguration.ts';
import { createSignInThrottle, tooManyAttempts } from './throttle.ts';
import { CONFIRM_EMAIL_PATH, RESET_PATH } from './passwordReset.ts';
import { confirmEmailPage } from './confirmEmailPage.ts';
import { passwordResetPage } from './resetPage.ts';
import { signInWait } from './sessions.ts';
import { signInRecords, type ActivityRecorder } from './signIns.ts';
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

const LOGIN_BODY_LIMIT = 10 * 1024;

const EXACT_PATHS = new Set<string>([...Object.values(ROUTES), RESET_PATH, CONFIRM_EMAIL_PATH]);
const PREFIXES = ['/authorize/', '/v2/logout/', '/.well-known/', '/interaction/', STATIC_PREFIX];
const LOGOUT_PASSTHROUGH = ['id_token_hint', 'post_logout_redirect_uri', 'state', 'ui_locales', 'logout_hint'];
const ERROR_EVENTS = [
  'authorization.error', 'grant.error', 'end_session.error', 'end_session_confirm.error', 'end_session_success.error',
  'revocation.error', 'userinfo.error', 'jwks.error', 'discovery.error', 'introspection.error',
] as const;

/** compared against for unknown e-mails, so every attempt costs one scrypt; made once per process and cost */
const dummyHashes = new Map<number, Promise<string>>();
const dummyHashOnce = (cost: number) => {
  if (!dummyHashes.has(cost)) dummyHashes.set(cost, hashPassword(randomBytes(16).toString('hex')));
  return dummyHashes.get(cost)!;
};

export async function createIdentity(opts: {
  config: Config; db: Db; pool: pg.Pool; log: Logger;
  /** records sign-ins and their refusals */
  recordEvent: ActivityRecorder;
  /** epoch milliseconds for sign-in throttling; tests move it instead of waiting */
  clock?: () => number;
}): Promise<Identity> {
  const { config, db, pool } = opts;
  const log = opts.log.child({ component: 'identity' });
  useHashCost(config.passwordHashCost);
  const publicUrl = new URL(config.publicUrl);
  const publicOrigin = publicUrl.origin;
  const issuer = `${config.publicUrl}/`;
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
  const dummyHash = await dummyHashOnce(config.passwordHashCost);
  const { userByEmail, accessEndedOn, recordSignIn, recordThrottled, upgradeHash } = signInRecords({ db, log, recordEvent: opts.recordEvent, clock: opts.clock });

  const configuration = oidcConfiguration({ config, db, pool, keys, appOrigins, appUris, secure });
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

