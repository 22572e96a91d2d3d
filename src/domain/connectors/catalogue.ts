/**
 * The connector catalogue: every system of SPEC.md section 1, plus the Sandbox CRM that lets a
 * user run a whole formula without an outside account.
 */
import * as v from 'valibot';
import { BLACKBAUD } from './blackbaud.ts';
import { ENGAGEMENT } from './engagement.ts';
import { displayNameSchema, formFields, secretKeys } from './fields.ts';
import { FILES_AND_GENERIC } from './files.ts';
import { FUNDRAISING } from './fundraising.ts';
import { SALESFORCE } from './salesforce.ts';
import { SYSTEM_IDS, type ConnectorDefinition, type SystemId } from './types.ts';

/** In the order SPEC.md section 1 names them, the Sandbox CRM last. */
const ORDER: SystemId[] = [
  'mailchimp', 'gofundme-pro', 'emma', 'encompass', 'engaging-networks', 'everyaction', 'renxt', 'bbcrm', 'altru',
  'constant-contact', 'salesforce', 'pardot', 'salesforce-marketing-cloud', 'stripe', 'sftp', 'swoogo',
  'mobile-commons', 'givecampus', 'hubspot', 'luminate-online', 'fenxt', 'donordrive', 'http', 'file-upload',
  'flat-file', 'wealthengine', 'sandbox-crm',
];

const all = [...BLACKBAUD, ...SALESFORCE, ...ENGAGEMENT, ...FUNDRAISING, ...FILES_AND_GENERIC];
const bySystem = new Map(all.map((d) => [d.system, d]));

export const CATALOGUE: readonly ConnectorDefinition[] = ORDER.map((id) => {
  const def = bySystem.get(id);
  if (!def) throw new Error(`The catalogue has no definition for ${id}`);
  return def;
});

export function isSystemId(s: unknown): s is SystemId {
  return typeof s === 'string' && (SYSTEM_IDS as readonly string[]).includes(s);
}

export function connectorFor(system: SystemId): ConnectorDefinition {
  return bySystem.get(system)!;
}

/** The systems a connection can be made for, by name, for pickers. */
export const SYSTEM_OPTIONS = [...CATALOGUE]
  .sort((a, b) => a.name.localeCompare(b.name))
  .map((d) => ({ value: d.system, label: d.name }));

export const systemName = (system: string): string => (isSystemId(system) ? connectorFor(system).name : system);

/** An object as the person knows it ('Constituents' for constituents): the catalogue's label, else its name. */
export const objectLabel = (system: string, object: string): string =>
  (isSystemId(system) ? connectorFor(system).objects.find((o) => o.name === object)?.label : undefined) ?? object;

export { formFields, secretKeys };

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

/** What the API says about a data source: settings without secrets, and which secrets are saved. */
export interface DataSourceView {
  id: string;
  system: SystemId;
  displayName: string;
  /** non-secret settings, plus `{ saved: true }` for each secret that has a stored value */
  settings: Record<string, string | { saved: true }>;
  createdOn: string;
  createdBy: string | null;
  modifiedOn: string;
  modifiedBy: string | null;
  /** formulas that use it, by name (an unnamed draft shows as "Untitled formula") */
  usedBy: { id: string; name: string }[];
  /** the vendor no longer accepts the connection's grant: its status reads "Needs reconnecting", with why and since when */
  needsReconnecting?: { reason: string; since: string } | null;
}

export const isSavedMarker = (x: unknown): x is { saved: true } =>
  typeof x === 'object' && x !== null && (x as { saved?: unknown }).saved === true;
