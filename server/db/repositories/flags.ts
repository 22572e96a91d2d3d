/** A tenant's feature flags, by namespace (reached through forTenant). */
import { and, asc, eq, getTableColumns, sql } from 'drizzle-orm';
import { toSnapshotFlag, type FlagDefinition, type StoredFlag } from '../../../src/domain/flags/definitions.ts';
import { type FlagSnapshot } from '../../../src/domain/flags/snapshot.ts';
import { featureFlags } from '../schema/flags.ts';
import type { Executor } from '../tenancy.ts';

type Row = typeof featureFlags.$inferSelect;

export function definitionOf(row: Row): FlagDefinition {
  return {
    name: row.name, description: row.description, type: row.type, enabled: row.enabled,
    rollouts: row.rollouts, variants: row.variants, rules: row.rules, defaultVariant: row.defaultVariant,
  };
}

function stored(row: Row): StoredFlag {
  return {
    key: row.key, namespace: row.namespaceKey, ...definitionOf(row),
    createdOn: row.createdOn.toISOString(), updatedOn: row.updatedOn.toISOString(),
  };
}

export function flagsRepository(db: Executor, tenantId: string) {
  const inNamespace = (namespace: string) => and(eq(featureFlags.tenantId, tenantId), eq(featureFlags.namespaceKey, namespace));
  const one = (namespace: string, key: string) => and(inNamespace(namespace), eq(featureFlags.key, key));
  return {
    async list(namespace: string): Promise<StoredFlag[]> {
      const rows = await db.select().from(featureFlags).where(inNamespace(namespace)).orderBy(asc(featureFlags.key));
      return rows.map(stored);
    },

    async get(namespace: string, key: string): Promise<StoredFlag | undefined> {
      const [row] = await db.select().from(featureFlags).where(one(namespace, key)).limit(1);
      return row && stored(row);
    },

    /** Creates or replaces a flag; answers the stored flag and whether it was created. */
    async put(namespace: string, key: string, def: FlagDefinition) {
      const values = {
        name: def.name, description: def.description, type: def.type, enabled: def.enabled,
        rollouts: def.rollouts, variants: def.variants, rules: def.rules, defaultVariant: def.defaultVariant,
      };
      const [row] = await db.insert(featureFlags).values({ tenantId, namespaceKey: namespace, key, ...values })
        .onConflictDoUpdate({
          target: [featureFlags.tenantId, featureFlags.namespaceKey, featureFlags.key],
          set: { ...values, version: sql`${featureFlags.version} + 1`, updatedOn: sql`now()` },
        })
        .returning({ ...getTableColumns(featureFlags), created: sql<boolean>`(xmax = 0)` });
      const { created, ...flag } = row!;
      return { flag: stored(flag), created };
    },

    async setEnabled(namespace: string, key: string, enabled: boolean) {
      const [row] = await db.update(featureFlags)
        .set({ enabled, version: sql`${featureFlags.version} + 1`, updatedOn: sql`now()` })
        .where(one(namespace, key)).returning();
      return row && stored(row);
    },

    async remove(namespace: string, key: string): Promise<boolean> {
      const rows = await db.delete(featureFlags).where(one(namespace, key)).returning({ key: featureFlags.key });
      return rows.length > 0;
    },

    /** The Flipt-compatible snapshot of one namespace; an unknown namespace has no flags. */
    async snapshot(namespace: string): Promise<FlagSnapshot> {
      const rows = await db.select().from(featureFlags).where(inNamespace(namespace)).orderBy(asc(featureFlags.key));
      return {
        namespace: { key: namespace },
        flags: rows.map((r) => toSnapshotFlag(r.key, definitionOf(r), { createdAt: r.createdOn.toISOString(), updatedAt: r.updatedOn.toISOString() })),
      };
    },
  };
}
