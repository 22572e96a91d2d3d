/** The embedded identity provider's state: its models, keys and sign-in failures. */
import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** oidc-provider's models (sessions, grants, codes, refresh tokens, interactions). */
export const oidcPayloads = pgTable('oidc_payloads', {
  kind: text('kind').notNull(),
  id: text('id').notNull(),
  payload: jsonb('payload').notNull(),
  grantId: text('grant_id'),
  userCode: text('user_code'),
  uid: text('uid'),
  expiresAt: timestamp('expires_at', { withTimezone: true }),
  consumedAt: timestamp('consumed_at', { withTimezone: true }),
}, (t) => [
  primaryKey({ columns: [t.kind, t.id] }),
  index('oidc_payloads_grant_idx').on(t.grantId),
  index('oidc_payloads_uid_idx').on(t.uid),
  index('oidc_payloads_expires_idx').on(t.expiresAt),
  // a user's sessions, grants and tokens, ended together (server/identity/sessions.ts)
  index('oidc_payloads_account_idx').on(sql`(${t.payload}->>'accountId')`),
]);

/** Signing keys and cookie secrets of the embedded identity provider, kept so a restart signs nobody out. */
export const identityKeys = pgTable('identity_keys', {
  kind: text('kind').primaryKey(),
  material: jsonb('material').notNull(),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
});

/** Failed sign-in attempts: who typed which e-mail from where, kept a day. */
export const loginFailures = pgTable('login_failures', {
  id: uuid('id').primaryKey().defaultRandom(),
  email: text('email').notNull(),
  ip: text('ip').notNull(),
  at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [index('login_failures_email_idx').on(t.email, t.at)]);

/**
 * Sign-in throttling counters (server/identity/throttle.ts): one row per e-mail (hashed), per
 * client address and one for everyone; locked while an attempt is counted.
 */
export const signInThrottle = pgTable('sign_in_throttle', {
  key: text('key').primaryKey(),
  failures: integer('failures').notNull().default(0),
  windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
  blockedUntil: timestamp('blocked_until', { withTimezone: true }),
}, (t) => [index('sign_in_throttle_window_idx').on(t.windowStart)]);
