/**
 * Constituent upserts of the Sandbox CRM a batch at a time (DESIGN.md sections 4b and 7): a send
 * of 500 records is a few statements in one transaction instead of a transaction per record,
 * with the same answers as writing the items one by one. Each constituent's row, which holds its
 * primary e-mail, phone and address, is written once: inserted when created, updated once however
 * many items of the batch change it.
 *
 * Idempotency: the transaction first claims the batch's keys in sandbox_writes (insert ... on
 * conflict do nothing, in key order so two batches never deadlock). A key already written
 * answers its first result and writes nothing; a key another transaction is writing waits for it
 * at the claim, then answers its result. An item that turns out to fail gives its claim back
 * before the commit, so nothing of it is kept.
 */
import { sql, type SQL } from 'drizzle-orm';
import { ConnectorInputError, type UpsertItem, type UpsertResult } from '../../connector.ts';
import { sandboxLookupSeq } from '../../../db/schema/sandboxCrm.ts';
import type { Executor } from '../../../db/tenancy.ts';
import { MATCH_KEYS_VERSION } from '../../../../src/domain/formula/matchKeys.ts';
import { constituentKeys } from './repository.ts';
import { orderedUuid } from '../../../db/orderedUuid.ts';
import { looksLikeEmail } from '../../../../src/domain/emailAddress.ts';
import { str, UUID } from './values.ts';

const ADDRESS_FIELDS = ['addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country'] as const;

type Address = Record<(typeof ADDRESS_FIELDS)[number], string | undefined>;

/** What one item writes, read from its fields as the one-by-one write reads them. */
interface Change {
  /** undefined: left as it is */
  title?: string | null;
  firstName?: string | null;
  lastName?: string;
  middleName?: string | null;
  preferredName?: string | null;
  email?: string;
  phone?: string;
  /** the whole primary address, replaced when any part is given */
  address?: Address;
}

function changeOf(item: UpsertItem): Change | string {
  const f = item.fields;
  const change: Change = {};
  if (f.title !== undefined) change.title = str(f.title) ?? null;
  if (f.firstName !== undefined) change.firstName = str(f.firstName) ?? null;
  if (f.middleName !== undefined) change.middleName = str(f.middleName) ?? null;
  if (f.preferredName !== undefined) change.preferredName = str(f.preferredName) ?? null;
  const lastName = str(f.lastName);
  if (lastName) change.lastName = lastName;
  if (item.id !== undefined && !UUID.test(item.id)) return `${item.id} is not a Sandbox CRM constituent id.`;
  if (item.id === undefined && !lastName) return 'A new constituent needs a last name.';
  const email = str(f.email);
  if (email) {
    if (!looksLikeEmail(email)) return `${email} is not an e-mail address.`;
    change.email = email;
  }
  const phone = str(f.phone);
  if (phone) change.phone = phone;
  const address = Object.fromEntries(ADDRESS_FIELDS.map((k) => [k, str(f[k])])) as Address;
  if (Object.values(address).some(Boolean)) change.address = address;
  return change;
}

const param = <T>(values: T[]) => sql.param(values);

/** A constituent as it stands after the batch's changes: what its row is written from. */
interface State extends Record<(typeof ADDRESS_FIELDS)[number], string | null> {
  id: string;
  title: string | null;
  firstName: string | null;
  lastName: string;
  middleName: string | null;
  preferredName: string | null;
  email: string | null;
  phone: string | null;
}

/** The columns a write sets beside the id, and the value of each: names, primary e-mail, phone and address, and the keys of what the row ends with. */
const COLUMNS: [string, (s: State, keys: ReturnType<typeof constituentKeys>) => string | null][] = [
  ['title', (s) => s.title], ['first_name', (s) => s.firstName], ['last_name', (s) => s.lastName],
  ['middle_name', (s) => s.middleName], ['preferred_name', (s) => s.preferredName], ['email', (s) => s.email], ['phone', (s) => s.phone],
  ['address_line1', (s) => s.addressLine1], ['address_line2', (s) => s.addressLine2], ['city', (s) => s.city], ['state', (s) => s.state],
  ['postal_code', (s) => s.postalCode], ['country', (s) => s.country],
  ['email_key', (_, k) => k.emailKey], ['phone_key', (_, k) => k.phoneKey], ['first_name_key', (_, k) => k.firstNameKey],
  ['last_name_key', (_, k) => k.lastNameKey], ['postal_key', (_, k) => k.postalKey], ['address_key', (_, k) => k.addressKey],
];
const column = (f: (name: string) => string) => sql.raw(COLUMNS.map(([name]) => f(name)).join(', '));

