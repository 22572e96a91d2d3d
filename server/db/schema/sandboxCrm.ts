/**
 * The Sandbox CRM: a practice destination kept in Tributary's own database, one per tenant, so a
 * user can run a whole formula without an outside account. Constituents with names and one
 * primary e-mail, phone and address each, and gifts; searchable and upsertable; every write
 * carries an idempotency key.
 */
import { sql } from 'drizzle-orm';
import { date, index, integer, numeric, pgSequence, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { MATCH_KEYS_VERSION } from '../../../src/domain/formula/matchKeys.ts';
import { tenants } from './accounts.ts';

/** lookup ids of constituents and gifts created by upserts (seeded ones count from 1) */
export const sandboxLookupSeq = pgSequence('sandbox_lookup_seq', { startWith: 100000 });

const tenant = () => uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' });
const stamps = {
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
  modifiedOn: timestamp('modified_on', { withTimezone: true }).notNull().defaultNow(),
};

export const sandboxConstituents = pgTable('sandbox_constituents', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: tenant(),
  lookupId: text('lookup_id').notNull(),
  title: text('title'),
  firstName: text('first_name'),
  lastName: text('last_name').notNull(),
  /** other names the person goes by: matching takes a first name agreeing with either as a nickname's agreement */
  middleName: text('middle_name'),
  preferredName: text('preferred_name'),
  /** the one primary e-mail, phone and address the connector shows, stored on the row: searches read no other table */
  email: text('email'),
  phone: text('phone'),
  addressLine1: text('address_line1'),
  addressLine2: text('address_line2'),
  city: text('city'),
  state: text('state'),
  postalCode: text('postal_code'),
  country: text('country'),
  /**
   * Normalised keys of the names and of the primary e-mail, phone and address
   * (src/domain/formula/matchKeys.ts), written with every change: batch search joins on them.
   */
  emailKey: text('email_key'),
  phoneKey: text('phone_key'),
  firstNameKey: text('first_name_key'),
  lastNameKey: text('last_name_key'),
  postalKey: text('postal_key'),
  addressKey: text('address_key'),
  /** the MATCH_KEYS_VERSION the keys were computed by: rows of an older one are keyed again at start */
  keysVersion: integer('keys_version').notNull().default(0),
  ...stamps,
}, (t) => [
  index('sandbox_constituents_email_key_idx').on(t.tenantId, t.emailKey).where(sql`${t.emailKey} is not null`),
  index('sandbox_constituents_phone_key_idx').on(t.tenantId, t.phoneKey).where(sql`${t.phoneKey} is not null`),
  index('sandbox_constituents_last_name_key_idx').on(t.tenantId, t.lastNameKey, t.firstNameKey),
  // then in a search's answer order, so a search by last name and postal code (many namesakes in a
  // town) reads only the candidates it answers
  index('sandbox_constituents_postal_key_idx').on(t.tenantId, t.postalKey, t.lastNameKey, t.lastName, t.firstName, t.id).where(sql`${t.postalKey} is not null`),
  index('sandbox_constituents_address_key_idx').on(t.tenantId, t.addressKey).where(sql`${t.addressKey} is not null`),
  // only the rows keyed by another MATCH_KEYS_VERSION (normally none): writes, which key rows by
  // today's version, never touch it; a new version brings a migration that indexes them all
  index('sandbox_constituents_keys_version_idx').on(t.tenantId, t.keysVersion).where(sql.raw(`"keys_version" <> ${MATCH_KEYS_VERSION}`)),
  uniqueIndex('sandbox_constituents_lookup_idx').on(t.tenantId, t.lookupId),
  index('sandbox_constituents_modified_idx').on(t.tenantId, t.modifiedOn, t.id),
]);

const owner = () => uuid('constituent_id').notNull().references(() => sandboxConstituents.id, { onDelete: 'cascade' });

export const sandboxGifts = pgTable('sandbox_gifts', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: tenant(),
  constituentId: owner(),
  lookupId: text('lookup_id').notNull(),
  amount: numeric('amount', { precision: 12, scale: 2 }).notNull(),
  giftDate: date('gift_date').notNull(),
  type: text('type').notNull().default('Donation'),
  fund: text('fund'),
  campaign: text('campaign'),
  appeal: text('appeal'),
  paymentMethod: text('payment_method'),
  ...stamps,
}, (t) => [
  uniqueIndex('sandbox_gifts_lookup_idx').on(t.tenantId, t.lookupId),
  index('sandbox_gifts_owner_idx').on(t.constituentId),
  index('sandbox_gifts_modified_idx').on(t.tenantId, t.modifiedOn, t.id),
]);

/** One row per idempotency key: a retried write answers with what the first one did, and writes nothing. */
export const sandboxWrites = pgTable('sandbox_writes', {
  tenantId: tenant(),
  idempotencyKey: text('idempotency_key').notNull(),
  object: text('object').notNull(),
  recordId: uuid('record_id').notNull(),
  outcome: text('outcome').notNull(),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.tenantId, t.idempotencyKey] })]);

/**
 * How many times constituents of a tenant were deleted (one count per statement, kept by a trigger
 * whatever deletes them: an emptied Sandbox CRM, a removed tenant, SQL by hand). A worker's
 * candidate index follows writes by modification time, which a deleted row no longer has: a count
 * that moved is its sign to load the constituents again. No foreign key: the trigger also counts
 * the deletes of a tenant being removed.
 */
export const sandboxDeletes = pgTable('sandbox_deletes', {
  tenantId: uuid('tenant_id').primaryKey(),
  deletes: integer('deletes').notNull().default(0),
});
