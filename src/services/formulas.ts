/** The formulas of the web API (/web-api/v1/formulas), typed by their contracts (src/domain/api/formulas.ts). */
import { formulasService, type Deletion, type DryRunResult, type FormulaSample, type FormulaView, type RunHistory } from '../domain/api/formulas.ts';
import type { CreateFormula, UpdateFormula } from '../domain/formula/formula.ts';
import type { FormulaPartBody, FormulaPartName } from '../domain/formula/parts.ts';
import { serviceClient, type RequestOptions } from './gateway.ts';

export type { Deletion, FormulaSample, FormulaView };

const client = serviceClient(formulasService);

export const formulas = {
  list: async (o?: RequestOptions): Promise<FormulaView[]> => (await client.call('list', {}, o)).formulas,
  get: (id: string, o?: RequestOptions): Promise<FormulaView> => client.call('get', { params: { id } }, o),
  create: (body: Partial<CreateFormula>, o?: RequestOptions): Promise<FormulaView> => client.call('create', { body }, o),
  /** a draft file-upload formula from one of the tenant's uploads (its built-in File upload source, that upload its sample) */
  fromUpload: (uploadId: string, o?: RequestOptions): Promise<FormulaView> => client.call('fromUpload', { body: { uploadId } }, o),
  update: (id: string, body: Partial<UpdateFormula>, o?: RequestOptions): Promise<FormulaView> => client.call('update', { params: { id }, body }, o),
  remove: (id: string, o?: RequestOptions) => client.call('remove', { params: { id } }, o),
  activate: (id: string, o?: RequestOptions): Promise<FormulaView> => client.call('activate', { params: { id } }, o),
  /** what deleting it would take: its records and runs, for the confirmation */
  deletion: (id: string, o?: RequestOptions): Promise<Deletion> => client.call('deletion', { params: { id } }, o),
  archive: (id: string, o?: RequestOptions): Promise<FormulaView> => client.call('archive', { params: { id } }, o),
  unarchive: (id: string, o?: RequestOptions): Promise<FormulaView> => client.call('unarchive', { params: { id } }, o),
  /** a new draft "Copy of <name>" with the same sources and parts */
  copy: (id: string, o?: RequestOptions): Promise<FormulaView> => client.call('copy', { params: { id } }, o),
  sample: (id: string, o?: RequestOptions): Promise<FormulaSample> => client.call('sample', { params: { id } }, o),
  /** the whole pipeline over the source's first `limit` records, sending and storing nothing */
  dryRun: (id: string, body: { limit?: number } = {}, o?: RequestOptions): Promise<DryRunResult> => client.call('dryRun', { params: { id }, body }, o),
  /** a page of the run history, newest first: the first page without a cursor */
  runs: (id: string, cursor: string | null, o?: RequestOptions): Promise<RunHistory> =>
    client.call('runs', { params: { id }, query: cursor ? { cursor } : {} }, o),
  /** a part's body, or null when the formula has none yet */
  async getPart<P extends FormulaPartName>(id: string, part: P, o?: RequestOptions): Promise<FormulaPartBody[P] | null> {
    try {
      return (await client.call(`get:${part}` as 'get:mapping', { params: { id } }, { silent: true, ...o }) as { body: FormulaPartBody[P] }).body;
    } catch (err) {
      if ((err as { status?: number }).status === 404) return null;
      throw err;
    }
  },
  putPart: async <P extends FormulaPartName>(id: string, part: P, body: FormulaPartBody[P], o?: RequestOptions): Promise<FormulaPartBody[P]> =>
    (await client.call(`put:${part}` as 'put:mapping', { params: { id }, body: body as never }, o) as { body: FormulaPartBody[P] }).body,
  deletePart: (id: string, part: FormulaPartName, o?: RequestOptions) => client.call(`delete:${part}` as 'delete:mapping', { params: { id } }, o),
};
export type Formulas = typeof formulas;