/** The constituents' rows as `x(id, <COLUMNS>[, n])`, one array per column unnested (n: their order, for an insert). */
function rowsOf(states: State[], ordered: boolean): SQL {
  const keys = states.map((s) => constituentKeys(s));
  const arrays = COLUMNS.map(([, value]) => sql`${param(states.map((s, i) => value(s, keys[i]!)))}::text[]`);
  return sql`unnest(${param(states.map((s) => s.id))}::uuid[], ${sql.join(arrays, sql`, `)})${ordered ? sql` with ordinality` : sql``}
    as x(id, ${column((c) => c)}${ordered ? sql`, n` : sql``})`;
}

function apply(state: State, change: Change): void {
  if (change.title !== undefined) state.title = change.title;
  if (change.firstName !== undefined) state.firstName = change.firstName;
  if (change.lastName !== undefined) state.lastName = change.lastName;
  if (change.middleName !== undefined) state.middleName = change.middleName;
  if (change.preferredName !== undefined) state.preferredName = change.preferredName;
  if (change.email !== undefined) state.email = change.email;
  if (change.phone !== undefined) state.phone = change.phone;
  if (change.address !== undefined) for (const k of ADDRESS_FIELDS) state[k] = change.address[k] ?? null;
}

/** Creates and updates constituents in one transaction; one result per item, in order. */
export async function upsertConstituents(db: Executor, tenantId: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  for (const item of items) {
    const key = item.idempotencyKey;
    if (!key || key.length > 200) throw new ConnectorInputError('Every write needs an idempotency key of at most 200 characters.');
  }
  if (!items.length) return [];
  const results: (UpsertResult | undefined)[] = new Array(items.length);
  const failed = (i: number, error: string) => { results[i] = { idempotencyKey: items[i]!.idempotencyKey, id: '', outcome: 'failed', replayed: false, error }; };

  // the first item of a key writes; a later one with the same key answers what the first did
  const firstOfKey = new Map<string, number>();
  const writers: { index: number; change: Change; id: string; outcome: 'created' | 'updated' }[] = [];
  items.forEach((item, i) => {
    if (firstOfKey.has(item.idempotencyKey)) return;
    firstOfKey.set(item.idempotencyKey, i);
    const change = changeOf(item);
    if (typeof change === 'string') { failed(i, change); return; }
    writers.push({ index: i, change, id: item.id ?? orderedUuid(), outcome: item.id ? 'updated' : 'created' });
  });

  await db.transaction(async (tx) => {
    const claims = [...writers].sort((a, b) => (items[a.index]!.idempotencyKey < items[b.index]!.idempotencyKey ? -1 : 1));
    const claimed = new Set<string>();
    if (claims.length) {
      const { rows } = await tx.execute<{ key: string }>(sql`
        insert into sandbox_writes (tenant_id, idempotency_key, object, record_id, outcome)
        select ${tenantId}::uuid, k.key, 'constituents', k.record_id, k.outcome
        from unnest(${param(claims.map((w) => items[w.index]!.idempotencyKey))}::text[], ${param(claims.map((w) => w.id))}::uuid[],
          ${param(claims.map((w) => w.outcome))}::text[]) with ordinality as k(key, record_id, outcome, n)
        order by k.n
        on conflict (tenant_id, idempotency_key) do nothing
        returning idempotency_key as key`);
      for (const r of rows) claimed.add(r.key);
    }

    // keys written before (or by a transaction the claim waited for): their first result
    const replays = writers.filter((w) => !claimed.has(items[w.index]!.idempotencyKey));
    if (replays.length) {
      const { rows } = await tx.execute<{ key: string; object: string; record_id: string; outcome: 'created' | 'updated' }>(sql`
        select idempotency_key as key, object, record_id, outcome from sandbox_writes
        where tenant_id = ${tenantId}::uuid and idempotency_key = any(${param(replays.map((w) => items[w.index]!.idempotencyKey))}::text[])`);
      const byKey = new Map(rows.map((r) => [r.key, r]));
      for (const w of replays) {
        const key = items[w.index]!.idempotencyKey;
        const done = byKey.get(key);
        if (!done) throw new Error(`the write of ${key} was neither claimed nor found`);
        if (done.object !== 'constituents') failed(w.index, `The idempotency key ${key} was used for ${done.object}.`);
        else results[w.index] = { idempotencyKey: key, id: done.record_id, outcome: done.outcome, replayed: true };
      }
    }

    const mine = writers.filter((w) => claimed.has(items[w.index]!.idempotencyKey));
    const states = new Map<string, State>();
    const updateIds = [...new Set(mine.filter((w) => w.outcome === 'updated').map((w) => w.id))].sort();
    if (updateIds.length) {
      // locked in id order: concurrent batches updating one constituent queue up without deadlocks
      const { rows } = await tx.execute<Record<string, unknown>>(sql`
        select c.id, c.title, c.first_name as "firstName", c.last_name as "lastName",
          c.middle_name as "middleName", c.preferred_name as "preferredName", c.email, c.phone, c.address_line1 as "addressLine1",
          c.address_line2 as "addressLine2", c.city, c.state, c.postal_code as "postalCode", c.country
        from sandbox_constituents c
        where c.tenant_id = ${tenantId}::uuid and c.id = any(${param(updateIds)}::uuid[])
        order by c.id
        for no key update of c`);
      for (const r of rows as unknown as State[]) states.set(r.id, r);
    }

    const lost: string[] = [];
    const created: State[] = [];
    for (const w of mine) {
      const key = items[w.index]!.idempotencyKey;
      if (w.outcome === 'updated') {
        const state = states.get(w.id);
        if (!state) { lost.push(key); failed(w.index, `There is no constituent ${w.id}.`); continue; }
        apply(state, w.change);
      } else {
        const state: State = {
          id: w.id, title: null, firstName: null, lastName: '', middleName: null, preferredName: null, email: null, phone: null,
          addressLine1: null, addressLine2: null, city: null, state: null, postalCode: null, country: null,
        };
        apply(state, w.change);
        created.push(state);
      }
      results[w.index] = { idempotencyKey: key, id: w.id, outcome: w.outcome, replayed: false };
    }
    // an update of a constituent that is not there wrote nothing: its key is free again
    if (lost.length) {
      await tx.execute(sql`delete from sandbox_writes where tenant_id = ${tenantId}::uuid and idempotency_key = any(${param(lost)}::text[])`);
    }
    const updated = [...states.values()];

    if (created.length) {
      await tx.execute(sql`
        insert into sandbox_constituents (id, tenant_id, lookup_id, ${column((c) => c)}, keys_version)
        select x.id, ${tenantId}::uuid, 'SC-' || nextval(${sql.raw(`'${sandboxLookupSeq.seqName}'`)}), ${column((c) => `x.${c}`)}, ${MATCH_KEYS_VERSION}
        from ${rowsOf(created, true)}
        order by x.n`);
    }
    if (updated.length) {
      await tx.execute(sql`
        update sandbox_constituents c set ${column((c) => `${c} = x.${c}`)},
          keys_version = ${MATCH_KEYS_VERSION}, modified_on = now()
        from ${rowsOf(updated, false)}
        where c.tenant_id = ${tenantId}::uuid and c.id = x.id`);
    }
  });
  items.forEach((item, i) => {
    if (results[i]) return;
    const first = results[firstOfKey.get(item.idempotencyKey)!]!;
    results[i] = first.outcome === 'failed' ? { ...first } : { ...first, replayed: true };
  });
  return results as UpsertResult[];
}
