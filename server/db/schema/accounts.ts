/** Organisations, tenants, users and their memberships. Every tenant-owned row elsewhere carries tenant_id. */
import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

export const organizations = pgTable('organizations', {
  id: uuid('id').primaryKey().defaultRandom(),
  name: text('name').notNull(),
  subdomain: text('subdomain').notNull().unique(),
  salesforceAccountId: text('salesforce_account_id'),
  skuTopLevelProduct: text('sku_top_level_product').notNull().default('Tributary'),
  skuSubProduct: text('sku_sub_product').notNull().default('Standard'),
  /** systems this organisation's subscription includes */
  skuConnectorDetail: jsonb('sku_connector_detail').$type<string[]>().notNull().default(sql`'[]'::jsonb`),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
});

export const tenants = pgTable('tenants', {
  id: uuid('id').primaryKey().defaultRandom(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id),
  name: text('name').notNull(),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [index('tenants_org_idx').on(t.organizationId)]);

export const users = pgTable('users', {
  id: uuid('id').primaryKey().defaultRandom(),
  organizationId: uuid('organization_id').notNull().references(() => organizations.id),
  /** the identity provider's subject; `auth0|<id>` for users of the embedded provider */
  auth0Id: text('auth0_id').notNull().unique(),
  /**
   * The sign-in e-mail. Null while the address the user was created with is the sign-in e-mail of
   * an account in another organisation (it is then `pendingEmail`): creating the user answers the
   * same either way, and the address signs in only once it is free and its owner sets a password.
   */
  email: text('email'),
  fullName: text('full_name').notNull(),
  /** scrypt hash, for the embedded identity provider only */
  passwordHash: text('password_hash'),
  loginCount: integer('login_count').notNull().default(0),
  autoProvisioned: boolean('auto_provisioned').notNull().default(false),
  activeTenantId: uuid('active_tenant_id').references(() => tenants.id),
  deactivatedOn: timestamp('deactivated_on', { withTimezone: true }),
  /**
   * Sessions signed in before this time are over (server/identity/sessions.ts): set by a password
   * reset, deactivation, removal from a tenant or a change of e-mail, and checked on every request.
   */
  sessionsValidAfter: timestamp('sessions_valid_after', { withTimezone: true }),
  /** a new sign-in e-mail waiting for its owner to confirm it; the old one signs in until then */
  pendingEmail: text('pending_email'),
  /**
   * Whether the user is e-mailed about what they own (server/services/ownerNotices.ts): a formula
   * that errored after its retries, a data source or a formula's connection that needs reconnecting.
   */
  ownerNotices: boolean('owner_notices').notNull().default(true),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [uniqueIndex('users_email_idx').on(sql`lower(${t.email})`)]);

/** A user's roles in one tenant, with optional temporary access. */
export const memberships = pgTable('memberships', {
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  roles: text('roles').array().notNull().default(sql`'{}'::text[]`),
  accessExpiresOn: timestamp('access_expires_on', { withTimezone: true }),
}, (t) => [primaryKey({ columns: [t.userId, t.tenantId] }), index('memberships_tenant_idx').on(t.tenantId)]);

