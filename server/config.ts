/** Configuration from the environment, with the embedded defaults of DESIGN.md. */
import path from 'node:path';
import { MAX_IMPORT_ROWS, MAX_SANDBOX_CONSTITUENTS } from '../src/domain/sandboxImport.ts';
import { clamavAddressFromEnv, type ClamavAddress } from './connectors/flatFile/clamav.ts';
import { baseUrlOverridesIn } from './connectors/vendorHttp.ts';
import { checkClientVariables } from './connectors/oauth/flow.ts';
import { OAUTH_VENDORS } from '../src/domain/connectors/oauth.ts';
import type { SystemId } from '../src/domain/connectors/types.ts';
import { MAX_HASH_COST, MIN_HASH_COST, OWASP_HASH_COST } from './identity/passwords.ts';

export interface Config {
  port: number;
  host: string;
  /** the origin the browser uses; the embedded identity provider's issuer is this plus '/' */
  publicUrl: string;
  /** further origins the app may be served from (for example demo.localhost) */
  appOrigins: string[];
  dataDir: string;
  databaseUrl: string | undefined;
  embeddedPgPort: number;
  auth: {
    /** 'embedded' runs the OpenID provider in this process; otherwise an Auth0 tenant's URL */
    domain: string;
    clientId: string;
    audience: string;
    embedded: boolean;
  };
  secretKey: string | undefined;
  production: boolean;
  /** seed the demo organisation: by default outside production only; SEED_DEMO=true asks for it anywhere */
  seedDemo: boolean;
  logLevel: string;
  /** clamd for scanning uploads (CLAMAV_SOCKET, or CLAMAV_HOST and CLAMAV_PORT); null: uploads are not scanned */
  clamav: ClamavAddress | null;
  /** the organisation a host name without a subdomain (localhost, an IP address) signs in to */
  defaultSubdomain: string;
  /**
   * CONNECTOR_ALLOW_PRIVATE_HOSTS=true: connectors may reach loopback and private networks (an
   * on-premises SFTP server). Off by default, whatever NODE_ENV says; link-local and cloud
   * metadata addresses stay refused.
   */
  connectorAllowPrivateHosts: boolean;
  /**
   * RUN_SLICE_MS: how long one job works a formula's run before it queues the rest behind other
   * waiting runs (fair sharing of workers between tenants); unset: the engine's default (60 s)
   */
  runSliceMs: number | null;
  /**
   * SANDBOX_IMPORT_MAX_ROWS: rows one CSV import into the Sandbox CRM takes (50,000 unless set);
   * SANDBOX_CRM_MAX_CONSTITUENTS: constituents a tenant's Sandbox CRM may hold after an import (250,000)
   */
  sandboxImport: { maxRows: number; maxConstituents: number };
  /** how soon pg-boss notices a dead worker and tries again; unset parts keep pg-boss's and the job definitions' own */
  jobTimings: JobTimings;
  /** how the embedded provider slows down password guessing (server/identity/throttle.ts) */
  signInThrottle: SignInThrottleSettings;
  /**
   * PASSWORD_HASH_COST: log2 of scrypt's N for new password hashes (server/identity/passwords.ts).
   * 17 (OWASP's) by default and at least that in production; tests ask for less (10) so a sign-in
   * costs milliseconds instead of a third of a second.
   */
  passwordHashCost: number;
  /** INTERNAL_EMAIL_DOMAIN: e-mail domain of internal staff, marked in user management; null: nobody is */
  internalEmailDomain: string | null;
  /** SMTP_URL and SMTP_FROM: where password-reset mail goes out; null: reset links go to the server log */
  smtp: SmtpSettings | null;
  /**
   * AUTH0_MANAGEMENT_CLIENT_ID and AUTH0_MANAGEMENT_CLIENT_SECRET: a machine-to-machine application of
   * the Auth0 tenant allowed to create password change tickets; null: passwords cannot be reset from here
   */
  auth0Management: { clientId: string; clientSecret: string } | null;
}

export interface SmtpSettings {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte; smtp:// still upgrades with STARTTLS when the server offers it */
  secure: boolean;
  user: string | null;
  pass: string | null;
  from: string;
}

/**
 * How quickly jobs move on: a dead worker's run taken up again, a run's continuation started.
 * Tests that kill workers shorten them to seconds.
 */
