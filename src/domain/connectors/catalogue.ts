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

// the API's request bodies live apart from the catalogue: the API contract (loaded by every screen that lists data sources) needs them, not every system's definition
export { CreateDataSourceBody, TestSettingsBody, UpdateDataSourceBody } from './bodies.ts';

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
