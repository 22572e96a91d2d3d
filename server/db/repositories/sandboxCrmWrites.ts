/**
 * Constituent upserts of the Sandbox CRM a batch at a time (DESIGN.md sections 4b and 7): a send
 * of 500 records is a dozen statements in one transaction instead of a transaction per record,
 * with the same answers as writing the items one by one.
 *
 * Idempotency: the transaction first claims the batch's keys in sandbox_writes (insert ... on
 * conflict do nothing, in key order so two batches never deadlock). A key already written
 * answers its first result and writes nothing; a key another transaction is writing waits for it
 * at the claim, then answers its result. An item that turns out to fail gives its claim back
 * before the commit, so nothing of it is kept.
 */
import { sql } from 'drizzle-orm';
import { ConnectorInputError, type UpsertItem, type UpsertResult } from '../../connectors/connector.ts';
import { sandboxLookupSeq } from '../schema/sandboxCrm.ts';
import type { Executor } from '../tenancy.ts';
import { MATCH_KEYS_VERSION } from '../../../src/domain/formula/matchKeys.ts';
import { constituentKeys } from './sandboxCrm.ts';
import { EMAIL, orderedUuid, str, UUID } from './sandboxCrmValues.ts';

const ADDRESS_FIELDS = ['addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country'] as const;

type Address = Record<(typeof ADDRESS_FIELDS)[number], string | undefined>;

/** What one item writes, read from its fields as the one-by-one write reads them. */
interface Change {
  /** undefined: left as it is */
  title?: string | null;
  firstName?: string | null;
  lastName?: string;
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
  const lastName = str(f.lastName);
  if (lastName) change.lastName = lastName;
  if (item.id !== undefined && !UUID.test(item.id)) return `${item.id} is not a Sandbox CRM constituent id.`;
  if (item.id === undefined && !lastName) return 'A new constituent needs a last name.';
  const email = str(f.email);
  if (email) {
    if (!EMAIL.test(email)) return `${email} is not an e-mail address.`;
    change.email = email;
  }
  const phone = str(f.phone);
  if (phone) change.phone = phone;
  const address = Object.fromEntries(ADDRESS_FIELDS.map((k) => [k, str(f[k])])) as Address;
  if (Object.values(address).some(Boolean)) change.address = address;
  return change;
}

type Keys = ReturnType<typeof constituentKeys>;
/** The keys of the primary children a batch may leave as they are. */
type ChildKeys = Pick<Keys, 'emailKey' | 'phoneKey' | 'postalKey' | 'addressKey'>;
const NO_CHILDREN: ChildKeys = { emailKey: null, phoneKey: null, postalKey: null, addressKey: null };

/** A constituent as it stands after the batch's changes: what its row, primary children and keys are written from. */
interface State {
  id: string;
  title: string | null;
  firstName: string | null;
  lastName: string;
  /** the replacing primary e-mail, phone and address (when newEmail, newPhone, newAddress) */
  email: string | null;
  phone: string | null;
  address: Address | null;
  newEmail: boolean;
  newPhone: boolean;
  newAddress: boolean;
  /** the keys of the children as they are, for those the batch does not replace */
  kept: ChildKeys;
}

/** The keys the constituent is written with: of its names and new children, and the kept ones of the rest. */
function keysOf(s: State): Keys {
  const fresh = constituentKeys({
    firstName: s.firstName, lastName: s.lastName, email: s.email, phone: s.phone, addressLine1: s.address?.addressLine1, postalCode: s.address?.postalCode,
  });
  return {
    ...fresh,
    ...(s.newEmail ? {} : { emailKey: s.kept.emailKey }),
    ...(s.newPhone ? {} : { phoneKey: s.kept.phoneKey }),
    ...(s.newAddress ? {} : { postalKey: s.kept.postalKey, addressKey: s.kept.addressKey }),
  };
}

function apply(state: State, change: Change): void {
  if (change.title !== undefined) state.title = change.title;
  if (change.firstName !== undefined) state.firstName = change.firstName;
  if (change.lastName !== undefined) state.lastName = change.lastName;
  if (change.email !== undefined) { state.email = change.email; state.newEmail = true; }
  if (change.phone !== undefined) { state.phone = change.phone; state.newPhone = true; }
  if (change.address !== undefined) { state.address = change.address; state.newAddress = true; }
}

