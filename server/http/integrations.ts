/**
 * The integrations service (/integrations/v1): the connector catalogue and the tenant's data
 * sources. Each endpoint is described in src/domain/api/integrations.ts; the rules are in
 * server/services/connections.ts. Secrets never leave the server: not in answers, not in logs,
 * not in error details.
 */
import { integrationsService } from '../../src/domain/api/integrations.ts';
import type { Context } from 'hono';
import { parseColumnChoice, SANDBOX_IMPORT_FIELDS } from '../../src/domain/sandboxImport.ts';
import { extensionOf } from '../../src/domain/upload.ts';
import type { FileStore } from '../connectors/fileSources/fileStore.ts';
import { OAUTH_CALLBACK_PATH, OAUTH_RETURN_PARAMS } from '../../src/domain/connectors/oauth.ts';
import { ROUTES } from '../../src/domain/screens.ts';
import type { ConnectionsService } from '../services/connections.ts';
import type { OAuthConnectService } from '../services/oauthConnect.ts';
import type { SandboxImportService } from '../services/sandboxImport.ts';
import { isUuid, type Auth } from './auth.ts';
import type { AppEnv } from './env.ts';
import { receiveFile } from './multipartFile.ts';
import { fail } from './problem.ts';
import { contractRouter } from './routes.ts';

/** The import's path; it streams its file under the 15MB limit, not the app's 1MB JSON limit (server/http/app.ts). */
export const SANDBOX_IMPORT_PATH = `${integrationsService.basePath}${integrationsService.endpoints.importSandboxConstituents.path}`;

export interface IntegrationsServices {
  connections: ConnectionsService;
  oauthConnect: OAuthConnectService;
  sandboxImport: SandboxImportService;
  /** where an imported file waits while it is read */
  files: FileStore;
}

export function integrationsRouter(services: IntegrationsServices, auth: Auth) {
  const { connections, oauthConnect, sandboxImport: imports, files: store } = services;
  const { app, on } = contractRouter(auth);
  const api = integrationsService.endpoints;
  const actor = (c: { var: Pick<AppEnv['Variables'], 'caller' | 'log' | 'correlationId'> }) => ({
    userId: c.var.caller.userId, name: c.var.caller.fullName, policies: c.var.caller.policies, log: c.var.log, correlationId: c.var.correlationId,
  });
  /** another tenant's data source, or a malformed id, is as unknown as a missing one */
  const idOf = (id: string) => (isUuid(id) ? id : fail('not-found', 'No such data source.'));

  on(api.systems, () => ({ systems: connections.systems() }));
  on(api.list, async (c) => ({ dataSources: await connections.list(c.var.tenant) }));
  on(api.create, async (c, { body }) => connections.create(c.var.tenant, actor(c), body));
  on(api.testSettings, async (c, { body }) => connections.testSettings(c.var.tenant, actor(c), body));
  on(api.get, async (c, { params }) => connections.get(c.var.tenant, actor(c), idOf(params.id)));
  on(api.update, async (c, { params, body }) => connections.update(c.var.tenant, actor(c), idOf(params.id), body));
  on(api.remove, async (c, { params }) => connections.remove(c.var.tenant, actor(c), idOf(params.id)));
  on(api.testSaved, async (c, { params, query: { formulaId } }) => {
    if (formulaId !== undefined && !isUuid(formulaId)) return fail('bad-request', 'formulaId must be a formula id.');
    return connections.testSaved(c.var.tenant, actor(c), idOf(params.id), formulaId);
  });
  on(api.objects, async (c, { params }) => connections.objects(c.var.tenant, actor(c), idOf(params.id)));
  on(api.refreshObjects, async (c, { params }) => connections.refreshObjects(c.var.tenant, actor(c), idOf(params.id)));
  on(api.fields, async (c, { params }) => connections.fields(c.var.tenant, actor(c), idOf(params.id), params.object));
  // the file is read before the data source is looked up, as uploads are: a refusal of the body comes first
  const receiveImportFile = (c: Parameters<typeof receiveFile>[0], key: string) => receiveFile(c, store, key, {
    accepts: (name) => extensionOf(name) === '.csv',
    acceptsWhat: 'Only .csv files can be imported; save a workbook as CSV first.',
  });
  on(api.importSandboxConstituents, async (c, { params, query }) => {
    const choice = query.columns === undefined ? undefined : parseColumnChoice(query.columns)
      ?? fail('bad-request', `columns names a field the import does not know; the fields are ${SANDBOX_IMPORT_FIELDS.join(', ')}.`);
    const key = `${c.var.tenant.tenantId}/${crypto.randomUUID()}.import`;
    const received = await receiveImportFile(c, key);
    if (received instanceof Response) return received;
    try {
      return await imports.start(c.var.tenant, actor(c), idOf(params.id), key, received.fileName, choice);
    } catch (err) {
      // refused or not queued: the file is nobody's
      await store.remove(key).catch((e: unknown) => c.var.log.warn({ err: e }, 'could not remove an imported file'));
      throw err;
    }
  });
  on(api.importColumns, async (c, { params }) => {
    const key = `${c.var.tenant.tenantId}/${crypto.randomUUID()}.columns`;
    const received = await receiveImportFile(c, key);
    if (received instanceof Response) return received;
    try {
      return { columns: await imports.columns(c.var.tenant, idOf(params.id), key) };
    } finally {
      await store.remove(key).catch((e: unknown) => c.var.log.warn({ err: e }, 'could not remove a header row read'));
    }
  });
  on(api.importStatus, async (c, { params }) => imports.status(c.var.tenant, idOf(params.id), isUuid(params.importId) ? params.importId : fail('not-found', 'No such import.')));
  on(api.latestImport, async (c, { params }) => ({ latest: await imports.latest(c.var.tenant, idOf(params.id)) }));
  on(api.emptySandboxCrm, async (c, { params }) => connections.emptySandboxCrm(c.var.tenant, actor(c), idOf(params.id)));
  on(api.startOAuth, async (c, { params }) => oauthConnect.start(c.var.tenant, actor(c), idOf(params.id)));
  on(api.completeOAuth, async (c, { body }) => oauthConnect.complete(c.var.tenant, actor(c), body));
  on(api.salesforceReport, async (c, { params }) => connections.salesforceReport(c.var.tenant, actor(c), idOf(params.id), params.reportId));

  return app;
}

/**
 * PUBLIC_URL/integrations/oauth/callback, where a vendor sends the browser after its consent page:
 * on to the Connections screen with the answer under names of Tributary's own (OAUTH_RETURN_PARAMS),
 * where the signed-in user completes it (completeOAuth). Nothing is decided here: this request
 * carries no sign-in.
 */
export function oauthCallbackRedirect(c: Context): Response {
  const out = new URLSearchParams();
  const take = (from: string, to: string, max: number) => {
    const value = c.req.query(from);
    if (value && value.length <= max) out.set(to, value);
  };
  take('state', OAUTH_RETURN_PARAMS.state, 200);
  take('code', OAUTH_RETURN_PARAMS.code, 2048);
  take('error', OAUTH_RETURN_PARAMS.error, 100);
  c.header('Cache-Control', 'no-store');
  // the code is in this address: it is not passed on to another site
  c.header('Referrer-Policy', 'no-referrer');
  return c.redirect(`${ROUTES.connections}?${out.toString()}`, 302);
}

export { OAUTH_CALLBACK_PATH };
