/** What the catalogue says about each system (SPEC.md section 1). */
import { settingsForObject, type SettingsSchema } from './fields.ts';

export const SYSTEM_IDS = [
  'mailchimp', 'gofundme-pro', 'emma', 'encompass', 'engaging-networks', 'everyaction', 'renxt', 'bbcrm',
  'altru', 'constant-contact', 'salesforce', 'pardot', 'salesforce-marketing-cloud', 'stripe', 'sftp',
  'swoogo', 'mobile-commons', 'givecampus', 'hubspot', 'luminate-online', 'fenxt', 'donordrive', 'http',
  'file-upload', 'flat-file', 'wealthengine', 'sandbox-crm',
] as const;
export type SystemId = (typeof SYSTEM_IDS)[number];

export interface ObjectInfo {
  /** the name the system's API uses */
  name: string;
  label: string;
}

/** How far Tributary goes with a system today: every system is tested, its objects listed and described, pulled, and where a destination searched and upserted. */
export type Support = 'full';

export interface ConnectorDefinition {
  system: SystemId;
  /** the product's name as users know it */
  name: string;
  vendor: string;
  roles: { source: boolean; destination: boolean };
  /** the connection's settings: one schema drives the form, the API and storage */
  settings: SettingsSchema;
  /** a formula's extra settings for this system as a source or destination (wizard steps 3 and 4) */
  additionalSettings: { source?: SettingsSchema; destination?: SettingsSchema };
  /** the standard objects; a connection may list more from the system itself */
  objects: ObjectInfo[];
  /** how the system authenticates, in a sentence */
  authentication: string;
  /** the vendor's documentation of that authentication */
  docs: string;
  support: Support;
  /** what it does when that is more than its support says (Salesforce reads report rows) */
  does?: Capability;
  /**
   * An enrichment destination (WealthEngine): it keeps no records of ours, so its search finds
   * nobody and every record routes as new, to be screened; said in the wizard's matching step.
   */
  enrichment?: string;
}

/** What Tributary does with a system today, in the words the catalogue and the README's connector table use. */
export const CAPABILITIES = ['source and destination', 'source', 'destination', 'source (report rows)'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export function capabilityOf(def: Pick<ConnectorDefinition, 'roles' | 'support' | 'does'>): Capability {
  if (def.does) return def.does;
  if (def.roles.source && def.roles.destination) return 'source and destination';
  return def.roles.source ? 'source' : 'destination';
}

/**
 * A formula's additional settings for this system in a role: for its object when one is given
 * (only the fields that apply to that object), else every field the role has.
 */
export function additionalSettingsFor(def: Pick<ConnectorDefinition, 'additionalSettings'>, role: 'source' | 'destination', object?: string | null): SettingsSchema | undefined {
  const schema = def.additionalSettings[role];
  return schema && object != null ? settingsForObject(schema, object) : schema;
}

/** Whether a formula's end has additional settings (wizard steps 3 and 4): for its object, when one is given. */
export function hasAdditionalSettings(def: Pick<ConnectorDefinition, 'additionalSettings'>, role: 'source' | 'destination', object?: string | null): boolean {
  return !!additionalSettingsFor(def, role, object);
}

/** A row of the Data Sources list, as the integrations service answers it. */
export interface DataSourceListItem {
  id: string;
  system: SystemId;
  displayName: string;
  createdOn: string;
  createdBy: string | null;
  modifiedOn: string;
  modifiedBy: string | null;
  usedByCount: number;
  /** the vendor revoked the grant: someone who may edit it connects again */
  needsReconnecting?: { reason: string; since: string } | null;
  /** the tenant's own 'File upload' data source: always there, never deleted */
  builtIn?: boolean;
}
