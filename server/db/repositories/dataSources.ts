/** A tenant's data sources (reached through forTenant); sealing and opening secrets is server/connectors/dataSources.ts. */
import { and, asc, eq, inArray, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { memberships, users } from '../schema/accounts.ts';
import { dataSources } from '../schema/connections.ts';
import { formulas } from '../schema/formulas.ts';
import type { Executor } from '../tenancy.ts';

export type DataSourceRow = typeof dataSources.$inferSelect;
export type DataSourceChanges = Partial<Omit<typeof dataSources.$inferInsert, 'tenantId' | 'id' | 'createdOn'>>;

const creator = alias(users, 'creator');
const modifier = alias(users, 'modifier');

export function dataSourcesRepository(db: Executor, tenantId: string) {
  const mine = eq(dataSources.tenantId, tenantId);
  return {
    async get(id: string): Promise<DataSourceRow | undefined> {
      const [row] = await db.select().from(dataSources).where(and(mine, eq(dataSources.id, id))).limit(1);
      return row;
    },

    /** the tenant's built-in 'File upload' data source (made with the tenant, migration 0025) */
    async builtInFileUpload(): Promise<DataSourceRow | undefined> {
      const [row] = await db.select().from(dataSources).where(and(mine, eq(dataSources.builtIn, true))).limit(1);
      return row;
    },

    /** who made and last changed a data source, by name */
    async authors(row: DataSourceRow): Promise<{ createdBy: string | null; modifiedBy: string | null }> {
      const [names] = await db.select({ createdBy: creator.fullName, modifiedBy: modifier.fullName }).from(dataSources)
        .leftJoin(creator, eq(creator.id, dataSources.createdBy))
        .leftJoin(modifier, eq(modifier.id, dataSources.modifiedBy))
        .where(and(mine, eq(dataSources.id, row.id))).limit(1);
      return names ?? { createdBy: null, modifiedBy: null };
    },

    /**
     * Who is told by e-mail that the data source needs reconnecting: its maker, and the makers of
     * the formulas that use it; each once, and only while they can be reached (not deactivated, a
     * sign-in e-mail, still a member of the tenant) and have not turned these notices off.
     */
    async peopleToTell(id: string): Promise<{ email: string; fullName: string }[]> {
      const users_ = alias(users, 'told');
      const formulaMakers = db.select({ userId: formulas.createdBy }).from(formulas)
        .where(and(eq(formulas.tenantId, tenantId), or(eq(formulas.sourceDataSourceId, id), eq(formulas.destinationDataSourceId, id))));
      const maker = db.select({ userId: dataSources.createdBy }).from(dataSources).where(and(mine, eq(dataSources.id, id)));
      const rows = await db.selectDistinct({ email: users_.email, fullName: users_.fullName }).from(users_)
        .where(and(
          or(inArray(users_.id, maker), inArray(users_.id, formulaMakers)),
          isNull(users_.deactivatedOn), isNotNull(users_.email), eq(users_.ownerNotices, true),
          // still one of the tenant's people
          inArray(users_.id, db.select({ userId: memberships.userId }).from(memberships).where(eq(memberships.tenantId, tenantId))),
        ))
        .orderBy(asc(users_.email));
      return rows.map((r) => ({ email: r.email!, fullName: r.fullName }));
    },

    /** the list with who made and changed each, and how many formulas use it; by name */
    async list() {
      const used = sql<number>`(select count(*)::int from ${formulas} f where f.tenant_id = ${dataSources.tenantId}
        and (f.source_data_source_id = ${dataSources.id} or f.destination_data_source_id = ${dataSources.id}))`;
      return db.select({
        id: dataSources.id, system: dataSources.system, displayName: dataSources.displayName,
        createdOn: dataSources.createdOn, modifiedOn: dataSources.modifiedOn,
        createdBy: creator.fullName, modifiedBy: modifier.fullName, usedByCount: used,
        needsReconnecting: dataSources.needsReconnecting, needsReconnectingOn: dataSources.needsReconnectingOn,
        builtIn: dataSources.builtIn,
      }).from(dataSources)
        .leftJoin(creator, eq(creator.id, dataSources.createdBy))
        .leftJoin(modifier, eq(modifier.id, dataSources.modifiedBy))
        .where(mine)
        .orderBy(asc(sql`lower(${dataSources.displayName})`), asc(dataSources.id));
    },

    /** `id` is chosen by the caller: sealed secrets are bound to it */
    async insert(values: Omit<typeof dataSources.$inferInsert, 'tenantId'> & { id: string }): Promise<DataSourceRow> {
      const [row] = await db.insert(dataSources).values({ ...values, tenantId }).returning();
      return row!;
    },

    async update(id: string, changes: DataSourceChanges): Promise<DataSourceRow | undefined> {
      const [row] = await db.update(dataSources).set(changes).where(and(mine, eq(dataSources.id, id))).returning();
      return row;
    },

    async remove(id: string): Promise<boolean> {
      const rows = await db.delete(dataSources).where(and(mine, eq(dataSources.id, id))).returning({ id: dataSources.id });
      return rows.length > 0;
    },
  };
}