const param = <T>(values: T[]) => sql.param(values);

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
      const { rows } = await tx.execute<ChildKeysRow & { title: string | null; first_name: string | null; last_name: string; keys_version: number }>(sql`
        select c.id, c.title, c.first_name, c.last_name, c.email_key, c.phone_key, c.postal_key, c.address_key, c.keys_version
        from sandbox_constituents c
        where c.tenant_id = ${tenantId}::uuid and c.id = any(${param(updateIds)}::uuid[])
        order by c.id
        for no key update of c`);
      // keys of today's version are those of the children as they are; older ones are computed from the children
      const stale = rows.filter((r) => r.keys_version !== MATCH_KEYS_VERSION).map((r) => r.id);
      const recomputed = stale.length ? await childKeys(tx, tenantId, stale) : new Map<string, ChildKeys>();
      for (const r of rows) {
        states.set(r.id, {
          id: r.id, title: r.title, firstName: r.first_name, lastName: r.last_name, email: null, phone: null, address: null,
          newEmail: false, newPhone: false, newAddress: false,
          kept: recomputed.get(r.id) ?? { emailKey: r.email_key, phoneKey: r.phone_key, postalKey: r.postal_key, addressKey: r.address_key },
        });
      }
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
          id: w.id, title: null, firstName: null, lastName: '', email: null, phone: null, address: null, newEmail: false, newPhone: false, newAddress: false,
          kept: NO_CHILDREN,
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
      const keys = created.map(keysOf);
      const key = (k: keyof Keys) => sql`${param(keys.map((x) => x[k]))}::text[]`;
      await tx.execute(sql`
        insert into sandbox_constituents (id, tenant_id, lookup_id, title, first_name, last_name,
          email_key, phone_key, first_name_key, last_name_key, postal_key, address_key, keys_version)
        select x.id, ${tenantId}::uuid, 'SC-' || nextval(${sql.raw(`'${sandboxLookupSeq.seqName}'`)}), x.title, x.first_name, x.last_name,
          x.email_key, x.phone_key, x.first_name_key, x.last_name_key, x.postal_key, x.address_key, ${MATCH_KEYS_VERSION}
        from unnest(${param(created.map((s) => s.id))}::uuid[], ${param(created.map((s) => s.title))}::text[], ${param(created.map((s) => s.firstName))}::text[],
          ${param(created.map((s) => s.lastName))}::text[], ${key('emailKey')}, ${key('phoneKey')}, ${key('firstNameKey')}, ${key('lastNameKey')},
          ${key('postalKey')}, ${key('addressKey')}) with ordinality
          as x(id, title, first_name, last_name, email_key, phone_key, first_name_key, last_name_key, postal_key, address_key, n)
        order by x.n`);
    }
    if (updated.length) {
      const keys = updated.map(keysOf);
      const key = (k: keyof Keys) => sql`${param(keys.map((x) => x[k]))}::text[]`;
      await tx.execute(sql`
        update sandbox_constituents c set title = x.title, first_name = x.first_name, last_name = x.last_name, modified_on = now(),
          email_key = x.email_key, phone_key = x.phone_key, first_name_key = x.first_name_key, last_name_key = x.last_name_key,
          postal_key = x.postal_key, address_key = x.address_key, keys_version = ${MATCH_KEYS_VERSION}
        from unnest(${param(updated.map((s) => s.id))}::uuid[], ${param(updated.map((s) => s.title))}::text[], ${param(updated.map((s) => s.firstName))}::text[],
          ${param(updated.map((s) => s.lastName))}::text[], ${key('emailKey')}, ${key('phoneKey')}, ${key('firstNameKey')}, ${key('lastNameKey')},
          ${key('postalKey')}, ${key('addressKey')})
          as x(id, title, first_name, last_name, email_key, phone_key, first_name_key, last_name_key, postal_key, address_key)
        where c.tenant_id = ${tenantId}::uuid and c.id = x.id`);
    }
    await writeChildren(tx, tenantId, created, updated);
  });
  items.forEach((item, i) => {
    if (results[i]) return;
    const first = results[firstOfKey.get(item.idempotencyKey)!]!;
    results[i] = first.outcome === 'failed' ? { ...first } : { ...first, replayed: true };
  });
  return results as UpsertResult[];
}

type ChildKeysRow = { id: string; email_key: string | null; phone_key: string | null; postal_key: string | null; address_key: string | null };

