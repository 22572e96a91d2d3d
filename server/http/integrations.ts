/**
 * The integrations service (/integrations/v1): data sources (SPEC.md sections 3, 4, 5 and 8).
 *
 *   GET    /systems                                     the connector catalogue (fields, roles, objects)
 *   GET    /data-sources                                the tenant's data sources
 *   POST   /data-sources                                create { system, displayName, settings }
 *   GET    /data-sources/:id                            one, secrets shown only as { saved: true }
 *   PATCH  /data-sources/:id                            { displayName?, settings? }; empty secrets keep their value
 *   DELETE /data-sources/:id                            409 datasource-in-use while a formula uses it
 *   POST   /data-sources/test                           test unsaved settings (with dataSourceId: saved secrets fill the gaps)
 *   POST   /data-sources/:id/test[?formulaId=]          test a saved data source
 *   GET    /data-sources/:id/objects                    the object picker's list (read once, then kept)
 *   POST   /data-sources/:id/objects/refresh            read the list from the system again
 *   GET    /data-sources/:id/objects/:object/fields     an object's fields
 *   GET    /data-sources/:id/salesforce/reports/:reportId   Invalid Report ID, Add Date Filter, Missing Access
 *
 * Secrets never leave the server: not in answers, not in logs, not in error details.
 */
import { and, eq, sql } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import type { Logger } from 'pino';
import { CONNECTION_ERRORS, type ConnectionErrorCode } from '../../src/domain/connectionErrors.ts';
import {
  CATALOGUE, connectorFor, CreateDataSourceBody, TestSettingsBody, UpdateDataSourceBody,
} from '../../src/domain/connectors/catalogue.ts';
import { formFields, secretKeys } from '../../src/domain/connectors/fields.ts';
import { hasAdditionalSettings, type SystemId } from '../../src/domain/connectors/types.ts';
import { can } from '../../src/domain/roles.ts';
import type { Config } from '../config.ts';
import { ConnectionProblem, ConnectorInputError, NotSupported, type ConnectorContext, type TestOutcome } from '../connectors/connector.ts';
import {
  checkSettings, connectionSettings, editableSettings, findDataSource, formulasUsing, isForeignKeyViolation, isUniqueViolation, listDataSources,
  mergeEdit, openSecrets, sealColumns, SettingsInvalid, splitSettings, viewOf, type DataSourceRow,
} from '../connectors/dataSources.ts';
import { connectorOf } from '../connectors/registry.ts';
import { checkSalesforceReport } from '../connectors/salesforce/connector.ts';
import { createSecretBox, loadSecretKey, SecretKeyError, type SecretBox } from '../connectors/secrets.ts';
import type { Db } from '../db/database.ts';
import { dataSources } from '../db/schema/connections.ts';
import { authenticate, isUuid, requirePolicy, type TokenVerifier } from './auth.ts';
import type { AppEnv } from './env.ts';
import { fail, problemBody } from './problem.ts';
import { jsonBody } from './validation.ts';

export interface IntegrationsOptions {
  config: Pick<Config, 'secretKey' | 'dataDir'>;
  log?: Logger;
  /** tests may hand in their own box */
  secrets?: SecretBox;
}

/** Removes every secret value of these settings from a text. */
function scrub(text: string, system: SystemId, settings: Record<string, string>): string {
  let out = text;
  for (const key of secretKeys(connectorFor(system).settings)) {
    const value = settings[key];
    if (value && value.length >= 4) out = out.split(value).join('[hidden]');
  }
  return out;
}

const problemJson = (c: Context, status: number, body: object) =>
  c.body(JSON.stringify(body), status as 400, { 'content-type': 'application/problem+json; charset=utf-8' });

