/**
 * One client per vendor, shared by its connector's calls: authentication headers on every call,
 * the vendor's rate limits honoured (429 and 503 wait for Retry-After, up to a bound), transient
 * failures (server errors, dropped connections, timeouts) retried with exponential backoff inside
 * the batch, a refused access token refreshed once, a spent quota turned into QuotaExhausted (the
 * formula pauses until then), and other refusals answered as VendorRefusal with the vendor's
 * status and message for the record they concern.
 */
import type { SystemId } from '../../../src/domain/connectors/types.ts';
import { ConnectionProblem, processingError, refused, transientProblem } from '../connector.ts';
import { JSON_BODY, VENDOR_DATA_MAX_BYTES, vendorFetch, type VendorResponse } from '../vendorHttp.ts';
import type { NetworkPolicy } from '../network.ts';
import type { Pacer } from './pace.ts';
import { QuotaExhausted, retryAfterMs } from './problems.ts';

/** Tries of one call when it fails in a way that may pass. */
export const MAX_ATTEMPTS = 5;
/** The longest wait for a Retry-After inside a batch; a longer one is a spent quota. */
export const MAX_WAIT_MS = 60_000;
const BACKOFF_MS = 250;

/** The vendor refused one request (a 4xx other than sign-in and rate limits): its status and words. */
export class VendorRefusal extends ConnectionProblem {
  /** `body`: the answer's JSON, for a refusal the caller reads further (a 302 that names what was found) */
  constructor(name: string, readonly status: number, readonly vendorMessage: string, readonly body?: unknown) {
    super('processing-error', `${name} refused the request (HTTP ${status})${vendorMessage ? `: ${vendorMessage}` : '.'}`);
  }
}

export interface VendorCall {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** path and query on the vendor's documented host, or a whole URL on it (a `next_link`) */
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  /** headers of this call only (Salesforce's Sforce-Query-Options) */
  headers?: Record<string, string>;
  /** a limit of this kind of call, kept beside the client's (HubSpot's searches: a few a second) */
  pace?: Pacer;
  /** refusals the caller tells apart itself (a report the user may not read): thrown as a VendorRefusal with their status */
  own?: number[];
  /** a body other than JSON (an XML document, a form, Salesforce Bulk API's CSV), sent as it is with its content type */
  body?: { text: string; contentType: string };
  /** the answer is not JSON (CSV, XML): its text is answered as it is, and the Accept header says what is wanted */
  text?: string;
}

export interface VendorClientOptions {
  system: SystemId;
  name: string;
  /** the vendor's documented base URL (https://api.sky.blackbaud.com), or where it is now (a Salesforce org's instance URL) */
  baseUrl: string | (() => string);
  /** what signs the calls in, as a refusal names it ('API key'); an access token unless said */
  credential?: string;
  /** headers that authenticate a call; `force` after the vendor refused the last token */
  auth(force: boolean): Promise<Record<string, string>>;
  /** the vendor's words from an error body (its text too, for a vendor that does not answer JSON) */
  messageOf?(body: unknown, text: string): string;
  /** a spent quota the vendor announces its own way (SKY API: 403 with Retry-After) */
  quota?(res: VendorResponse, body: unknown): QuotaExhausted | null;
  /** a refusal the vendor explains better than its status does (Pardot's 401 for an unknown business unit), in words */
  refusal?(res: VendorResponse, body: unknown): ConnectionProblem | null;
  /** every answer, for what its headers say (Salesforce's daily usage in Sforce-Limit-Info) */
  observe?(res: VendorResponse): void;
  signal?: AbortSignal | undefined;
  /** where a host typed in the settings may lead (ConnectorContext.network), for a vendor at a user's address (Luminate Online) */
  network?: NetworkPolicy | undefined;
  /** the vendor's calls-per-second limit, kept before each call (kit/pace.ts) */
  pace?: Pacer;
  /** waits between tries; tests may shorten them */
  sleep?(ms: number): Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function defaultMessageOf(body: unknown): string {
  const first = Array.isArray(body) ? body[0] : body;
  if (first && typeof first === 'object') {
    const o = first as Record<string, unknown>;
    for (const k of ['message', 'error_description', 'error', 'title']) if (typeof o[k] === 'string') return (o[k] as string).slice(0, 300);
  }
  return '';
}

const parse = (text: string): unknown => { try { return text ? JSON.parse(text) : null; } catch { return undefined; } };

export interface VendorClient {
  /** the answer's JSON (null for an empty body) */
  call<T = unknown>(req: VendorCall): Promise<T>;
  /** the answer's text, for a call with `text` (its Accept) */
  text(req: VendorCall & { text: string }): Promise<string>;
  /** calls made, waits honoured and retries done, for tests and logs */
  readonly stats: { calls: number; waits: number; retries: number };
}

export function vendorClient(o: VendorClientOptions): VendorClient {
  const sleep = o.sleep ?? defaultSleep;
  const messageOf = o.messageOf ?? defaultMessageOf;
  const stats = { calls: 0, waits: 0, retries: 0 };
  const urlOf = (req: VendorCall) => {
    const base = typeof o.baseUrl === 'function' ? o.baseUrl() : o.baseUrl;
    const url = new URL(/^https?:\/\//.test(req.path) ? new URL(req.path).pathname + new URL(req.path).search : req.path, base);
    for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v));
    return url.toString();
  };