/** The keys of constituents' primary children computed from the children, for constituents keyed by an older version. */
async function childKeys(tx: Executor, tenantId: string, ids: string[]): Promise<Map<string, ChildKeys>> {
  const { rows } = await tx.execute<{ id: string; email: string | null; phone: string | null; line1: string | null; postal_code: string | null }>(sql`
    select c.id,
      (select e.address from sandbox_emails e where e.constituent_id = c.id and e.is_primary limit 1) as email,
      (select p.number from sandbox_phones p where p.constituent_id = c.id and p.is_primary limit 1) as phone,
      a.line1, a.postal_code
    from sandbox_constituents c
    left join lateral (select a.line1, a.postal_code from sandbox_addresses a where a.constituent_id = c.id and a.is_primary limit 1) a on true
    where c.tenant_id = ${tenantId}::uuid and c.id = any(${param(ids)}::uuid[])`);
  return new Map(rows.map((r) => {
    const k = constituentKeys({ email: r.email, phone: r.phone, addressLine1: r.line1, postalCode: r.postal_code });
    return [r.id, { emailKey: k.emailKey, phoneKey: k.phoneKey, postalKey: k.postalKey, addressKey: k.addressKey }];
  }));
}

/** A table of primary children: its value columns and the type a written one gets. */
interface ChildTable { table: string; type: string; columns: readonly string[] }
const EMAILS: ChildTable = { table: 'sandbox_emails', type: 'Personal', columns: ['address'] };
const PHONES: ChildTable = { table: 'sandbox_phones', type: 'Mobile', columns: ['number'] };
const ADDRESSES: ChildTable = { table: 'sandbox_addresses', type: 'Home', columns: ['line1', 'line2', 'city', 'state', 'postal_code', 'country'] };

/**
 * The replaced primary children: each constituent ends with one primary row of the new values. A
 * sole primary row that already holds them is kept (most updates send the values the constituent
 * has); any other primary row is deleted, and a new one is inserted where none is left.
 */
async function replaceChildren(tx: Executor, tenantId: string, t: ChildTable, created: State[], updated: State[], valuesOf: (s: State) => (string | null)[]): Promise<void> {
  const cols = t.columns.map((c) => sql.raw(c));
  const table = sql.raw(t.table);
  const unnested = (states: State[]) => sql`unnest(${param(states.map((s) => s.id))}::uuid[],
    ${sql.join(t.columns.map((_, i) => sql`${param(states.map((s) => valuesOf(s)[i] ?? null))}::text[]`), sql`, `)}) as x(id, ${sql.join(cols, sql`, `)})`;
  if (updated.length) {
    const same = sql.join(t.columns.map((c) => sql`e.${sql.raw(c)} is not distinct from x.${sql.raw(c)}`), sql` and `);
    await tx.execute(sql`
      delete from ${table} e using ${unnested(updated)}
      where e.tenant_id = ${tenantId}::uuid and e.constituent_id = x.id and e.is_primary
        and not (e.type = ${t.type} and ${same}
          and not exists (select 1 from ${table} o where o.constituent_id = x.id and o.is_primary and o.id <> e.id))`);
  }
  const all = [...created, ...updated];
  if (!all.length) return;
  await tx.execute(sql`
    insert into ${table} (tenant_id, constituent_id, type, ${sql.join(cols, sql`, `)}, is_primary)
    select ${tenantId}::uuid, x.id, ${t.type}, ${sql.join(t.columns.map((c) => sql`x.${sql.raw(c)}`), sql`, `)}, true
    from ${unnested(all)}
    ${updated.length ? sql`where not exists (select 1 from ${table} e where e.constituent_id = x.id and e.is_primary)` : sql``}`);
}

/** The replaced primary e-mails, phones and addresses, a statement or two each. */
async function writeChildren(tx: Executor, tenantId: string, created: State[], updated: State[]): Promise<void> {
  const write = (t: ChildTable, which: 'newEmail' | 'newPhone' | 'newAddress', valuesOf: (s: State) => (string | null)[]) =>
    replaceChildren(tx, tenantId, t, created.filter((s) => s[which]), updated.filter((s) => s[which]), valuesOf);
  await write(EMAILS, 'newEmail', (s) => [s.email]);
  await write(PHONES, 'newPhone', (s) => [s.phone]);
  await write(ADDRESSES, 'newAddress', (s) => ADDRESS_FIELDS.map((k) => s.address![k] ?? null));
}
