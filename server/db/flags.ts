/** Reads and writes of feature flags; every query is scoped by tenant and namespace. */
import { and, asc, eq, getTableColumns, sql } from 'drizzle-orm';
import {
  toSnapshotFlag, type FlagDefinition, type FlagSnapshot, type StoredFlag,
} from '../../src/domain/flags.ts';
import type { Db } from './database.ts';
import { featureFlags } from './schema/flags.ts';

type Row = typeof featureFlags.$inferSelect;
/** A connection or a transaction. */
export type Writer = Pick<Db, 'insert' | 'select' | 'update' | 'delete'>;

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

export async function listFlags(db: Db, tenantId: string, namespace: string): Promise<StoredFlag[]> {
  const rows = await db.select().from(featureFlags)
    .where(and(eq(featureFlags.tenantId, tenantId), eq(featureFlags.namespaceKey, namespace)))
    .orderBy(asc(featureFlags.key));
  return rows.map(stored);
}

export async function getFlag(db: Db, tenantId: string, namespace: string, key: string): Promise<StoredFlag | undefined> {
  const [row] = await db.select().from(featureFlags)
    .where(and(eq(featureFlags.tenantId, tenantId), eq(featureFlags.namespaceKey, namespace), eq(featureFlags.key, key))).limit(1);
  return row && stored(row);
}

/** Creates or replaces a flag; answers the stored flag and whether it was created. */
export async function putFlag(db: Writer, tenantId: string, namespace: string, key: string, def: FlagDefinition) {
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
}

export async function setFlagEnabled(db: Db, tenantId: string, namespace: string, key: string, enabled: boolean) {
  const [row] = await db.update(featureFlags)
    .set({ enabled, version: sql`${featureFlags.version} + 1`, updatedOn: sql`now()` })
    .where(and(eq(featureFlags.tenantId, tenantId), eq(featureFlags.namespaceKey, namespace), eq(featureFlags.key, key)))
    .returning();
  return row && stored(row);
}

export async function deleteFlag(db: Db, tenantId: string, namespace: string, key: string): Promise<boolean> {
  const rows = await db.delete(featureFlags)
    .where(and(eq(featureFlags.tenantId, tenantId), eq(featureFlags.namespaceKey, namespace), eq(featureFlags.key, key)))
    .returning({ key: featureFlags.key });
  return rows.length > 0;
}

/** The Flipt-compatible snapshot of one tenant's namespace; an unknown namespace has no flags. */
export async function flagSnapshot(db: Db, tenantId: string, namespace: string): Promise<FlagSnapshot> {
  const rows = await db.select().from(featureFlags)
    .where(and(eq(featureFlags.tenantId, tenantId), eq(featureFlags.namespaceKey, namespace)))
    .orderBy(asc(featureFlags.key));
  return {
    namespace: { key: namespace },
    flags: rows.map((r) => toSnapshotFlag(r.key, definitionOf(r), { createdAt: r.createdOn.toISOString(), updatedAt: r.updatedOn.toISOString() })),
  };
}
