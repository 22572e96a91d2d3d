/**
 * Connections (SPEC.md sections 3, 4, 5 and 8): a tenant's data sources, their tests, objects and
 * fields. Settings are checked against the system's schema, secrets sealed and never sent back;
 * saved secrets go only where they were entered for. Calls that reach a system with the saved
 * credentials need datasource edit (the contracts say so), so read-only roles cannot make
 * Tributary call out. Every refusal is a DomainError; connector failures become connection
 * problems here, in one place.
 */
import type { Logger } from 'pino';
import { CONNECTION_ERRORS, type ConnectionErrorCode } from '../../src/domain/connectionErrors.ts';
import { CATALOGUE, connectorFor, type CreateDataSourceBody, type DataSourceView, type TestSettingsBody, type UpdateDataSourceBody } from '../../src/domain/connectors/catalogue.ts';
import { formFields, secretKeys } from '../../src/domain/connectors/fields.ts';
import { mayPasteTokens, PASTE_REFUSED_MESSAGE, tokenFields } from '../../src/domain/connectors/oauth.ts';
import { capabilityOf, hasAdditionalSettings, type ObjectInfo, type SystemId } from '../../src/domain/connectors/types.ts';
import type { SandboxEmptied } from '../../src/domain/api/integrations.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { can, type Policies } from '../../src/domain/roles.ts';
import type { Config } from '../config.ts';
import { grantStoreFor, type ReconnectNotices } from '../connectors/kit/grant.ts';
import { ConnectionProblem, ConnectorInputError, NotSupported, type ConnectorContext, type FieldInfo } from '../connectors/connector.ts';
import {
  checkSettings, connectionSettings, editableSettings, editedSettings, formulasUsing, isForeignKeyViolation, isUniqueViolation,
  needsReconnectingOf, openSecrets, sealColumns, SettingsInvalid, splitSettings, viewOf, type DataSourceRow,
} from '../connectors/dataSources.ts';
import { connectorOf } from '../connectors/registry.ts';
import { sandboxCrmStore } from '../connectors/sandboxCrm/connector.ts';
import { checkSalesforceReport } from '../connectors/salesforce/connector.ts';
import { SecretKeyError, type SecretBox } from '../connectors/secrets.ts';
import type { TenantScope } from '../db/tenancy.ts';
import { recordEvent } from './events.ts';

export interface Actor {
  userId: string;
  /** for the activity history */
  name: string;
  policies: Policies;
  log: Logger;
  correlationId: string;
}

/** A connection change in the activity history: who changed which data source (never its settings' values). */
const connectionEvent = (tenant: TenantScope, actor: Actor, type: string, description: string, details: Record<string, unknown>) =>
  recordEvent(tenant, { actor: { userId: actor.userId, name: actor.name }, type, description, details, correlationId: actor.correlationId });

/** Removes every secret value of these settings from a text. */
function scrub(text: string, system: SystemId, settings: Record<string, string>): string {
  let out = text;
  for (const key of secretKeys(connectorFor(system).settings)) {
    const value = settings[key];
    if (value && value.length >= 4) out = out.split(value).join('[hidden]');
  }
  return out;
}

const invalid = (err: SettingsInvalid) => new DomainError('bad-request', err.message, { errors: err.errors }, 'validation-failed');

/** A connector's failure as the problem the browser shows; anything unexpected is logged and reported as unknown. */
export function connectorFailure(err: unknown, system: string, log: Logger, formulaId?: string): DomainError {
  if (err instanceof DomainError) return err;
  if (err instanceof SettingsInvalid) return invalid(err);
  if (err instanceof ConnectionProblem) {
    const code: ConnectionErrorCode = formulaId && err.code !== 'unknown' ? 'formula-connection-error' : err.code;
    return new DomainError(CONNECTION_ERRORS[code].problemTitle, err.message, {}, code);
  }
  if (err instanceof NotSupported) return new DomainError('bad-request', err.message, {}, 'not-supported');
  if (err instanceof ConnectorInputError) return new DomainError('bad-request', err.message, {}, 'invalid-request');
  if (err instanceof SecretKeyError) {
    log.error({ err: err.message }, 'saved credentials could not be opened');
    return new DomainError('connection-error', err.message, {}, 'unknown');
  }
  log.error({ err, system }, 'connector failed unexpectedly');
  return new DomainError('connection-error', 'Something unexpected went wrong while connecting. Try again later.', {}, 'unknown');
}

