/**
 * Data sources at rest: settings split by the system's schema into plain settings and secrets,
 * secrets sealed with AES-256-GCM (bound to the row's tenant and id). Rows are read and written
 * through the tenant's repository (server/db/repositories/dataSources.ts).
 */
import { connectorFor, type DataSourceView } from '../../src/domain/connectors/catalogue.ts';
import {
  endpointChanged, formFields, REENTER_SECRET_MESSAGE, secretKeys, validateSettings, type FieldErrors,
} from '../../src/domain/connectors/fields.ts';
import type { DataSourceListItem, SystemId } from '../../src/domain/connectors/types.ts';

export type { DataSourceListItem };
import { formulaDisplayName } from '../../src/domain/formula/formula.ts';
import type { DataSourceRow } from '../db/repositories/dataSources.ts';
import type { TenantScope } from '../db/tenancy.ts';
import { SecretKeyError, type SecretBox } from './secrets.ts';

export type { DataSourceRow };

export class SettingsInvalid extends Error {
  override readonly name = 'SettingsInvalid';
  constructor(readonly errors: FieldErrors) {
    super(Object.entries(errors).map(([k, m]) => `${k}: ${m}`).join(' '));
  }
}

/** Associated data of a sealed value: a ciphertext only opens on its own row. */
const aad = (tenantId: string, id: string) => `data-source:${tenantId}:${id}`;

/** Splits checked settings into what is stored plainly and what is sealed. */
export function splitSettings(system: SystemId, values: Record<string, string>) {
  const secret = new Set(secretKeys(connectorFor(system).settings));
  const settings: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) (secret.has(k) ? secrets : settings)[k] = v;
  return { settings, secrets };
}

/** Checks settings against the system's schema; throws SettingsInvalid naming each field. */
export function checkSettings(system: SystemId, values: Record<string, unknown>): Record<string, string> {
  const result = validateSettings(connectorFor(system).settings, values);
  if (!result.success) throw new SettingsInvalid(result.errors);
  return result.values;
}

export function sealColumns(box: SecretBox, tenantId: string, id: string, secrets: Record<string, string>) {
  if (Object.keys(secrets).length === 0) return { secretCiphertext: null, secretIv: null, secretTag: null, secretKeyVersion: null };
  const sealed = box.seal(secrets, aad(tenantId, id));
  return { secretCiphertext: sealed.ciphertext, secretIv: sealed.iv, secretTag: sealed.tag, secretKeyVersion: sealed.keyVersion };
}

export function openSecrets(box: SecretBox, row: DataSourceRow): Record<string, string> {
  if (!row.secretCiphertext || !row.secretIv || !row.secretTag || !row.secretKeyVersion) return {};
  return box.open({ ciphertext: row.secretCiphertext, iv: row.secretIv, tag: row.secretTag, keyVersion: row.secretKeyVersion }, aad(row.tenantId, row.id));
}

/** The stored settings an edit starts from: secrets that cannot be read any more are left out (the edit must give them again). */
export function editableSettings(box: SecretBox, row: DataSourceRow): Record<string, string> {
  try {
    return connectionSettings(box, row);
  } catch (err) {
    if (err instanceof SecretKeyError) return { ...row.settings };
    throw err;
  }
}

/** The settings a connector needs: plain and secret together, for one call. */
export function connectionSettings(box: SecretBox, row: DataSourceRow): Record<string, string> {
  return { ...row.settings, ...openSecrets(box, row) };
}

/** What the browser may see: plain settings, and `{ saved: true }` for each saved secret. */
export async function viewOf(tenant: TenantScope, box: SecretBox, row: DataSourceRow): Promise<DataSourceView> {
  const def = connectorFor(row.system as SystemId);
  // secrets sealed with another key cannot be read: they show as not saved, so the user enters them again
  let savedSecrets: Record<string, string>;
  try { savedSecrets = openSecrets(box, row); } catch (err) { if (!(err instanceof SecretKeyError)) throw err; savedSecrets = {}; }
  const settings: DataSourceView['settings'] = {};
  for (const field of formFields(def.settings)) {
    if (field.secret) { if (savedSecrets[field.key]) settings[field.key] = { saved: true }; }
    else if (row.settings[field.key] !== undefined) settings[field.key] = row.settings[field.key]!;
  }
  const authors = await tenant.dataSources.authors(row);
  return {
    id: row.id,
    system: row.system as SystemId,
    displayName: row.displayName,
    settings,
    createdOn: row.createdOn.toISOString(),
    createdBy: authors.createdBy,
    modifiedOn: row.modifiedOn.toISOString(),
    modifiedBy: authors.modifiedBy,
    usedBy: await formulasUsing(tenant, row.id),
    needsReconnecting: needsReconnectingOf(row),
  };
}

/** A revoked grant as the browser shows it: the reason in words, and since when. */
export function needsReconnectingOf(row: { needsReconnecting: string | null; needsReconnectingOn: Date | null; modifiedOn: Date }): { reason: string; since: string } | null {
  return row.needsReconnecting ? { reason: row.needsReconnecting, since: (row.needsReconnectingOn ?? row.modifiedOn).toISOString() } : null;
}

/** The formulas that use a data source, by name (an unnamed draft shows as "Untitled formula"). */
export async function formulasUsing(tenant: TenantScope, id: string): Promise<{ id: string; name: string }[]> {
  return (await tenant.formulas.usingDataSource(id)).map((f) => ({ id: f.id, name: formulaDisplayName(f) }));
}

/**
 * Stored values, then the edit's. A secret left empty or absent keeps its saved value; a plain
 * field present in the edit replaces the stored one.
 */
export function mergeEdit(system: SystemId, stored: Record<string, string>, edit: Record<string, string> | undefined): Record<string, string> {
  if (!edit) return stored;
  const secret = new Set(secretKeys(connectorFor(system).settings));
  const merged = { ...stored };
  for (const [k, v] of Object.entries(edit)) {
    if (secret.has(k) && v === '') continue;
    merged[k] = v;
  }
  return merged;
}

/**
 * The checked settings an edit (or a test of edited settings) leads to. Saved secrets are kept
 * only while the connection still goes where they were entered for: an edit that changes an
 * endpoint setting (URL, host, port, custom domain) drops every saved secret it does not give
 * again, and each one the system requires is refused with REENTER_SECRET_MESSAGE. Otherwise a
 * user could point a saved data source at a server of their own and receive its password.
 */
export function editedSettings(system: SystemId, stored: Record<string, string>, edit: Record<string, string> | undefined): Record<string, string> {
  const schema = connectorFor(system).settings;
  const merged = mergeEdit(system, stored, edit);
  if (!edit || !endpointChanged(schema, stored, merged)) return checkSettings(system, merged);
  const kept = secretKeys(schema).filter((k) => stored[k] !== undefined && !edit[k]);
  for (const k of kept) delete merged[k];
  const result = validateSettings(schema, merged);
  if (result.success) return result.values;
  const errors = { ...result.errors };
  for (const k of kept) if (errors[k]) errors[k] = REENTER_SECRET_MESSAGE;
  throw new SettingsInvalid(errors);
}

export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23505' || e.cause?.code === '23505';
}

export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23503' || e.cause?.code === '23503';
}
