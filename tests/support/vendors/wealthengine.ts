/**
 * A local fake of the WealthEngine API v1 (dev.wealthengine.com), answering as documented:
 * "Authorization: APIKey {key}" (401 `{ "message": "Invalid API key" }` otherwise); POST
 * /v1/profile/find_one/by_email|by_phone|by_address/basic|full with the person's name and the
 * lookup field; a profile found answers 200 with { id, identity, wealth, giving, realestate }
 * (bands as { value, text }), none answers 404; a lookup WealthEngine cannot use answers 400
 * `{ "error": "…" }`; throttle(n) answers 429 with Retry-After: 0.
 */
import { sendJson, startVendorServer } from './harness.ts';

export const WE_KEY = 'we-api-key';

export interface WeSeen { path: string; body: Record<string, string>; authorization: string | undefined }
export interface WeProfile { id: number; email?: string; phone?: string; zip?: string; last_name: string; full_name: string; networth: string; gift_capacity: string; p2g: string }
export interface FakeWealthEngine {
  url: string;
  seen: WeSeen[];
  add(p: Omit<WeProfile, 'id'>): WeProfile;
  throttle(n: number): void;
  close(): Promise<void>;
}

const band = (text: string) => ({ value: 1, text });

export async function startFakeWealthEngine(): Promise<FakeWealthEngine> {
  const seen: WeSeen[] = [];
  const profiles: WeProfile[] = [];
  let throttled = 0;
  let nextId = 7_000_001;
  const fake: FakeWealthEngine = {
    url: '', seen,
    add(p) { const made = { id: nextId++, ...p }; profiles.push(made); return made; },
    throttle(n) { throttled = n; },
    close: async () => {},
  };
  const server = await startVendorServer((req, res) => {
    const body = (req.body && typeof req.body === 'object' ? req.body : {}) as Record<string, string>;
    seen.push({ path: req.url.pathname, body, authorization: req.headers.authorization });
    if (req.headers.authorization !== `APIKey ${WE_KEY}`) return sendJson(res, 401, { message: 'Invalid API key' });
    const m = /^\/v1\/profile\/find_one\/by_(email|phone|address)\/(basic|full)$/.exec(req.url.pathname);
    if (req.method !== 'POST' || !m) return sendJson(res, 404, { error: 'Not found' });
    if (throttled > 0) { throttled--; return sendJson(res, 429, { error: 'Rate limit exceeded' }, { 'retry-after': '0' }); }
    if (!body.last_name) return sendJson(res, 400, { error: 'last_name is required' });
    const by = m[1]!;
    if (by === 'address' && !/^\d{5}$/.test(body.zip ?? '')) return sendJson(res, 400, { error: `Invalid zip: ${body.zip ?? ''}` });
    const found = profiles.find((p) => p.last_name.toLowerCase() === body.last_name!.toLowerCase() && (
      by === 'email' ? p.email?.toLowerCase() === body.email?.toLowerCase() : by === 'phone' ? p.phone === body.phone : p.zip === body.zip));
    if (!found) return sendJson(res, 404, { error: 'No match found' });
    sendJson(res, 200, {
      id: found.id, identity: { full_name: found.full_name, last_name: found.last_name },
      wealth: { networth: band(found.networth) }, giving: { gift_capacity: band(found.gift_capacity), p2g_score: { value: '35', text: found.p2g } },
      ...(m[2] === 'full' ? { realestate: { total_realestate_value: band('$1-$250K') } } : {}),
    });
  });
  fake.url = server.url;
  fake.close = server.close;
  return fake;
}
