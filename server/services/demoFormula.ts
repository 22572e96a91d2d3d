/**
 * The demo formula: on the first `npm start` the demo organisation's food bank gets a live formula
 * that has already run, so the Data Queue and the bucket screens hold records to review before
 * anyone has built a formula. It is made the way the wizard makes one, through the same services:
 * a flat-file drop folder holding a CSV of weekend sign-ups (copies of Sandbox CRM constituents,
 * messy copies of some, new people and a few bad e-mail addresses), a formula from it into the
 * Sandbox CRM that holds every record for review, activated and run once. The run is queued like
 * the API's run now, so the server's workers work it in the background.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import * as v from 'valibot';
import { RECOMMENDED_DISCARD_BELOW } from '../../src/domain/formula/matchScore.ts';
import { FORMULA_PARTS, type FormulaPartBody, type FormulaPartName } from '../../src/domain/formula/parts.ts';
import { recommendedMatching } from '../../src/domain/formula/recommendedScenarios.ts';
import type { Config } from '../config.ts';
import { dropFolderPath } from '../connectors/fileSources/flatFile.ts';
import { sandboxCrmStore } from '../connectors/sandboxCrm/connector.ts';
import { sandbox } from '../connectors/sandboxCrm/fields.ts';
import { SANDBOX_DATA_SOURCE_NAME } from '../connectors/sandboxCrm/seed.ts';
import { tenantAccess } from '../db/accounts.ts';
import type { Database } from '../db/database.ts';
import { users } from '../db/schema/accounts.ts';
import { DEMO_TENANTS, DEMO_USERS } from '../db/seed.ts';
import { forTenant } from '../db/tenancy.ts';
import type { ConnectionsService } from './connections.ts';
import type { FormulaRunsService } from './formulaRuns.ts';
import type { FormulasService } from './formulas.ts';

export const DEMO_FORMULA_NAME = 'Weekend sign-ups into the CRM';
const SOURCE_NAME = 'Weekend sign-ups';
const FOLDER = 'weekend-signups';
const FILE = 'weekend-signups-1.csv';
const OBJECT = 'weekend-signups-*.csv';
export const DEMO_BAD_EMAIL_BUCKET = 'Bad e-mail';

const COLUMNS = ['First name', 'Last name', 'Email', 'Phone', 'Postcode'] as const;
type Row = Record<(typeof COLUMNS)[number], string>;

/** What the sign-up sheet holds, by kind; the demo's test counts on these. */
export const DEMO_ROWS = { exact: 13, messy: 6, new: 18, badEmail: 3 } as const;

/** People the Sandbox CRM does not hold: last names outside its seed, phone numbers outside its 555 range. */
const NEW_PEOPLE: [string, string, string][] = [
  ['Marisol', 'Whitaker', '97205'], ['Desmond', 'Achterberg', '05401'], ['Ingrid', 'Halvorsen', '28801'], ['Theo', 'Blackwood', '53703'],
  ['Ruth', 'Okonkwo', '80302'], ['Harriet', 'Pemberton', '31401'], ['Kwame', 'Asante', '87501'], ['Lena', 'Vogel', '55802'],
  ['Omar', 'Haddad', '02903'], ['Beatrice', 'Fairweather', '85701'], ['Callum', 'MacLeod', '97209'], ['Anika', 'Sorensen', '05403'],
  ['Jude', 'Ashworth', '28804'], ['Mei', 'Takahashi', '53711'], ['Rafael', 'Moreno', '80304'], ['Sofia', 'Bergstrom', '31405'],
  ['Ezra', 'Goldberg', '87505'], ['Nell', 'Harrington', '55803'],
];
/** Sign-ups whose e-mail address the validation part refuses. */
const BAD_EMAILS: Row[] = [
  { 'First name': 'Tomas', 'Last name': 'Lindley', Email: 'tomas.lindley.example.org', Phone: '(503) 555-0190', Postcode: '97214' },
  { 'First name': 'Maria', 'Last name': 'Ferreira', Email: 'maria@@example.org', Phone: '', Postcode: '02906' },
  { 'First name': 'Jo', 'Last name': 'Bennett', Email: 'jo bennett@example.org', Phone: '(608) 555-0143', Postcode: '53705' },
];
/** Full names people sign up with where the CRM holds the short one, or the other way round (src/domain/formula/nicknames.ts). */
const OTHER_NAME: Record<string, string> = { Ben: 'Benjamin', Sam: 'Samuel', Olivia: 'Liv', Zoe: 'Zoey', Esther: 'Essie' };

