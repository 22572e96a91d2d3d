/**
 * WealthEngine (Altrata) API v1 as an enrichment destination: "Authorization: APIKey {key}", the
 * production or sandbox host. Sending a person screens them: one `POST /v1/profile/find_one/…`
 * lookup (by e-mail, else phone, else postal address, each with the name), basic or full profile
 * as the destination settings say. The profile found comes back as the record's destination record
 * (match level, net worth, gift capacity, P2G score…), readable in the record review.
 *
 * WealthEngine holds no records of ours to match against: search answers nothing, so every person
 * routes as new ("to screen"); a matching scenario is still saved by the wizard, and says nothing.
 * "No match" is an outcome, not an error: the record is sent with match level "No match". A
 * refused lookup (bad address, missing name) lands in Exceptions in WealthEngine's words; a 429
 * is waited out through the kit's client.
 *
 * As a source, WealthEngine's `screenings` are the people this tenant's formulas screened through
 * the data source, so that a second formula passes the profiles on (to a CRM's custom fields): each
 * is the screened record's own values as its source gave them (its lookup id, e-mail and names,
 * to be matched in the next destination) with the profile found and the time it was screened.
 * WealthEngine keeps no list of our screenings, so Tributary's own records are read
 * (ctx.tenant.screenings), since a watermark of the time sent and the record's id. A person with
 * "No match" is left out: no profile came back to pass on, and sending one on would only offer
 * blanks to overwrite a constituent's values with; the first formula's record review still shows them.
 */
import { wealthengine } from '../../../src/domain/connectors/fundraising.ts';
import type { Screening, ScreeningPosition } from '../../db/repositories/screenings.ts';
import {
  ConnectorInputError, NotSupported, refused, type Connector, type ConnectorContext, type FieldInfo, type PullBatch, type PullOptions, type SourceRecord, type UpsertItem, type UpsertResult, type Watermark,
} from '../connector.ts';
import { eachRecord } from '../kit/results.ts';
import { defaultMessageOf, vendorClient, VendorRefusal, type VendorClient } from '../kit/vendorClient.ts';

const NAME = 'WealthEngine';
export const WEALTHENGINE_API = 'https://api.wealthengine.com';
export const WEALTHENGINE_SANDBOX = 'https://api-sandbox.wealthengine.com';
/** the destination record of a person WealthEngine has no profile for */
export const NO_MATCH_ID = 'no-match';

export function wealthengineClient(ctx: ConnectorContext, opts: { sleep?: (ms: number) => Promise<void> } = {}): VendorClient {
  return vendorClient({
    system: 'wealthengine', name: NAME, signal: ctx.signal, credential: 'API key', ...(opts.sleep ? { sleep: opts.sleep } : {}),
    baseUrl: ctx.settings.environment === 'sandbox' ? WEALTHENGINE_SANDBOX : WEALTHENGINE_API,
    auth: async () => ({ authorization: `APIKey ${ctx.settings.apiKey ?? ''}` }),
    // a refused key in WealthEngine's words, at once: an API key has nothing to refresh
    refusal: (res, body) => (res.status === 401 ? refused(`WealthEngine refused the API key${messageOf(body) ? `: ${messageOf(body)}` : ' (HTTP 401).'}`) : null),
    messageOf: (body) => messageOf(body),
  });
}

/** the lookup fields a formula maps onto */
const LOOKUP: FieldInfo[] = [
  { name: 'first_name', label: 'First name', type: 'string', required: true },
  { name: 'last_name', label: 'Last name', type: 'string', required: true },
  // searchable so the wizard's one (always empty) scenario can be saved on it
  { name: 'email', label: 'E-mail address', type: 'email', searchable: true },
  { name: 'phone', label: 'Phone', type: 'string' },
  { name: 'address_line1', label: 'Street address', type: 'string' },
  { name: 'city', label: 'City', type: 'string' },
  { name: 'state', label: 'State (two letters)', type: 'string' },
  { name: 'zip', label: 'ZIP code (five digits)', type: 'string' },
];
/** what a screening answers (read only: the profile found) */
const PROFILE: FieldInfo[] = [
  { name: 'match_level', label: 'Match level (e-mail, phone, address or no match)', type: 'string', readOnly: true },
  { name: 'profile_id', label: 'WealthEngine profile ID', type: 'string', readOnly: true },
  { name: 'full_name', label: 'Full name found', type: 'string', readOnly: true },
  { name: 'net_worth', label: 'Net worth', type: 'string', readOnly: true },
  { name: 'total_income', label: 'Total income', type: 'string', readOnly: true },
  { name: 'gift_capacity', label: 'Gift capacity', type: 'string', readOnly: true },
  { name: 'estimated_annual_donations', label: 'Estimated annual donations', type: 'string', readOnly: true },
  { name: 'p2g_score', label: 'P2G score', type: 'string', readOnly: true },
  { name: 'total_realestate_value', label: 'Real estate value', type: 'string', readOnly: true },
];