export interface JobTimings {
  /**
   * JOBS_SUPERVISE_SECONDS: pg-boss's supervise, monitor and queue cache intervals (default 10; pg-boss's
   * own is 60): how soon a dead worker's job is failed, and a formula's next job may start after the last one ended
   */
  superviseSeconds: number | null;
  /** JOBS_HEARTBEAT_SECONDS: replaces the heartbeat of every definition that has one (pg-boss's minimum is 10) */
  heartbeatSeconds: number | null;
  /** JOBS_RETRY_DELAY_SECONDS: replaces every definition's wait before its first retry */
  retryDelaySeconds: number | null;
}

export interface SignInThrottleSettings {
  /** failed sign-ins for one e-mail within a day before each further attempt must wait */
  freeFailures: number;
  /** failed sign-ins from one address (any e-mail) within an hour before each further attempt from it must wait */
  ipFreeFailures: number;
  /** the first wait; it doubles with each further failure */
  firstDelaySeconds: number;
  /** the longest wait */
  maxDelaySeconds: number;
  /** failed password checks per minute across everyone; past it, sign-in pauses until the minute is over */
  globalFailuresPerMinute: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 4000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got "${env.PORT}"`);
  const production = env.NODE_ENV === 'production';
  const redirected = baseUrlOverridesIn(env);
  if (production && redirected.length) {
    throw new Error(`${redirected.join(', ')} cannot be set in production: vendor base URLs are redirected only for tests against local fakes`);
  }
  if (env.SEED_DEMO && !['true', 'false'].includes(env.SEED_DEMO)) throw new Error(`SEED_DEMO must be true or false, got "${env.SEED_DEMO}"`);
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/$/, '');
  const embedded = !env.AUTH0_DOMAIN;
  const defaultSubdomain = (env.DEFAULT_SUBDOMAIN ?? 'demo').toLowerCase();
  if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(defaultSubdomain)) {
    throw new Error(`DEFAULT_SUBDOMAIN must be letters, digits and dashes, got "${env.DEFAULT_SUBDOMAIN}"`);
  }
  const auth = {
    domain: embedded ? publicUrl : normaliseDomain(env.AUTH0_DOMAIN!),
    clientId: env.AUTH0_CLIENT_ID ?? 'tributary-app',
    audience: env.AUTH0_AUDIENCE ?? 'https://api.tributary.local',
    embedded,
  };
  if (!embedded && !env.AUTH0_CLIENT_ID) throw new Error('AUTH0_CLIENT_ID is required when AUTH0_DOMAIN is set');
  const publicOrigin = new URL(publicUrl);
  const extra = (env.APP_ORIGINS ?? '').split(',').map((s) => s.trim().replace(/\/$/, '')).filter(Boolean);
  // an organisation's subdomain needs a host name, not an IP address
  const hasHostName = !/^[\d.]+$|^\[/.test(publicOrigin.hostname);
  const appOrigins = [...new Set([
    publicUrl,
    ...(hasHostName ? [`${publicOrigin.protocol}//demo.${publicOrigin.host}`] : []),
    ...extra,
  ])];
  const internalEmailDomain = (env.INTERNAL_EMAIL_DOMAIN ?? '').trim().toLowerCase().replace(/^@/, '') || null;
  if (internalEmailDomain && !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(internalEmailDomain)) {
    throw new Error(`INTERNAL_EMAIL_DOMAIN must be a domain such as example.org, got "${env.INTERNAL_EMAIL_DOMAIN}"`);
  }
  // OAUTH_CLIENT_ID_<SYSTEM> and OAUTH_CLIENT_SECRET_<SYSTEM>: read where a connection signs in (server/connectors/oauth/flow.ts)
  checkClientVariables(Object.keys(OAUTH_VENDORS) as SystemId[], env);
  const managementId = env.AUTH0_MANAGEMENT_CLIENT_ID || undefined;
  const managementSecret = env.AUTH0_MANAGEMENT_CLIENT_SECRET || undefined;
  if (Boolean(managementId) !== Boolean(managementSecret)) {
    throw new Error('AUTH0_MANAGEMENT_CLIENT_ID and AUTH0_MANAGEMENT_CLIENT_SECRET are set together or not at all');
  }
  return {
    internalEmailDomain,
    smtp: env.SMTP_URL ? smtpSettings(env.SMTP_URL, env.SMTP_FROM || `no-reply@${publicOrigin.hostname}`) : null,
    auth0Management: managementId && managementSecret ? { clientId: managementId, clientSecret: managementSecret } : null,
    port,
    host: env.HOST ?? '0.0.0.0',
    publicUrl,
    appOrigins,
    dataDir: path.resolve(env.DATA_DIR ?? '.data'),
    databaseUrl: env.DATABASE_URL || undefined,
    embeddedPgPort: Number(env.EMBEDDED_PG_PORT ?? 54329),
    auth,
    secretKey: env.SECRET_KEY || undefined,
    production,
    seedDemo: env.SEED_DEMO === undefined || env.SEED_DEMO === '' ? !production : env.SEED_DEMO === 'true',
    logLevel: env.LOG_LEVEL ?? 'info',
    defaultSubdomain,
    clamav: clamavAddressFromEnv(env),
    connectorAllowPrivateHosts: env.CONNECTOR_ALLOW_PRIVATE_HOSTS === 'true',
    runSliceMs: env.RUN_SLICE_MS ? positiveInteger(env, 'RUN_SLICE_MS', 60_000) : null,
    sandboxImport: {
      maxRows: positiveInteger(env, 'SANDBOX_IMPORT_MAX_ROWS', MAX_IMPORT_ROWS),
      maxConstituents: positiveInteger(env, 'SANDBOX_CRM_MAX_CONSTITUENTS', MAX_SANDBOX_CONSTITUENTS),
    },
    jobTimings: {
      // 10 s, not pg-boss's 60: a run's continuation waits for this before a worker may take it
      superviseSeconds: positiveInteger(env, 'JOBS_SUPERVISE_SECONDS', 10),
      heartbeatSeconds: env.JOBS_HEARTBEAT_SECONDS ? heartbeatSeconds(env.JOBS_HEARTBEAT_SECONDS) : null,
      retryDelaySeconds: env.JOBS_RETRY_DELAY_SECONDS ? positiveInteger(env, 'JOBS_RETRY_DELAY_SECONDS', 60) : null,
    },
    passwordHashCost: passwordHashCost(env.PASSWORD_HASH_COST, production),
    signInThrottle: {
      freeFailures: positiveInteger(env, 'SIGNIN_FREE_FAILURES', 5),
      ipFreeFailures: positiveInteger(env, 'SIGNIN_IP_FREE_FAILURES', 50),
      firstDelaySeconds: positiveInteger(env, 'SIGNIN_FIRST_DELAY_SECONDS', 1),
      maxDelaySeconds: positiveInteger(env, 'SIGNIN_MAX_DELAY_SECONDS', 900),
      globalFailuresPerMinute: positiveInteger(env, 'SIGNIN_GLOBAL_FAILURES_PER_MINUTE', 120),
    },
  };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number of at least 1, got "${raw}"`);
  return value;
}

function passwordHashCost(raw: string | undefined, production: boolean): number {
  if (raw === undefined || raw === '') return OWASP_HASH_COST;
  const value = Number(raw);
  const least = production ? OWASP_HASH_COST : MIN_HASH_COST;
  if (!Number.isInteger(value) || value < least || value > MAX_HASH_COST) {
    throw new Error(`PASSWORD_HASH_COST must be a whole number from ${least} to ${MAX_HASH_COST}${production ? ' in production' : ''}, got "${raw}"`);
  }
  return value;
}

function heartbeatSeconds(raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 10) throw new Error(`JOBS_HEARTBEAT_SECONDS must be a whole number of at least 10 (pg-boss's minimum), got "${raw}"`);
  return value;
}

function smtpSettings(raw: string, from: string): SmtpSettings {
  let url: URL;
  try { url = new URL(raw); } catch { throw new Error('SMTP_URL must be a URL such as smtp://user:password@mail.example.org:587 or smtps://mail.example.org:465'); }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new Error(`SMTP_URL must start with smtp:// or smtps://, got "${url.protocol}//"`);
  if (!url.hostname) throw new Error('SMTP_URL must name the mail server\'s host');
  const secure = url.protocol === 'smtps:';
  const port = url.port ? Number(url.port) : secure ? 465 : 587;
  const named = /<([^<>]*)>$/.exec(from.trim());
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test((named ? named[1]! : from).trim())) {
    throw new Error(`SMTP_FROM must be an e-mail address such as no-reply@example.org or "Tributary <no-reply@example.org>", got "${from}"`);
  }
  return {
    host: url.hostname.replace(/^\[|\]$/g, ''), port, secure,
    user: url.username ? decodeURIComponent(url.username) : null,
    pass: url.password ? decodeURIComponent(url.password) : null,
    from,
  };
}

function normaliseDomain(domain: string): string {
  const withScheme = /^https?:\/\//.test(domain) ? domain : `https://${domain}`;
  return withScheme.replace(/\/$/, '');
}
