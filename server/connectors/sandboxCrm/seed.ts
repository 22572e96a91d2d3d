/**
 * Demo data for the Sandbox CRM: a few thousand deterministic constituents per tenant, with an
 * address, e-mail and phone each and one to three gifts, written by one INSERT ... SELECT over
 * generate_series (data-modifying CTEs), so seeding stays well under a second. Their match keys
 * are then written by matchKey itself (the key backfill), never by a copy of it in SQL. Each
 * tenant also gets a "Sandbox CRM" data source, so a formula can be run without any outside account.
 */
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Db } from '../../db/database.ts';
import { tenants } from '../../db/schema/accounts.ts';
import { forTenant, type Executor } from '../../db/tenancy.ts';
import { sandboxCrmStore } from './connector.ts';

export const SANDBOX_CONSTITUENTS_PER_TENANT = 2500;
export const SANDBOX_DATA_SOURCE_NAME = 'Sandbox CRM';

const FIRST = ['Ada', 'Ben', 'Chloe', 'Dev', 'Elena', 'Farah', 'George', 'Hana', 'Idris', 'Jonas', 'Keiko', 'Liam', 'Maya', 'Noah', 'Olivia', 'Priya',
  'Quentin', 'Rosa', 'Sam', 'Tariq', 'Uma', 'Victor', 'Wen', 'Ximena', 'Yusuf', 'Zoe', 'Amara', 'Bruno', 'Carmen', 'Dmitri', 'Esther', 'Felix',
  'Grace', 'Hugo', 'Ines', 'Jamal', 'Kofi', 'Lucia', 'Mateo', 'Nadia'];
const LAST = ['Abbott', 'Bashir', 'Castillo', 'Dubois', 'Eriksen', 'Fischer', 'Garcia', 'Hughes', 'Ito', 'Johnson', 'Kowalski', 'Lindqvist', 'Mensah',
  'Nakamura', "O'Brien", 'Patel', 'Quinn', 'Rossi', 'Santos', 'Tanaka', 'Umarov', 'Valdez', 'Walker', 'Xu', 'Yilmaz', 'Zimmerman', 'Adeyemi', 'Brennan',
  'Chen', 'Diaz', 'Evans', 'Fontaine', 'Gupta', 'Horvat', 'Ivanova', 'Jensen', 'Kim', 'Lopez', 'Murphy', 'Novak', 'Okafor', 'Park', 'Reyes'];
const STREETS = ['Maple Street', 'Oak Avenue', 'River Road', 'Mill Lane', 'Church Street', 'Park Drive', 'Elm Court', 'Harbour View', 'Station Road', 'Willow Way'];
const PLACES: [string, string, string][] = [
  ['Portland', 'OR', '972'], ['Burlington', 'VT', '054'], ['Asheville', 'NC', '288'], ['Madison', 'WI', '537'], ['Boulder', 'CO', '803'],
  ['Savannah', 'GA', '314'], ['Santa Fe', 'NM', '875'], ['Duluth', 'MN', '558'], ['Providence', 'RI', '029'], ['Tucson', 'AZ', '857'],
];
const FUNDS = ['General Fund', 'Food Pantry', 'Youth Programs', 'Capital Campaign', 'Scholarships'];
const CAMPAIGNS = ['Annual Appeal 2025', 'Spring Drive 2025', 'Giving Tuesday 2025', 'Annual Appeal 2026'];
const APPEALS = ['Direct Mail', 'E-mail', 'Event', 'Online Form', 'Phone'];
const METHODS = ['Credit card', 'Check', 'Cash', 'Direct debit', 'PayPal'];
const AMOUNTS = ['10.00', '25.00', '35.00', '50.00', '75.00', '100.00', '150.00', '250.00', '500.00', '1000.00'];

const arr = (xs: readonly string[]) => sql`${`{${xs.map((x) => `"${x.replace(/["\\]/g, '\\$&')}"`).join(',')}}`}::text[]`;
/** element i (1-based, any integer) of a text[] */
const pick = (xs: readonly string[], i: ReturnType<typeof sql>) => sql`(${arr(xs)})[1 + ((${i}) % ${xs.length})]`;

