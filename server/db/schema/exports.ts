/**
 * CSV exports of a bucket or a selection (SPEC.md section 4, Export): written in the background,
 * downloadable for 24 hours; a user's new export of a formula replaces the file of the last one.
 */
import { sql } from 'drizzle-orm';
import { foreignKey, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants, users } from './accounts.ts';
import { formulas } from './formulas.ts';

export type ExportStatus = 'started' | 'in-progress' | 'complete' | 'error';

export const recordExports = pgTable('record_exports', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  userId: uuid('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
  formulaId: uuid('formula_id').notNull(),
  bucket: text('bucket').notNull(),
  customBucket: text('custom_bucket'),
  /** what is exported: the bucket screen's filter and sort, or the ids of a selection */
  selection: jsonb('selection').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
  status: text('status').$type<ExportStatus>().notNull(),
  /** records to write (known once the export starts) and written so far */
  total: integer('total'),
  written: integer('written').notNull().default(0),
  /** the CSV in the file store; null until complete and once expired or replaced */
  fileKey: text('file_key'),
  fileName: text('file_name'),
  error: text('error'),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
  finishedOn: timestamp('finished_on', { withTimezone: true }),
  /** the end of the 24-hour download window */
  expiresAt: timestamp('expires_at', { withTimezone: true }),
}, (t) => [
  foreignKey({ name: 'record_exports_formula_fk', columns: [t.formulaId, t.tenantId], foreignColumns: [formulas.id, formulas.tenantId] }).onDelete('cascade'),
  index('record_exports_user_idx').on(t.tenantId, t.userId, t.formulaId, t.createdOn),
  // the sweeper's query: files past their window
  index('record_exports_expiry_idx').on(t.expiresAt).where(sql`${t.fileKey} is not null`),
]);