interface Constituent { firstName: string; lastName: string; email: string; phone: string; postalCode: string }

const asRow = (c: Constituent): Row => ({ 'First name': c.firstName, 'Last name': c.lastName, Email: c.email, Phone: c.phone, Postcode: c.postalCode });
/** +15551234567 as people write it: (555) 123-4567 */
const written = (phone: string) => phone.replace(/^\+?1?(\d{3})(\d{3})(\d{4})$/, '($1) $2-$3');

/** How people retype themselves on a sign-up sheet; each still matches its constituent, by e-mail or by a secondary scenario. */
const MESSY: ((c: Constituent) => Row)[] = [
  (c) => ({ ...asRow(c), 'First name': c.firstName.toUpperCase(), 'Last name': c.lastName.toUpperCase(), Email: c.email.toUpperCase() }),
  (c) => ({ ...asRow(c), 'First name': OTHER_NAME[c.firstName] ?? c.firstName.toLowerCase(), Email: c.email.replace(/^./, (x) => x.toUpperCase()) }),
  // a new e-mail address: found by last name and postcode
  (c) => ({ ...asRow(c), Email: `${c.email.split('@')[0]}@example.net`, Phone: written(c.phone) }),
  (c) => ({ ...asRow(c), 'Last name': c.lastName.toLowerCase(), Phone: written(c.phone), Postcode: `${c.postalCode}-0000` }),
  // no e-mail and no postcode: found by last name and phone
  (c) => ({ ...asRow(c), Email: '', Postcode: '' }),
  (c) => ({ ...asRow(c), 'First name': c.firstName.toLowerCase(), Email: ` ${c.email} ` }),
];

/** The sign-up sheet: exact copies of constituents, messy copies, new people, and bad e-mail addresses, mixed as a sheet would be. */
function signUps(crm: Constituent[]): Row[] {
  const exact = crm.slice(0, DEMO_ROWS.exact).map(asRow);
  const pool = crm.slice(DEMO_ROWS.exact);
  // the nickname's row takes a constituent with another name for it, when the CRM's first few hold one
  const renamed = pool.find((c) => OTHER_NAME[c.firstName]) ?? pool[1]!;
  const others = pool.filter((c) => c !== renamed);
  const picked = [others[0]!, renamed, ...others.slice(1, MESSY.length - 1)];
  const messy = MESSY.map((retype, i) => retype(picked[i]!));
  const fresh = NEW_PEOPLE.map(([first, last, postcode], i): Row => ({
    'First name': first, 'Last name': last, Email: `${first}.${last}@example.net`.toLowerCase(),
    Phone: `(503) 555-${String(100 + i).padStart(4, '0')}`, Postcode: postcode,
  }));
  const rows: Row[] = [];
  const queues = [exact, messy, fresh, [...BAD_EMAILS]];
  // interleaved: one of each kind in turn while any is left
  while (queues.some((q) => q.length)) for (const q of queues) if (q.length) rows.push(q.shift()!);
  return rows;
}

