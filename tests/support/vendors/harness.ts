/**
 * What the vendor fakes share: an HTTP server on a free local port that hands each request, its
 * body read, to the fake (startVendorServer, readBody, sendJson); and, for a test file, a fake
 * started with Tributary's connectors pointed at it (withVendorFake).
 */
import http from 'node:http';
import type net from 'node:net';
import { baseUrlVariable } from '../../../server/connectors/vendorHttp.ts';
import type { SystemId } from '../../../src/domain/connectors/types.ts';
import { startTestServer, type TestServer } from '../server.ts';

/** A request to a fake, its body read whole. */
export interface FakeRequest {
  method: string;
  /** the request-target as sent */
  target: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  /** the body as text */
  raw: string;
  /** sent as application/x-www-form-urlencoded */
  form: boolean;
  /** the JSON body parsed; the text itself for a form, an empty body or what is not JSON */
  body: unknown;
}

export async function readBody(req: http.IncomingMessage): Promise<FakeRequest> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  const form = (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
  let body: unknown = raw;
  if (raw && !form) try { body = JSON.parse(raw); } catch { /* not JSON: the text */ }
  return { method: req.method!, target: req.url ?? '/', url: new URL(req.url ?? '/', 'http://fake'), headers: req.headers, raw, form, body };
}

/** A JSON answer; `null` or `undefined` sends no body. */
export function sendJson(res: http.ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}, contentType = 'application/json'): void {
  res.writeHead(status, { 'content-type': contentType, ...headers });
  res.end(payload === null || payload === undefined ? '' : JSON.stringify(payload));
}

export interface VendorServer {
  url: string;
  close(): Promise<void>;
}

/** A server on 127.0.0.1 and a free port; a fake that throws answers 500 with the error, so a test fails rather than waits. */
export async function startVendorServer(handle: (req: FakeRequest, res: http.ServerResponse) => unknown): Promise<VendorServer> {
  const server = http.createServer((req, res) => {
    void (async () => {
      try {
        await handle(await readBody(req), res);
      } catch (err) {
        if (!res.headersSent) sendJson(res, 500, { fakeError: err instanceof Error ? err.message : String(err) });
        else res.end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}

export interface VendorFakeSetup<F> {
  fake: F;
  /** CONNECTOR_BASE_URL_<SYSTEM> and the fake's URL, for the environment of a process started for the test (a worker) */
  env: Record<string, string>;
  /** stops the server (if one was asked for) and the fake, and gives the variable back its value from before */
  close(): Promise<void>;
}

export type VendorFakeWithServer<F> = VendorFakeSetup<F> & { server: TestServer };

/**
 * The vendor fake `start` makes, with this process's connectors sent to it (CONNECTOR_BASE_URL_<SYSTEM>,
 * which the connectors read when they call) and, given `server`, a test server started with that
 * variable in its settings too.
 */
export async function withVendorFake<F extends VendorServer>(system: SystemId, start: () => Promise<F>, opts: { server: Parameters<typeof startTestServer>[0] }): Promise<VendorFakeWithServer<F>>;
export async function withVendorFake<F extends VendorServer>(system: SystemId, start: () => Promise<F>): Promise<VendorFakeSetup<F>>;
export async function withVendorFake<F extends VendorServer>(system: SystemId, start: () => Promise<F>, opts: { server?: Parameters<typeof startTestServer>[0] } = {}): Promise<VendorFakeSetup<F> & { server?: TestServer }> {
  const variable = baseUrlVariable(system);
  const before = process.env[variable];
  const fake = await start();
  const env = { [variable]: fake.url };
  process.env[variable] = fake.url;
  let server: TestServer | undefined;
  const close = async () => {
    await server?.close();
    await fake.close();
    if (before === undefined) delete process.env[variable]; else process.env[variable] = before;
  };
  try {
    if (opts.server) server = await startTestServer({ ...opts.server, env: { ...opts.server.env, ...env } });
  } catch (err) {
    await close();
    throw err;
  }
  return { fake, env, server, close };
}
