/**
 * The Sandbox CRM's storage (sandboxCrmStore in ../connector.ts): constituents (names, primary address,
 * e-mail and phone, all columns of the constituent's row) and gifts of one tenant in Tributary's
 * own database. Pull by modification time, search by any field, and upsert with an idempotency
 * key: a retried write answers with the first one's result and writes nothing (DESIGN.md section
 * 7). Every write keeps the constituent's match keys (matchKey of its names, primary e-mail, phone
 * and address), so equals searches and batch searches (one statement per set of criteria fields)
 * join on indexed keys; bulk imports insert a few thousand constituents per statement. The
 * connector (server/connectors/sandboxCrm) speaks the connector interface over it.
 */
import { and, asc, eq, gt, or, sql, type SQL } from 'drizzle-orm';
import {
  ConnectorInputError, type CandidateRecords, type IndexedRecord, type PullBatch, type SearchCriterion, type SearchQuery, type SourceRecord, type UpsertItem, type UpsertResult,
} from '../../connector.ts';
import {
  sandboxConstituents, sandboxGifts, sandboxLookupSeq, sandboxWrites,
} from '../../../db/schema/sandboxCrm.ts';
import type { Executor } from '../../../db/tenancy.ts';
import { upsertConstituents } from './writes.ts';
import { orderedUuid } from '../../../db/orderedUuid.ts';
import { looksLikeEmail } from '../../../../src/domain/emailAddress.ts';
import { str, UUID } from './values.ts';
import { matchKey, MATCH_KEYS_VERSION, type KeyKind } from '../../../../src/domain/formula/matchKeys.ts';

type Tx = Parameters<Parameters<Executor['transaction']>[0]>[0];
type Object_ = 'constituents' | 'gifts';

function objectOf(object: string): Object_ {
  if (object === 'constituents' || object === 'gifts') return object;
  throw new ConnectorInputError(`The Sandbox CRM has no object ${object}; it has constituents and gifts.`);
}