const csvCell = (s: string) => (/[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replaceAll('"', '""')}"` : s);

export interface DemoFormulaDeps {
  database: Pick<Database, 'db'>;
  config: Config;
  /** the server's own services (server/container.ts): the run is queued like the API's run now */
  services: { connections: ConnectionsService; formulas: FormulasService; formulaRuns: FormulaRunsService };
  log: Logger;
}

export interface DemoFormula { tenantId: string; formulaId: string; runId: string; name: string }

/** Builds the demo formula in the demo organisation's first tenant and queues its first run. */
export async function seedDemoFormula(deps: DemoFormulaDeps): Promise<DemoFormula> {
  const { database: { db }, config, services: { connections, formulas, formulaRuns: runs }, log } = deps;

  // built by the demo administrator, as if signed in to the food bank
  const admin = DEMO_USERS.find((u) => u.roles[0]?.includes('Administrator'))!;
  const [user] = await db.select({ id: users.id, fullName: users.fullName }).from(users).where(sql`lower(${users.email}) = ${admin.email.toLowerCase()}`).limit(1);
  if (!user) throw new Error(`The demo user ${admin.email} does not exist.`);
  const access = (await tenantAccess(db, user.id)).find((t) => t.name === DEMO_TENANTS[0]);
  if (!access) throw new Error(`${admin.email} has no access to ${DEMO_TENANTS[0]}.`);
  const tenant = forTenant(db, access.tenantId);
  const correlationId = `demo-formula:${crypto.randomUUID()}`;
  const actor = { userId: user.id, name: user.fullName, correlationId, log };

  const crm: Constituent[] = [];
  for await (const batch of sandboxCrmStore(tenant).pull('constituents', null, 40)) {
    const text = (x: unknown) => (x === null || x === undefined ? '' : String(x));
    crm.push(...batch.records.map(({ fields: f }) => ({
      firstName: text(f.firstName), lastName: text(f.lastName), email: text(f.email), phone: text(f.phone), postalCode: text(f.postalCode),
    })));
    break;
  }
  if (crm.length < DEMO_ROWS.exact + DEMO_ROWS.messy + 1) throw new Error('The Sandbox CRM holds too few constituents for the demo formula.');
  const dir = dropFolderPath(config.dataDir, tenant.tenantId, FOLDER);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lines = [COLUMNS.join(','), ...signUps(crm).map((r) => COLUMNS.map((c) => csvCell(r[c])).join(','))];
  fs.writeFileSync(path.join(dir, FILE), `${lines.join('\r\n')}\r\n`);

  const source = await connections.create(tenant, { ...actor, policies: access.policies }, {
    system: 'flat-file', displayName: SOURCE_NAME, settings: { folder: FOLDER },
  });
  const destination = (await tenant.dataSources.list()).find((d) => d.system === 'sandbox-crm' && d.displayName === SANDBOX_DATA_SOURCE_NAME);
  if (!destination) throw new Error(`${DEMO_TENANTS[0]} has no ${SANDBOX_DATA_SOURCE_NAME} data source.`);

  // the demo's supporters carry no gift
  const parts: { [P in Exclude<FormulaPartName, 'gift'>]: FormulaPartBody[P] } = {
    mapping: {
      fields: [
        { destination: 'firstName', kind: 'source', source: 'First name' },
        { destination: 'lastName', kind: 'source', source: 'Last name' },
        { destination: 'email', kind: 'source', source: 'Email' },
        { destination: 'phone', kind: 'source', source: 'Phone' },
        { destination: 'postalCode', kind: 'source', source: 'Postcode' },
      ],
    },
    // names typed in capitals or lower case arrive as the CRM writes them
    transform: { fields: [{ destination: 'firstName', steps: [{ kind: 'case', to: 'title' }] }, { destination: 'lastName', steps: [{ kind: 'case', to: 'title' }] }] },
    validation: { rules: [{ destination: 'email', rule: 'email', bucket: DEMO_BAD_EMAIL_BUCKET }] },
    'summary-fields': { fields: ['firstName', 'lastName', 'email', 'postalCode'] },
    matching: recommendedMatching({
      system: 'sandbox-crm', object: 'constituents', destinationFields: sandbox.fields.constituents, sourceFields: COLUMNS.map((name) => ({ name })),
    }),
    // new people and matches alike wait for review: what the demo is for
    routing: {
      kind: 'default', unmatched: 'needs-attention', singleMatch: 'needs-attention', exactFields: [],
      discardBelow: RECOMMENDED_DISCARD_BELOW, capitalizationIsDifference: false,
    },
    // weekly: the scheduler leaves the demo alone while someone looks at it
    schedule: { mode: 'scheduled', frequency: 'weekly', day: 'monday', time: '07:00', timeZone: 'America/New_York' },
    autosend: { enabled: false },
  };

  const { id } = await formulas.create(tenant, actor, { name: DEMO_FORMULA_NAME, usesFileUpload: false });
  await formulas.update(tenant, actor, id, {
    source: { dataSourceId: source.id, object: OBJECT, settings: {} },
    destination: { dataSourceId: destination.id, object: 'constituents', settings: {} },
    confirmWipe: false,
  });
  for (const [part, body] of Object.entries(parts) as [FormulaPartName, unknown][]) {
    await formulas.putPart(tenant, actor, id, part, v.parse(FORMULA_PARTS[part].schema, body));
  }
  await formulas.activate(tenant, actor, id);
  const run = await runs.run(tenant, { actor: { userId: user.id, name: user.fullName }, correlationId, log }, id);
  log.info({ formulaId: id, runId: run.id }, 'demo formula created');
  return { tenantId: tenant.tenantId, formulaId: id, runId: run.id, name: DEMO_FORMULA_NAME };
}
