/**
 * Calls to vendors' APIs: a 10-second timeout, answers of at most 1 MB, answers mapped to
 * SPEC.md's connection error codes, and base URLs the operator can point elsewhere
 * (CONNECTOR_BASE_URL_<SYSTEM>, for example CONNECTOR_BASE_URL_MAILCHIMP=http://127.0.0.1:9000),
 * which the tests use for their local fakes of each vendor's authentication endpoint. Every other
 * host, the vendor's own included, is resolved, checked and connected to as network.ts says.
 */
import type { SystemId } from '../../src/domain/connectors/types.ts';
import { ConnectionProblem, processingError, refused, transientProblem } from './connector.ts';
import { PUBLIC_ONLY, type NetworkPolicy } from './network.ts';
import { outboundRequest, VENDOR_TIMEOUT_MS } from './outboundHttp.ts';

export { VENDOR_TIMEOUT_MS };

/** Sign-in and test answers are small; anything past this is not the answer they expect. */
export const VENDOR_MAX_BYTES = 1024 * 1024;
/** A vendor's answer that carries data (a report's description, a page of records). */
export const VENDOR_DATA_MAX_BYTES = 10 * 1024 * 1024;

export const baseUrlVariable = (system: SystemId) => `CONNECTOR_BASE_URL_${system.toUpperCase().replace(/-/g, '_')}`;

/**
 * The operator's override for a system's base URL, when set. Never in production: a base URL
 * pointed elsewhere would send real credentials to whoever answers there (config.ts refuses to
 * start with one; this refuses the call should the environment change under a running process).
 */
export function baseUrlOverride(system: SystemId): string | undefined {
  const value = process.env[baseUrlVariable(system)];
  if (!value) return undefined;
  if (process.env.NODE_ENV === 'production') throw refused(`${baseUrlVariable(system)} is set, and vendor base URLs cannot be redirected in production.`);
  return value.replace(/\/$/, '');
}

/** The base URL overrides set in this environment, by variable name. */
export function baseUrlOverridesIn(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env).filter((k) => k.startsWith('CONNECTOR_BASE_URL_') && env[k]);
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
  /** where a host from the user's settings may lead (ConnectorContext.network); vendors' own hosts are public */
  network?: NetworkPolicy | undefined;
  /** the most the answer may hold (VENDOR_MAX_BYTES unless it carries data) */
  maxBytes?: number;
  signal?: AbortSignal | undefined;
}

/** A vendor's answer, read in full (within VENDOR_MAX_BYTES). */
export interface VendorResponse {
  status: number;
  text(): Promise<string>;
  /** the answer's bytes, for one that is no text (an archive) */
  bytes?(): Promise<Buffer>;
  /** one response header, lower case name (Retry-After) */
  header?(name: string): string | undefined;
}

/** Calls a vendor, turning failures to reach it into 'Connection Failed' with a plain reason. */
export async function vendorFetch(system: SystemId, name: string, defaultUrl: string, req: VendorRequest = {}): Promise<VendorResponse> {
  const { url, trusted } = vendorUrl(system, defaultUrl);
  const res = await outboundRequest(new URL(url), {
    name,
    method: req.method ?? 'GET',
    headers: req.headers ?? {},
    ...(req.body !== undefined ? { body: req.body } : {}),
    network: trusted ? 'trusted' : req.network ?? PUBLIC_ONLY,
    signal: req.signal,
  });
  const bytes = await res.read(req.maxBytes ?? VENDOR_MAX_BYTES);
  const header = (h: string) => { const v = res.headers[h.toLowerCase()]; return Array.isArray(v) ? v[0] : v; };
  return { status: res.status, text: async () => bytes.toString('utf8'), bytes: async () => bytes, header };
}

/**
 * Reads a vendor's answer: refused credentials, an outage, or the text it promised. Only the
 * status code is reported: the answer itself could be anyone's (a host the user typed).
 */
export async function expectOk(name: string, res: VendorResponse, what = 'the credentials'): Promise<unknown> {
  const text = await res.text();
  if (res.status === 401 || res.status === 403) throw refused(`${name} refused ${what} (HTTP ${res.status}).`);
  if (res.status >= 300 && res.status < 400) throw refused(`${name} redirected the request elsewhere (HTTP ${res.status}); check the URL.`);
  if (res.status === 429 || res.status === 408) throw transientProblem(processingError(`${name} asked Tributary to slow down (HTTP ${res.status}). Try again later.`));
  if (res.status >= 400 && res.status < 500) throw refused(`${name} did not accept ${what} (HTTP ${res.status}).`);
  if (res.status >= 500) throw transientProblem(processingError(`${name} answered with a server error (HTTP ${res.status}). Try again later.`));
  if (res.status < 200) throw processingError(`${name} answered with HTTP ${res.status}.`);
  return text;
}

export async function expectJson<T = Record<string, unknown>>(name: string, res: VendorResponse, what?: string): Promise<T> {
  const text = (await expectOk(name, res, what)) as string;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw processingError(`${name} answered with something other than JSON.`);
  }
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
