/** Contracts of the integrations service (/integrations/v1): the connector catalogue and the tenant's data sources. */
import * as v from 'valibot';
import { CreateDataSourceBody, TestSettingsBody, UpdateDataSourceBody } from '../connectors/bodies.ts';
import { CAPABILITIES, SYSTEM_IDS } from '../connectors/types.ts';
import { endpoint, service } from './contract.ts';
import { SANDBOX_IMPORT_FIELDS } from '../sandboxImport.ts';

const System = v.picklist(SYSTEM_IDS);
const ObjectInfoSchema = v.object({ name: v.string(), label: v.string() });

const Condition = v.object({ field: v.string(), is: v.array(v.string()) });
/** A settings field as the form renders it (src/domain/connectors/fields.ts FieldMeta). */
const FieldMetaSchema = v.object({
  key: v.string(), kind: v.picklist(['text', 'secret', 'url', 'email', 'port', 'select', 'key']), label: v.string(),
  secret: v.boolean(), required: v.boolean(),
  options: v.optional(v.array(v.object({ value: v.string(), label: v.string() }))),
  when: v.optional(Condition), requiredWhen: v.optional(Condition),
  defaultValue: v.optional(v.string()), placeholder: v.optional(v.string()), description: v.optional(v.string()),
  endpoint: v.optional(v.boolean()),
});

export const SystemSchema = v.object({
  system: System, name: v.string(), vendor: v.string(),
  roles: v.object({ source: v.boolean(), destination: v.boolean() }),
  support: v.picklist(['full']),
  /** what Tributary does with it today: 'source and destination', 'source', 'destination' ... */
  does: v.picklist(CAPABILITIES),
  authentication: v.string(), docs: v.string(), objects: v.array(ObjectInfoSchema),
  hasAdditionalSettings: v.object({ source: v.boolean(), destination: v.boolean() }),
  fields: v.array(FieldMetaSchema),
});

/** a data source whose vendor revoked its grant: the reason in words, and since when */
const NeedsReconnectingSchema = v.optional(v.nullable(v.object({ reason: v.string(), since: v.string() })));

export const DataSourceListItemSchema = v.object({
  id: v.string(), system: System, displayName: v.string(), createdOn: v.string(), createdBy: v.nullable(v.string()),
  modifiedOn: v.string(), modifiedBy: v.nullable(v.string()), usedByCount: v.number(),
  needsReconnecting: NeedsReconnectingSchema,
  /** the tenant's own 'File upload' data source: always there, never deleted */
  builtIn: v.optional(v.boolean()),
});

/** A data source as the browser may see it: plain settings, and `{ saved: true }` for each saved secret. */
export const DataSourceViewSchema = v.object({
  id: v.string(), system: System, displayName: v.string(),
  settings: v.record(v.string(), v.union([v.string(), v.object({ saved: v.literal(true) })])),
  createdOn: v.string(), createdBy: v.nullable(v.string()), modifiedOn: v.string(), modifiedBy: v.nullable(v.string()),
  usedBy: v.array(v.object({ id: v.string(), name: v.string() })),
  needsReconnecting: NeedsReconnectingSchema,
});

export const TestResultSchema = v.object({ status: v.literal('success'), detail: v.string(), testedOn: v.string() });
export const ObjectListSchema = v.object({ objects: v.array(ObjectInfoSchema), refreshedOn: v.string() });

export const FIELD_TYPES = ['string', 'number', 'boolean', 'date', 'datetime', 'email', 'phone', 'object', 'array'] as const;
/** An object's field as the system describes it; `searchable` fields can be matched on. */
export const FieldInfoSchema = v.object({
  name: v.string(), label: v.string(), type: v.picklist(FIELD_TYPES),
  required: v.optional(v.boolean()), searchable: v.optional(v.boolean()),
  /** the destination sets it itself (a record id, the date it was added): never a mapping target */
  readOnly: v.optional(v.boolean()),
});
export type FieldInfo = v.InferOutput<typeof FieldInfoSchema>;
export const FieldListSchema = v.object({ object: v.string(), fields: v.array(FieldInfoSchema) });

/** What an import of constituents did: how many went in, and the refused rows (the first 100) with their reasons. */
export const SandboxImportResultSchema = v.object({
  imported: v.number(),
  refused: v.array(v.object({ row: v.number(), reason: v.string() })),
  refusedCount: v.number(),
});

export const SANDBOX_IMPORT_STATUSES = ['waiting', 'importing', 'imported', 'refused', 'error'] as const;
/**
 * One import as the browser follows it: queued (waiting for the tenant's import before it),
 * importing (rows read of the file's total, constituents imported so far, and a percent), then
 * imported (the result), refused (the problem: nothing of the file went in) or error (stopped part
 * way: the rows imported so far stay, the problem says how many).
 */