interface Band { text?: string; value?: unknown }
interface Profile {
  id?: number | string;
  identity?: { full_name?: string };
  wealth?: { networth?: Band; total_income?: Band };
  giving?: { gift_capacity?: Band; estimated_annual_donations?: Band; p2g_score?: Band };
  realestate?: { total_realestate_value?: Band };
}

/** a profile's bands as flat fields (their words: "$100K-$500K") */
export function profileFields(p: Profile, matchLevel: string): Record<string, unknown> {
  const band = (b?: Band) => b?.text;
  return Object.fromEntries(Object.entries({
    match_level: matchLevel, profile_id: p.id !== undefined ? String(p.id) : undefined, full_name: p.identity?.full_name,
    net_worth: band(p.wealth?.networth), total_income: band(p.wealth?.total_income),
    gift_capacity: band(p.giving?.gift_capacity), estimated_annual_donations: band(p.giving?.estimated_annual_donations),
    p2g_score: band(p.giving?.p2g_score), total_realestate_value: band(p.realestate?.total_realestate_value),
  }).filter(([, v]) => v !== undefined && v !== ''));
}

/** WealthEngine's words from an error body: `{ "error": "…" }` or `{ "message": "…" }` */
function messageOf(body: unknown): string {
  return defaultMessageOf(body);
}

const text = (v: unknown) => (v === undefined || v === null ? '' : String(v).trim());

/** which lookup a person's fields allow, most precise first, with its body; null when none */
export function lookupOf(f: Record<string, unknown>): { by: 'email' | 'phone' | 'address'; level: string; body: Record<string, string> } | null {
  const name = { first_name: text(f.first_name), last_name: text(f.last_name) };
  if (text(f.email)) return { by: 'email', level: 'E-mail', body: { email: text(f.email), ...name } };
  if (text(f.phone)) return { by: 'phone', level: 'Phone', body: { phone: text(f.phone).replace(/\D/g, ''), ...name } };
  if (text(f.address_line1)) {
    return { by: 'address', level: 'Address', body: { ...name, address_line1: text(f.address_line1), city: text(f.city), state: text(f.state), zip: text(f.zip) } };
  }
  return null;
}

function objectOf(object: string): 'profiles' {
  if (object === 'profiles') return object;
  if (object === SCREENINGS) throw new ConnectorInputError('WealthEngine screenings are read as a source; a formula screens people into WealthEngine profiles.');
  throw new ConnectorInputError(`Tributary screens people against WealthEngine profiles; ${object} is not one of them.`);
}

/** the source object: the people screened, with the profiles found */
export const SCREENINGS = 'screenings';
/** when the person was screened (sent to WealthEngine) */
const SCREENED_ON: FieldInfo = { name: 'screened_on', label: 'Screened on', type: 'datetime' };
const PULL_BATCH = 500;

/** a screenings watermark: the time sent (microseconds, UTC) and the record's id */
function positionOf(since: Watermark | null): ScreeningPosition | null {
  if (since === null) return null;
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)\|([\da-f-]{36})$/i.exec(since);
  if (!m) throw new ConnectorInputError(`WealthEngine screenings cannot start from "${since}".`);
  return { sentAt: m[1]!, id: m[2]! };
}

/** a screening as a source record: the screened record's values, the profile found over them, and when */
function screeningRecord(s: Screening): SourceRecord {
  return { id: s.id, fields: { ...s.raw, ...s.answered, [SCREENED_ON.name]: s.sentAt } };
}
const profileFound = (s: Screening) => s.destinationRecordId !== NO_MATCH_ID && !!s.answered;

