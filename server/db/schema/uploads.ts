/** Uploaded files: only what SPEC.md section 5 keeps (the headers and the first 20 rows), per tenant. */
import { sql } from 'drizzle-orm';
import { bigint, index, integer, jsonb, pgTable, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';
import { tenants, users } from './accounts.ts';

export const uploads = pgTable('uploads', {
  id: uuid('id').primaryKey().defaultRandom(),
  tenantId: uuid('tenant_id').notNull().references(() => tenants.id, { onDelete: 'cascade' }),
  fileName: text('file_name').notNull(),
  /** bytes */
  size: bigint('size', { mode: 'number' }).notNull(),
  /** the type found from the content: csv | xlsx | xls */
  detectedType: text('detected_type').$type<'csv' | 'xlsx' | 'xls'>().notNull(),
  headers: jsonb('headers').$type<string[]>().notNull(),
  sampleRows: jsonb('sample_rows').$type<string[][]>().notNull().default(sql`'[]'::jsonb`),
  /** data rows in the file; null when it was too large to count */
  rowCount: integer('row_count'),
  /** clean: clamd found nothing; not-scanned: no scanner is configured. Infected files are never stored. */
  scanStatus: text('scan_status').$type<'clean' | 'not-scanned'>().notNull(),
  /** the file-upload formula it was uploaded to: its rows are collected, then the file is deleted */
  formulaId: uuid('formula_id'),
  /** where the whole file waits in the file store until its rows are collected; null once deleted */
  fileKey: text('file_key'),
  /** sha256 of the file's bytes (hex): the same file uploaded to the formula again is asked about first */
  contentHash: text('content_hash'),
  createdBy: uuid('created_by').notNull().references(() => users.id),
  createdOn: timestamp('created_on', { withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  /** a formula's sample names an upload and their tenant together (server/db/schema/formulas.ts) */
  unique('uploads_id_tenant_key').on(t.id, t.tenantId),
  index('uploads_tenant_idx').on(t.tenantId, t.createdOn),
  // a formula's files waiting to be collected
  index('uploads_formula_idx').on(t.formulaId).where(sql`${t.formulaId} is not null`),
  // the same file uploaded to a formula before
  index('uploads_formula_hash_idx').on(t.formulaId, t.contentHash).where(sql`${t.formulaId} is not null and ${t.contentHash} is not null`),
]);
