/** The records of the bucket screens (/web-api/v1/records), typed by their contract (src/domain/api/records.ts). */
import {
  recordsService, type MatchSearchResult, type RecordAction, type RecordActionResult, type RecordCounts, type RecordDetail, type RecordEditRequest,
  type RecordListRequest, type RecordPage, type RecordSendResult,
} from '../domain/api/records.ts';
import type { RecordSelection } from '../domain/records/query.ts';
import { serviceClient, type RequestOptions } from './gateway.ts';

export type { MatchSearchResult, RecordAction, RecordActionResult, RecordCounts, RecordDetail, RecordEditRequest, RecordListRequest, RecordPage };

const client = serviceClient(recordsService);
const on = (formulaId: string) => ({ formulaId });

export const records = {
  page: (formulaId: string, body: RecordListRequest, o?: RequestOptions): Promise<RecordPage> => client.call('list', { params: on(formulaId), body }, o),
  counts: (formulaId: string, o?: RequestOptions): Promise<RecordCounts> => client.call('counts', { params: on(formulaId) }, o),
  get: (formulaId: string, recordId: string, o?: RequestOptions): Promise<RecordDetail> => client.call('get', { params: { formulaId, recordId } }, o),
  edit: (formulaId: string, recordId: string, body: RecordEditRequest, o?: RequestOptions): Promise<RecordDetail> =>
    client.call('edit', { params: { formulaId, recordId }, body }, o),
  /** `query`: the Match Search that found the destination record, when it is not one of the record's candidates */
  pickMatch: (formulaId: string, recordId: string, candidateId: string, query?: string, o?: RequestOptions): Promise<RecordDetail> =>
    client.call('pickMatch', { params: { formulaId, recordId }, body: query ? { candidateId, query } : { candidateId } }, o),
  /** one of the bulk actions on a selection: add to Ready, send now, create new, delete */
  act: (formulaId: string, action: RecordAction, selection: RecordSelection, o?: RequestOptions): Promise<RecordActionResult | RecordSendResult> =>
    client.call(action, { params: on(formulaId), body: { selection } }, o),
  matchSearch: (formulaId: string, q: string, o?: RequestOptions): Promise<MatchSearchResult> =>
    client.call('matchSearch', { params: on(formulaId), query: { q } }, o),
};
export type Records = typeof records;