/** the people this data source screened since the watermark, oldest first; only those with a profile found */
async function* pullScreenings(ctx: ConnectorContext, since: Watermark | null, options: PullOptions): AsyncIterable<PullBatch> {
  if (!ctx.dataSourceId) throw new ConnectorInputError('WealthEngine screenings are read from a saved WealthEngine data source.');
  const size = options.batchSize ?? PULL_BATCH;
  let after = positionOf(since);
  for (;;) {
    const sent = await ctx.tenant.screenings.sentSince(ctx.dataSourceId, after, size, options.window);
    if (!sent.length) return;
    after = { sentAt: sent.at(-1)!.sentAt, id: sent.at(-1)!.id };
    yield { records: sent.filter(profileFound).map(screeningRecord), watermark: `${after.sentAt}|${after.id}` };
    if (sent.length < size) return;
  }
}

/** a screening's fields: the profile's, when, and the screened records' own (those the latest screenings carry) */
async function screeningFields(ctx: ConnectorContext): Promise<FieldInfo[]> {
  const own: FieldInfo[] = [...PROFILE.map(({ readOnly: _, ...f }) => f), SCREENED_ON];
  const taken = new Set(own.map((f) => f.name));
  const screened = ctx.dataSourceId ? await ctx.tenant.screenings.sourceFields(ctx.dataSourceId) : [];
  return [...own, ...screened.filter((n) => !taken.has(n)).map((name): FieldInfo => ({ name, label: `${name} (as screened)`, type: 'string' }))];
}

async function upsert(ctx: ConnectorContext, object: string, items: UpsertItem[]): Promise<UpsertResult[]> {
  objectOf(object);
  const client = wealthengineClient(ctx);
  const mode = ctx.endSettings?.profile === 'full' ? 'full' : 'basic';
  return eachRecord(NAME, 'lookup', items, async (item, fail) => {
    const lookup = lookupOf(item.fields);
    if (!lookup) return fail('WealthEngine screens a person by e-mail address, phone or postal address, and this record has none.');
    let profile: Profile | null;
    try {
      profile = await client.call<Profile | null>({ method: 'POST', path: `/v1/profile/find_one/by_${lookup.by}/${mode}`, json: lookup.body, own: [404] });
    } catch (err) {
      // WealthEngine answers 404 when it has no profile for the person: an outcome, not a refusal
      if (err instanceof VendorRefusal && err.status === 404) profile = null;
      else throw err;
    }
    const found = profile && profile.id !== undefined && profile.id !== null;
    return {
      idempotencyKey: item.idempotencyKey, outcome: 'created', replayed: false,
      id: found ? String(profile!.id) : NO_MATCH_ID,
      fields: found ? profileFields(profile!, lookup.level) : { match_level: 'No match' },
    };
  });
}

export const wealthengineConnector: Connector = {
  system: 'wealthengine',
  async test(ctx) {
    // a lookup nobody matches proves the key without spending a match
    const client = wealthengineClient(ctx);
    try {
      await client.call({ method: 'POST', path: '/v1/profile/find_one/by_email/basic', json: { email: 'connection.test@tributary.invalid', first_name: 'Connection', last_name: 'Test' }, own: [404] });
    } catch (err) {
      if (!(err instanceof VendorRefusal && err.status === 404)) throw err;
    }
    return { detail: `WealthEngine accepted the API key (${ctx.settings.environment ?? 'production'}).` };
  },
  async listObjects() {
    return wealthengine.objects;
  },
  async describeFields(ctx, object) {
    if (object === SCREENINGS) return screeningFields(ctx);
    objectOf(object);
    return [...LOOKUP, ...PROFILE];
  },
  pull(ctx, object, since, options = {}) {
    if (object !== SCREENINGS) throw new NotSupported('WealthEngine', `reading ${object}: its screenings are read, the people the data source screened with the profiles found`);
    return pullScreenings(ctx, since, options);
  },
  // nothing of ours is kept at WealthEngine: nobody matches, everyone is screened as new
  async search(_ctx, object) { objectOf(object); return []; },
  async searchMany(_ctx, object, queries) { objectOf(object); return queries.map(() => []); },
  upsert,
  async matchingProblem(_ctx, object) {
    if (object === SCREENINGS) return 'WealthEngine screenings are read as a source; a formula screens people into WealthEngine profiles.';
    return object === 'profiles' ? null : `Tributary screens people against WealthEngine profiles; ${object} is not one of them.`;
  },
};
