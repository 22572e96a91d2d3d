/** The Hono app: one router per gateway service, security headers, problem+json errors, the built app. */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { except } from 'hono/combine';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Services } from '../container.ts';
import { accountManagementRouter } from './accountManagement.ts';
import { canonicalHost } from './canonicalHost.ts';
import { dataQueueRouter } from './dataQueue.ts';
import { dataQueueService } from '../../src/domain/api/dataQueue.ts';
import { eventsReporterRouter } from './eventsReporter.ts';
import { exportServiceRouter } from './exportService.ts';
import { exportService } from '../../src/domain/api/exportService.ts';
import { flagAdminRouter, flagSnapshotRouter } from './flags.ts';
import { flatFileServiceRouter, UPLOAD_PATH } from './flatFileService.ts';
import { integrationsRouter, OAUTH_CALLBACK_PATH, oauthCallbackRedirect, SANDBOX_IMPORT_PATH } from './integrations.ts';
import { formulasRouter } from './formulas.ts';
import { recordsRouter } from './records.ts';
import { formulaStatusStreamRouter } from './formulaStatusStream.ts';
import { formulaStatusStream } from '../../src/domain/api/formulaStatusStream.ts';
import { recordRefusal, type Auth } from './auth.ts';
import type { AppEnv } from './env.ts';
import { SERVICES } from '../../src/domain/api/services.ts';
import { apiDocsPage, openApiDocument } from './openapi.ts';
import { installErrorHandling, problemResponse } from './problem.ts';
import { staticApp } from './static.ts';

/** Gateway base paths (DESIGN.md section 4); anything under them that no router answers is a 404 problem. */
export const API_PREFIXES = [
  '/web-api/v1', '/web-api/v2', '/record-transformation/v1', '/record-transformation/v2',
  '/integrations/v1', '/integrations/v2', '/scheduling/v1', '/events-reporter/v1',
  '/account-management/v1', '/export-service/v1', '/flat-file-service/v1', '/internal/v1', '/health',
];
const isApiPath = (p: string) => API_PREFIXES.some((prefix) => p === prefix || p.startsWith(`${prefix}/`));

export interface AppDeps {
  config: Config;
  services: Services;
  auth: Auth;
  /** for GET /health: whether the database and the job queue answer */
  health: { database(): Promise<unknown>; jobs(): Promise<{ ok: boolean; detail?: string }> };
  log: Logger;
  headers: Record<string, string>;
  /** folder of the built browser app; absent in dev, where Vite serves it */
  staticRoot?: string;
}

export function createApp(deps: AppDeps) {
  const { config, services, auth, health, log } = deps;
  const app = new Hono<AppEnv>();
  installErrorHandling(app, { refused: recordRefusal });

  app.use('*', async (c, next) => {
    const requestId = crypto.randomUUID();
    const incoming = c.req.header('x-correlation-id');
    const correlationId = incoming && /^[\w.:-]{1,100}$/.test(incoming) ? incoming : requestId;
    c.set('requestId', requestId);
    c.set('correlationId', correlationId);
    c.set('log', log.child({ requestId, correlationId }));
    const started = performance.now();
    await next();
    for (const [k, v] of Object.entries(deps.headers)) c.header(k, v);
    c.header('X-Request-Id', requestId);
    c.header('X-Correlation-Id', correlationId);
    if (isApiPath(c.req.path)) c.header('Cache-Control', 'no-store');
    c.var.log.info({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started) }, 'request');
  });

  app.use('*', canonicalHost(config, isApiPath));

  // uploads and imports stream under their own 15MB limit
  app.use('*', except([UPLOAD_PATH, SANDBOX_IMPORT_PATH], bodyLimit({
    maxSize: 1024 * 1024,
    onError: () => {
      // the rest of the body stays unread: close the connection so a client never reuses it
      const res = problemResponse('payload-too-large');
      res.headers.set('connection', 'close');
      return res;
    },
  })));

  // public, so it says only ok or degraded: the reasons (which may name hosts, users or SQL) go to the log
  app.get('/health', async (c) => {
    const [databaseOk, queue] = await Promise.all([
      health.database().then(() => true, (err: unknown) => {
        c.var.log.error({ err }, 'health: the database does not answer');
        return false;
      }),
      health.jobs(),
    ]);
    if (!queue.ok) c.var.log.error({ detail: queue.detail }, 'health: the job queue does not answer');
    const ok = databaseOk && queue.ok;
    return c.json({ status: ok ? 'ok' : 'degraded', database: { ok: databaseOk }, jobs: { ok: queue.ok } }, ok ? 200 : 503);
  });

  // the API's contracts, generated from src/domain/api; public like any API description
  const apiDocument = JSON.stringify(openApiDocument(SERVICES, config.publicUrl, [formulaStatusStream]));
  const apiPage = apiDocsPage(SERVICES, [formulaStatusStream]);
  app.get('/openapi.json', (c) => c.body(apiDocument, 200, { 'content-type': 'application/json; charset=utf-8' }));
  app.get('/api-docs', (c) => c.html(apiPage));

  /** What the browser needs to sign in; served as JSON so the page carries no inline script. */
  app.get('/app-config.json', (c) => c.json({
    auth: { domain: config.auth.domain, clientId: config.auth.clientId, audience: config.auth.audience },
    defaultSubdomain: config.defaultSubdomain,
    production: config.production,
  }));

  // gateway routers, one per service, each given the services it calls (server/container.ts)
  app.route('/internal/v1/evaluation/snapshot', flagSnapshotRouter(auth));
  app.route('/web-api/v1/flags', flagAdminRouter(auth));
  // before the formulas router, whose /:id would take its name for an id
  app.route(formulaStatusStream.path, formulaStatusStreamRouter(services, auth));
  app.route('/web-api/v1/formulas', formulasRouter(services, auth));
  app.route('/web-api/v1/records', recordsRouter(services, auth));
  app.route(dataQueueService.basePath, dataQueueRouter(auth));
  app.route('/integrations/v1', integrationsRouter(services, auth));
  app.get(OAUTH_CALLBACK_PATH, oauthCallbackRedirect);
  app.route('/account-management/v1', accountManagementRouter(services, auth));
  app.route('/flat-file-service/v1', flatFileServiceRouter(services, auth));
  app.route('/events-reporter/v1', eventsReporterRouter(auth));
  app.route(exportService.basePath, exportServiceRouter(services, auth));

  // the built app: precompressed, cached by content hash, revalidated by ETag (server/http/static.ts)
  if (deps.staticRoot) app.get('*', staticApp(deps.staticRoot, isApiPath));

  app.notFound(() => problemResponse('not-found'));
  return app;
}
