/**
 * The Sandbox CRM's storage (reached through forTenant): constituents (names, primary address,
 * e-mail and phone) and gifts of one tenant in Tributary's own database. Pull by modification
 * time, search by any field, and upsert with an idempotency key: a retried write answers with the
 * first one's result and writes nothing (DESIGN.md section 7). The connector
 * (server/connectors/sandboxCrm) speaks the connector interface over it.
 */
import { and, asc, eq, gt, or, sql, type SQL } from 'drizzle-orm';
import {
  ConnectorInputError, type PullBatch, type SearchCriterion, type SearchQuery, type SourceRecord, type UpsertItem, type UpsertResult,
} from '../../connectors/connector.ts';
import {
  sandboxAddresses, sandboxConstituents, sandboxEmails, sandboxGifts, sandboxLookupSeq, sandboxPhones, sandboxWrites,
} from '../schema/sandboxCrm.ts';
import type { Executor } from '../tenancy.ts';

type Tx = Parameters<Parameters<Executor['transaction']>[0]>[0];
type Object_ = 'constituents' | 'gifts';

function objectOf(object: string): Object_ {
  if (object === 'constituents' || object === 'gifts') return object;
  throw new ConnectorInputError(`The Sandbox CRM has no object ${object}; it has constituents and gifts.`);
}

