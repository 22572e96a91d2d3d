/**
 * A local fake of GiveCampus's Gift API, answering as its public support articles show it
 * (support.givecampus.com 28763492065815 "Gift API Standard Field Definitions", 40836868939415
 * "API Payload Examples", 29093649557527 "API Parameters: A Deeper Dive"): a bearer API token; a
 * JSON array of gifts, each with `id`, `donation_type`, `state`, `currency`, `value` and designation
 * amounts as decimal strings ("10.0"), `project { id, type, name, unique_identifier }`, `payer_name`,
 * `custom_fields.first_name`/`last_name`, `address { line1, … }`, `designations [{ id, name, amount,
 * unique_identifier, write_in }]`, `constituent_identifier`, `email`, and the timestamps
 * confirmed_at, captured_at, deposited_at and updated_at, any of which a query may range over.
 * The request's shape is the connector's reading (GIFT_API, unverified): GET /api/v1/gifts with
 * `timestamp_type`, `start_date` (inclusive), `end_date` (exclusive), `page` and `per_page` (at most
 * 100), oldest first by that timestamp. An unknown or revoked token is 401 `{ message }`; a 429
 * carries Retry-After.
 */
import { sendJson, startVendorServer } from './harness.ts';

export const GC_TOKEN = 'gc-token';
const TIMESTAMPS = ['confirmed_at', 'captured_at', 'deposited_at', 'updated_at'] as const;
type Gift = Record<string, unknown> & { id: number; updated_at: string; confirmed_at: string };
export interface GcSeen { method: string; path: string; query: URLSearchParams; authorization: string | undefined }

export interface GiftInput {
  first: string; last: string; email?: string; constituent?: string; value: string; currency?: string;
  state?: string; donation_type?: string; confirmed: Date; updated?: Date;
  designations?: { name: string; amount: string; unique_identifier?: string }[];
  address?: Partial<Record<'line1' | 'line2' | 'city' | 'state' | 'postal_code' | 'country', string>>;
}

export interface FakeGiveCampus {
  url: string;
  seen: GcSeen[];
  gifts: Gift[];
  add(g: GiftInput): Gift;
  /** a gift changes (captured, deposited, refunded): its updated_at moves */
  change(gift: Gift, fields: Record<string, unknown>, updated: Date): void;
  /** the token stops working (revoked or expired) */
  revoke(): void;
  /** the next `n` list calls answer 429 */
  throttle(n: number): void;
  /** answer 500 to everything until cleared */
  outage: boolean;
  clear(): void;
  close(): Promise<void>;
}

/** Stamps as the payload examples write them: ISO 8601 with a zone offset. */
export const gcStamp = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, '.000-00:00');

export async function startFakeGiveCampus(): Promise<FakeGiveCampus> {
  const seen: GcSeen[] = [];
  let ids = 30_059_700;
  let throttled = 0;
  let revoked = false;
  const fake: FakeGiveCampus = {
    url: '', seen, gifts: [], outage: false,
    add(g) {
      const gift: Gift = {
        id: ++ids, ach_verified: false, fund_source: 'Giving Form', anonymous: false, card_type: 'Visa',
        address: { line1: null, line2: null, city: null, state: null, postal_code: null, country: 'United States', ...g.address },
        constituent_identifier: g.constituent ?? null, currency: g.currency ?? 'USD',
        custom_fields: { first_name: g.first, last_name: g.last, comment: null, in_honor_of: null, in_memory_of: null },
        designations: (g.designations ?? []).map((d, i) => ({ id: 29_759 + i, name: d.name, amount: d.amount, unique_identifier: d.unique_identifier ?? null, write_in: null })),
        donation_type: g.donation_type ?? 'donation', donor_covered_payment_fee: '0.0', email: g.email ?? null, event_id: null, failure_reason: null,
        project: { id: 4521, type: 'Giving Form', name: 'Annual Fund', unique_identifier: 'AF-2026' },
        payer_name: `${g.first} ${g.last}`, state: g.state ?? 'authorized', value: g.value,
        confirmed_at: gcStamp(g.confirmed), captured_at: null, deposited_at: null, updated_at: gcStamp(g.updated ?? g.confirmed),
      };
      fake.gifts.push(gift);
      return gift;
    },
    change(gift, fields, updated) { Object.assign(gift, fields, { updated_at: gcStamp(updated) }); },
    revoke() { revoked = true; },
    throttle(n) { throttled = n; },
    clear() { fake.gifts.length = 0; seen.length = 0; revoked = false; throttled = 0; fake.outage = false; },
    close: async () => {},
  };

  const server = await startVendorServer((req, res) => {
    const q = req.url.searchParams;
    seen.push({ method: req.method, path: req.url.pathname, query: q, authorization: req.headers.authorization });
    if (fake.outage) return sendJson(res, 500, { message: 'Internal Server Error' });
    if (revoked || req.headers.authorization !== `Bearer ${GC_TOKEN}`) return sendJson(res, 401, { message: 'Invalid or expired API token' });
    if (req.method !== 'GET' || req.url.pathname !== '/api/v1/gifts') return sendJson(res, 404, { message: 'Not Found' });
    if (throttled > 0) { throttled--; return sendJson(res, 429, { message: 'Rate limit exceeded' }, { 'retry-after': '0' }); }
    const by = q.get('timestamp_type') ?? 'confirmed_at';
    if (!(TIMESTAMPS as readonly string[]).includes(by)) return sendJson(res, 400, { message: `timestamp_type must be one of ${TIMESTAMPS.join(', ')}` });
    const perPage = q.has('per_page') ? Number(q.get('per_page')) : 25;
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100) return sendJson(res, 400, { message: 'per_page must be between 1 and 100' });
    const at = (g: Gift) => (typeof g[by] === 'string' ? Date.parse(g[by] as string) : NaN);
    const bound = (name: string) => {
      const v = q.get(name);
      if (v === null) return null;
      const t = Date.parse(v);
      return Number.isNaN(t) ? undefined : t;
    };
    const start = bound('start_date');
    const end = bound('end_date');
    if (start === undefined || end === undefined) return sendJson(res, 400, { message: 'start_date and end_date must be ISO 8601 timestamps' });
    const rows = fake.gifts
      .filter((g) => !Number.isNaN(at(g)) && (start === null || at(g) >= start) && (end === null || at(g) < end))
      .sort((a, b) => at(a) - at(b) || a.id - b.id);
    const page = Number(q.get('page') ?? 1);
    sendJson(res, 200, rows.slice((page - 1) * perPage, page * perPage));
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
