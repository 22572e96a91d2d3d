/**
 * The Data Queue's arrangement (SPEC.md section 3, Tab): each user's own tabs, at most 5, and the
 * formula cards placed on them in the user's order.
 */
import { foreignKey, index, integer, pgTable, primaryKey, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { tenants, users } from './accounts.ts';
import { formulas } from './formulas.ts';

export const dataQueueTabs = pgTable('data_queue_tabs', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  /** tabs are a user's own view of the tenant's formulas */
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  position: integer('position').notNull(),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  unique('data_queue_tabs_id_tenant_key').on(t.id, t.tenantId),
  index('data_queue_tabs_user_idx').on(t.tenantId, t.userId, t.position),
]);

/** A formula's card on a tab, at its place in the tab's order. */
export const dataQueueCards = pgTable('data_queue_cards', {
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  tabId: uuid('tab_id').notNull(),
  formulaId: uuid('formula_id').notNull(),
  position: integer('position').notNull(),
}, (t) => [
  primaryKey({ columns: [t.tabId, t.formulaId] }),
  foreignKey({ name: 'data_queue_cards_tab_fk', columns: [t.tabId, t.tenantId], foreignColumns: [dataQueueTabs.id, dataQueueTabs.tenantId] }).onDelete('cascade'),
  foreignKey({ name: 'data_queue_cards_formula_fk', columns: [t.formulaId, t.tenantId], foreignColumns: [formulas.id, formulas.tenantId] }).onDelete('cascade'),
  index('data_queue_cards_formula_idx').on(t.formulaId),
]);
