/** Composition root: configuration, database, identity, jobs, the services (server/container.ts) and HTTP in one process. */
import http from 'node:http';
import { createLocalJWKSet, createRemoteJWKSet } from 'jose';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.ts';
import { demoOrganizationExists, seedDemo } from './db/seed.ts';
import { backfillSandboxKeys, seedSandboxCrm } from './connectors/sandboxCrm/seed.ts';
import { createIdentity, type Identity } from './identity/provider.ts';
import { recordEvent } from './services/events.ts';
import { OAUTH_CALLBACK_PATH } from '../src/domain/connectors/oauth.ts';
import { createApp, API_PREFIXES } from './http/app.ts';
import { createAuth, type TokenVerifier } from './http/auth.ts';
import { securityHeaders } from './http/securityHeaders.ts';
import { startJobs, type Jobs } from './jobs/boss.ts';
import { createSecretBox, loadSecretKey } from './connectors/secrets.ts';
import { createServices, type Services } from './container.ts';
import { getRequestListener } from '@hono/node-server';

export interface Running {
  url: string;
  config: Config;
  database: Database;
  identity: Identity | undefined;
  jobs: Jobs;
  /** what the routers and job handlers of this process call */
  services: Services;
  seeded: boolean;
  /** the Hono app; its registered routes are what the fuzz suite (tests/api/fuzz.test.ts) walks */
  app: ReturnType<typeof createApp>;
  stop(): Promise<void>;
}

export interface StartOptions {
  staticRoot?: string;
  /** connect-style middleware that serves the app in dev (Vite) */
  devMiddleware?: (server: http.Server) => Promise<(req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void>;
  /** run job workers in this process */
  work?: boolean;
}

export async function startServer(config: Config, log: Logger, opts: StartOptions = {}): Promise<Running> {
  const stops: (() => Promise<void>)[] = [];
  // last started, first stopped; a second call (a second signal, a test's stop after a failed start)
  // waits for the first rather than running the list again, or in another order
  let stopped: Promise<void> | undefined;
  const stopAll = () => (stopped ??= (async () => {
    for (const s of [...stops].reverse()) await s().catch((err) => log.warn({ err }, 'while stopping'));
  })());
  try {
    let url = config.databaseUrl;
    let embedded: EmbeddedDatabase | undefined;
    if (!url) {
      embedded = await startEmbeddedPostgres(config.dataDir, config.embeddedPgPort, log);
      stops.push(() => embedded!.stop());
      url = embedded.url;
    }
    const database = await openDatabase(url);
    stops.push(() => database.close());
    // the demo users' password is public (README): a production database must not hold them unless asked for
    if (config.production && !config.seedDemo && (await demoOrganizationExists(database.db))) {
      throw new Error('This production database holds the demo organisation (subdomain "demo"), whose password is public. '
        + 'Delete it, or set SEED_DEMO=true if this is meant to be a demo deployment.');
    }
    const seeded = config.seedDemo ? await seedDemo(database.db, seedSandboxCrm) : false;
    await backfillSandboxKeys(database.db, log);

    // npm start may make the key (embedded default); npm run worker only ever reads it
    const secrets = createSecretBox(loadSecretKey(config));
    const jobs = await startJobs({ databaseUrl: url, db: database.db, log, config, secrets });
    stops.push(() => jobs.stop());
    const services = createServices({ db: database.db, config, secrets, jobs, log });
    if (opts.work ?? true) await jobs.work(services);

    let identity: Identity | undefined;
    let verifier: TokenVerifier;
    if (config.auth.embedded) {
      identity = await createIdentity({ config, db: database.db, pool: database.pool, log, recordEvent });
      verifier = { keys: createLocalJWKSet(identity.publicJwks), issuer: identity.issuer, audience: config.auth.audience };
    } else {
      verifier = {
        keys: createRemoteJWKSet(new URL(`${config.auth.domain}/.well-known/jwks.json`)),
        issuer: `${config.auth.domain}/`,
        audience: config.auth.audience,
      };
    }

    const dev = !!opts.devMiddleware;
    const headers = securityHeaders({
      dev,
      https: config.publicUrl.startsWith('https:'),
      formActions: config.appOrigins,
      connect: config.auth.embedded ? [] : [config.auth.domain],
    });
    const app = createApp({
      config, services, auth: createAuth(database.db, verifier), log, headers, staticRoot: opts.staticRoot,
      health: { database: () => database.pool.query('select 1'), jobs: () => jobs.status() },
    });
    const honoListener = getRequestListener(app.fetch);

    const server = http.createServer();
    const devMiddleware = opts.devMiddleware ? await opts.devMiddleware(server) : undefined;
    server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
      const pathname = safePathname(req.url);
      if (identity && pathname !== null && identity.owns(pathname)) {
        for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
        identity.handle(req, res);
        return;
      }
      const ours = pathname === null || pathname === '/app-config.json' || pathname === OAUTH_CALLBACK_PATH
        || API_PREFIXES.some((p) => pathname === p || pathname.startsWith(`${p}/`));
      if (devMiddleware && !ours) {
        devMiddleware(req, res, () => { void honoListener(req, res); });
        return;
      }
      void honoListener(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE'
        ? new Error(`Port ${config.port} is already in use. Stop what holds it, or set PORT to another port.`)
        : err));
      server.listen(config.port, config.host, () => resolve());
    });
    stops.push(() => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }));
    log.info({ url: config.publicUrl }, 'Tributary is listening');
    return { url: config.publicUrl, config, database, identity, jobs, services, seeded, app, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

function safePathname(url: string | undefined): string | null {
  try { return new URL(url ?? '/', 'http://x').pathname; } catch { return null; }
}
