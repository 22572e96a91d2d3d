/**
 * A tenant's uploaded files: what SPEC.md section 5 keeps of them, and for a file uploaded to a
 * file-upload formula, where the whole file waits until its rows are collected (reached through
 * forTenant).
 */
import { and, asc, desc, eq, isNotNull } from 'drizzle-orm';
import { users } from '../schema/accounts.ts';
import { uploads } from '../schema/uploads.ts';
import type { Executor } from '../tenancy.ts';

export type UploadRow = typeof uploads.$inferSelect;

export function uploadsRepository(db: Executor, tenantId: string) {
  return {
    async get(id: string): Promise<UploadRow | undefined> {
      const [row] = await db.select().from(uploads).where(and(eq(uploads.tenantId, tenantId), eq(uploads.id, id))).limit(1);
      return row;
    },
    /** newest first */
    async list(limit = 200): Promise<UploadRow[]> {
      return db.select().from(uploads).where(eq(uploads.tenantId, tenantId)).orderBy(desc(uploads.createdOn)).limit(limit);
    },
    async insert(values: Omit<typeof uploads.$inferInsert, 'tenantId' | 'id'>): Promise<UploadRow> {
      const [row] = await db.insert(uploads).values({ ...values, tenantId }).returning();
      return row!;
    },
    /** a formula's uploads, oldest first; `waiting`: only those whose whole file is still kept */
    async forFormula(formulaId: string, opts: { waiting?: boolean } = {}): Promise<UploadRow[]> {
      return db.select().from(uploads)
        .where(and(eq(uploads.tenantId, tenantId), eq(uploads.formulaId, formulaId), opts.waiting ? isNotNull(uploads.fileKey) : undefined))
        .orderBy(asc(uploads.createdOn), asc(uploads.id));
    },
    /** the newest earlier upload of the same file (by content hash) to the formula, with the name of who uploaded it */
    async sameFile(formulaId: string, contentHash: string): Promise<{ upload: UploadRow; uploadedBy: string } | undefined> {
      const [row] = await db.select({ upload: uploads, uploadedBy: users.fullName }).from(uploads).innerJoin(users, eq(users.id, uploads.createdBy))
        .where(and(eq(uploads.tenantId, tenantId), eq(uploads.formulaId, formulaId), eq(uploads.contentHash, contentHash)))
        .orderBy(desc(uploads.createdOn)).limit(1);
      return row;
    },
    /** null once the file is deleted from the store (its rows collected) */
    async setFileKey(id: string, fileKey: string | null): Promise<UploadRow | undefined> {
      const [row] = await db.update(uploads).set({ fileKey }).where(and(eq(uploads.tenantId, tenantId), eq(uploads.id, id))).returning();
      return row;
    },
  };
}
