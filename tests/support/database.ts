/**
 * A database per test file on the run's PostgreSQL server, dropped afterwards: empty, or a copy
 * of one of the templates the global setup made once (tests/support/globalSetup.ts): 'migrated'
 * (every migration run) or 'seeded' (migrated, and the demo organisation in it, as a first start
 * leaves it).
 */
import { inject } from 'vitest';
import { createDatabaseOn } from './scratchDatabase.ts';

export type TestDatabaseTemplate = 'migrated' | 'seeded';

export async function createTestDatabase(from?: TestDatabaseTemplate): Promise<{ url: string; drop(): Promise<void> }> {
  return createDatabaseOn(inject('pgAdminUrl'), 't', inject('pgAppUrl'), from && inject('pgTemplates')[from]);
}