export function integrationsRouter(db: Db, verifier: TokenVerifier, opts: IntegrationsOptions) {
  const box = opts.secrets ?? createSecretBox(loadSecretKey({ secretKey: opts.config.secretKey, dataDir: opts.config.dataDir }));
  const app = new Hono<AppEnv>();
  app.use('*', authenticate(db, verifier));

  const ctxFor = (tenantId: string, settings: Record<string, string>, dataSourceId?: string): ConnectorContext => ({
    tenantId, settings, db, dataDir: opts.config.dataDir, ...(dataSourceId ? { dataSourceId } : {}),
  });

  /** The caller's data source, or 404 (another tenant's is as unknown as a missing one). */
  const load = async (c: Context<AppEnv>): Promise<DataSourceRow> => {
    const id = c.req.param('id');
    if (!isUuid(id)) return fail(404, 'not-found', 'No such data source.');
    const row = await findDataSource(db, c.var.caller.tenantId!, id!);
    if (!row) return fail(404, 'not-found', 'No such data source.');
    return row;
  };

  const settingsProblem = (c: Context, err: SettingsInvalid) =>
    problemJson(c, 400, { ...problemBody(400, 'bad-request', err.message, 'validation-failed'), errors: err.errors });

  /** Connector failures as problems; anything unexpected is logged and reported as unknown. */
  const connectorProblem = (c: Context<AppEnv>, err: unknown, system: string, formulaId?: string) => {
    if (err instanceof ConnectionProblem) {
      const code: ConnectionErrorCode = formulaId && err.code !== 'unknown' ? 'formula-connection-error' : err.code;
      const meta = CONNECTION_ERRORS[code];
      return problemJson(c, meta.status, problemBody(meta.status, meta.problemTitle, err.message, code));
    }
    if (err instanceof NotSupported) return problemJson(c, 400, problemBody(400, 'bad-request', err.message, 'not-supported'));
    if (err instanceof ConnectorInputError) return problemJson(c, 400, problemBody(400, 'bad-request', err.message, 'invalid-request'));
    if (err instanceof SecretKeyError) {
      c.var.log.error({ err: err.message }, 'saved credentials could not be opened');
      return problemJson(c, 500, problemBody(500, 'connection-error', err.message, 'unknown'));
    }
    c.var.log.error({ err, system }, 'connector failed unexpectedly');
    return problemJson(c, 500, problemBody(500, 'connection-error', 'Something unexpected went wrong while connecting. Try again later.', 'unknown'));
  };

  /** Runs a test; rotated secrets of a saved data source are saved at once (the old ones no longer work). */
  const runTest = async (c: Context<AppEnv>, system: SystemId, settings: Record<string, string>, row?: DataSourceRow, formulaId?: string) => {
    let outcome: TestOutcome;
    try {
      outcome = await connectorOf(system).test(ctxFor(c.var.caller.tenantId!, settings, row?.id));
    } catch (err) {
      // a vendor that echoes a credential in its error message never gets it to the browser
      if (err instanceof ConnectionProblem) err.message = scrub(err.message, system, settings);
      return connectorProblem(c, err, system, formulaId);
    }
    if (row && outcome.updatedSecrets) {
      const secrets = { ...openSecrets(box, row), ...outcome.updatedSecrets };
      await db.update(dataSources).set(sealColumns(box, row.tenantId, row.id, secrets))
        .where(and(eq(dataSources.tenantId, row.tenantId), eq(dataSources.id, row.id)));
    }
    return c.json({ status: 'success', detail: outcome.detail, testedOn: new Date().toISOString() });
  };

  app.get('/systems', (c) => c.json({
    systems: CATALOGUE.map((d) => ({
      system: d.system, name: d.name, vendor: d.vendor, roles: d.roles, support: d.support,
      authentication: d.authentication, docs: d.docs, objects: d.objects,
      hasAdditionalSettings: { source: hasAdditionalSettings(d, 'source'), destination: hasAdditionalSettings(d, 'destination') },
      fields: formFields(d.settings),
    })),
  }));

  app.get('/data-sources', requirePolicy('datasource', 'view'), async (c) =>
    c.json({ dataSources: await listDataSources(db, c.var.caller.tenantId!) }));

  app.post('/data-sources', requirePolicy('datasource', 'create'), jsonBody(CreateDataSourceBody), async (c) => {
    const caller = c.var.caller;
    const body = c.req.valid('json');
    let values: Record<string, string>;
    try {
      values = checkSettings(body.system, body.settings);
    } catch (err) {
      if (err instanceof SettingsInvalid) return settingsProblem(c, err);
      throw err;
    }
    const { settings, secrets } = splitSettings(body.system, values);
    const id = crypto.randomUUID();
    try {
      const [row] = await db.insert(dataSources).values({
        id, tenantId: caller.tenantId!, system: body.system, displayName: body.displayName, settings,
        ...sealColumns(box, caller.tenantId!, id, secrets),
        createdBy: caller.userId, modifiedBy: caller.userId,
      }).returning();
      return c.json(await viewOf(db, box, row!), 201);
    } catch (err) {
      if (isUniqueViolation(err)) return fail(409, 'datasource-name-taken', `A data source named "${body.displayName}" already exists.`);
      throw err;
    }
  });

  app.post('/data-sources/test', async (c, next) => {
    const p = c.var.caller.policies;
    if (!c.var.caller.tenantId) return fail(400, 'bad-request', 'Header tenantId is required.');
    if (!can(p, 'datasource', 'create') && !can(p, 'datasource', 'edit')) return fail(403, 'forbidden', 'You need datasource create or edit permission.');
    await next();
  }, jsonBody(TestSettingsBody), async (c) => {
    const body = c.req.valid('json');
    let stored: Record<string, string> = {};
    let row: DataSourceRow | undefined;
    if (body.dataSourceId) {
      row = await findDataSource(db, c.var.caller.tenantId!, body.dataSourceId);
      if (!row) return fail(404, 'not-found', 'No such data source.');
      if (row.system !== body.system) return fail(400, 'bad-request', 'The data source is for another system.');
      stored = connectionSettings(box, row);
    }
    let values: Record<string, string>;
    try {
      values = checkSettings(body.system, mergeEdit(body.system, stored, body.settings));
    } catch (err) {
      if (err instanceof SettingsInvalid) return settingsProblem(c, err);
      if (err instanceof SecretKeyError) return connectorProblem(c, err, body.system);
      throw err;
    }
    return runTest(c, body.system, values, row);
  });

  app.get('/data-sources/:id', requirePolicy('datasource', 'view'), async (c) => {
    const row = await load(c);
    try {
      return c.json(await viewOf(db, box, row));
    } catch (err) {
      if (err instanceof SecretKeyError) return connectorProblem(c, err, row.system);
      throw err;
    }
  });

  app.patch('/data-sources/:id', requirePolicy('datasource', 'edit'), jsonBody(UpdateDataSourceBody), async (c) => {
    const caller = c.var.caller;
    const row = await load(c);
    const body = c.req.valid('json');
    const system = row.system as SystemId;
    let values: Record<string, string>;
    try {
      values = checkSettings(system, mergeEdit(system, editableSettings(box, row), body.settings));
    } catch (err) {
      if (err instanceof SettingsInvalid) return settingsProblem(c, err);
      if (err instanceof SecretKeyError) return connectorProblem(c, err, system);
      throw err;
    }
    const { settings, secrets } = splitSettings(system, values);
    const settingsChanged = body.settings !== undefined;
    try {
      const [updated] = await db.update(dataSources).set({
        ...(body.displayName !== undefined ? { displayName: body.displayName } : {}),
        settings,
        ...sealColumns(box, row.tenantId, row.id, secrets),
        // another account may list other objects
        ...(settingsChanged ? { objects: null, objectsRefreshedOn: null } : {}),
        modifiedBy: caller.userId,
        modifiedOn: sql`now()`,
      }).where(and(eq(dataSources.tenantId, row.tenantId), eq(dataSources.id, row.id))).returning();
      return c.json(await viewOf(db, box, updated!));
    } catch (err) {
      if (isUniqueViolation(err)) return fail(409, 'datasource-name-taken', `A data source named "${body.displayName}" already exists.`);
      throw err;
    }
  });

  app.delete('/data-sources/:id', requirePolicy('datasource', 'delete'), async (c) => {
    const row = await load(c);
    const refuse = (usedBy: { id: string; name: string }[]) => problemJson(c, 409, {
      ...problemBody(409, 'datasource-in-use',
        `"${row.displayName}" is used by ${usedBy.length === 1 ? 'the formula' : 'the formulas'} ${usedBy.map((f) => `"${f.name}"`).join(', ')}. Remove it from ${usedBy.length === 1 ? 'that formula' : 'those formulas'} first.`),
      usedBy,
    });
    const usedBy = await formulasUsing(db, row.tenantId, row.id);
    if (usedBy.length) return refuse(usedBy);
    try {
      await db.delete(dataSources).where(and(eq(dataSources.tenantId, row.tenantId), eq(dataSources.id, row.id)));
    } catch (err) {
      // a formula took it up in the meantime: the foreign key refuses
      if (isForeignKeyViolation(err)) return refuse(await formulasUsing(db, row.tenantId, row.id));
      throw err;
    }
    return c.body(null, 204);
  });

  app.post('/data-sources/:id/test', requirePolicy('datasource', 'view'), async (c) => {
    const row = await load(c);
    const formulaId = c.req.query('formulaId');
    if (formulaId !== undefined && !isUuid(formulaId)) return fail(400, 'bad-request', 'formulaId must be a formula id.');
    let settings: Record<string, string>;
    try {
      settings = connectionSettings(box, row);
    } catch (err) {
      return connectorProblem(c, err, row.system, formulaId);
    }
    return runTest(c, row.system as SystemId, settings, row, formulaId);
  });

  const readObjects = async (c: Context<AppEnv>, row: DataSourceRow) => {
    let objects;
    try {
      objects = await connectorOf(row.system as SystemId).listObjects(ctxFor(row.tenantId, connectionSettings(box, row), row.id));
    } catch (err) {
      return connectorProblem(c, err, row.system);
    }
    const [updated] = await db.update(dataSources).set({ objects, objectsRefreshedOn: sql`now()` })
      .where(and(eq(dataSources.tenantId, row.tenantId), eq(dataSources.id, row.id)))
      .returning({ objectsRefreshedOn: dataSources.objectsRefreshedOn });
    return c.json({ objects, refreshedOn: updated!.objectsRefreshedOn!.toISOString() });
  };

  app.get('/data-sources/:id/objects', requirePolicy('datasource', 'view'), async (c) => {
    const row = await load(c);
    if (row.objects && row.objectsRefreshedOn) return c.json({ objects: row.objects, refreshedOn: row.objectsRefreshedOn.toISOString() });
    return readObjects(c, row);
  });

  app.post('/data-sources/:id/objects/refresh', requirePolicy('datasource', 'view'), async (c) => readObjects(c, await load(c)));

  app.get('/data-sources/:id/objects/:object/fields', requirePolicy('datasource', 'view'), async (c) => {
    const row = await load(c);
    const object = c.req.param('object');
    if (!object || object.length > 255) return fail(400, 'bad-request', 'Name an object.');
    try {
      const fields = await connectorOf(row.system as SystemId).describeFields(ctxFor(row.tenantId, connectionSettings(box, row), row.id), object);
      return c.json({ object, fields });
    } catch (err) {
      return connectorProblem(c, err, row.system);
    }
  });

  app.get('/data-sources/:id/salesforce/reports/:reportId', requirePolicy('datasource', 'view'), async (c) => {
    const row = await load(c);
    if (row.system !== 'salesforce') return fail(400, 'bad-request', 'Reports belong to Salesforce data sources.');
    const reportId = c.req.param('reportId');
    try {
      const check = await checkSalesforceReport(connectionSettings(box, row), reportId);
      if (!check.ok) return problemJson(c, 422, problemBody(422, check.problem, check.detail));
      return c.json({ reportId, name: check.name, dateFilterColumn: check.dateFilterColumn });
    } catch (err) {
      return connectorProblem(c, err, row.system);
    }
  });

  return app;
}

