/**
 * Sandbox CRM at scale, printed, never asserted: a bulk load, batch searches (searchMany) by
 * e-mail, by last name and postal code and by phone against it, and a CSV import at the 15MB limit. Runs on a scratch database of the server at
 * DATABASE_URL, dropped afterwards:
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx tests/bench/sandboxCrm.ts [constituents] [queries]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sandboxCrmStore } from '../../server/connectors/sandboxCrm/connector.ts';
import { openDatabase } from '../../server/db/database.ts';
import { localFileStore } from '../../server/connectors/fileSources/fileStore.ts';
import { sandboxImportService } from '../../server/services/sandboxImport.ts';
import { MAX_UPLOAD_BYTES } from '../../src/domain/upload.ts';
import { organizations, tenants } from '../../server/db/schema/accounts.ts';
import { forTenant } from '../../server/db/tenancy.ts';
import type { SearchQuery } from '../../server/connectors/connector.ts';
import { loadSandboxConstituents, personAsConstituent } from '../support/sandboxBulk.ts';
import { generatePeople } from '../support/syntheticPeople.ts';

const admin = process.env.DATABASE_URL;
if (!admin) throw new Error('Set DATABASE_URL to a PostgreSQL server this bench may create a scratch database on.');
const n = Number(process.argv[2] ?? 200_000);
const q = Number(process.argv[3] ?? 5000);

const name = `bench_${Date.now().toString(36)}`;
const client = new pg.Client({ connectionString: admin });
await client.connect();
await client.query(`create database ${name}`);
const url = new URL(admin);
url.pathname = `/${name}`;
const database = await openDatabase(url.toString());
try {
  const [org] = await database.db.insert(organizations).values({ name: 'Bench', subdomain: name }).returning();
  const [tenant] = await database.db.insert(tenants).values({ organizationId: org!.id, name: 'Bench' }).returning();

  let started = performance.now();
  const people = generatePeople(n, 2026);
  console.log(`sandbox crm: ${n.toLocaleString('en')} synthetic people generated in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const load = await loadSandboxConstituents(database.db, tenant!.id, n, (i) => personAsConstituent(people[i]!));
  console.log(`sandbox crm: ${load.imported.toLocaleString('en')} constituents loaded in ${(load.ms / 1000).toFixed(1)} s (${Math.round(load.imported / (load.ms / 1000)).toLocaleString('en')}/s, refused ${load.refused})`);

  const crm = sandboxCrmStore(forTenant(database.db, tenant!.id));
  started = performance.now();
  const backfilled = await crm.backfillKeys();
  console.log(`sandbox crm: the key backfill at start, over ${n.toLocaleString('en')} keyed constituents: ${(performance.now() - started).toFixed(0)} ms, ${backfilled} written`);
  const sample = Array.from({ length: q }, (_, i) => people[(i * 7919) % n]!);
  const runs: [string, SearchQuery[]][] = [
    ['e-mail', sample.map((p) => ({ criteria: [{ field: 'email', value: p.email.toUpperCase() || 'nobody@example.org' }] }))],
    ['last name + postal code', sample.map((p) => ({ criteria: [{ field: 'lastName', value: p.lastName }, { field: 'postalCode', value: `${p.postalCode}-1234` }] }))],
    ['phone', sample.map((p) => ({ criteria: [{ field: 'phone', value: p.phone || '0' }] }))],
  ];
  for (const [label, queries] of runs) {
    for (const round of ['cold', 'warm']) {
      started = performance.now();
      const answers = await crm.searchMany('constituents', queries);
      const ms = performance.now() - started;
      const found = answers.filter((a) => a.length > 0).length;
      const candidates = answers.reduce((s, a) => s + a.length, 0);
      console.log(`sandbox crm: searchMany by ${label}, ${q.toLocaleString('en')} queries against ${n.toLocaleString('en')} (${round}): ${ms.toFixed(0)} ms; ${found} found, ${candidates} candidates`);
    }
  }

  // the CSV import as the API runs it: a file at the 15MB limit, streamed, parsed and inserted in one transaction
  const scope = forTenant(database.db, tenant!.id);
  const source = await scope.dataSources.insert({ id: crypto.randomUUID(), system: 'sandbox-crm', displayName: 'Sandbox CRM' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-import-'));
  try {
    const store = localFileStore(dir);
    const lines = ['Lookup ID,First name,Last name,Email,Phone,Address,City,State,ZIP'];
    let bytes = lines[0]!.length + 1;
    for (let i = 0; bytes < MAX_UPLOAD_BYTES - 1000; i++) {
      const p = people[i % n]!;
      const line = [`CSV${i}`, p.firstName, p.lastName, p.email, p.phone, `"${p.addressLine1}"`, p.city, p.state, p.postalCode].join(',');
      lines.push(line);
      bytes += Buffer.byteLength(line) + 1;
    }
    await store.put('import.csv', Buffer.from(`${lines.join('\n')}\n`));
    started = performance.now();
    const result = await sandboxImportService({ store }).importFile(scope, source.id, 'import.csv');
    console.log(`sandbox crm: CSV import of ${(bytes / (1024 * 1024)).toFixed(1)} MB, ${(lines.length - 1).toLocaleString('en')} rows: ${((performance.now() - started) / 1000).toFixed(1)} s; ${result.imported.toLocaleString('en')} imported, ${result.refusedCount} refused`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
} finally {
  await database.close();
  await client.query(`drop database if exists ${name} with (force)`);
  await client.end();
}
