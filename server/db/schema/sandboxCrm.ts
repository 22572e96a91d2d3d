/**
 * The Sandbox CRM: a practice destination kept in Tributary's own database, one per tenant, so a
 * user can run a whole formula without an outside account. Constituents with names, addresses,
 * e-mails, phones and gifts; searchable and upsertable; every write carries an idempotency key.
 */
import { sql } from 'drizzle-orm';
import { boolean, date, index, numeric, pgSequence, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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
  ...stamps,
}, (t) => [
  uniqueIndex('sandbox_constituents_lookup_idx').on(t.tenantId, t.lookupId),
  index('sandbox_constituents_name_idx').on(t.tenantId, sql`lower(${t.lastName})`, sql`lower(${t.firstName})`),
  index('sandbox_constituents_modified_idx').on(t.tenantId, t.modifiedOn, t.id),
]);

const owner = () => uuid('constituent_id').notNull().references(() => sandboxConstituents.id, { onDelete: 'cascade' });

export const sandboxAddresses = pgTable('sandbox_addresses', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: tenant(),
  constituentId: owner(),
  type: text('type').notNull().default('Home'),
  line1: text('line1'),
  line2: text('line2'),
  city: text('city'),
  state: text('state'),
  postalCode: text('postal_code'),
  country: text('country'),
  isPrimary: boolean('is_primary').notNull().default(true),
}, (t) => [
  index('sandbox_addresses_owner_idx').on(t.constituentId),
  index('sandbox_addresses_postcode_idx').on(t.tenantId, sql`lower(${t.postalCode})`),
]);

export const sandboxEmails = pgTable('sandbox_emails', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: tenant(),
  constituentId: owner(),
  type: text('type').notNull().default('Personal'),
  address: text('address').notNull(),
  isPrimary: boolean('is_primary').notNull().default(true),
}, (t) => [
  index('sandbox_emails_owner_idx').on(t.constituentId),
  index('sandbox_emails_address_idx').on(t.tenantId, sql`lower(${t.address})`),
]);

export const sandboxPhones = pgTable('sandbox_phones', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: tenant(),
  constituentId: owner(),
  type: text('type').notNull().default('Mobile'),
  number: text('number').notNull(),
  isPrimary: boolean('is_primary').notNull().default(true),
}, (t) => [
  index('sandbox_phones_owner_idx').on(t.constituentId),
  index('sandbox_phones_number_idx').on(t.tenantId, t.number),
]);

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
