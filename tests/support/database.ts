/** A fresh database per test file on the run's PostgreSQL server, dropped afterwards. */
import { inject } from 'vitest';
import { createDatabaseOn } from './scratchDatabase.ts';

export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  return createDatabaseOn(inject('pgAdminUrl'), 't', inject('pgAppUrl'));
}