export const SandboxImportViewSchema = v.object({
  id: v.string(),
  dataSourceId: v.string(),
  fileName: v.string(),
  status: v.picklist(SANDBOX_IMPORT_STATUSES),
  total: v.number(),
  read: v.number(),
  imported: v.number(),
  refusedCount: v.number(),
  percent: v.number(),
  /** when imported */
  result: v.nullable(SandboxImportResultSchema),
  /** when refused or error: a problem as the error catalogue reads it */
  problem: v.nullable(v.object({
    title: v.string(), detail: v.string(), code: v.optional(v.string()),
    refused: v.optional(v.array(v.object({ row: v.number(), reason: v.string() }))), refusedCount: v.optional(v.number()),
  })),
  createdOn: v.string(),
});

/** The header row of a file to import: each column with the field first suggested for it (null: left out). */
export const ImportColumnsSchema = v.object({
  columns: v.array(v.object({ header: v.string(), field: v.nullable(v.picklist(SANDBOX_IMPORT_FIELDS)) })),
});

/** What emptying a Sandbox CRM deleted. */
export const SandboxEmptiedSchema = v.object({ constituents: v.number(), gifts: v.number() });
export type SandboxEmptied = v.InferOutput<typeof SandboxEmptiedSchema>;

const view = { resource: 'datasource', action: 'view' } as const;
const edit = { resource: 'datasource', action: 'edit' } as const;

