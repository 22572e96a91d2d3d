/**
 * Calls to vendors' APIs: a 10-second timeout, answers mapped to SPEC.md's connection error
 * codes, and base URLs the operator can point elsewhere (CONNECTOR_BASE_URL_<SYSTEM>, for
 * example CONNECTOR_BASE_URL_MAILCHIMP=http://127.0.0.1:9000), which the tests use for their
 * local fakes of each vendor's authentication endpoint.
 */
import type { SystemId } from '../../src/domain/connectors/types.ts';
import { ConnectionProblem, processingError, refused } from './connector.ts';
import { checkHost } from './network.ts';

export const VENDOR_TIMEOUT_MS = 10_000;

export const baseUrlVariable = (system: SystemId) => `CONNECTOR_BASE_URL_${system.toUpperCase().replace(/-/g, '_')}`;

/** The operator's override for a system's base URL, when set. */
export function baseUrlOverride(system: SystemId): string | undefined {
  const value = process.env[baseUrlVariable(system)];
  return value ? value.replace(/\/$/, '') : undefined;
}

/**
 * The URL to call: `defaultUrl` (built from the vendor's documented host, perhaps from the user's
 * settings) unless the operator overrode the system's base URL, which then keeps only the path.
 */
export function vendorUrl(system: SystemId, defaultUrl: string): { url: string; trusted: boolean } {
  const override = baseUrlOverride(system);
  if (!override) return { url: defaultUrl, trusted: false };
  const u = new URL(defaultUrl);
  return { url: `${override}${u.pathname}${u.search}`, trusted: true };
}

export interface VendorRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | URLSearchParams;
  /** the host comes from the user's settings: check where it leads first */
  userHost?: boolean;
}

/** Fetches, turning failures to reach the system into 'Connection Failed' with a plain reason. */
export async function vendorFetch(system: SystemId, name: string, defaultUrl: string, req: VendorRequest = {}): Promise<Response> {
  const { url, trusted } = vendorUrl(system, defaultUrl);
  if (req.userHost && !trusted) await checkHost(new URL(url).hostname);
  try {
    return await fetch(url, {
      method: req.method ?? 'GET',
      headers: { accept: 'application/json', 'user-agent': 'Tributary/1.0', ...req.headers },
      body: req.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(VENDOR_TIMEOUT_MS),
    });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') throw refused(`${name} did not answer within ${VENDOR_TIMEOUT_MS / 1000} seconds.`);
    const code = e.cause?.code;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw refused(`The address of ${name} could not be found (${new URL(url).host}).`);
    if (code === 'ECONNREFUSED') throw refused(`${name} refused the connection (${new URL(url).host}).`);
    if (code && /CERT|SSL|TLS/.test(code)) throw refused(`${name}'s certificate is not trusted (${code}).`);
    throw refused(`${name} could not be reached: ${code ?? e.message}.`);
  }
}

/** Reads a vendor's answer: refused credentials, an outage, or the JSON it promised. */
export async function expectOk(name: string, res: Response, what = 'the credentials'): Promise<unknown> {
  const text = await res.text().catch(() => '');
  if (res.status === 401 || res.status === 403) throw refused(`${name} refused ${what} (HTTP ${res.status}${vendorMessage(text)}).`);
  if (res.status >= 300 && res.status < 400) throw refused(`${name} redirected the request elsewhere (HTTP ${res.status}); check the URL.`);
  if (res.status >= 400 && res.status < 500) throw refused(`${name} did not accept ${what} (HTTP ${res.status}${vendorMessage(text)}).`);
  if (res.status >= 500) throw processingError(`${name} answered with a server error (HTTP ${res.status}). Try again later.`);
  return text;
}

export async function expectJson<T = Record<string, unknown>>(name: string, res: Response, what?: string): Promise<T> {
  const text = (await expectOk(name, res, what)) as string;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw processingError(`${name} answered with something other than JSON.`);
  }
}

/** A short, safe excerpt of the vendor's own error message. */
function vendorMessage(text: string): string {
  let msg = '';
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const candidate = body.error_description ?? body.message ?? body.detail ?? body.error ?? body.title;
    if (typeof candidate === 'string') msg = candidate;
  } catch { /* not JSON */ }
  msg = msg.replace(/[^\x20-\x7e]/g, '').slice(0, 120);
  return msg ? `: ${msg}` : '';
}

export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

export const form = (fields: Record<string, string | undefined>) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) p.set(k, v);
  return p;
};

export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
export const JSON_BODY = { 'content-type': 'application/json' };

export function requireField<T>(value: T | undefined | null, name: string, what: string): T {
  if (value === undefined || value === null || value === '') throw processingError(`${name} answered without ${what}.`);
  return value;
}

export { ConnectionProblem };
