/**
 * Loads many constituents into a tenant's Sandbox CRM fast, for benchmarks and scale tests: the
 * repository's bulk import (5,000 rows per statement, keys computed in TypeScript), two
 * statements in flight so building one chunk overlaps inserting the other, then ANALYZE so the
 * planner knows the new size.
 */
import { sql } from 'drizzle-orm';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { IMPORT_CHUNK, type ConstituentInput } from '../../server/connectors/sandboxCrm/store/repository.ts';
import type { Db } from '../../server/db/database.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import type { Person } from './syntheticPeople.ts';

/** The constituent at a position (0-based) of the load. */
export type ConstituentGenerator = (index: number) => ConstituentInput;

/** A person of syntheticPeople as a constituent, their id as its lookup id. */
export const personAsConstituent = (p: Person): ConstituentInput => ({
  lookupId: p.id, firstName: p.firstName, lastName: p.lastName, email: p.email, phone: p.phone,
  addressLine1: p.addressLine1, city: p.city, state: p.state, postalCode: p.postalCode, country: 'United States',
});

export async function loadSandboxConstituents(
  db: Db, tenantId: string, n: number, generator: ConstituentGenerator, opts: { analyze?: boolean } = {},
): Promise<{ imported: number; refused: number; ms: number }> {
  const crm = sandboxCrmStore(forTenant(db, tenantId));
  const started = performance.now();
  let imported = 0;
  let refused = 0;
  const inFlight: Promise<void>[] = [];
  try {
    for (let start = 0; start < n; start += IMPORT_CHUNK) {
      const rows: ConstituentInput[] = [];
      for (let i = start; i < Math.min(n, start + IMPORT_CHUNK); i++) rows.push(generator(i));
      if (inFlight.length >= 2) await inFlight.shift();
      inFlight.push(crm.importConstituents(rows).then((r) => { imported += r.imported; refused += r.refused.length; }));
    }
  } finally {
    // a failed chunk ends the load, and none is left running unobserved
    const settled = await Promise.allSettled(inFlight);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
  }
  if (opts.analyze ?? true) await db.execute(sql`analyze sandbox_constituents`);
  return { imported, refused, ms: performance.now() - started };
}
