/**
 * The candidate index alone (server/engine/candidateIndex.ts), printed, never asserted: how long a
 * worker takes to load a destination of N constituents into it, what it holds in and outside the
 * V8 heap, and how fast it answers the recommended scenarios' searches of messy incoming records,
 * searched in their tiers as server/engine/process.ts searches them. This is the part of a run that
 * grows with the CRM, measured without PostgreSQL, so a change to it can be judged in seconds.
 * Runs inside `npm run bench`, or alone: `npx tsx tests/bench/candidateIndex.ts` (BENCH_INDEX_CRM
 * and BENCH_INDEX_RECORDS size it; run with `node --expose-gc` for exact heap figures).
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { matchKey } from '../../src/domain/formula/matchKeys.ts';
import { recommendedMatching } from '../../src/domain/formula/recommendedScenarios.ts';
import type { SearchQuery } from '../../server/connectors/connector.ts';
import { sandbox } from '../../server/connectors/sandboxCrm/fields.ts';
import { CandidateIndex } from '../../server/engine/candidateIndex.ts';
import { n } from '../support/benchDatabase.ts';
import { personAsConstituent } from '../support/sandboxBulk.ts';
import { generateIncoming, generatePeople, SOURCE_COLUMNS } from '../support/syntheticPeople.ts';

const MB = 1024 * 1024;
const KEYED = { email: 'email', phone: 'phone', firstName: 'firstName', lastName: 'lastName', postalCode: 'postalCode', addressLine1: 'addressLine1' } as const;
/** the engine's batch */
const BATCH = 500;

const memory = () => {
  global.gc?.();
  const m = process.memoryUsage();
  return { heap: m.heapUsed / MB, external: (m.external + m.arrayBuffers) / MB, rss: m.rss / MB };
};

export async function candidateIndexBench(): Promise<void> {
  const crmSize = Number(process.env.BENCH_INDEX_CRM ?? 1_000_000);
  const records = Number(process.env.BENCH_INDEX_RECORDS ?? 100_000);
  const people = generatePeople(crmSize, 2026);
  const incoming = generateIncoming(people, records, 2027).map((r) => r.values as Record<string, string>);
  const created = new Date('2026-01-01T00:00:00Z').toISOString();
  // as the Sandbox CRM's page() answers a constituent: every field, the keys computed
  const rows = people.map((p, i) => {
    const c = personAsConstituent(p);
    const fields = {
      lookupId: c.lookupId, title: null, firstName: c.firstName, lastName: c.lastName, middleName: null, preferredName: null,
      email: c.email || null, phone: c.phone || null, addressLine1: c.addressLine1, addressLine2: null, city: c.city, state: c.state,
      postalCode: c.postalCode, country: c.country, createdOn: created, modifiedOn: created,
    };
    const keys = Object.fromEntries(Object.entries(KEYED).map(([field, kind]) => [kind, matchKey(kind, fields[field as keyof typeof fields])]));
    return { id: `00000000-0000-7000-8000-${String(i).padStart(12, '0')}`, fields, keys };
  });
  const before = memory();
  let started = performance.now();
  const index = new CandidateIndex({ keyed: KEYED, lookupField: 'lookupId', order: ['lastName', 'firstName'] });
  for (const row of rows) index.put(row, true);
  const loadMs = performance.now() - started;
  rows.length = 0;
  const after = memory();

  const { scenarios } = recommendedMatching({
    system: 'sandbox-crm', object: 'constituents', destinationFields: sandbox.fields.constituents, sourceFields: SOURCE_COLUMNS.map((name) => ({ name })),
  });
  const queryFor = (scenario: (typeof scenarios)[number], raw: Record<string, string>): SearchQuery | null => {
    const criteria = [];
    for (const c of scenario.criteria) {
      const value = (raw[c.source] ?? '').trim();
      if (!value) return null;
      criteria.push({ field: c.destination, operator: 'equals' as const, value });
    }
    return { criteria, limit: 25 };
  };
  // a field searched by its text (not a match key) gets its column of hashes on its first search: once per process
  const started2 = performance.now();
  const textFields = [...new Set(scenarios.flatMap((s) => s.criteria.map((c) => c.destination)))].filter((f) => !Object.hasOwn(KEYED, f));
  index.searchMany(textFields.map((field) => ({ criteria: [{ field: 'lastName', value: 'Smith' }, { field, value: 'x' }] })));
  const columnsMs = performance.now() - started2;
  let searches = 0, answered = 0, found = 0;
  const perScenario = new Map<string, { searches: number; ms: number }>();
  started = performance.now();
  for (let at = 0; at < incoming.length; at += BATCH) {
    const batch = incoming.slice(at, at + BATCH);
    const hit = batch.map(() => false);
    for (const tier of [true, false]) {
      for (const scenario of scenarios.filter((s) => s.isPrimary === tier)) {
        const asked: number[] = [];
        const queries: SearchQuery[] = [];
        batch.forEach((raw, i) => {
          if (!tier && hit[i]) return;
          const q = queryFor(scenario, raw);
          if (q) { asked.push(i); queries.push(q); }
        });
        const t = performance.now();
        const answers = index.searchMany(queries);
        const s = perScenario.get(scenario.name) ?? { searches: 0, ms: 0 };
        s.searches += queries.length; s.ms += performance.now() - t;
        perScenario.set(scenario.name, s);
        searches += queries.length;
        answers.forEach((a, k) => {
          if (a === null) return;
          answered++;
          found += a.length;
          if (tier && a.length) hit[asked[k]!] = true;
        });
      }
    }
  }
  const searchMs = performance.now() - started;
  const end = memory();
  console.log(`candidate index: ${n(crmSize)} constituents loaded in ${(loadMs / 1000).toFixed(1)} s (${n(crmSize / (loadMs / 1000))}/s); `
    + `${(index.bytes / MB).toFixed(0)} MB outside the heap by its count; heap +${(after.heap - before.heap).toFixed(0)} MB, external +${(after.external - before.external).toFixed(0)} MB, RSS ${after.rss.toFixed(0)} MB (load ${os.loadavg()[0]!.toFixed(1)})`);
  console.log(`candidate index: the first search by ${textFields.join(', ') || 'no text field'} made its column of hashes in ${columnsMs.toFixed(0)} ms`);
  console.log(`candidate index: ${n(records)} incoming records, ${n(searches)} searches (${n(answered)} by the index, ${n(found)} candidates) in ${(searchMs / 1000).toFixed(2)} s: `
    + `${(searchMs / records).toFixed(3)} ms per record, ${n(records / (searchMs / 1000))} records/s; RSS after ${end.rss.toFixed(0)} MB`);
  console.log(`candidate index: per scenario ${[...perScenario].map(([name, s]) => `${name} ${(1000 * s.ms / Math.max(1, s.searches)).toFixed(1)} µs × ${n(s.searches)}`).join('; ')}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await candidateIndexBench();