export const integrationsService = service({
  name: 'integrations',
  basePath: '/integrations/v1',
  endpoints: {
    systems: endpoint({ method: 'get', path: '/systems', access: 'signed-in', response: v.object({ systems: v.array(SystemSchema) }), summary: 'The connector catalogue: every system, its settings form, roles and standard objects.' }),
    list: endpoint({ method: 'get', path: '/data-sources', access: view, response: v.object({ dataSources: v.array(DataSourceListItemSchema) }), summary: 'The tenant\'s data sources.' }),
    create: endpoint({
      method: 'post', path: '/data-sources', access: { resource: 'datasource', action: 'create' }, body: CreateDataSourceBody, response: DataSourceViewSchema, status: 201,
      summary: 'Creates a data source; its settings are checked against the system\'s schema and its secrets sealed.', problems: ['datasource-name-taken'],
    }),
    testSettings: endpoint({
      method: 'post', path: '/data-sources/test', access: 'tenant', body: TestSettingsBody, response: TestResultSchema,
      summary: 'Tests unsaved settings (datasource create or edit); with dataSourceId (edit), saved secrets fill the gaps unless the address changed.',
      problems: ['connection-failed', 'connection-error'],
    }),
    get: endpoint({ method: 'get', path: '/data-sources/:id', access: view, response: DataSourceViewSchema, summary: 'One data source; secrets show only as saved.' }),
    update: endpoint({
      method: 'patch', path: '/data-sources/:id', access: edit, body: UpdateDataSourceBody, response: DataSourceViewSchema,
      summary: 'Edits a data source; an empty secret keeps its saved value while the address stays the same.', problems: ['datasource-name-taken'],
    }),
    remove: endpoint({
      method: 'delete', path: '/data-sources/:id', access: { resource: 'datasource', action: 'delete' }, response: null, status: 204,
      summary: 'Deletes a data source no formula uses.', problems: ['datasource-in-use', 'datasource-built-in'],
    }),
    testSaved: endpoint({
      method: 'post', path: '/data-sources/:id/test', access: edit, response: TestResultSchema,
      query: v.object({ formulaId: v.optional(v.pipe(v.string('Give formulaId once.'), v.description('tested for this formula: failures say formula-connection-error'))) }),
      summary: 'Tests a saved data source with its saved credentials.', problems: ['connection-failed', 'connection-error'],
    }),
    objects: endpoint({
      method: 'get', path: '/data-sources/:id/objects', access: view, response: ObjectListSchema,
      summary: 'The object picker\'s list: kept once read; only an editor\'s call reads it from the system.', problems: ['connection-failed', 'connection-error'],
    }),
    refreshObjects: endpoint({
      method: 'post', path: '/data-sources/:id/objects/refresh', access: edit, response: ObjectListSchema,
      summary: 'Reads the object list from the system again.', problems: ['connection-failed', 'connection-error'],
    }),
    fields: endpoint({
      method: 'get', path: '/data-sources/:id/objects/:object/fields', access: view, response: FieldListSchema,
      summary: 'An object\'s fields.', problems: ['connection-failed', 'connection-error'],
    }),
    importSandboxConstituents: endpoint({
      method: 'post', path: '/data-sources/:id/sandbox-crm/import', access: edit, response: SandboxImportViewSchema, status: 202,
      summary: 'Starts an import of constituents into a Sandbox CRM data source from a CSV file sent as multipart/form-data in a part named "file" '
        + '(at most 15MB). Columns are read by header (First name, Last name, Middle name, Preferred name, Email, Phone, Address line 1 and 2, City, State, Postal code, '
        + 'Country, Title, Lookup ID, in the usual spellings; two columns for one field, such as constituent_id and lookup_id, are refused); a lookup ID must be new to the tenant, and one is made when none is given. '
        + 'Bad rows are refused with their reasons; a file none of whose rows can be imported is refused as a whole, and so is a file of '
        + 'more than 50,000 rows or one that would take the tenant past 250,000 constituents (limits set by the server\'s configuration). '
        + 'These limits and the file\'s structure are checked before the answer; the rows then go in a batch at a time, each batch '
        + 'committed on its own, one import of a tenant after another. The answer is the import\'s status: follow it with importStatus.',
      query: v.object({
        columns: v.optional(v.pipe(
          v.string('Give columns once.'),
          v.description('the field each column of the header row gives, in the file\'s order, comma-separated, empty for a column left out '
            + '(for example "lookupId,firstName,lastName,,email"); without it the columns are read by header'),
        )),
      }),
      problems: ['file-type-not-accepted', 'file-too-large', 'file-name-too-long', 'file-empty', 'file-wrong-structure', 'import-columns-conflict', 'import-rows-refused', 'unsupported-media-type', 'bad-request'],
    }),
    importColumns: endpoint({
      method: 'post', path: '/data-sources/:id/sandbox-crm/import/columns', access: edit, response: ImportColumnsSchema,
      summary: 'Reads the header row of a CSV file to import (the first 64KB of it are enough), sent as multipart/form-data in a part named "file", '
        + 'and answers each column with the constituent field suggested for it by its header (null: left out; a field a column before already gives is not suggested again). '
        + 'The import dialog shows this choice for the user to change, and sends it with the file as importSandboxConstituents\'s columns. Nothing is kept.',
      problems: ['file-type-not-accepted', 'file-too-large', 'file-name-too-long', 'file-empty', 'file-wrong-structure', 'unsupported-media-type'],
    }),
    importStatus: endpoint({
      method: 'get', path: '/data-sources/:id/sandbox-crm/imports/:importId', access: edit, response: SandboxImportViewSchema,
      summary: 'An import\'s status: waiting, importing (rows read of the total, constituents imported so far, percent), imported '
        + '(the result), refused or error (the problem). An import started by anyone of the tenant can be followed.',
    }),
    latestImport: endpoint({
      method: 'get', path: '/data-sources/:id/sandbox-crm/imports', access: edit, response: v.object({ latest: v.nullable(SandboxImportViewSchema) }),
      summary: 'The data source\'s latest import of the last day, so a page opened again finds the import it started.',
    }),
    emptySandboxCrm: endpoint({
      method: 'delete', path: '/data-sources/:id/sandbox-crm/records', access: edit, response: SandboxEmptiedSchema,
      summary: 'Empties a Sandbox CRM data source: deletes every constituent and gift of the tenant\'s Sandbox CRM (and what its '
        + 'writes remembered, so a send writes afresh), answering how many of each went. The data source stays; it cannot be undone.',
    }),
    startOAuth: endpoint({
      method: 'post', path: '/data-sources/:id/oauth/authorize', access: edit, response: v.object({ authorizeUrl: v.string() }),
      summary: 'Starts connecting a saved data source through its vendor\'s consent page (OAuth 2.0 authorization code, with PKCE where the vendor '
        + 'supports it): answers the URL to send the browser to, with a signed state bound to the caller, the tenant and the data source, '
        + 'valid once for 15 minutes. The vendor sends the browser back to PUBLIC_URL/integrations/oauth/callback, which hands its answer to '
        + 'the Connections screen; completeOAuth finishes. The application\'s ID and secret come from the data source, else from the '
        + 'server\'s OAUTH_CLIENT_ID_<SYSTEM> and OAUTH_CLIENT_SECRET_<SYSTEM>.',
      problems: ['connection-error'],
    }),
    completeOAuth: endpoint({
      method: 'post', path: '/oauth/complete', access: edit, response: v.object({ dataSourceId: v.string(), detail: v.string() }),
      body: v.object({
        state: v.pipe(v.string(), v.maxLength(200)),
        code: v.optional(v.pipe(v.string(), v.maxLength(2048))),
        error: v.optional(v.pipe(v.string(), v.maxLength(100))),
      }),
      summary: 'Completes a connection with the vendor\'s answer (its code, or its error) as the callback received it, by the user who started '
        + 'it, in the tenant it was started in: the code is exchanged at the vendor\'s token endpoint and the refresh token saved encrypted. '
        + 'A refused consent, an expired, reused or foreign state, or a failed exchange is oauth-not-connected, with codes access-denied, '
        + 'state-expired, state-used, state-invalid, vendor-error and exchange-failed, a detail in words, and the dataSourceId where it is known.',
      problems: ['oauth-not-connected'],
    }),
    salesforceReport: endpoint({
      method: 'get', path: '/data-sources/:id/salesforce/reports/:reportId', access: view,
      response: v.object({ reportId: v.string(), name: v.string(), dateFilterColumn: v.string() }),
      summary: 'Checks a Salesforce report for a formula: it must exist, be readable and have a standard date filter.',
      problems: ['invalid-report-id', 'report-date-filter', 'report-missing-access', 'connection-failed', 'connection-error'],
    }),
  },
});

/** A Sandbox CRM import's status as the browser reads it: what views and machines hold. */
export type SandboxImportView = v.InferOutput<typeof SandboxImportViewSchema>;
