/**
 * The integrations API's request bodies for data sources. Kept apart from the catalogue, which
 * holds every system's definition: the API contract that each screen listing data sources loads
 * (the Data Queue among them) needs only these.
 */
import * as v from 'valibot';
import { displayNameSchema } from './fields.ts';
import { SYSTEM_IDS } from './types.ts';

/** The API's request bodies; `settings` is then checked against the system's own schema. */
export const CreateDataSourceBody = v.object({
  system: v.picklist(SYSTEM_IDS, 'Choose a system.'),
  displayName: displayNameSchema,
  settings: v.optional(v.record(v.string(), v.string()), {}),
});
export type CreateDataSourceBody = v.InferOutput<typeof CreateDataSourceBody>;

export const UpdateDataSourceBody = v.object({
  displayName: v.optional(displayNameSchema),
  /** secret fields left empty or absent keep their saved value */
  settings: v.optional(v.record(v.string(), v.string())),
});
export type UpdateDataSourceBody = v.InferOutput<typeof UpdateDataSourceBody>;

/** Test settings before saving them; with `dataSourceId`, saved secrets stand in for empty ones. */
export const TestSettingsBody = v.object({
  system: v.picklist(SYSTEM_IDS, 'Choose a system.'),
  settings: v.optional(v.record(v.string(), v.string()), {}),
  dataSourceId: v.optional(v.pipe(v.string(), v.uuid('dataSourceId must be a data source id.'))),
});
export type TestSettingsBody = v.InferOutput<typeof TestSettingsBody>;