/** Seeds the Sandbox CRM of each tenant (in the caller's transaction). */
export async function seedSandboxCrm(db: Executor, tenantIds: string[], perTenant = SANDBOX_CONSTITUENTS_PER_TENANT): Promise<void> {
  if (tenantIds.length === 0) return;
  const tenantArray = sql`${`{${tenantIds.join(',')}}`}::uuid[]`;
  const h = sql`h`; // a deterministic spread per tenant, computed once per constituent
  await db.execute(sql`
    with n as materialized (
      select gen_random_uuid() as id, t.tenant_id, g, (g * 7919 + t.tn * 104729) as h
      from unnest(${tenantArray}) with ordinality as t(tenant_id, tn), generate_series(1, ${perTenant}) as g
    ), named as materialized (
      select n.*, ${pick(FIRST, h)} as first_name, ${pick(LAST, sql`h / 7 + g`)} as last_name from n
    ), c as (
      insert into sandbox_constituents (id, tenant_id, lookup_id, title, first_name, last_name, email, phone,
        address_line1, city, state, postal_code, country, created_on, modified_on)
      select id, tenant_id, 'SC-' || lpad(g::text, 6, '0'), nullif(${pick(['', '', '', 'Mr.', 'Ms.', 'Dr.', 'Mx.'], sql`h / 11`)}, ''),
             first_name, last_name,
             lower(replace(first_name || '.' || last_name, chr(39), '')) || g || '@example.org',
             '+1555' || lpad((h % 10000000)::text, 7, '0'),
             (1 + h % 980)::text || ' ' || ${pick(STREETS, sql`h / 3`)},
             (${arr(PLACES.map((p) => p[0]))})[1 + (g % ${PLACES.length})], (${arr(PLACES.map((p) => p[1]))})[1 + (g % ${PLACES.length})],
             (${arr(PLACES.map((p) => p[2]))})[1 + (g % ${PLACES.length})] || lpad((h % 100)::text, 2, '0'), 'United States',
             timestamptz '2025-01-01T00:00:00Z' + g * interval '1 minute', timestamptz '2025-01-01T00:00:00Z' + g * interval '1 minute'
      from named
    )
    insert into sandbox_gifts (tenant_id, constituent_id, lookup_id, amount, gift_date, type, fund, campaign, appeal, payment_method, created_on, modified_on)
    select tenant_id, id, 'G-' || lpad(g::text, 6, '0') || '-' || k, ${pick(AMOUNTS, sql`h + k * 31`)}::numeric,
           date '2024-01-01' + ((g * 37 + k * 101) % 730)::int, 'Donation',
           ${pick(FUNDS, sql`g + k`)}, ${pick(CAMPAIGNS, sql`g * 3 + k`)}, ${pick(APPEALS, sql`g * 5 + k`)}, ${pick(METHODS, sql`g * 7 + k`)},
           timestamptz '2025-01-01T00:00:00Z' + g * interval '1 minute' + k * interval '1 second',
           timestamptz '2025-01-01T00:00:00Z' + g * interval '1 minute' + k * interval '1 second'
    from named cross join generate_series(1, 3) as k
    where k <= 1 + (g % 3)
  `);
  for (const tenantId of tenantIds) await sandboxCrmStore(forTenant(db, tenantId)).backfillKeys();
  await db.execute(sql`
    insert into data_sources (tenant_id, system, display_name, settings)
    select t, 'sandbox-crm', ${SANDBOX_DATA_SOURCE_NAME}, '{}'::jsonb from unnest(${tenantArray}) as t
    on conflict do nothing
  `);
}

/**
 * Writes the match keys of constituents that lack them (rows from before keys existed), tenant by
 * tenant, in batches; run at every start, it finds nothing to do once done.
 */
export async function backfillSandboxKeys(db: Db, log: Logger): Promise<void> {
  const all = await db.select({ id: tenants.id }).from(tenants);
  let written = 0;
  for (const { id } of all) written += await sandboxCrmStore(forTenant(db, id)).backfillKeys();
  if (written > 0) log.info({ constituents: written }, 'Sandbox CRM match keys written');
}