const watermarkText = (col: SQL | unknown) => sql<string>`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
/** A time as toISOString writes it, written by PostgreSQL: a batch search answers thousands of them. */
const isoText = (col: string) => sql.raw(`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/** Constituents with their primary address, e-mail and phone. */
function constituentSelect(db: Executor) {
  const c = sandboxConstituents;
  return db.select({
    id: c.id,
    lookupId: c.lookupId,
    title: c.title,
    firstName: c.firstName,
    lastName: c.lastName,
    middleName: c.middleName,
    preferredName: c.preferredName,
    email: c.email,
    phone: c.phone,
    addressLine1: c.addressLine1, addressLine2: c.addressLine2, city: c.city, state: c.state,
    postalCode: c.postalCode, country: c.country,
    createdOn: c.createdOn,
    modifiedOn: c.modifiedOn,
    mark: watermarkText(c.modifiedOn),
  }).from(c);
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

// ------------------------------------------------------------------ keys

/** Searchable fields with a key column: an equals search compares matchKey(kind, value) with it. */
const KEYED = {
  email: { kind: 'email', column: 'email_key' },
  phone: { kind: 'phone', column: 'phone_key' },
  firstName: { kind: 'firstName', column: 'first_name_key' },
  lastName: { kind: 'lastName', column: 'last_name_key' },
  postalCode: { kind: 'postalCode', column: 'postal_key' },
  addressLine1: { kind: 'addressLine1', column: 'address_key' },
} as const satisfies Record<string, { kind: KeyKind; column: string }>;
type KeyedField = keyof typeof KEYED;
const keyedField = (field: string): KeyedField | null => (Object.hasOwn(KEYED, field) ? field as KeyedField : null);

interface ConstituentKeys {
  emailKey: string | null; phoneKey: string | null; firstNameKey: string | null;
  lastNameKey: string | null; postalKey: string | null; addressKey: string | null;
}
const KEY_NAMES = ['emailKey', 'phoneKey', 'firstNameKey', 'lastNameKey', 'postalKey', 'addressKey'] as const;

/** The keys of a constituent's names and primary e-mail, phone and address. */
export function constituentKeys(v: { firstName?: unknown; lastName?: unknown; email?: unknown; phone?: unknown; addressLine1?: unknown; postalCode?: unknown }): ConstituentKeys {
  return {
    emailKey: matchKey('email', v.email),
    phoneKey: matchKey('phone', v.phone),
    firstNameKey: matchKey('firstName', v.firstName),
    lastNameKey: matchKey('lastName', v.lastName),
    postalKey: matchKey('postalCode', v.postalCode),
    addressKey: matchKey('addressLine1', v.addressLine1),
  };
}

/**
 * Constituents keyed by other rules than today's (never keyed, written by the seed's SQL, or keyed
 * before matchKey changed): every keyed write records MATCH_KEYS_VERSION, so an older version marks
 * them, and its partial index (which holds only them) finds them without reading the table. The
 * version is written out, not a parameter, so the planner sees the index's condition.
 */
const STALE_KEYS = sql.raw(`c.keys_version <> ${MATCH_KEYS_VERSION}`);

interface KeySourceRow extends ConstituentKeys {
  id: string; firstName: string | null; lastName: string; email: string | null; phone: string | null; addressLine1: string | null; postalCode: string | null;
}

/** Recomputes the keys of the constituents `where` selects (after `after`, by id), writing those that changed; answers the last id read. */
async function rekeyBatch(db: Executor, tenantId: string, where: SQL, after: string | null, limit: number): Promise<{ last: string | null; read: number; written: number }> {
  const { rows } = await db.execute<Record<string, unknown>>(sql`
    select c.id, c.first_name as "firstName", c.last_name as "lastName",
      c.email_key as "emailKey", c.phone_key as "phoneKey", c.first_name_key as "firstNameKey",
      c.last_name_key as "lastNameKey", c.postal_key as "postalKey", c.address_key as "addressKey",
      c.email, c.phone, c.address_line1 as "addressLine1", c.postal_code as "postalCode"
    from sandbox_constituents c
    where c.tenant_id = ${tenantId} and ${where} ${after ? sql`and c.id > ${after}::uuid` : sql``}
    order by c.id limit ${limit}`);
  const changed: (ConstituentKeys & { id: string })[] = [];
  for (const row of rows as unknown as KeySourceRow[]) {
    const keys = constituentKeys(row);
    if (KEY_NAMES.some((k) => keys[k] !== row[k])) changed.push({ id: row.id, ...keys });
  }
  if (changed.length) {
    const col = (k: keyof ConstituentKeys) => sql.param(changed.map((r) => r[k]));
    await db.execute(sql`
      update sandbox_constituents c set email_key = k.email_key, phone_key = k.phone_key, first_name_key = k.first_name_key,
        last_name_key = k.last_name_key, postal_key = k.postal_key, address_key = k.address_key, keys_version = ${MATCH_KEYS_VERSION}
      from unnest(${sql.param(changed.map((r) => r.id))}::uuid[], ${col('emailKey')}::text[], ${col('phoneKey')}::text[], ${col('firstNameKey')}::text[],
        ${col('lastNameKey')}::text[], ${col('postalKey')}::text[], ${col('addressKey')}::text[])
        as k(id, email_key, phone_key, first_name_key, last_name_key, postal_key, address_key)
      where c.tenant_id = ${tenantId} and c.id = k.id`);
  }
  // rows whose keys did not change are of today's version too: they are not read again
  const unchanged = rows.map((r) => r.id as string).filter((id) => !changed.some((c) => c.id === id));
  if (unchanged.length) {
    await db.execute(sql`update sandbox_constituents c set keys_version = ${MATCH_KEYS_VERSION}
      where c.tenant_id = ${tenantId} and c.id = any(${sql.param(unchanged)}::uuid[]) and c.keys_version <> ${MATCH_KEYS_VERSION}`);
  }
  return { last: (rows.at(-1)?.id as string | undefined) ?? null, read: rows.length, written: changed.length };
}

/** Keys of constituents never keyed; batched, idempotent, and modified_on stays (keys are no change a pull should see). */
async function backfillKeys(db: Executor, tenantId: string, batchSize = 2000): Promise<number> {
  let after: string | null = null;
  let written = 0;
  for (;;) {
    const batch = await rekeyBatch(db, tenantId, STALE_KEYS, after, batchSize);
    written += batch.written;
    if (batch.read < batchSize) return written;
    after = batch.last;
  }
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
  const keyed = keyedField(c.field);
  if (keyed && (c.operator ?? 'equals') === 'equals') {
    // the indexed key: a value without one (a phone of three digits) finds nothing
    const key = matchKey(KEYED[keyed].kind, c.value);
    return key === null ? sql`false` : sql`${sql.raw(`"sandbox_constituents"."${KEYED[keyed].column}"`)} = ${key}`;
  }
  switch (c.field) {
    case 'lookupId': return textMatch(sandboxConstituents.lookupId, c);
    case 'title': return textMatch(sandboxConstituents.title, c);
    case 'firstName': return textMatch(sandboxConstituents.firstName, c);
    case 'lastName': return textMatch(sandboxConstituents.lastName, c);
    case 'email': return textMatch(sandboxConstituents.email, c);
    case 'phone': {
      const d = digits(c.value);
      if (!d) throw new ConnectorInputError('A phone search needs digits.');
      const pattern = c.operator === 'starts-with' ? `${d}%` : `%${d}%`;
      return sql`regexp_replace(${sandboxConstituents.phone}, '\\D', '', 'g') like ${pattern}`;
    }
    case 'addressLine1': return textMatch(sandboxConstituents.addressLine1, c);
    case 'city': return textMatch(sandboxConstituents.city, c);
    case 'state': return textMatch(sandboxConstituents.state, c);
    case 'postalCode': return textMatch(sandboxConstituents.postalCode, c);
    default: throw new ConnectorInputError(`Constituents cannot be searched by ${c.field}.`);
  }
}

function giftCondition(c: SearchCriterion): SQL {
  switch (c.field) {
    case 'lookupId': return textMatch(sandboxGifts.lookupId, c);
    case 'constituentLookupId': return textMatch(sandboxConstituents.lookupId, c);
    // a constituent's own id: the gifts a formula wrote against it (a row's gift, found again)
    case 'constituentId': return UUID.test(c.value.trim()) ? eq(sandboxGifts.constituentId, c.value.trim().toLowerCase()) : sql`false`;
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

const limitOf = (query: SearchQuery) => Math.min(Math.max(query.limit ?? 25, 1), 100);

async function search(db: Executor, tenantId: string, object: string, query: SearchQuery): Promise<SourceRecord[]> {
  const obj = objectOf(object);
  if (!query.criteria.length) throw new ConnectorInputError('A search needs at least one criterion.');
  if (query.criteria.some((c) => c.value.trim() === '')) return [];
  const limit = limitOf(query);
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

// ------------------------------------------------------------------ search many

const CONSTITUENT_SEARCH_FIELDS = new Set(['lookupId', 'title', 'firstName', 'lastName', 'email', 'phone', 'addressLine1', 'city', 'state', 'postalCode']);
const GIFT_SEARCH_FIELDS = new Set(['lookupId', 'constituentLookupId', 'constituentId', 'fund', 'campaign', 'amount', 'date']);
/** queries per statement: bounds the arrays sent at once */
const SEARCH_MANY_CHUNK = 10_000;

const isIsoDate = (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))
  && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

/** The value a criterion is compared by in a batch; null: this query can find nothing. */
function batchValue(obj: Object_, field: string, value: string): string | null {
  const v = value.trim();
  if (obj === 'constituents') {
    const keyed = keyedField(field);
    return keyed ? matchKey(KEYED[keyed].kind, v) : v;
  }
  if (field === 'constituentId') return UUID.test(v) ? v.toLowerCase() : null;
  if (field === 'amount') return /^-?\d{1,10}(\.\d+)?$/.test(v) ? v : null;
  if (field === 'date') return isIsoDate(v) ? v : null;
  return v;
}

/** Keys that find one constituent or a few; name keys are shared by many (every John Smith). */
const NARROW_KEYS: readonly KeyedField[] = ['email', 'phone', 'addressLine1'];

/**
 * One criterion of a batch statement, against the unnested column `q.v<i>`. With a narrow key
 * among `fields`, name keys are compared as expressions no index serves: the planner, which takes
 * first and last name for independent, would otherwise walk every constituent of a common name
 * and filter them by the narrow key.
 */
function batchCondition(obj: Object_, field: string, i: number, fields: readonly string[]): SQL {
  const v = sql.raw(`q.v${i}`);
  const lowered = (col: string) => sql`lower(${sql.raw(col)}) = lower(${v})`;
  if (obj === 'constituents') {
    const keyed = keyedField(field);
    if (keyed) {
      const col = sql.raw(`c.${KEYED[keyed].column}`);
      if (!NARROW_KEYS.includes(keyed) && fields.some((f) => NARROW_KEYS.includes(f as KeyedField))) return sql`(${col} || '') = ${v}`;
      // "is not null" lets the partial key indexes serve the join
      return sql`${col} = ${v} and ${col} is not null`;
    }
    switch (field) {
      case 'lookupId': return lowered('c.lookup_id');
      case 'title': return lowered('c.title');
      case 'city': return lowered('c.city');
      case 'state': return lowered('c.state');
    }
  } else {
    switch (field) {
      case 'lookupId': return lowered('g.lookup_id');
      case 'constituentLookupId': return lowered('c.lookup_id');
      case 'constituentId': return sql`g.constituent_id = ${v}::uuid`;
      case 'fund': return lowered('g.fund');
      case 'campaign': return lowered('g.campaign');
      case 'amount': return sql`g.amount = ${v}::numeric`;
      case 'date': return sql`g.gift_date = ${v}::date`;
    }
  }
  throw new ConnectorInputError(`${obj === 'constituents' ? 'Constituents' : 'Gifts'} cannot be searched by ${field}.`);
}

interface BatchMember { index: number; limit: number; values: string[] }


/** One statement for queries with the same criteria fields: their values unnested with their index, joined on the keys. */
async function searchGroup(db: Executor, tenantId: string, obj: Object_, fields: string[], members: BatchMember[]): Promise<Map<number, SourceRecord[]>> {
  const columns = fields.map((_, i) => sql`${sql.param(members.map((m) => m.values[i]!))}::text[]`);
  const names = sql.raw(['idx', 'lim', ...fields.map((_, i) => `v${i}`)].join(', '));
  const q = sql`select * from unnest(${sql.param(members.map((m) => m.index))}::int[], ${sql.param(members.map((m) => m.limit))}::int[], ${sql.join(columns, sql`, `)}) as q(${names})`;
  const conditions = sql.join(fields.map((f, i) => batchCondition(obj, f, i, fields)), sql` and `);
  const { rows } = obj === 'constituents'
    ? await db.execute<Record<string, unknown>>(sql`
      with q as (${q})
      select q.idx, h.id, h.lookup_id as "lookupId", h.title, h.first_name as "firstName", h.last_name as "lastName", h.email, h.phone,
        h.middle_name as "middleName", h.preferred_name as "preferredName",
        h.address_line1 as "addressLine1", h.address_line2 as "addressLine2", h.city, h.state, h.postal_code as "postalCode", h.country,
        ${isoText('h.created_on')} as "createdOn", ${isoText('h.modified_on')} as "modifiedOn"
      from q cross join lateral (
        -- each query's first candidates in the answer's order: an index in that order stops at the limit
        select c.*, row_number() over (order by c.last_name, c.first_name, c.id) as rn
        from (select c.* from sandbox_constituents c where c.tenant_id = ${tenantId} and ${conditions}
          order by c.last_name, c.first_name, c.id limit q.lim) c
      ) h
      order by q.idx, h.rn`)
    : await db.execute<Record<string, unknown>>(sql`
      with q as (${q}), hits as (
        select q.idx, q.lim, g.id, g.lookup_id, g.constituent_id, c.lookup_id as constituent_lookup_id, g.amount, g.gift_date, g.type,
          g.fund, g.campaign, g.appeal, g.payment_method, g.created_on, g.modified_on,
          row_number() over (partition by q.idx order by g.gift_date, g.id) as rn
        from q join sandbox_gifts g on g.tenant_id = ${tenantId}
        join sandbox_constituents c on c.id = g.constituent_id and c.tenant_id = ${tenantId}
        where ${conditions}
      )
      select h.idx, h.id, h.lookup_id as "lookupId", h.constituent_id as "constituentId", h.constituent_lookup_id as "constituentLookupId",
        h.amount::text as amount, h.gift_date::text as date, h.type, h.fund, h.campaign, h.appeal, h.payment_method as "paymentMethod",
        ${isoText('h.created_on')} as "createdOn", ${isoText('h.modified_on')} as "modifiedOn"
      from hits h where h.rn <= h.lim
      order by h.idx, h.rn`);
  const found = new Map<number, SourceRecord[]>();
  for (const { idx, id, ...fields } of rows) {
    const list = found.get(Number(idx)) ?? [];
    list.push({ id: String(id), fields });
    found.set(Number(idx), list);
  }
  return found;
}

/**
 * Many searches, one answer per query in query order (DESIGN.md section 4b): queries with the same
 * criteria fields go in one statement. Equals on a keyed field compares keys; other fields compare
 * lower(trim()). A blank value, or one without a key, finds nothing; 'contains' and 'starts-with'
 * queries (interactive searches) are run one by one.
 */
async function searchMany(db: Executor, tenantId: string, object: string, queries: SearchQuery[]): Promise<SourceRecord[][]> {
  const obj = objectOf(object);
  const known = obj === 'constituents' ? CONSTITUENT_SEARCH_FIELDS : GIFT_SEARCH_FIELDS;
  const answers: SourceRecord[][] = queries.map(() => []);
  const groups = new Map<string, { fields: string[]; members: BatchMember[] }>();
  const oneByOne: number[] = [];
  queries.forEach((query, index) => {
    if (!query.criteria.length) throw new ConnectorInputError('A search needs at least one criterion.');
    for (const c of query.criteria) {
      if (!known.has(c.field)) throw new ConnectorInputError(`${obj === 'constituents' ? 'Constituents' : 'Gifts'} cannot be searched by ${c.field}.`);
    }
    if (query.criteria.some((c) => c.value.trim() === '')) return;
    if (query.criteria.some((c) => (c.operator ?? 'equals') !== 'equals')) { oneByOne.push(index); return; }
    const criteria = [...query.criteria].sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
    const values: string[] = [];
    for (const c of criteria) {
      const value = batchValue(obj, c.field, c.value);
      if (value === null) return;
      values.push(value);
    }
    const fields = criteria.map((c) => c.field);
    const key = fields.join('\u0000');
    const group = groups.get(key) ?? { fields, members: [] };
    group.members.push({ index, limit: limitOf(query), values });
    groups.set(key, group);
  });
  for (const { fields, members } of groups.values()) {
    for (let i = 0; i < members.length; i += SEARCH_MANY_CHUNK) {
      const found = await searchGroup(db, tenantId, obj, fields, members.slice(i, i + SEARCH_MANY_CHUNK));
      for (const [index, records] of found) answers[index] = records;
    }
  }
  for (const index of oneByOne) answers[index] = await search(db, tenantId, object, queries[index]!);
  return answers;
}

// ------------------------------------------------------------------ candidate index

/**
 * Where the changes after now start: now, or the start of the oldest transaction still open, whose
 * rows carry that time (modified_on is its start) and are not visible yet. Read before the rows,
 * in its own statement, so a transaction open when the rows are read is open now or started later.
 */
async function indexMark(db: Executor, tenantId: string): Promise<{ mark: string; deletes: number }> {
  const { rows: [row] } = await db.execute<{ mark: string; deletes: number }>(sql`
    select to_char(least(now(), coalesce((select min(a.xact_start) from pg_stat_activity a
        where a.datname = current_database() and a.pid <> pg_backend_pid() and a.xact_start is not null), now())) at time zone 'UTC',
        'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as mark,
      coalesce((select d.deletes from sandbox_deletes d where d.tenant_id = ${tenantId}), 0)::int as deletes`);
  return row!;
}

interface IndexRow extends Record<string, unknown> { id: string; keyed: boolean }

/** The constituents a search answers (searchGroup's fields), with their keys when today's MATCH_KEYS_VERSION made them. */
async function indexRows(db: Executor, tenantId: string, where: SQL, order: SQL, limit: number | null): Promise<IndexedRecord[]> {
  const { rows } = await db.execute<IndexRow>(sql`
    select c.id, c.lookup_id as "lookupId", c.title, c.first_name as "firstName", c.last_name as "lastName",
      c.middle_name as "middleName", c.preferred_name as "preferredName", c.email, c.phone,
      c.address_line1 as "addressLine1", c.address_line2 as "addressLine2", c.city, c.state, c.postal_code as "postalCode", c.country,
      ${isoText('c.created_on')} as "createdOn", ${isoText('c.modified_on')} as "modifiedOn",
      c.email_key, c.phone_key, c.first_name_key, c.last_name_key, c.postal_key, c.address_key, c.keys_version = ${MATCH_KEYS_VERSION} as keyed
    from sandbox_constituents c where c.tenant_id = ${tenantId} and ${where} order by ${order} ${limit === null ? sql`` : sql`limit ${limit}`}`);
  return rows.map(({ id, keyed, email_key, phone_key, first_name_key, last_name_key, postal_key, address_key, ...fields }) => ({
    id: String(id), fields,
    ...(keyed ? {
      keys: {
        email: email_key as string | null, phone: phone_key as string | null, firstName: first_name_key as string | null,
        lastName: last_name_key as string | null, postalCode: postal_key as string | null, addressLine1: address_key as string | null,
      },
    } : {}),
  }));
}

function candidateRecords(db: Executor, tenantId: string): CandidateRecords {
  return {
    keyed: Object.fromEntries(Object.entries(KEYED).map(([field, { kind }]) => [field, kind])),
    lookupField: 'lookupId',
    // searchGroup's order
    order: ['lastName', 'firstName'],
    mark: () => indexMark(db, tenantId),
    page: (afterId, limit) => indexRows(db, tenantId, afterId ? sql`c.id > ${afterId}::uuid` : sql`true`, sql`c.id`, limit),
    async changes(since) {
      const next = await indexMark(db, tenantId);
      const records = await indexRows(db, tenantId, sql`c.modified_on >= ${since}::timestamptz`, sql`c.modified_on, c.id`, null);
      return { records, ...next };
    },
  };
}

/** One CandidateRecords per database and tenant: the engine keeps a destination's index beside it. */
const candidateSources = new WeakMap<Executor, Map<string, CandidateRecords>>();

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

/** Gifts, one transaction each (constituents are written in batches: writes.ts). */
async function upsertGifts(db: Executor, tenantId: string, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
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
        const written = await writeGift(tx, tenantId, item);
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

// ------------------------------------------------------------------ import

/** A constituent as an import gives it: names, primary e-mail, phone and address, and a lookup id or none. */
export interface ConstituentInput {
  lookupId?: string | null;
  title?: string | null;
  firstName?: string | null;
  lastName: string;
  middleName?: string | null;
  preferredName?: string | null;
  email?: string | null;
  phone?: string | null;
  addressLine1?: string | null;
  addressLine2?: string | null;
  city?: string | null;
  state?: string | null;
  postalCode?: string | null;
  country?: string | null;
}

export interface ImportOutcome {
  imported: number;
  /** by position in the rows given */
  refused: { index: number; reason: string }[];
}

/** rows per INSERT statement */
export const IMPORT_CHUNK = 5000;
const MAX_VALUE_LENGTH = 500;
const INPUT_LABELS = {
  lookupId: 'lookup ID', title: 'title', firstName: 'first name', lastName: 'last name', middleName: 'middle name', preferredName: 'preferred name',
  email: 'e-mail address', phone: 'phone number',
  addressLine1: 'address line 1', addressLine2: 'address line 2', city: 'city', state: 'state', postalCode: 'postal code', country: 'country',
} as const;
type InputField = keyof typeof INPUT_LABELS;
type InputValues = Record<InputField, string | undefined>;
const INPUT_FIELDS = Object.keys(INPUT_LABELS) as InputField[];

/** Why a row cannot be imported, or null; it never quotes the value. */
function rowProblem(row: InputValues): string | null {
  if (!row.lastName) return 'The last name is missing.';
  for (const f of INPUT_FIELDS) {
    const v = row[f];
    if (v === undefined) continue;
    if (v.length > MAX_VALUE_LENGTH) return `The ${INPUT_LABELS[f]} is longer than ${MAX_VALUE_LENGTH} characters.`;
    if (v.includes('\u0000')) return `The ${INPUT_LABELS[f]} contains the NUL character.`;
  }
  if (row.email && !looksLikeEmail(row.email)) return 'The e-mail address is not valid.';
  return null;
}

/**
 * Inserts constituents in bulk, a few thousand per statement, each with its primary e-mail, phone,
 * address and keys. A lookup id already used (in these rows or by the tenant) refuses its row;
 * a missing one is generated. Rows are trimmed; blank values are absent.
 */
async function importConstituents(db: Executor, tenantId: string, input: readonly ConstituentInput[]): Promise<ImportOutcome> {
  const refused: ImportOutcome['refused'] = [];
  let imported = 0;
  const seen = new Map<string, number>();
  const rows: { index: number; id: string; generated: boolean; values: InputValues; keys: ConstituentKeys }[] = [];
  input.forEach((raw, index) => {
    const values = Object.fromEntries(INPUT_FIELDS.map((f) => [f, str(raw[f])])) as InputValues;
    const problem = rowProblem(values);
    if (problem) { refused.push({ index, reason: problem }); return; }
    if (values.lookupId !== undefined) {
      const first = seen.get(values.lookupId);
      if (first !== undefined) { refused.push({ index, reason: `The lookup ID is also given to row ${first + 1} of these rows.` }); return; }
      seen.set(values.lookupId, index);
    }
    rows.push({ index, id: orderedUuid(), generated: values.lookupId === undefined, values, keys: constituentKeys(values) });
  });
  for (let i = 0; i < rows.length; i += IMPORT_CHUNK) {
    let chunk = rows.slice(i, i + IMPORT_CHUNK);
    // a generated lookup id can meet one a file gave earlier: those rows take the next numbers
    for (let attempt = 0; chunk.length > 0; attempt++) {
      const inserted = await insertChunk(db, tenantId, chunk);
      imported += inserted.size;
      const left = chunk.filter((r) => !inserted.has(r.id));
      for (const r of left.filter((r) => !r.generated)) refused.push({ index: r.index, reason: 'The lookup ID is already used by another constituent.' });
      chunk = left.filter((r) => r.generated);
      if (attempt >= 5 && chunk.length) throw new Error('generated lookup ids keep meeting existing ones');
    }
  }
  refused.sort((a, b) => a.index - b.index);
  return { imported, refused };
}

async function insertChunk(db: Executor, tenantId: string, chunk: { id: string; values: InputValues; keys: ConstituentKeys }[]): Promise<Set<string>> {
  const v = (f: InputField) => sql`${sql.param(chunk.map((r) => r.values[f] ?? null))}::text[]`;
  const k = (f: keyof ConstituentKeys) => sql`${sql.param(chunk.map((r) => r.keys[f]))}::text[]`;
  const { rows } = await db.execute<{ id: string }>(sql`
    with i as (
      select * from unnest(${sql.param(chunk.map((r) => r.id))}::uuid[], ${v('lookupId')}, ${v('title')}, ${v('firstName')}, ${v('lastName')}, ${v('middleName')}, ${v('preferredName')},
        ${v('email')}, ${v('phone')}, ${v('addressLine1')}, ${v('addressLine2')}, ${v('city')}, ${v('state')}, ${v('postalCode')}, ${v('country')},
        ${k('emailKey')}, ${k('phoneKey')}, ${k('firstNameKey')}, ${k('lastNameKey')}, ${k('postalKey')}, ${k('addressKey')})
        as i(id, lookup_id, title, first_name, last_name, middle_name, preferred_name, email, phone, address_line1, address_line2, city, state, postal_code, country,
             email_key, phone_key, first_name_key, last_name_key, postal_key, address_key)
    )
    insert into sandbox_constituents (id, tenant_id, lookup_id, title, first_name, last_name, middle_name, preferred_name,
      email, phone, address_line1, address_line2, city, state, postal_code, country,
      email_key, phone_key, first_name_key, last_name_key, postal_key, address_key, keys_version)
    select id, ${tenantId}::uuid, coalesce(lookup_id, 'SC-' || nextval(${sql.raw(`'${sandboxLookupSeq.seqName}'`)})), title, first_name, last_name, middle_name, preferred_name,
      email, phone, address_line1, address_line2, city, state, postal_code, country,
      email_key, phone_key, first_name_key, last_name_key, postal_key, address_key, ${MATCH_KEYS_VERSION}
    from i
    on conflict (tenant_id, lookup_id) do nothing
    returning id`);
  return new Set(rows.map((r) => r.id));
}

export function sandboxCrmRepository(db: Executor, tenantId: string) {
  return {
    search: (object: string, query: SearchQuery) => search(db, tenantId, object, query),
    searchMany: (object: string, queries: SearchQuery[]) => searchMany(db, tenantId, object, queries),
    /** constituents for the engine's candidate index; gifts have none */
    candidateRecords(object: string): CandidateRecords | null {
      if (objectOf(object) !== 'constituents') return null;
      const byTenant = candidateSources.get(db) ?? new Map<string, CandidateRecords>();
      candidateSources.set(db, byTenant);
      const known = byTenant.get(tenantId) ?? candidateRecords(db, tenantId);
      byTenant.set(tenantId, known);
      return known;
    },
    importConstituents: (rows: readonly ConstituentInput[]) => importConstituents(db, tenantId, rows),
    /** keys of constituents that lack them; answers how many were written */
    backfillKeys: (batchSize?: number) => backfillKeys(db, tenantId, batchSize),
    pull: (object: string, since: string | null, batchSize?: number) => pull(db, tenantId, object, since, batchSize),
    upsert: (object: string, items: UpsertItem[]) => (object === 'constituents' ? upsertConstituents(db, tenantId, items) : upsertGifts(db, tenantId, object, items)),
    /** Deletes every constituent and gift, and the writes remembered for them; answers how many of each went. */
    async empty(): Promise<{ constituents: number; gifts: number }> {
      // one statement: all of it goes, or none
      const { rows } = await db.execute<{ constituents: number; gifts: number }>(sql`
        with g as (delete from sandbox_gifts where tenant_id = ${tenantId} returning 1),
          c as (delete from sandbox_constituents where tenant_id = ${tenantId} returning 1),
          w as (delete from sandbox_writes where tenant_id = ${tenantId} returning 1)
        select (select count(*)::int from c) as constituents, (select count(*)::int from g) as gifts, (select count(*) from w) as writes`);
      return { constituents: rows[0]!.constituents, gifts: rows[0]!.gifts };
    },
    async counts(): Promise<{ constituents: number; gifts: number }> {
      const [c] = await db.select({ n: sql<number>`count(*)::int` }).from(sandboxConstituents).where(eq(sandboxConstituents.tenantId, tenantId));
      const [g] = await db.select({ n: sql<number>`count(*)::int` }).from(sandboxGifts).where(eq(sandboxGifts.tenantId, tenantId));
      return { constituents: c!.n, gifts: g!.n };
    },
  };
}
