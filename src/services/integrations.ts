/** The integrations gateway service (/integrations/v1): data sources, their tests, objects and fields. */
import type * as v from 'valibot';
import { fillPath } from '../domain/api/contract.ts';
import { integrationsService, type FieldListSchema, type ObjectListSchema, type SandboxImportResultSchema, type SandboxEmptied, type SandboxImportView, type TestResultSchema } from '../domain/api/integrations.ts';
import type { DataSourceView } from '../domain/connectors/catalogue.ts';
import type { DataSourceListItem, SystemId } from '../domain/connectors/types.ts';
import { columnChoiceParam, HEADER_SLICE_BYTES, type ColumnChoice, type ImportColumn } from '../domain/sandboxImport.ts';
import { serviceClient, type RequestOptions } from './gateway.ts';
import type { UploadOptions } from './postFile.ts';

/** Uploading a file, loaded when a Sandbox CRM import first sends one: the screens that list data sources (the Data Queue among them) never do. */
const postFile = async <T>(url: string, file: File, opts?: UploadOptions): Promise<T> => (await import('./postFile.ts')).postFile<T>(url, file, opts);

export type { DataSourceListItem };

const sandboxPath = (endpoint: 'importSandboxConstituents' | 'importColumns', id: string) =>
  `${integrationsService.basePath}${fillPath(integrationsService.endpoints[endpoint].path, { id })}`;


export interface DataSourceInput {
  system: SystemId;
  displayName: string;
  /** secrets left empty keep their saved value on an edit */
  settings: Record<string, string>;
}

export type TestResult = v.InferOutput<typeof TestResultSchema>;
export type ObjectList = v.InferOutput<typeof ObjectListSchema>;
/** fields as the contract gives them, `searchable` included */
export type FieldList = v.InferOutput<typeof FieldListSchema>;
export type SandboxImportResult = v.InferOutput<typeof SandboxImportResultSchema>;
export type { SandboxImportView };

const client = serviceClient(integrationsService);

export const integrations = {
  list: async (o?: RequestOptions): Promise<DataSourceListItem[]> => (await client.call('list', {}, o)).dataSources,
  get: (dataSourceId: string, o?: RequestOptions): Promise<DataSourceView> => client.call('get', { params: { id: dataSourceId } }, o),
  create: (input: DataSourceInput, o?: RequestOptions): Promise<DataSourceView> => client.call('create', { body: input }, o),
  update: (dataSourceId: string, input: { displayName?: string; settings?: Record<string, string> }, o?: RequestOptions): Promise<DataSourceView> =>
    client.call('update', { params: { id: dataSourceId }, body: input }, o),
  remove: (dataSourceId: string, o?: RequestOptions) => client.call('remove', { params: { id: dataSourceId } }, o),
  /** a saved data source as it is */
  testSaved: (dataSourceId: string, o?: RequestOptions): Promise<TestResult> =>
    client.call('testSaved', { params: { id: dataSourceId }, query: o?.formulaId ? { formulaId: o.formulaId } : undefined }, o),
  /** settings from the form; with dataSourceId, saved secrets stand in for empty ones */
  testSettings: (input: { system: SystemId; settings: Record<string, string>; dataSourceId?: string }, o?: RequestOptions): Promise<TestResult> =>
    client.call('testSettings', { body: input }, o),
  objects: (dataSourceId: string, o?: RequestOptions): Promise<ObjectList> => client.call('objects', { params: { id: dataSourceId } }, o),
  refreshObjects: (dataSourceId: string, o?: RequestOptions): Promise<ObjectList> => client.call('refreshObjects', { params: { id: dataSourceId } }, o),
  fields: (dataSourceId: string, object: string, o?: RequestOptions): Promise<FieldList> =>
    client.call('fields', { params: { id: dataSourceId, object } }, o),
  /** the vendor's consent page for a saved data source (Connect with the vendor) */
  startOAuth: async (dataSourceId: string, o?: RequestOptions): Promise<string> =>
    (await client.call('startOAuth', { params: { id: dataSourceId } }, o)).authorizeUrl,
  /** the vendor's answer as the callback brought it back */
  completeOAuth: (answer: { state: string; code?: string; error?: string }, o?: RequestOptions): Promise<{ dataSourceId: string; detail: string }> =>
    client.call('completeOAuth', { body: answer }, o),
  checkSalesforceReport: (dataSourceId: string, reportId: string, o?: RequestOptions) =>
    client.call('salesforceReport', { params: { id: dataSourceId, reportId } }, o),
  /**
   * A CSV of constituents into a Sandbox CRM data source, with upload progress, read with the
   * user's column choice (else by header); the answer is the import's status as it starts.
   */
  importSandboxConstituents: (dataSourceId: string, file: File, opts?: UploadOptions, columns?: ColumnChoice): Promise<SandboxImportView> =>
    postFile(`${sandboxPath('importSandboxConstituents', dataSourceId)}${columns ? `?columns=${encodeURIComponent(columnChoiceParam(columns))}` : ''}`, file, opts),
  /** the file's header row, each column with the field suggested for it: only the first bytes of the file are sent */
  sandboxImportColumns: async (dataSourceId: string, file: File, opts?: UploadOptions): Promise<ImportColumn[]> => {
    const head = new File([file.slice(0, HEADER_SLICE_BYTES)], file.name, { type: file.type });
    return (await postFile<{ columns: ImportColumn[] }>(sandboxPath('importColumns', dataSourceId), head, opts)).columns;
  },
  sandboxImportStatus: (dataSourceId: string, importId: string, o?: RequestOptions): Promise<SandboxImportView> =>
    client.call('importStatus', { params: { id: dataSourceId, importId } }, o),
  /** deletes every constituent and gift of a Sandbox CRM data source; answers how many of each went */
  emptySandboxCrm: (dataSourceId: string, o?: RequestOptions): Promise<SandboxEmptied> => client.call('emptySandboxCrm', { params: { id: dataSourceId } }, o),
  /** the data source's latest import of the last day (running or ended), or null */
  latestSandboxImport: async (dataSourceId: string, o?: RequestOptions): Promise<SandboxImportView | null> =>
    (await client.call('latestImport', { params: { id: dataSourceId } }, o)).latest,
};
export type Integrations = typeof integrations;