  const client: VendorClient = {
    stats,
    async text(req) { return client.call<string>(req); },
    async call<T>(req: VendorCall): Promise<T> {
      let forced = false;
      // a refused token is refreshed once, for the try right after the refusal only
      let refreshNow = false;
      for (let attempt = 1; ; attempt++) {
        o.signal?.throwIfAborted();
        let res: VendorResponse;
        try {
          await o.pace?.take(o.signal);
          await req.pace?.take(o.signal);
          stats.calls++;
          // signed in first: a vendor whose host comes with its token (Marketing Cloud) is known by then
          const auth = await o.auth(refreshNow);
          refreshNow = false;
          res = await vendorFetch(o.system, o.name, urlOf(req), {
            method: req.method ?? 'GET',
            headers: {
              accept: req.text ?? 'application/json', ...(req.json !== undefined ? JSON_BODY : {}), ...(req.body ? { 'content-type': req.body.contentType } : {}),
              ...req.headers, ...auth,
            },
            ...(req.json !== undefined ? { body: JSON.stringify(req.json) } : req.body ? { body: req.body.text } : {}),
            maxBytes: VENDOR_DATA_MAX_BYTES,
            signal: o.signal,
            ...(o.network ? { network: o.network } : {}),
          });
        } catch (err) {
          if (err instanceof ConnectionProblem && err.transient && attempt < MAX_ATTEMPTS) {
            stats.retries++;
            await sleep(BACKOFF_MS * 2 ** (attempt - 1));
            continue;
          }
          throw err;
        }
        o.observe?.(res);
        const text = await res.text();
        const body = parse(text);
        if (res.status >= 200 && res.status < 300) {
          if (req.text) return text as T;
          if (body === undefined) throw processingError(`${o.name} answered with something other than JSON.`);
          return body as T;
        }
        const quota = o.quota?.(res, body);
        if (quota) throw quota;
        const own = o.refusal?.(res, body);
        if (own) throw own;
        if (res.status === 401 && !forced) { forced = true; refreshNow = true; continue; }
        if (res.status === 401) throw refused(`${o.name} refused the ${o.credential ?? 'access token'} (HTTP 401).`);
        if (res.status === 429 || res.status === 503) {
          const wait = retryAfterMs(res.header?.('retry-after')) ?? BACKOFF_MS * 2 ** (attempt - 1);
          if (wait > MAX_WAIT_MS) {
            throw new QuotaExhausted(`${o.name} asked Tributary to wait ${Math.ceil(wait / 60_000)} minutes (HTTP ${res.status}); the formula goes on then.`, new Date(Date.now() + wait));
          }
          if (attempt < MAX_ATTEMPTS) { stats.waits++; await sleep(wait); continue; }
          throw transientProblem(processingError(`${o.name} asked Tributary to slow down (HTTP ${res.status}). Try again later.`));
        }
        if (res.status >= 500) {
          if (attempt < MAX_ATTEMPTS) { stats.retries++; await sleep(BACKOFF_MS * 2 ** (attempt - 1)); continue; }
          throw transientProblem(processingError(`${o.name} answered with a server error (HTTP ${res.status}). Try again later.`));
        }
        if (req.own?.includes(res.status)) throw new VendorRefusal(o.name, res.status, messageOf(body, text), body);
        if (res.status === 403) throw refused(`${o.name} refused access (HTTP 403)${messageOf(body, text) ? `: ${messageOf(body, text)}` : '.'}`);
        throw new VendorRefusal(o.name, res.status, messageOf(body, text));
      }
    },
  };
  return client;
}
