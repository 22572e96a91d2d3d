/**
 * Data sources at rest: settings split by the system's schema into plain settings and secrets,
 * secrets sealed with AES-256-GCM (bound to the row's tenant and id), every query scoped by
 * tenant. The API and the engine both read connections through here.
 */
import { and, asc, eq, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { connectorFor, type DataSourceView } from '../../src/domain/connectors/catalogue.ts';
import { formFields, secretKeys, validateSettings, type FieldErrors } from '../../src/domain/connectors/fields.ts';
import type { DataSourceListItem, SystemId } from '../../src/domain/connectors/types.ts';

export type { DataSourceListItem };
import type { Db } from '../db/database.ts';
import { users } from '../db/schema/accounts.ts';
import { dataSources } from '../db/schema/connections.ts';
import { formulas } from '../db/schema/formulas.ts';
import { SecretKeyError, type SecretBox } from './secrets.ts';

export type DataSourceRow = typeof dataSources.$inferSelect;

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

export async function findDataSource(db: Db, tenantId: string, id: string): Promise<DataSourceRow | undefined> {
  const [row] = await db.select().from(dataSources).where(and(eq(dataSources.tenantId, tenantId), eq(dataSources.id, id))).limit(1);
  return row;
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

export async function formulasUsing(db: Db, tenantId: string, id: string): Promise<{ id: string; name: string }[]> {
  const rows = await db.select({ id: formulas.id, name: formulas.name }).from(formulas)
    .where(and(eq(formulas.tenantId, tenantId), or(eq(formulas.sourceDataSourceId, id), eq(formulas.destinationDataSourceId, id))))
    .orderBy(asc(formulas.createdOn));
  return rows.map((r) => ({ id: r.id, name: r.name ?? 'Untitled formula' }));
}

const creator = alias(users, 'creator');
const modifier = alias(users, 'modifier');


export async function listDataSources(db: Db, tenantId: string): Promise<DataSourceListItem[]> {
  const used = sql<number>`(select count(*)::int from ${formulas} f where f.tenant_id = ${dataSources.tenantId}
    and (f.source_data_source_id = ${dataSources.id} or f.destination_data_source_id = ${dataSources.id}))`;
  const rows = await db.select({
    id: dataSources.id, system: dataSources.system, displayName: dataSources.displayName,
    createdOn: dataSources.createdOn, modifiedOn: dataSources.modifiedOn,
    createdBy: creator.fullName, modifiedBy: modifier.fullName, usedByCount: used,
  }).from(dataSources)
    .leftJoin(creator, eq(creator.id, dataSources.createdBy))
    .leftJoin(modifier, eq(modifier.id, dataSources.modifiedBy))
    .where(eq(dataSources.tenantId, tenantId))
    .orderBy(asc(sql`lower(${dataSources.displayName})`), asc(dataSources.id));
  return rows.map((r) => ({ ...r, system: r.system as SystemId, createdOn: r.createdOn.toISOString(), modifiedOn: r.modifiedOn.toISOString() }));
}

/** What the browser may see: plain settings, and `{ saved: true }` for each saved secret. */
export async function viewOf(db: Db, box: SecretBox, row: DataSourceRow): Promise<DataSourceView> {
  const def = connectorFor(row.system as SystemId);
  // secrets sealed with another key cannot be read: they show as not saved, so the user enters them again
  let savedSecrets: Record<string, string>;
  try { savedSecrets = openSecrets(box, row); } catch (err) { if (!(err instanceof SecretKeyError)) throw err; savedSecrets = {}; }
  const settings: DataSourceView['settings'] = {};
  for (const field of formFields(def.settings)) {
    if (field.secret) { if (savedSecrets[field.key]) settings[field.key] = { saved: true }; }
    else if (row.settings[field.key] !== undefined) settings[field.key] = row.settings[field.key]!;
  }
  const names = await db.select({ id: users.id, fullName: users.fullName }).from(users)
    .where(or(eq(users.id, row.createdBy ?? row.id), eq(users.id, row.modifiedBy ?? row.id)));
  const nameOf = (id: string | null) => (id ? names.find((n) => n.id === id)?.fullName ?? null : null);
  return {
    id: row.id,
    system: row.system as SystemId,
    displayName: row.displayName,
    settings,
    createdOn: row.createdOn.toISOString(),
    createdBy: nameOf(row.createdBy),
    modifiedOn: row.modifiedOn.toISOString(),
    modifiedBy: nameOf(row.modifiedBy),
    usedBy: await formulasUsing(db, row.tenantId, row.id),
  };
}

/**
 * The settings an edit leads to: stored values, then the edit's. A secret left empty or absent
 * keeps its saved value; a plain field present in the edit replaces the stored one.
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

export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23505' || e.cause?.code === '23505';
}

export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23503' || e.cause?.code === '23503';
}
