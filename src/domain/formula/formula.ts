/**
 * The formula (SPEC.md section 3): a configured flow from a source to a destination, shared by
 * the browser, the API and the engine. Its parts (parts.ts) are stored and saved one by one.
 */
import * as v from 'valibot';
import { SYSTEM_IDS } from '../connectors/types.ts';
import { FORMULA_LIST_STATUSES, JOB_STATUSES } from './statuses.ts';

export const MAX_FORMULA_NAME_LENGTH = 150;
/** names with invalid characters are refused (SPEC.md section 5): no control or format characters */
const NAME = /^[^\p{Cc}\p{Cf}<>]*$/u;

export const FormulaNameSchema = v.pipe(
  v.string(), v.trim(),
  v.minLength(1, 'Give the formula a name'),
  v.maxLength(MAX_FORMULA_NAME_LENGTH, `A formula name has at most ${MAX_FORMULA_NAME_LENGTH} characters`),
  v.regex(NAME, 'A formula name cannot hold control characters or < >'),
);

const Id = v.pipe(v.string(), v.uuid('Choose a data source'));
const ObjectName = v.pipe(v.string(), v.trim(), v.minLength(1, 'Choose an object'), v.maxLength(200));
/** a system's additional settings, checked against that system's settings schema by the service */
const AdditionalSettings = v.record(v.pipe(v.string(), v.maxLength(100)), v.pipe(v.string(), v.maxLength(10_000)));

/** One end of a formula: the data source, the object read or written, and that system's additional settings. */
export const FormulaEndSchema = v.object({
  dataSourceId: Id,
  object: ObjectName,
  settings: v.optional(AdditionalSettings, {}),
});
export type FormulaEnd = v.InferOutput<typeof FormulaEndSchema>;

/** Creating a formula makes a draft: everything may still be unset. */
export const CreateFormulaSchema = v.object({
  name: v.optional(v.nullable(FormulaNameSchema), null),
  usesFileUpload: v.optional(v.boolean(), false),
});
export type CreateFormula = v.InferOutput<typeof CreateFormulaSchema>;

/** A draft file-upload formula from an upload: the tenant's built-in 'File upload' source, that upload its sample. */
export const FormulaFromUploadSchema = v.object({
  uploadId: v.pipe(v.string(), v.uuid('Upload a file first')),
});
export type FormulaFromUpload = v.InferOutput<typeof FormulaFromUploadSchema>;

/** The name a formula made from a file starts with: the file's name without its extension, when it is a valid name. */
export function formulaNameFromFile(fileName: string): string | null {
  const result = v.safeParse(FormulaNameSchema, fileName.replace(/\.(csv|xlsx|xls)$/i, ''));
  return result.success ? result.output : null;
}

/** The data-sources step: name, source and destination with their objects. */
export const UpdateFormulaSchema = v.object({
  name: v.optional(v.nullable(FormulaNameSchema)),
  usesFileUpload: v.optional(v.boolean()),
  source: v.optional(v.nullable(FormulaEndSchema)),
  destination: v.optional(v.nullable(FormulaEndSchema)),
  /** a file-upload formula's sample comes from one of the tenant's uploads */
  sampleUploadId: v.optional(v.nullable(v.pipe(v.string(), v.uuid()))),
  /**
   * changing a top-level object wipes mapping, matching and routing (SPEC.md section 4): the
   * browser confirms first and says so here; without it such a change is refused
   */
  confirmWipe: v.optional(v.boolean(), false),
});
export type UpdateFormula = v.InferOutput<typeof UpdateFormulaSchema>;

/** One end as the API answers it: with the system, so the browser knows its settings schemas. */
export interface FormulaEndView extends FormulaEnd {
  system: (typeof SYSTEM_IDS)[number];
  displayName: string;
  /** whether the system has additional settings in this role (wizard steps 3 and 4) */
  hasAdditionalSettings: boolean;
  /** its data source has a list of objects kept (read from the system before; a file upload's are its uploads) */
  objectsKept?: boolean;
}

export interface FormulaView {
  id: string;
  /** can be unset: lists show 'Untitled formula' */
  name: string | null;
  isDraft: boolean;
  usesFileUpload: boolean;
  sourceDataSource: FormulaEndView | null;
  firstDestinationDataSource: FormulaEndView | null;
  sampleUploadId: string | null;
  status: (typeof FORMULA_LIST_STATUSES)[number];
  jobStatus: (typeof JOB_STATUSES)[number] | null;
  needsReprocess: boolean;
  /** the parts saved so far */
  parts: string[];
  createdOn: string;
  modifiedOn: string;
}

export const UNTITLED_FORMULA = 'Untitled formula';
export const formulaDisplayName = (f: { name: string | null }) => f.name?.trim() || UNTITLED_FORMULA;
