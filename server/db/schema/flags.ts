/**
 * Feature flags (SPEC.md section 1, DESIGN.md section 8), one set per tenant: the snapshot a
 * tenant's users fetch is built from that tenant's rows only. A row holds the administrator's
 * definition (src/domain/flags/definitions.ts FlagDefinition); the snapshot route turns it into Flipt's shape.
 */
import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { FlagDefinition } from '../../../src/domain/flags/definitions.ts';
import { tenants } from './accounts.ts';

export const featureFlags = pgTable('feature_flags', {
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  namespaceKey: text('namespace_key').notNull().default('default'),
  key: text('key').notNull(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  type: text('type').notNull().$type<FlagDefinition['type']>(),
  /** for a boolean flag the default value; for a variant flag whether it is evaluated at all */
  enabled: boolean('enabled').notNull().default(false),
  rollouts: jsonb('rollouts').$type<FlagDefinition['rollouts']>().notNull().default(sql`'[]'::jsonb`),
  variants: jsonb('variants').$type<FlagDefinition['variants']>().notNull().default(sql`'[]'::jsonb`),
  rules: jsonb('rules').$type<FlagDefinition['rules']>().notNull().default(sql`'[]'::jsonb`),
  defaultVariant: text('default_variant'),
  /** bumped on every change; part of what the snapshot's ETag covers through the body */
  version: integer('version').notNull().default(1),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
  updatedOn: timestamp('updated_on', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  primaryKey({ columns: [t.tenantId, t.namespaceKey, t.key] }),
  index('feature_flags_tenant_idx').on(t.tenantId),
  check('feature_flags_type_check', sql`${t.type} in ('BOOLEAN_FLAG_TYPE', 'VARIANT_FLAG_TYPE')`),
]);