/** the outer constituent, always qualified (drizzle leaves columns bare inside selected expressions) */
const OWNER_ID = sql.raw('"sandbox_constituents"."id"');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const watermarkText = (col: SQL | unknown) => sql<string>`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Constituents with their primary address, e-mail and phone, flattened. */
function constituentSelect(db: Executor) {
  const email = sql<string | null>`(select e.address from sandbox_emails e where e.constituent_id = ${OWNER_ID} and e.is_primary limit 1)`;
  const phone = sql<string | null>`(select p.number from sandbox_phones p where p.constituent_id = ${OWNER_ID} and p.is_primary limit 1)`;
  const addr = (col: string) => sql<string | null>`(select ${sql.raw(`a.${col}`)} from sandbox_addresses a where a.constituent_id = ${OWNER_ID} and a.is_primary limit 1)`;
  return db.select({
    id: sandboxConstituents.id,
    lookupId: sandboxConstituents.lookupId,
    title: sandboxConstituents.title,
    firstName: sandboxConstituents.firstName,
    lastName: sandboxConstituents.lastName,
    email, phone,
    addressLine1: addr('line1'), addressLine2: addr('line2'), city: addr('city'), state: addr('state'),
    postalCode: addr('postal_code'), country: addr('country'),
    createdOn: sandboxConstituents.createdOn,
    modifiedOn: sandboxConstituents.modifiedOn,
    mark: watermarkText(sandboxConstituents.modifiedOn),
  }).from(sandboxConstituents);
}

function giftSelect(db: Executor) {
  return db.select({
    id: sandboxGifts.id,
    lookupId: sandboxGifts.lookupId,
    constituentId: sandboxGifts.constituentId,
    constituentLookupId: sandboxConstituents.lookupId,
    amount: sandboxGifts.amount,
    date: sandboxGifts.giftDate,
    type: sandboxGifts.type,
    fund: sandboxGifts.fund,
    campaign: sandboxGifts.campaign,
    appeal: sandboxGifts.appeal,
    paymentMethod: sandboxGifts.paymentMethod,
    createdOn: sandboxGifts.createdOn,
    modifiedOn: sandboxGifts.modifiedOn,
    mark: watermarkText(sandboxGifts.modifiedOn),
  }).from(sandboxGifts).innerJoin(sandboxConstituents, eq(sandboxConstituents.id, sandboxGifts.constituentId));
}

function toRecord(row: Record<string, unknown>): SourceRecord {
  const { id, mark: _mark, ...rest } = row;
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) fields[k] = v instanceof Date ? v.toISOString() : v;
  return { id: String(id), fields };
}

// ------------------------------------------------------------------ search

const textMatch = (col: SQL | unknown, c: SearchCriterion): SQL => {
  const value = c.value.trim();
  switch (c.operator ?? 'equals') {
    case 'contains': return sql`${col} ilike ${`%${escapeLike(value)}%`}`;
    case 'starts-with': return sql`${col} ilike ${`${escapeLike(value)}%`}`;
    default: return sql`lower(${col}) = lower(${value})`;
  }
};
const escapeLike = (s: string) => s.replace(/[\\%_]/g, '\\$&');
const digits = (s: string) => s.replace(/\D/g, '');

function constituentCondition(c: SearchCriterion): SQL {
  const child = (table: string, col: string) =>
    sql`exists (select 1 from ${sql.raw(table)} x where x.constituent_id = ${OWNER_ID} and ${textMatch(sql.raw(`x.${col}`), c)})`;
  switch (c.field) {
    case 'lookupId': return textMatch(sandboxConstituents.lookupId, c);
    case 'title': return textMatch(sandboxConstituents.title, c);
    case 'firstName': return textMatch(sandboxConstituents.firstName, c);
    case 'lastName': return textMatch(sandboxConstituents.lastName, c);
    case 'email': return child('sandbox_emails', 'address');
    case 'phone': {
      const d = digits(c.value);
      if (!d) throw new ConnectorInputError('A phone search needs digits.');
      return sql`exists (select 1 from sandbox_phones x where x.constituent_id = ${OWNER_ID} and regexp_replace(x.number, '\\D', '', 'g') like ${`%${d}`})`;
    }
    case 'addressLine1': return child('sandbox_addresses', 'line1');
    case 'city': return child('sandbox_addresses', 'city');
    case 'state': return child('sandbox_addresses', 'state');
    case 'postalCode': return child('sandbox_addresses', 'postal_code');
    default: throw new ConnectorInputError(`Constituents cannot be searched by ${c.field}.`);
  }
}

function giftCondition(c: SearchCriterion): SQL {
  switch (c.field) {
    case 'lookupId': return textMatch(sandboxGifts.lookupId, c);
    case 'constituentLookupId': return textMatch(sandboxConstituents.lookupId, c);
    case 'fund': return textMatch(sandboxGifts.fund, c);
    case 'campaign': return textMatch(sandboxGifts.campaign, c);
    case 'amount': return sql`${sandboxGifts.amount} = ${Number(c.value)}`;
    case 'date': {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(c.value)) throw new ConnectorInputError('A gift date is searched as YYYY-MM-DD.');
      return sql`${sandboxGifts.giftDate} = ${c.value}::date`;
    }
    default: throw new ConnectorInputError(`Gifts cannot be searched by ${c.field}.`);
  }
}

async function search(db: Executor, tenantId: string, object: string, query: SearchQuery): Promise<SourceRecord[]> {
  const obj = objectOf(object);
  if (!query.criteria.length) throw new ConnectorInputError('A search needs at least one criterion.');
  if (query.criteria.some((c) => c.value.trim() === '')) return [];
  const limit = Math.min(Math.max(query.limit ?? 25, 1), 100);
  if (obj === 'constituents') {
    const rows = await constituentSelect(db)
      .where(and(eq(sandboxConstituents.tenantId, tenantId), ...query.criteria.map(constituentCondition)))
      .orderBy(asc(sandboxConstituents.lastName), asc(sandboxConstituents.firstName), asc(sandboxConstituents.id)).limit(limit);
    return rows.map(toRecord);
  }
  const rows = await giftSelect(db)
    .where(and(eq(sandboxGifts.tenantId, tenantId), ...query.criteria.map(giftCondition)))
    .orderBy(asc(sandboxGifts.giftDate), asc(sandboxGifts.id)).limit(limit);
  return rows.map(toRecord);
}

// ------------------------------------------------------------------ pull

function parseMark(since: string | null): { t: string; id: string } | null {
  if (!since) return null;
  const [t, id] = since.split('|');
  if (!t || !id || Number.isNaN(Date.parse(t)) || !UUID.test(id)) throw new ConnectorInputError('The watermark is not one this connector wrote.');
  return { t, id };
}

async function* pull(db: Executor, tenantId: string, object: string, since: string | null, batchSize = 500): AsyncIterable<PullBatch> {
  const obj = objectOf(object);
  let mark = parseMark(since);
  const size = Math.min(Math.max(batchSize, 1), 5000);
  for (;;) {
    const table = obj === 'constituents' ? sandboxConstituents : sandboxGifts;
    const after = mark
      ? or(gt(table.modifiedOn, sql`${mark.t}::timestamptz`), and(eq(table.modifiedOn, sql`${mark.t}::timestamptz`), gt(table.id, mark.id)))
      : undefined;
    const where = and(eq(table.tenantId, tenantId), after);
    const rows = obj === 'constituents'
      ? await constituentSelect(db).where(where).orderBy(asc(sandboxConstituents.modifiedOn), asc(sandboxConstituents.id)).limit(size)
      : await giftSelect(db).where(where).orderBy(asc(sandboxGifts.modifiedOn), asc(sandboxGifts.id)).limit(size);
    if (rows.length === 0) return;
    const last = rows.at(-1)!;
    mark = { t: last.mark, id: last.id };
    yield { records: rows.map(toRecord), watermark: `${mark.t}|${mark.id}` };
    if (rows.length < size) return;
  }
}

// ------------------------------------------------------------------ upsert

const str = (v: unknown): string | undefined => {
  if (v === undefined || v === null) return undefined;
  const s = String(v).trim();
  return s === '' ? undefined : s;
};

async function replacePrimary(tx: Tx, table: typeof sandboxEmails | typeof sandboxPhones | typeof sandboxAddresses, tenantId: string, constituentId: string, values: Record<string, unknown>) {
  await tx.delete(table).where(and(eq(table.constituentId, constituentId), eq(table.isPrimary, true)));
  await tx.insert(table).values({ tenantId, constituentId, isPrimary: true, ...values } as never);
}

async function writeConstituent(tx: Tx, tenantId: string, item: UpsertItem): Promise<{ id: string; outcome: 'created' | 'updated' }> {
  const f = item.fields;
  const names = {
    ...(f.title !== undefined ? { title: str(f.title) ?? null } : {}),
    ...(f.firstName !== undefined ? { firstName: str(f.firstName) ?? null } : {}),
    ...(str(f.lastName) ? { lastName: str(f.lastName)! } : {}),
  };
  let id: string;
  let outcome: 'created' | 'updated';
  if (item.id) {
    if (!UUID.test(item.id)) throw new ConnectorInputError(`${item.id} is not a Sandbox CRM constituent id.`);
    const [row] = await tx.update(sandboxConstituents).set({ ...names, modifiedOn: sql`now()` })
      .where(and(eq(sandboxConstituents.tenantId, tenantId), eq(sandboxConstituents.id, item.id))).returning({ id: sandboxConstituents.id });
    if (!row) throw new ConnectorInputError(`There is no constituent ${item.id}.`);
    ({ id } = row);
    outcome = 'updated';
  } else {
    if (!names.lastName) throw new ConnectorInputError('A new constituent needs a last name.');
    const [row] = await tx.insert(sandboxConstituents).values({
      tenantId, lookupId: sql`'SC-' || nextval(${sql.raw(`'${sandboxLookupSeq.seqName}'`)})`, lastName: names.lastName, ...names,
    } as never).returning({ id: sandboxConstituents.id });
    ({ id } = row!);
    outcome = 'created';
  }
  const email = str(f.email);
  if (email) {
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) throw new ConnectorInputError(`${email} is not an e-mail address.`);
    await replacePrimary(tx, sandboxEmails, tenantId, id, { type: 'Personal', address: email });
  }
  const phone = str(f.phone);
  if (phone) await replacePrimary(tx, sandboxPhones, tenantId, id, { type: 'Mobile', number: phone });
  const address = { line1: str(f.addressLine1), line2: str(f.addressLine2), city: str(f.city), state: str(f.state), postalCode: str(f.postalCode), country: str(f.country) };
  if (Object.values(address).some(Boolean)) await replacePrimary(tx, sandboxAddresses, tenantId, id, { type: 'Home', ...address });
  return { id, outcome };
}

async function writeGift(tx: Tx, tenantId: string, item: UpsertItem): Promise<{ id: string; outcome: 'created' | 'updated' }> {
  const f = item.fields;
  const amount = str(f.amount);
  const date = str(f.date);
  if (amount !== undefined && !/^\d{1,10}(\.\d{1,2})?$/.test(amount)) throw new ConnectorInputError(`${amount} is not an amount.`);
  if (date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new ConnectorInputError(`${date} is not a date (YYYY-MM-DD).`);
  const details = {
    ...(amount !== undefined ? { amount } : {}),
    ...(date !== undefined ? { giftDate: date } : {}),
    ...(str(f.type) ? { type: str(f.type)! } : {}),
    ...(f.fund !== undefined ? { fund: str(f.fund) ?? null } : {}),
    ...(f.campaign !== undefined ? { campaign: str(f.campaign) ?? null } : {}),
    ...(f.appeal !== undefined ? { appeal: str(f.appeal) ?? null } : {}),
    ...(f.paymentMethod !== undefined ? { paymentMethod: str(f.paymentMethod) ?? null } : {}),
  };
  if (item.id) {
    if (!UUID.test(item.id)) throw new ConnectorInputError(`${item.id} is not a Sandbox CRM gift id.`);
    const [row] = await tx.update(sandboxGifts).set({ ...details, modifiedOn: sql`now()` })
      .where(and(eq(sandboxGifts.tenantId, tenantId), eq(sandboxGifts.id, item.id))).returning({ id: sandboxGifts.id });
    if (!row) throw new ConnectorInputError(`There is no gift ${item.id}.`);
    return { id: row.id, outcome: 'updated' };
  }
  if (amount === undefined || date === undefined) throw new ConnectorInputError('A new gift needs an amount and a date.');
  const owner = str(f.constituentId) ?? str(f.constituentLookupId);
  if (!owner) throw new ConnectorInputError('A new gift needs its constituent (constituentId or constituentLookupId).');
  const [constituent] = await tx.select({ id: sandboxConstituents.id }).from(sandboxConstituents).where(and(
    eq(sandboxConstituents.tenantId, tenantId),
    UUID.test(owner) ? eq(sandboxConstituents.id, owner) : eq(sandboxConstituents.lookupId, owner),
  )).limit(1);
  if (!constituent) throw new ConnectorInputError(`There is no constituent ${owner}.`);
  const [row] = await tx.insert(sandboxGifts).values({
    tenantId, constituentId: constituent.id, lookupId: sql`'G-' || nextval(${sql.raw(`'${sandboxLookupSeq.seqName}'`)})`,
    amount, giftDate: date, ...details,
  } as never).returning({ id: sandboxGifts.id });
  return { id: row!.id, outcome: 'created' };
}

async function upsert(db: Executor, tenantId: string, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  const obj = objectOf(object);
  const results: UpsertResult[] = [];
  for (const item of items) {
    const key = item.idempotencyKey;
    if (!key || key.length > 200) throw new ConnectorInputError('Every write needs an idempotency key of at most 200 characters.');
    try {
      results.push(await db.transaction(async (tx) => {
        // two writers of one key wait for each other; the second finds the first's result
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${tenantId}:${key}`}, 0))`);
        const [done] = await tx.select().from(sandboxWrites)
          .where(and(eq(sandboxWrites.tenantId, tenantId), eq(sandboxWrites.idempotencyKey, key))).limit(1);
        if (done) {
          if (done.object !== obj) throw new ConnectorInputError(`The idempotency key ${key} was used for ${done.object}.`);
          return { idempotencyKey: key, id: done.recordId, outcome: done.outcome as 'created' | 'updated', replayed: true };
        }
        const written = obj === 'constituents' ? await writeConstituent(tx, tenantId, item) : await writeGift(tx, tenantId, item);
        await tx.insert(sandboxWrites).values({ tenantId: tenantId, idempotencyKey: key, object: obj, recordId: written.id, outcome: written.outcome });
        return { idempotencyKey: key, ...written, replayed: false };
      }));
    } catch (err) {
      if (!(err instanceof ConnectorInputError)) throw err;
      results.push({ idempotencyKey: key, id: '', outcome: 'failed', replayed: false, error: err.message });
    }
  }
  return results;
}

export function sandboxCrmRepository(db: Executor, tenantId: string) {
  return {
    search: (object: string, query: SearchQuery) => search(db, tenantId, object, query),
    pull: (object: string, since: string | null, batchSize?: number) => pull(db, tenantId, object, since, batchSize),
    upsert: (object: string, items: UpsertItem[]) => upsert(db, tenantId, object, items),
    async counts(): Promise<{ constituents: number; gifts: number }> {
      const [c] = await db.select({ n: sql<number>`count(*)::int` }).from(sandboxConstituents).where(eq(sandboxConstituents.tenantId, tenantId));
      const [g] = await db.select({ n: sql<number>`count(*)::int` }).from(sandboxGifts).where(eq(sandboxGifts.tenantId, tenantId));
      return { constituents: c!.n, gifts: g!.n };
    },
  };
}
