/** The integrations gateway service (/integrations/v1): data sources, their tests, objects and fields. */
import type { DataSourceView } from '../domain/connectors/catalogue.ts';
import type { DataSourceListItem, ObjectInfo, SystemId } from '../domain/connectors/types.ts';

export type { DataSourceListItem };
import { gatewayClient, request, type RequestOptions } from './gateway.ts';

const client = gatewayClient('/integrations/v1');


export interface DataSourceInput {
  system: SystemId;
  displayName: string;
  /** secrets left empty keep their saved value on an edit */
  settings: Record<string, string>;
}

export interface TestResult { status: 'success'; detail: string; testedOn: string }
export interface ObjectList { objects: ObjectInfo[]; refreshedOn: string }
export interface FieldList { object: string; fields: { name: string; label: string; type: string; required?: boolean }[] }

const id = (s: string) => encodeURIComponent(s);

export const integrations = {
  list: (o?: RequestOptions) => request(async () => (await client.get('data-sources').json<{ dataSources: DataSourceListItem[] }>()).dataSources, o),
  get: (dataSourceId: string, o?: RequestOptions) => request(() => client.get(`data-sources/${id(dataSourceId)}`).json<DataSourceView>(), o),
  create: (input: DataSourceInput, o?: RequestOptions) => request(() => client.post('data-sources', { json: input }).json<DataSourceView>(), o),
  update: (dataSourceId: string, input: { displayName?: string; settings?: Record<string, string> }, o?: RequestOptions) =>
    request(() => client.patch(`data-sources/${id(dataSourceId)}`, { json: input }).json<DataSourceView>(), o),
  remove: (dataSourceId: string, o?: RequestOptions) => request(async () => { await client.delete(`data-sources/${id(dataSourceId)}`); }, o),
  /** a saved data source as it is */
  testSaved: (dataSourceId: string, o?: RequestOptions) =>
    request(() => client.post(`data-sources/${id(dataSourceId)}/test${o?.formulaId ? `?formulaId=${id(o.formulaId)}` : ''}`).json<TestResult>(), o),
  /** settings from the form; with dataSourceId, saved secrets stand in for empty ones */
  testSettings: (input: { system: SystemId; settings: Record<string, string>; dataSourceId?: string }, o?: RequestOptions) =>
    request(() => client.post('data-sources/test', { json: input }).json<TestResult>(), o),
  objects: (dataSourceId: string, o?: RequestOptions) => request(() => client.get(`data-sources/${id(dataSourceId)}/objects`).json<ObjectList>(), o),
  refreshObjects: (dataSourceId: string, o?: RequestOptions) =>
    request(() => client.post(`data-sources/${id(dataSourceId)}/objects/refresh`).json<ObjectList>(), o),
  fields: (dataSourceId: string, object: string, o?: RequestOptions) =>
    request(() => client.get(`data-sources/${id(dataSourceId)}/objects/${id(object)}/fields`).json<FieldList>(), o),
  checkSalesforceReport: (dataSourceId: string, reportId: string, o?: RequestOptions) =>
    request(() => client.get(`data-sources/${id(dataSourceId)}/salesforce/reports/${id(reportId)}`).json<{ reportId: string; name: string; dateFilterColumn: string }>(), o),
};
export type Integrations = typeof integrations;
