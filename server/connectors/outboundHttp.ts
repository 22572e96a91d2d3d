/**
 * One HTTP request from a connector: the host resolved and checked once (network.ts) and the
 * socket pinned to that address, no redirects followed, headers a user may not choose dropped,
 * a deadline over the whole exchange, and the answer read as a stream that stops at a byte
 * limit instead of filling memory. Failures become connection problems that name the system and
 * a reason, never the remote's own words.
 */
import http from 'node:http';
import https from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import { withoutForbiddenHeaders } from '../../src/domain/connectors/headers.ts';
import { ConnectionProblem, processingError, refused, transientProblem } from './connector.ts';
import { pinnedLookup, resolveHost, type NetworkPolicy } from './network.ts';

export const VENDOR_TIMEOUT_MS = 10_000;

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | URLSearchParams;
  /** where the host may lead; 'trusted' for a base URL the operator set */
  network: NetworkPolicy | 'trusted';
  /** the caller's own cancellation */
  signal?: AbortSignal | undefined;
  timeoutMs?: number;
  /** how the system is named in messages */
  name: string;
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** the body, decoded; past `maxBytes`, a processing error saying so (or `tooLargeDetail`) */
  read(maxBytes: number, tooLargeDetail?: string): Promise<Buffer>;
  /** closes the connection without reading the body */
  discard(): void;
}

export const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** A reason for the user: the error's code at most, since messages may carry what the remote sent. */
function failure(err: unknown, o: OutboundRequest, url: URL, timeout: AbortSignal): unknown {
  if (err instanceof ConnectionProblem) return err;
  if (timeout.aborted) return transientProblem(refused(`${o.name} did not answer within ${(o.timeoutMs ?? VENDOR_TIMEOUT_MS) / 1000} seconds.`));
  if (o.signal?.aborted) return o.signal.reason ?? err;
  const code = (err as { code?: unknown }).code;
  const where = o.name === url.host ? '' : ` (${url.host})`;
  if (code === 'ECONNREFUSED') return transientProblem(refused(`${o.name} refused the connection${where}.`));
  if (code === 'EAI_AGAIN') return transientProblem(refused(`The address of ${o.name} could not be found${where}.`));
  if (code === 'ENOTFOUND') return refused(`The address of ${o.name} could not be found${where}.`);
  if (code === 'ECONNRESET' || code === 'ETIMEDOUT' || code === 'EPIPE') return transientProblem(refused(`${o.name} dropped the connection${where}.`));
  if (typeof code === 'string' && /CERT|SSL|TLS/.test(code)) return refused(`${o.name}'s certificate is not trusted (${code}).`);
  if (typeof code === 'string' && /^[A-Z0-9_]{2,40}$/.test(code)) return refused(`${o.name} could not be reached (${code}).`);
  return refused(`${o.name} could not be reached.`);
}

function decoderFor(encoding: string | undefined): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null | 'unknown' {
  const e = (encoding ?? 'identity').trim().toLowerCase();
  if (e === '' || e === 'identity') return null;
  if (e === 'gzip' || e === 'x-gzip') return zlib.createGunzip();
  if (e === 'deflate') return zlib.createInflate();
  if (e === 'br') return zlib.createBrotliDecompress();
  return 'unknown';
}

export async function outboundRequest(url: URL, o: OutboundRequest): Promise<OutboundResponse> {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refused('The URL must start with https:// or http://.');
  const timeout = AbortSignal.timeout(o.timeoutMs ?? VENDOR_TIMEOUT_MS);
  const signal = o.signal ? AbortSignal.any([o.signal, timeout]) : timeout;
  const checked = o.network === 'trusted' ? null : await resolveHost(url.hostname, o.network);
  const body = o.body === undefined ? undefined : Buffer.from(String(o.body), 'utf8');
  const headers: Record<string, string> = {
    accept: 'application/json',
    'user-agent': 'Tributary/1.0',
    ...withoutForbiddenHeaders(o.headers ?? {}),
    'accept-encoding': 'gzip, deflate, br',
    ...(body ? { 'content-length': String(body.length) } : {}),
  };
  const client = url.protocol === 'https:' ? https : http;
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = client.request({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: o.method ?? 'GET',
      headers,
      // a connection of its own: a pooled socket could lead to an address checked for someone else
      agent: false,
      signal,
      ...(checked ? { lookup: pinnedLookup(checked) as never } : {}),
    }, resolve);
    req.on('error', (err) => reject(failure(err, o, url, timeout)));
    req.end(body);
  });

  return {
    status: res.statusCode ?? 0,
    headers: res.headers,
    discard: () => res.destroy(),
    async read(maxBytes, tooLargeDetail) {
      const decoder = decoderFor(res.headers['content-encoding']);
      if (decoder === 'unknown') {
        res.destroy();
        throw processingError(`${o.name} answered in an encoding Tributary does not read.`);
      }
      const tooLarge = () => processingError(tooLargeDetail ?? `${o.name} answered with more than ${megabytes(maxBytes)}, more than Tributary reads in one answer.`);
      const declared = Number(res.headers['content-length']);
      if (!decoder && Number.isFinite(declared) && declared > maxBytes) {
        res.destroy();
        throw tooLarge();
      }
      const stream: Readable = decoder ? pipeline(res, decoder, () => {}) : res;
      const chunks: Buffer[] = [];
      let total = 0;
      try {
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          total += chunk.length;
          // counted after decoding: a small compressed answer cannot unpack past the limit
          if (total > maxBytes) throw tooLarge();
          chunks.push(chunk);
        }
      } catch (err) {
        res.destroy();
        if (decoder) decoder.destroy();
        if (err instanceof ConnectionProblem) throw err;
        if (decoder && !timeout.aborted && !o.signal?.aborted && (err as { code?: string }).code?.startsWith('Z_')) {
          throw processingError(`${o.name} sent an answer that could not be decompressed.`);
        }
        throw failure(err, o, url, timeout);
      }
      return Buffer.concat(chunks);
    },
  };
}
