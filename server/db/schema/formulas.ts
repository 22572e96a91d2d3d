/**
 * Formulas (SPEC.md section 3), minimal for now: what the Connections area needs to refuse
 * deleting a data source a formula uses. The formula area extends this table.
 */
import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from './accounts.ts';
import { dataSources } from './connections.ts';

export const formulas = pgTable('formulas', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  /** can be unset (SPEC.md section 3) */
  name: text('name'),
  isDraft: boolean('is_draft').notNull().default(true),
  /** a data source in use cannot be deleted (SPEC.md section 5): the foreign key refuses it too */
  sourceDataSourceId: uuid('source_data_source_id').references(() => dataSources.id),
  destinationDataSourceId: uuid('destination_data_source_id').references(() => dataSources.id),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
  modifiedOn: timestamp('modified_on', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  index('formulas_tenant_idx').on(t.tenantId),
  index('formulas_source_idx').on(t.sourceDataSourceId).where(sql`${t.sourceDataSourceId} is not null`),
  index('formulas_destination_idx').on(t.destinationDataSourceId).where(sql`${t.destinationDataSourceId} is not null`),
]);
