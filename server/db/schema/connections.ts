/**
 * Data sources (SPEC.md section 3): a tenant's connection to one system. Non-secret settings are
 * plain JSON; secrets are one AES-256-GCM ciphertext (DESIGN.md section 6) with its IV, tag and
 * the version of the key that sealed it.
 */
import { sql } from 'drizzle-orm';
import { customType, index, jsonb, pgTable, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tenants, users } from './accounts.ts';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

export const dataSources = pgTable('data_sources', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  /** a SystemId of src/domain/connectors/types.ts */
  system: text('system').notNull(),
  displayName: text('display_name').notNull(),
  /** settings that are not secret, as the system's schema produced them */
  settings: jsonb('settings').$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
  /** every secret setting, as one encrypted JSON object; null when the system has none saved */
  secretCiphertext: bytea('secret_ciphertext'),
  secretIv: bytea('secret_iv'),
  secretTag: bytea('secret_tag'),
  secretKeyVersion: text('secret_key_version'),
  /** the object picker's last list from the system, and when it was read */
  objects: jsonb('objects').$type<{ name: string; label: string }[]>(),
  objectsRefreshedOn: timestamp('objects_refreshed_on', { withTimezone: true }),
  createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
  modifiedBy: uuid('modified_by').references(() => users.id, { onDelete: 'set null' }),
  modifiedOn: timestamp('modified_on', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  /** formulas name a data source and their tenant together (server/db/schema/formulas.ts) */
  unique('data_sources_id_tenant_key').on(t.id, t.tenantId),
  index('data_sources_tenant_idx').on(t.tenantId),
  uniqueIndex('data_sources_tenant_name_idx').on(t.tenantId, sql`lower(${t.displayName})`),
]);
