/**
 * Contracts of the formulas of the web API (/web-api/v1/formulas): a formula, and the upsert, get
 * and delete of each of its parts. The part endpoints are derived from the part list
 * (src/domain/formula/parts.ts), so each part's body is its own schema.
 */
import * as v from 'valibot';
import { SYSTEM_IDS } from '../connectors/types.ts';
import { CreateFormulaSchema, UpdateFormulaSchema } from '../formula/formula.ts';
import { FORMULA_PART_NAMES, FORMULA_PARTS, partProblemTitle, type FormulaPartName } from '../formula/parts.ts';
import { FORMULA_LIST_STATUSES, JOB_STATUSES } from '../formula/statuses.ts';
import { endpoint, service, type Endpoint } from './contract.ts';

const FormulaEndViewSchema = v.object({
  dataSourceId: v.string(), object: v.string(), settings: v.record(v.string(), v.string()),
  system: v.picklist(SYSTEM_IDS), displayName: v.string(), hasAdditionalSettings: v.boolean(),
});

export const FormulaViewSchema = v.object({
  id: v.string(),
  name: v.nullable(v.string()),
  isDraft: v.boolean(),
  usesFileUpload: v.boolean(),
  sourceDataSource: v.nullable(FormulaEndViewSchema),
  firstDestinationDataSource: v.nullable(FormulaEndViewSchema),
  sampleUploadId: v.nullable(v.string()),
  status: v.picklist(FORMULA_LIST_STATUSES),
  jobStatus: v.nullable(v.picklist(JOB_STATUSES)),
  needsReprocess: v.boolean(),
  parts: v.array(v.picklist(FORMULA_PART_NAMES)),
  createdOn: v.string(),
  modifiedOn: v.string(),
});
export type FormulaViewOut = v.InferOutput<typeof FormulaViewSchema>;

/** A source's sample for the mapping preview: its fields and a few rows of raw values. */
export const SampleSchema = v.object({
  fields: v.array(v.string()),
  rows: v.array(v.record(v.string(), v.unknown())),
});

const view = { resource: 'formula', action: 'view' } as const;
const edit = { resource: 'formula', action: 'edit' } as const;

const PartEnvelope = <S extends v.GenericSchema>(body: S) => v.object({ part: v.string(), body, modifiedOn: v.string() });

type PartEndpoints = {
  [K in `${'get' | 'put' | 'delete'}:${FormulaPartName}`]: Endpoint<v.GenericSchema | undefined, v.GenericSchema | null, `/:id/parts/${FormulaPartName}`>;
};

/** get, upsert and delete of every part, from the part list */
const partEndpoints = Object.fromEntries(FORMULA_PART_NAMES.flatMap((part) => {
  const { label, schema } = FORMULA_PARTS[part];
  const path = `/:id/parts/${part}`;
  return [
    [`get:${part}`, endpoint({ method: 'get', path, access: view, response: PartEnvelope(schema), summary: `The formula's ${label}.`, problems: [partProblemTitle(part, 'get')] })],
    [`put:${part}`, endpoint({
      method: 'put', path, access: edit, body: schema, response: PartEnvelope(schema),
      summary: `Saves the formula's ${label}; a live formula then needs reprocessing.`, problems: [partProblemTitle(part, 'upsert')],
    })],
    [`delete:${part}`, endpoint({ method: 'delete', path, access: edit, response: null, status: 204, summary: `Removes the formula's ${label}.`, problems: [partProblemTitle(part, 'delete')] })],
  ];
})) as PartEndpoints;

export const formulasService = service({
  name: 'web API: formulas',
  basePath: '/web-api/v1/formulas',
  endpoints: {
    list: endpoint({ method: 'get', path: '/', access: view, response: v.object({ formulas: v.array(FormulaViewSchema) }), summary: 'The tenant\'s formulas, most recently edited first.' }),
    create: endpoint({
      method: 'post', path: '/', access: { resource: 'formula', action: 'create' }, body: CreateFormulaSchema, response: FormulaViewSchema, status: 201,
      summary: 'Creates a draft formula.',
    }),
    get: endpoint({ method: 'get', path: '/:id', access: view, response: FormulaViewSchema, summary: 'One formula.' }),
    update: endpoint({
      method: 'patch', path: '/:id', access: edit, body: UpdateFormulaSchema, response: FormulaViewSchema,
      summary: 'Name, source and destination with their objects and additional settings. Changing a top-level object wipes mapping, matching and routing, and is refused without confirmWipe.',
      problems: ['formula-wipe-unconfirmed'],
    }),
    remove: endpoint({ method: 'delete', path: '/:id', access: { resource: 'formula', action: 'delete' }, response: null, status: 204, summary: 'Deletes a formula with its parts and records.' }),
    activate: endpoint({
      method: 'post', path: '/:id/activate', access: edit, response: FormulaViewSchema,
      summary: 'Activates a draft (the processing step): it stops being a draft.', problems: ['formula-incomplete'],
    }),
    sample: endpoint({
      method: 'get', path: '/:id/sample', access: view, response: SampleSchema,
      summary: 'Sample rows of the formula\'s source for the mapping preview (a file-upload formula: its upload\'s first 20 rows).',
      problems: ['connection-failed', 'connection-error'],
    }),
    ...partEndpoints,
  },
});
