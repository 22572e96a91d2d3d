/**
 * A formula's two ends (its source and first destination) as the wizard sets them up: the roles,
 * and the settings an end starts with in a role.
 */
import { connectorFor } from '../connectors/catalogue.ts';
import { formFields, type SettingsValues } from '../connectors/fields.ts';
import { additionalSettingsFor, type SystemId } from '../connectors/types.ts';

export type Role = 'source' | 'destination';
export const ROLES: Role[] = ['source', 'destination'];

/**
 * The settings an end starts with in a role: each field's default, and the object where the
 * system's settings name it too (Salesforce's "Top-level object" is the end's object).
 */
export function baseSettings(system: SystemId, role: Role, object: string): SettingsValues {
  const schema = additionalSettingsFor(connectorFor(system), role, object);
  if (!schema) return {};
  const out: SettingsValues = {};
  for (const f of formFields(schema)) {
    if (f.key === 'object') out.object = object;
    else if (f.defaultValue) out[f.key] = f.defaultValue;
  }
  return out;
}

/** Keeps a settings' `object` field equal to the end's object, where the system has one. */
export function withObject(system: SystemId, role: Role, settings: SettingsValues, object: string): SettingsValues {
  const schema = additionalSettingsFor(connectorFor(system), role, object);
  if (!schema || !formFields(schema).some((f) => f.key === 'object')) return settings;
  return { ...settings, object };
}