/** A refresh token typed in rather than obtained by Connect: an Administrator's alone (src/domain/connectors/oauth.ts). */
function refusePastedTokens(actor: Actor, system: SystemId, settings: Record<string, string> | undefined): void {
  if (!settings || mayPasteTokens(actor.policies)) return;
  if (tokenFields(system).some((key) => (settings[key] ?? '').trim() !== '')) throw new DomainError('forbidden', PASTE_REFUSED_MESSAGE);
}

const nameTaken = (name: string | undefined) => new DomainError('datasource-name-taken', `A data source named "${name}" already exists.`);

export function connectionsService(deps: { box: SecretBox; config: Pick<Config, 'dataDir' | 'connectorAllowPrivateHosts'>; notices?: ReconnectNotices }) {
  const { box, config } = deps;
  const network = { allowPrivateHosts: config.connectorAllowPrivateHosts };
  const contextFor = (tenant: TenantScope, settings: Record<string, string>, dataSourceId?: string): ConnectorContext => ({
    tenant, settings, dataDir: config.dataDir, network, ...(dataSourceId ? { dataSourceId, grant: grantStoreFor(tenant, box, dataSourceId, deps.notices) } : {}),
  });

  /** The tenant's data source, or not-found (another tenant's is as unknown as a missing one). */
  async function load(tenant: TenantScope, id: string): Promise<DataSourceRow> {
    const row = await tenant.dataSources.get(id);
    if (!row) throw new DomainError('not-found', 'No such data source.');
    return row;
  }

  /** Runs a test; rotated secrets of a saved data source are saved at once (the old ones no longer work). */
  async function runTest(tenant: TenantScope, actor: Actor, system: SystemId, settings: Record<string, string>, row?: DataSourceRow, formulaId?: string) {
    let outcome;
    try {
      outcome = await connectorOf(system).test(contextFor(tenant, settings, row?.id));
    } catch (err) {
      // a vendor that echoes a credential in its error message never gets it to the browser
      if (err instanceof ConnectionProblem) err.message = scrub(err.message, system, settings);
      throw connectorFailure(err, system, actor.log, formulaId);
    }
    if (row && outcome.updatedSecrets) {
      await tenant.dataSources.update(row.id, sealColumns(box, row.tenantId, row.id, { ...openSecrets(box, row), ...outcome.updatedSecrets }));
    }
    // the vendor accepted the saved grant again: the data source is connected
    if (row?.needsReconnecting) await tenant.dataSources.update(row.id, { needsReconnecting: null, needsReconnectingOn: null });
    return { status: 'success' as const, detail: outcome.detail, testedOn: new Date().toISOString() };
  }

  async function readObjects(tenant: TenantScope, actor: Actor, row: DataSourceRow): Promise<{ objects: ObjectInfo[]; refreshedOn: string }> {
    let objects: ObjectInfo[];
    try {
      objects = await connectorOf(row.system as SystemId).listObjects(contextFor(tenant, connectionSettings(box, row), row.id));
    } catch (err) {
      throw connectorFailure(err, row.system, actor.log);
    }
    const refreshedOn = new Date();
    await tenant.dataSources.update(row.id, { objects, objectsRefreshedOn: refreshedOn });
    return { objects, refreshedOn: refreshedOn.toISOString() };
  }

  return {
    systems() {
      return CATALOGUE.map((d) => ({
        system: d.system, name: d.name, vendor: d.vendor, roles: d.roles, support: d.support, does: capabilityOf(d),
        authentication: d.authentication, docs: d.docs, objects: d.objects,
        hasAdditionalSettings: { source: hasAdditionalSettings(d, 'source'), destination: hasAdditionalSettings(d, 'destination') },
        fields: formFields(d.settings),
      }));
    },

    async list(tenant: TenantScope) {
      const rows = await tenant.dataSources.list();
      return rows.map(({ needsReconnecting, needsReconnectingOn, ...r }) => ({
        ...r, system: r.system as SystemId, createdOn: r.createdOn.toISOString(), modifiedOn: r.modifiedOn.toISOString(),
        needsReconnecting: needsReconnectingOf({ needsReconnecting, needsReconnectingOn, modifiedOn: r.modifiedOn }),
      }));
    },

    async create(tenant: TenantScope, actor: Actor, body: CreateDataSourceBody): Promise<DataSourceView> {
      refusePastedTokens(actor, body.system, body.settings);
      let values: Record<string, string>;
      try { values = checkSettings(body.system, body.settings); } catch (err) { throw err instanceof SettingsInvalid ? invalid(err) : err; }
      const { settings, secrets } = splitSettings(body.system, values);
      const id = crypto.randomUUID();
      try {
        const row = await tenant.dataSources.insert({
          id, system: body.system, displayName: body.displayName, settings,
          ...sealColumns(box, tenant.tenantId, id, secrets), createdBy: actor.userId, modifiedBy: actor.userId,
        });
        await connectionEvent(tenant, actor, 'datasource.created', `Added the data source ${row.displayName}`, { dataSourceId: row.id, system: row.system });
        return await viewOf(tenant, box, row);
      } catch (err) {
        throw isUniqueViolation(err) ? nameTaken(body.displayName) : err;
      }
    },

    async get(tenant: TenantScope, actor: Actor, id: string): Promise<DataSourceView> {
      const row = await load(tenant, id);
      try { return await viewOf(tenant, box, row); } catch (err) { throw err instanceof SecretKeyError ? connectorFailure(err, row.system, actor.log) : err; }
    },

    async update(tenant: TenantScope, actor: Actor, id: string, body: UpdateDataSourceBody): Promise<DataSourceView> {
      const row = await load(tenant, id);
      const system = row.system as SystemId;
      refusePastedTokens(actor, system, body.settings);
      let values: Record<string, string>;
      try { values = editedSettings(system, editableSettings(box, row), body.settings); } catch (err) { throw connectorFailure(err, system, actor.log); }
      const { settings, secrets } = splitSettings(system, values);
      try {
        const updated = await tenant.transaction(async (tx) => {
          // an access token got with the old credentials is not theirs: the next call signs in with the new ones
          if (body.settings !== undefined) await tx.vendorState.dropToken(row.id);
          return tx.dataSources.update(row.id, {
            ...(body.displayName !== undefined ? { displayName: body.displayName } : {}),
            settings,
            ...sealColumns(box, row.tenantId, row.id, secrets),
            // another account may list other objects
            ...(body.settings !== undefined ? { objects: null, objectsRefreshedOn: null } : {}),
            // new credentials are a reconnection: runs may try them
            ...(body.settings !== undefined ? { needsReconnecting: null, needsReconnectingOn: null } : {}),
            modifiedBy: actor.userId,
            modifiedOn: new Date(),
          });
        });
        await connectionEvent(tenant, actor, 'datasource.updated', `Edited the data source ${updated!.displayName}`, {
          dataSourceId: row.id, system, ...(body.displayName !== undefined && body.displayName !== row.displayName ? { renamedFrom: row.displayName } : {}),
          settingsChanged: body.settings !== undefined,
        });
        return await viewOf(tenant, box, updated!);
      } catch (err) {
        throw isUniqueViolation(err) ? nameTaken(body.displayName) : err;
      }
    },

    /** Deleting a data source a formula uses is refused (SPEC.md section 5), naming the formulas. */
    async remove(tenant: TenantScope, actor: Actor, id: string): Promise<void> {
      const row = await load(tenant, id);
      // the tenant's own file upload source: Formula Producers start file-upload formulas from it
      if (row.builtIn) throw new DomainError('datasource-built-in', `"${row.displayName}" comes with the organisation and cannot be deleted.`);
      const refuse = (usedBy: { id: string; name: string }[]) => new DomainError('datasource-in-use',
        `"${row.displayName}" is used by ${usedBy.length === 1 ? 'the formula' : 'the formulas'} ${usedBy.map((f) => `"${f.name}"`).join(', ')}. Remove it from ${usedBy.length === 1 ? 'that formula' : 'those formulas'} first.`,
        { usedBy });
      const usedBy = await formulasUsing(tenant, row.id);
      if (usedBy.length) throw refuse(usedBy);
      try {
        await tenant.dataSources.remove(row.id);
        await connectionEvent(tenant, actor, 'datasource.deleted', `Deleted the data source ${row.displayName}`, { dataSourceId: row.id, system: row.system });
      } catch (err) {
        // a formula took it up in the meantime: the foreign key refuses
        if (isForeignKeyViolation(err)) throw refuse(await formulasUsing(tenant, row.id));
        throw err;
      }
    },

    /** Deletes every constituent and gift of a Sandbox CRM data source; the data source stays. */
    async emptySandboxCrm(tenant: TenantScope, actor: Actor, id: string): Promise<SandboxEmptied> {
      const row = await load(tenant, id);
      if (row.system !== 'sandbox-crm') {
        throw new DomainError('bad-request', 'Only a Sandbox CRM data source can be emptied.', {}, 'not-sandbox-crm');
      }
      const deleted = await sandboxCrmStore(tenant).empty();
      await connectionEvent(tenant, actor, 'datasource.emptied',
        `Emptied the data source ${row.displayName}: ${deleted.constituents} constituents and ${deleted.gifts} gifts deleted`, { dataSourceId: row.id, ...deleted });
      actor.log.info({ dataSourceId: row.id, ...deleted }, 'sandbox crm emptied');
      return deleted;
    },

    /** Unsaved settings; with dataSourceId, saved secrets fill the gaps unless the address changed. */
    async testSettings(tenant: TenantScope, actor: Actor, body: TestSettingsBody) {
      if (!can(actor.policies, 'datasource', 'create') && !can(actor.policies, 'datasource', 'edit')) {
        throw new DomainError('forbidden', 'You need datasource create or edit permission.');
      }
      refusePastedTokens(actor, body.system, body.settings);
      let stored: Record<string, string> = {};
      let row: DataSourceRow | undefined;
      if (body.dataSourceId) {
        row = await load(tenant, body.dataSourceId);
        if (row.system !== body.system) throw new DomainError('bad-request', 'The data source is for another system.');
        // saved secrets are used: as for a saved data source's own test, that takes edit
        if (!can(actor.policies, 'datasource', 'edit')) throw new DomainError('forbidden', 'You need datasource edit permission.');
        stored = connectionSettings(box, row);
      }
      let values: Record<string, string>;
      try { values = editedSettings(body.system, stored, body.settings); } catch (err) { throw connectorFailure(err, body.system, actor.log); }
      return runTest(tenant, actor, body.system, values, row);
    },

    async testSaved(tenant: TenantScope, actor: Actor, id: string, formulaId?: string) {
      const row = await load(tenant, id);
      let settings: Record<string, string>;
      try { settings = connectionSettings(box, row); } catch (err) { throw connectorFailure(err, row.system, actor.log, formulaId); }
      return runTest(tenant, actor, row.system as SystemId, settings, row, formulaId);
    },

    /** The kept list; only an editor's call reads it from the system when none is kept yet. */
    async objects(tenant: TenantScope, actor: Actor, id: string) {
      const row = await load(tenant, id);
      // a file-upload data source's objects are the tenant's own uploads: nothing outside is called,
      // so anyone who may view it reads them afresh (a kept list would miss the latest upload)
      if (row.system === 'file-upload') return readObjects(tenant, actor, row);
      if (row.objects && row.objectsRefreshedOn) return { objects: row.objects, refreshedOn: row.objectsRefreshedOn.toISOString() };
      if (!can(actor.policies, 'datasource', 'edit')) {
        throw new DomainError('forbidden', 'The objects of this data source have not been read from the system yet. Someone who may edit data sources can read them.');
      }
      return readObjects(tenant, actor, row);
    },

    refreshObjects: async (tenant: TenantScope, actor: Actor, id: string) => readObjects(tenant, actor, await load(tenant, id)),

    async fields(tenant: TenantScope, actor: Actor, id: string, object: string): Promise<{ object: string; fields: FieldInfo[] }> {
      const row = await load(tenant, id);
      if (!object || object.length > 255) throw new DomainError('bad-request', 'Name an object.');
      try {
        const fields = await connectorOf(row.system as SystemId).describeFields(contextFor(tenant, connectionSettings(box, row), row.id), object);
        return { object, fields };
      } catch (err) {
        throw connectorFailure(err, row.system, actor.log);
      }
    },

    async salesforceReport(tenant: TenantScope, actor: Actor, id: string, reportId: string) {
      const row = await load(tenant, id);
      if (row.system !== 'salesforce') throw new DomainError('bad-request', 'Reports belong to Salesforce data sources.');
      let check;
      try { check = await checkSalesforceReport(contextFor(tenant, connectionSettings(box, row), row.id), reportId); } catch (err) { throw connectorFailure(err, row.system, actor.log); }
      if (!check.ok) throw new DomainError(check.problem, check.detail);
      return { reportId, name: check.name, dateFilterColumn: check.dateFilterColumn };
    },
  };
}

export type ConnectionsService = ReturnType<typeof connectionsService>;
