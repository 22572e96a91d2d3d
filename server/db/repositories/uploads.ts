/** A tenant's uploaded files: what SPEC.md section 5 keeps of them (reached through forTenant). */
import { and, desc, eq } from 'drizzle-orm';
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
  };
}
