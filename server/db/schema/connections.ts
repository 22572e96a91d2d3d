/**
 * Data sources (SPEC.md section 3): a tenant's connection to one system. Non-secret settings are
 * plain JSON; secrets are one AES-256-GCM ciphertext (DESIGN.md section 6) with its IV, tag and
 * the version of the key that sealed it.
 */
import { sql } from 'drizzle-orm';
import { boolean, customType, foreignKey, index, jsonb, pgTable, primaryKey, text, timestamp, unique, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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
  /**
   * Why the vendor no longer accepts this connection's grant (revoked, expired): the data source
   * needs reconnecting, and no run tries it again until it is. Null while it is connected.
   */
  needsReconnecting: text('needs_reconnecting'),
  needsReconnectingOn: timestamp('needs_reconnecting_on', { withTimezone: true }),
  /**
   * The tenant's own 'File upload' data source, made with the tenant (a trigger on tenants, in
   * migration 0025): a Formula Producer starts a file-upload formula without a Connection Manager
   * adding one. One per tenant; it cannot be deleted.
   */
  builtIn: boolean('built_in').notNull().default(false),
}, (t) => [
  /** formulas name a data source and their tenant together (server/db/schema/formulas.ts) */
  unique('data_sources_id_tenant_key').on(t.id, t.tenantId),
  index('data_sources_tenant_idx').on(t.tenantId),
  uniqueIndex('data_sources_tenant_name_idx').on(t.tenantId, sql`lower(${t.displayName})`),
  uniqueIndex('data_sources_tenant_built_in_idx').on(t.tenantId).where(sql`${t.builtIn}`),
]);

/**
 * What the connector kit keeps per data source of a vendor that signs in with OAuth: the access
 * token of the current grant (sealed like every secret), so every worker uses one token until it
 * nears its expiry instead of each refreshing (and rotating) its own. `grant` fingerprints the
 * refresh token it came from: a reconnected data source never uses the old grant's token.
 */
export const vendorTokens = pgTable('vendor_tokens', {
  dataSourceId: uuid('data_source_id').primaryKey().references(() => dataSources.id, { onDelete: 'cascade' }),
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  grant: text('grant').notNull(),
  ciphertext: bytea('ciphertext').notNull(),
  iv: bytea('iv').notNull(),
  tag: bytea('tag').notNull(),
  keyVersion: text('key_version').notNull(),
  expiresOn: timestamp('expires_on', { withTimezone: true }).notNull(),
});

/**
 * Writes to a vendor without an upsert key (SKY API): the idempotency key is recorded before the
 * vendor is asked to create (vendorId null: under way) and the created id right after its answer,
 * before the engine hears of it. A retry finds the id and writes nothing; one that finds the key
 * under way searches the vendor before creating, so a crash between the vendor's answer and our
 * commit never creates a second record.
 */
export const vendorWrites = pgTable('vendor_writes', {
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  dataSourceId: uuid('data_source_id').notNull().references(() => dataSources.id, { onDelete: 'cascade' }),
  object: text('object').notNull(),
  idempotencyKey: text('idempotency_key').notNull(),
  vendorId: text('vendor_id'),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.dataSourceId, t.object, t.idempotencyKey] }),
  index('vendor_writes_tenant_idx').on(t.tenantId),
]);

/**
 * Connections started with a vendor's consent page and not completed yet (OAuth 2.0 authorization
 * code, src/domain/connectors/oauth.ts): each is bound to the tenant, data source and user that
 * started it, expires, and completes once (used_on). Nothing secret is stored: the state's
 * signature and the PKCE verifier are derived from the secret key and the row's id.
 */
export const oauthStates = pgTable('oauth_states', {
  id: uuid('id').primaryKey(),
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  dataSourceId: uuid('data_source_id').notNull(),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  /** the system it was started for: a data source's system never changes, but the check costs nothing */
  system: text('system').notNull(),
  /** the redirect_uri sent with the authorize request; the token request must repeat it */
  redirectUri: text('redirect_uri').notNull(),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
  expiresOn: timestamp('expires_on', { withTimezone: true }).notNull(),
  usedOn: timestamp('used_on', { withTimezone: true }),
}, (t) => [
  // a data source of the same tenant only; deleting the data source deletes its attempts
  foreignKey({ columns: [t.dataSourceId, t.tenantId], foreignColumns: [dataSources.id, dataSources.tenantId], name: 'oauth_states_data_source_fk' }).onDelete('cascade'),
  index('oauth_states_expires_idx').on(t.expiresOn),
]);
