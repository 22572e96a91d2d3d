/**
 * Every route the Hono app registers, sent what no browser sends: missing, doubled and oversized
 * identity headers, no or a false token, hostile path parameters, every field of its JSON body
 * schema as every wrong type, broken, oversized and mislabelled JSON, multipart bodies without
 * their end, and bodies cut off by the client. Every refusal must be a 4xx problem+json with a
 * catalogue title that shows no stack trace or SQL, and the process must keep answering with no
 * uncaught error. Routes come from `app.routes` and body schemas from `jsonBody` (bodySchemaOf in
 * server/http/validation.ts): a new route joins this suite by being registered, with nothing to add
 * here, unless it is public (PUBLIC_ROUTES) or takes multipart (MULTIPART_ROUTES).
 *
 * The server runs in this process, so an 'error' event nobody listens to (which would end a real
 * server) is caught here as an uncaught exception and reported for the route that caused it.
 */
import { randomUUID } from 'node:crypto';
import { SERVICES } from '../../src/domain/api/services.ts';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPLOAD_PATH } from '../../server/http/flatFileService.ts';
import { SANDBOX_IMPORT_PATH } from '../../server/http/integrations.ts';
import { formulaStatusStream } from '../../src/domain/api/formulaStatusStream.ts';
import type { AppEnv } from '../../server/http/env.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { installErrorHandling } from '../../server/http/problem.ts';
import { sessionFor, type Session } from '../support/api.ts';
import {
  accepts, bodyCases, fillPath, leaksIn, problemDefects, routesOf, send, sendAborted, type FuzzRequest, type RawResponse, type RouteInfo,
} from '../support/fuzz.ts';
import { startTestServer } from '../support/server.ts';

/**
 * Routes anyone may call without signing in (public by their contracts in src/domain/api, and the
 * few routes outside any contract); every other route must refuse a missing token with 401.
 */
const PUBLIC_ROUTES = new Set([
  ...SERVICES.flatMap((s) => Object.values(s.endpoints).filter((e) => e.access === 'public')
    .map((e) => `${e.method.toUpperCase()} ${s.basePath}${e.path === '/' ? '' : e.path}`)),
  'GET /health',
  'GET /app-config.json',
  'GET /openapi.json',
  'GET /api-docs',
  // where a vendor sends the browser back after its consent page: it carries no sign-in and only
  // forwards the answer to the Connections screen, where the signed-in user completes it
  'GET /integrations/oauth/callback',
]);
/** Routes that read multipart/form-data (the others ignore such a body or refuse it as not JSON). */
const MULTIPART_ROUTES = new Set([`POST ${UPLOAD_PATH}`, `POST ${SANDBOX_IMPORT_PATH}`]);

/**
 * Cases that fail today because of code outside the upload path; each is left out of its batch and
 * runs on its own as `it.fails`, which turns red once the case passes: then delete its line here.
 * Keyed by "METHOD path > case name" (or "toProblem > what is thrown"), valued by what is wrong.
 */
const KNOWN_FAILURES: Record<string, string> = {
};

/** Bounds: the suite's size grows with the routes, not with the fuzzer's imagination. */
const MAX_REQUESTS_PER_ROUTE = 130;
const BODY_CASES_PER_ROUTE = 70;
const PARALLEL = 6;

/** Routes that answer a valid request with a stream that stays open: no valid request is sent to them. */
const STREAM_ROUTES = new Set([`GET ${formulaStatusStream.path}`]);

/** Query parameters the routes read, to be sent wrong; unknown ones must be ignored or refused alike. */
const QUERY_NAMES = ['limit', 'cursor', 'q', 'from', 'to', 'type', 'actor', 'formulaId', 'page', 'search', 'sort', 'view', 'reference'];

/** Query strings no browser sends, as they go on the wire. */
const HOSTILE_QUERIES: [string, string][] = [
  ['SQL in every parameter', QUERY_NAMES.map((n) => `${n}=%27%20or%20%271%27%3D%271`).join('&')],
  ['every parameter twice', QUERY_NAMES.map((n) => `${n}=1&${n}=2`).join('&')],
  ['3000-character values', QUERY_NAMES.map((n) => `${n}=${'x'.repeat(3000)}`).slice(0, 4).join('&')],
  ['broken percent escapes', QUERY_NAMES.map((n) => `${n}=%ZZ%C0%AE`).join('&')],
  ['NUL and right-to-left overrides', QUERY_NAMES.map((n) => `${n}=a%00b%E2%80%AEc`).join('&')],
  ['bracketed and prototype names', 'limit[]=1&q[a]=b&__proto__[polluted]=yes&constructor[prototype][polluted]=yes&__proto__=x'],
  ['numbers out of range', 'limit=-1&page=1e309&cursor=NaN&from=9999999-99-99&to=-0'],
  ['names without values and empty names', '&&=&limit&q=&=x&&'],
];

/** Path values no route should accept, as they go on the wire (already percent-encoded). */
const IMPLAUSIBLE_PARAMS: [string, string][] = [
  ['SQL', "'%20or%20'1'%3D'1"],
  ['traversal', '..%2F..%2F..%2Fetc%2Fpasswd'],
  ['NUL', 'a%00b'],
  ['a right-to-left override', 'a%E2%80%AEb'],
  ['3000 characters', 'x'.repeat(3000)],
  ['a broken percent escape', '%ZZ%C0%AE'],
];

const server = await startTestServer();
const base = server.url;
const routes = routesOf(server.app);
let admin: Session;
let full: Record<string, string>;
let requestsSent = 0;
const requestsByRoute = new Map<string, number>();

// an 'error' event with no listener would end a real server; here it surfaces as one of these
const uncaught: string[] = [];
const onUncaught = (err: unknown) => { uncaught.push(err instanceof Error ? `${err.name}: ${err.message}` : String(err)); };

beforeAll(async () => {
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  admin = await sessionFor(base, 'administrator@demo.tributary.test');
  const res = await fetch(`${base}/account-management/v1/Tenant/organization/${admin.orgId}/user/${encodeURIComponent(admin.auth0Id)}`, { headers: admin.headers });
  const { tenants } = await res.json() as { tenants: { tenantId: string; roles: string[] }[] };
  const adminTenant = tenants.find((t) => t.roles.includes('Administrator'))!;
  full = { ...admin.headers, tenantId: adminTenant.tenantId };
});
afterAll(async () => {
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
  await server.close();
});

// ---------------------------------------------------------------- cases and how answers are judged

interface Case {
  name: string;
  request: FuzzRequest;
  /** a 4xx refusal, one of these statuses, or (for a valid request) anything short of a server error */
  expect: 'refused' | 'valid' | number[];
  /** the problem's code, when it must be a particular one */
  code?: string;
  /** declare this many bytes, send the body, then close the socket */
  abortAt?: number;
}

function judge(res: RawResponse, c: Case): string[] {
  const wrong: string[] = [];
  if (res.status >= 500) wrong.push('a server error');
  else if (c.expect === 'refused' && !(res.status >= 400 && res.status < 500)) wrong.push('not refused with a 4xx');
  else if (Array.isArray(c.expect) && !c.expect.includes(res.status)) wrong.push(`not ${c.expect.join(' or ')}`);
  if (res.status >= 400) {
    wrong.push(...problemDefects(res));
    if (c.code) {
      const code = (() => { try { return (JSON.parse(res.text) as { code?: unknown }).code; } catch { return undefined; } })();
      if (code !== c.code) wrong.push(`code ${JSON.stringify(code)}, not ${c.code}`);
    }
  } else {
    wrong.push(...leaksIn(res.text).filter((l) => l === 'a stack frame').map((l) => `${l} in the body`));
  }
  return wrong;
}

const short = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}...(${s.length} characters)` : s);

/** Sends the cases a few at a time; answers what was wrong, then whether the process is still well. */
async function run(route: string, all: Case[], { known = false } = {}): Promise<string[]> {
  const cases = known ? all : all.filter((c) => !KNOWN_FAILURES[`${route} > ${c.name}`]);
  requestsSent += cases.length;
  requestsByRoute.set(route, (requestsByRoute.get(route) ?? 0) + cases.length);
  expect(requestsByRoute.get(route), `requests for ${route}`).toBeLessThanOrEqual(MAX_REQUESTS_PER_ROUTE);
  const findings: string[] = [];
  for (let i = 0; i < cases.length; i += PARALLEL) {
    await Promise.all(cases.slice(i, i + PARALLEL).map(async (c) => {
      if (c.abortAt !== undefined) {
        await sendAborted(base, { ...c.request, declaredLength: c.abortAt });
        return;
      }
      let res: RawResponse;
      try {
        res = await send(base, c.request);
      } catch (err) {
        findings.push(`${c.name}: no answer (${err instanceof Error ? err.message : String(err)})`);
        return;
      }
      const wrong = judge(res, c);
      if (wrong.length) {
        findings.push(`${c.name}: ${c.request.method} ${short(c.request.path, 120)} answered ${res.status} ${short(res.text, 300)} -- ${wrong.join('; ')}`);
      }
    }));
  }
  findings.push(...await aftermath());
  return findings;
}

/** The test server's listening socket (it runs in this process), to count the connections it still holds. */
const listener = (() => {
  const port = Number(new URL(base).port);
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  const found = handles.find((h): h is net.Server => h instanceof net.Server && (h.address() as AddressInfo | null)?.port === port);
  if (!found) throw new Error(`no server listening on port ${port} in this process`);
  return found;
})();
const connectionsHeld = () => new Promise<number>((resolve, reject) => listener.getConnections((err, n) => (err ? reject(err) : resolve(n))));

/**
 * After a batch: no uncaught error, and /health still answers. Some errors surface a moment after
 * the answer, as the server finishes with a connection (a body cut off, a socket closed under a
 * reply): the batch is over once the server holds none of its connections, and a few milliseconds
 * later.
 */
async function aftermath(): Promise<string[]> {
  for (const end = Date.now() + 5000; (await connectionsHeld()) > 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 2));
  await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setImmediate(r));
  const out = uncaught.splice(0).map((e) => `uncaught in the server process: ${e}`);
  const health = await send(base, { method: 'GET', path: '/health' }).catch((err: Error) => ({ status: 0, text: err.message }));
  if (health.status !== 200) out.push(`GET /health answered ${health.status} ${short(health.text, 200)} afterwards`);
  if (Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')) out.push('Object.prototype was polluted');
  return out;
}

const keyOf = (r: RouteInfo) => `${r.method} ${r.path}`;
const isPublic = (r: RouteInfo) => PUBLIC_ROUTES.has(keyOf(r));

/** Path values a caller could mean: the caller's own organisation and user, a well-formed unknown id. */
function plausibleParams(): Record<string, string> {
  const values: Record<string, string> = {
    orgId: admin.orgId, userId: admin.auth0Id, id: randomUUID(), key: 'fuzz-flag', namespace: 'default',
    subdomain: 'demo', object: 'Contact', reportId: '00O000000000001',
  };
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, encodeURIComponent(v)]));
}

/** The route's valid body (from its schema), so only the one thing a case breaks is wrong. */
const validBodies = new Map<string, unknown>();
async function validBodyOf(route: RouteInfo): Promise<unknown> {
  if (!route.bodySchema) return undefined;
  if (!validBodies.has(keyOf(route))) validBodies.set(keyOf(route), (await bodyCases(route.bodySchema, 0)).base);
  return validBodies.get(keyOf(route));
}

async function requestFor(route: RouteInfo, headers: Record<string, string | string[]>, params = plausibleParams()): Promise<FuzzRequest> {
  const body = await validBodyOf(route);
  return {
    method: route.method, path: fillPath(route, params),
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  };
}

const without = (headers: Record<string, string>, name: string) => Object.fromEntries(Object.entries(headers).filter(([k]) => k !== name));

// ---------------------------------------------------------------- the cases per route

async function identityCases(route: RouteInfo): Promise<Case[]> {
  const pub = isPublic(route);
  const unauthenticated = pub ? 'valid' : [401];
  const refused = pub ? 'valid' : 'refused';
  const c = async (name: string, headers: Record<string, string | string[]>, expect: Case['expect']): Promise<Case> =>
    ({ name, request: await requestFor(route, headers), expect });
  return Promise.all([
    c('no token', without(full, 'authorization'), unauthenticated),
    c('a token that is not one', { ...full, authorization: 'Bearer not-a-token' }, unauthenticated),
    c('a Basic credential', { ...full, authorization: 'Basic YWRtaW46YWRtaW4=' }, unauthenticated),
    c('an 8,000-character token', { ...full, authorization: `Bearer ${'a'.repeat(8000)}` }, unauthenticated),
    ...['orgId', 'clientId', 'userId', 'userEmail'].map((h) => c(`no ${h} header`, without(full, h), refused)),
    ...['orgId', 'clientId', 'userId', 'userEmail', 'tenantId'].map((h) => c(`the ${h} header twice`, { ...full, [h]: [full[h]!, full[h]!] }, refused)),
    c('a 10,000-character orgId header', { ...full, orgId: 'x'.repeat(10_000) }, refused),
    c('a 10,000-character userEmail header', { ...full, userEmail: `${'x'.repeat(10_000)}@example.org` }, refused),
    c('a tenantId header that is not an id', { ...full, tenantId: "1' or '1'='1" }, refused),
  ]);
}

async function paramCases(route: RouteInfo): Promise<Case[]> {
  const cases: Case[] = [
    { name: 'plausible parameters', request: await requestFor(route, full), expect: 'valid' },
    {
      name: 'well-formed ids of nothing',
      request: await requestFor(route, full, { ...plausibleParams(), ...Object.fromEntries(route.params.map((p) => [p, '00000000-0000-4000-8000-000000000000'])) }),
      expect: 'valid',
    },
  ];
  for (const param of route.params) {
    for (const [what, value] of IMPLAUSIBLE_PARAMS) {
      cases.push({ name: `${param} as ${what}`, request: await requestFor(route, full, { ...plausibleParams(), [param]: value }), expect: 'refused' });
    }
  }
  return cases;
}

async function bodyFieldCases(route: RouteInfo): Promise<Case[]> {
  const { cases } = await bodyCases(route.bodySchema!, BODY_CASES_PER_ROUTE);
  const path = fillPath(route, plausibleParams());
  return cases.map((c) => ({
    name: `body: ${c.name}`,
    request: { method: route.method, path, headers: { ...full, 'content-type': 'application/json' }, body: JSON.stringify(c.body) },
    ...(c.valid ? { expect: 'valid' as const } : { expect: [400], code: 'validation-failed' }),
  }));
}

const TRUNCATED_MULTIPART = '--xx\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nabc';
const BROKEN_PART_HEADER = '--xx\r\nContent-Disposition form-data\r\n\r\nabc\r\n--xx--\r\n';

async function bodyShapeCases(route: RouteInfo): Promise<Case[]> {
  const p = fillPath(route, plausibleParams());
  const schema = route.bodySchema;
  const multipart = MULTIPART_ROUTES.has(keyOf(route));
  const valid = await validBodyOf(route);
  const req = (body: string | Buffer, contentType?: string, extra: Partial<FuzzRequest> = {}): FuzzRequest => ({
    method: route.method, path: p, headers: contentType ? { ...full, 'content-type': contentType } : full, body, ...extra,
  });
  const multipartType = 'multipart/form-data; boundary=xx';
  const aborted: Case[] = [
    { name: 'a JSON body cut off by the client', request: req('{"a":"', 'application/json'), expect: 'valid', abortAt: 10_000 },
    { name: 'a multipart body cut off by the client', request: req(`${TRUNCATED_MULTIPART}${'a'.repeat(5000)}`, multipartType), expect: 'valid', abortAt: 1024 * 1024 },
  ];
  if (route.method === 'GET') {
    return [...aborted, { name: 'a multipart body without its end on a GET', request: req(TRUNCATED_MULTIPART, multipartType), expect: 'valid' }];
  }

  const json = JSON.stringify(valid ?? {});
  const polluting = `{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},${json.slice(1).replace(/^}$/, '"x":1}')}`;
  const parseable = (text: string) => { try { return { ok: true as const, value: JSON.parse(text) as unknown }; } catch { return { ok: false as const }; } };
  /** for a JSON route: 400 for what does not parse or fails the schema; else a valid request */
  const byJson = async (text: string): Promise<Pick<Case, 'expect' | 'code'>> => {
    if (!schema) return { expect: 'valid' };
    const parsed = parseable(text);
    if (!parsed.ok) return { expect: [400] };
    return (await accepts(schema, parsed.value, true)) ? { expect: 'valid' } : { expect: [400], code: 'validation-failed' };
  };
  const notJson = schema ? [415] : 'valid';
  const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  const huge = Buffer.alloc(1024 * 1024 + 1, 0x20);
  huge.write('{"a":"');
  huge.write('"}', huge.length - 2);
  return [
    ...aborted,
    { name: 'broken JSON', request: req('{"a":', 'application/json'), ...await byJson('{"a":') },
    { name: 'JSON with trailing garbage', request: req(`${json} x`, 'application/json'), ...await byJson(`${json} x`) },
    { name: 'an empty JSON body', request: req('', 'application/json'), ...await byJson('') },
    { name: 'JSON nested 10,000 deep', request: req(deep, 'application/json'), ...await byJson(deep) },
    { name: 'a body that would pollute prototypes', request: req(polluting, 'application/json'), ...await byJson(polluting) },
    { name: 'JSON labelled text/plain', request: req(json, 'text/plain'), expect: notJson },
    { name: 'JSON labelled application/json-seq', request: req(json, 'application/json-seq'), expect: notJson },
    { name: 'JSON labelled as a form', request: req(json, 'application/x-www-form-urlencoded'), expect: notJson },
    { name: 'JSON with no content type', request: req(json), expect: notJson },
    { name: 'JSON over 1MB with its length', request: req(huge, 'application/json'), expect: 'refused' },
    { name: 'JSON over 1MB without a length', request: req(huge, 'application/json', { chunked: true }), expect: schema ? [413] : 'valid' },
    { name: 'a multipart body without its end', request: req(TRUNCATED_MULTIPART, multipartType), expect: multipart ? [400] : notJson },
    { name: 'a multipart body with a broken part header', request: req(BROKEN_PART_HEADER, multipartType), expect: multipart ? 'refused' : notJson },
    { name: 'a multipart body with no boundary', request: req(TRUNCATED_MULTIPART, 'multipart/form-data'), expect: multipart ? 'refused' : notJson },
  ];
}

/** GET routes and the multipart ones read query strings: each hostile one gets an answer short of a server error. */
const readsQuery = (route: RouteInfo) => (route.method === 'GET' || MULTIPART_ROUTES.has(keyOf(route))) && !STREAM_ROUTES.has(keyOf(route));

async function queryCases(route: RouteInfo): Promise<Case[]> {
  const base = await requestFor(route, full);
  return HOSTILE_QUERIES.map(([what, query]) => ({ name: `query: ${what}`, request: { ...base, path: `${base.path}?${query}` }, expect: 'valid' }));
}

/** Every case the suite sends to a route. */
async function casesFor(route: RouteInfo): Promise<Case[]> {
  return [
    ...await identityCases(route),
    ...(readsQuery(route) ? await queryCases(route) : []),
    ...(route.params.length ? await paramCases(route) : []),
    ...(route.bodySchema ? await bodyFieldCases(route) : []),
    ...await bodyShapeCases(route),
  ];
}

// ---------------------------------------------------------------- the suite

it('finds the routes in the app, with the body schema of every jsonBody route', () => {
  const keys = routes.map(keyOf);
  expect(keys).toEqual(expect.arrayContaining([
    'GET /health', `POST ${UPLOAD_PATH}`, 'GET /flat-file-service/v1/uploads/:id', 'PATCH /account-management/v1/user/active-tenant',
    'POST /integrations/v1/data-sources', 'PUT /web-api/v1/flags/:key', 'GET /internal/v1/evaluation/snapshot/namespace/:namespace',
  ]));
  expect(routes.filter((r) => r.bodySchema).map(keyOf)).toEqual(expect.arrayContaining([
    'PATCH /account-management/v1/user/active-tenant', 'POST /integrations/v1/data-sources', 'POST /integrations/v1/data-sources/test',
    'PATCH /integrations/v1/data-sources/:id', 'PUT /web-api/v1/flags/:key', 'PATCH /web-api/v1/flags/:key',
  ]));
  for (const key of [...PUBLIC_ROUTES, ...MULTIPART_ROUTES]) expect(keys, `${key} is still registered`).toContain(key);
});

it('sends every case the known-failure list names (so none of them hides a renamed case)', async () => {
  for (const key of Object.keys(KNOWN_FAILURES).filter((k) => !k.startsWith('toProblem > '))) {
    const route = routes.find((r) => key.startsWith(`${keyOf(r)} > `));
    expect(route, key).toBeDefined();
    expect((await casesFor(route!)).map((c) => c.name), key).toContain(key.slice(keyOf(route!).length + 3));
  }
});

for (const route of routes) {
  describe(keyOf(route), () => {
    it(isPublic(route) ? 'answers whatever identity headers come, without a server error' : 'refuses a missing or false identity with a 4xx problem', async () => {
      expect(await run(keyOf(route), await identityCases(route))).toEqual([]);
    });

    if (route.params.length) {
      it('refuses hostile path parameters with a 4xx problem', async () => {
        expect(await run(keyOf(route), await paramCases(route))).toEqual([]);
      });
    }

    if (readsQuery(route)) {
      it('answers hostile query strings without a server error, refusals as problems', async () => {
        expect(await run(keyOf(route), await queryCases(route))).toEqual([]);
      });
    }

    if (route.bodySchema) {
      it('refuses every field of its body as every wrong type with 400 validation-failed', async () => {
        expect(await validBodyOf(route), 'a valid body made from the schema').not.toBeUndefined();
        expect(await run(keyOf(route), await bodyFieldCases(route))).toEqual([]);
      });
    }

    it('survives broken, oversized, mislabelled, unfinished and abandoned bodies', async () => {
      expect(await run(keyOf(route), await bodyShapeCases(route))).toEqual([]);
    });

    for (const [key, why] of Object.entries(KNOWN_FAILURES).filter(([k]) => k.startsWith(`${keyOf(route)} > `))) {
      const name = key.slice(keyOf(route).length + 3);
      it.fails(`known failure (${why}): ${name}`, async () => {
        const c = (await casesFor(route)).filter((x) => x.name === name);
        expect(await run(keyOf(route), c, { known: true })).toEqual([]);
      });
    }
  });
}

describe('whatever the route', () => {
  it('answers a method no route takes with a 404 problem', async () => {
    const byPath = new Map<string, RouteInfo[]>();
    for (const r of routes) byPath.set(r.path, [...(byPath.get(r.path) ?? []), r]);
    const cases: Case[] = [...byPath.values()].map((rs) => {
      const method = ['PUT', 'POST', 'DELETE', 'PATCH', 'GET'].find((m) => !rs.some((r) => r.method === m))!;
      return { name: `${method} ${rs[0]!.path}`, request: { method, path: fillPath(rs[0]!, plausibleParams()), headers: full }, expect: [404] };
    });
    expect(await run('any path, another method', cases)).toEqual([]);
  });

  it('refuses headers past the server\'s limit before any route, and keeps answering', async () => {
    const res = await send(base, { method: 'GET', path: '/health', headers: { ...full, orgId: 'x'.repeat(64 * 1024) } });
    expect(res.status).toBe(431);
    expect(leaksIn(res.text)).toEqual([]);
    expect(await aftermath()).toEqual([]);
  });

  it('kept the process well throughout: /health answers, nothing left in or open on the file store', async () => {
    expect(await aftermath()).toEqual([]);
    const store = path.join(server.config.dataDir, 'files');
    const files = fs.existsSync(store) ? fs.readdirSync(store, { recursive: true, encoding: 'utf8' }).filter((f) => fs.statSync(path.join(store, f)).isFile()) : [];
    expect(files).toEqual([]);
    const open = fs.readdirSync('/proc/self/fd').flatMap((fd) => { try { return [fs.readlinkSync(`/proc/self/fd/${fd}`)]; } catch { return []; } });
    expect(open.filter((f) => f.startsWith(store))).toEqual([]);
    expect(requestsSent).toBeGreaterThan(routes.length * 20);
  });
});

describe('the unhandled-error path (toProblem)', () => {
  // a small app with the real app's error handling, behind @hono/node-server as server/main.ts serves it
  const lines: string[] = [];
  const log = pino({ level: 'error' }, { write: (line: string) => { lines.push(line); } });
  const app = new Hono<AppEnv>();
  app.use('*', async (c, next) => { c.set('log', log); await next(); });
  installErrorHandling(app);
  const secret = 'select password_hash from users where email = \'ann@example.org\' -- relation "users"';
  const thrown: [string, () => unknown][] = [
    ['an Error naming SQL', () => new Error(secret)],
    ['a database error with its detail', () => Object.assign(new Error('duplicate key value violates unique constraint "users_email_key"'), { code: '23505', detail: secret, table: 'users' })],
    ['a TypeError', () => new TypeError(`Cannot read properties of undefined (reading '${secret}')`)],
    ['an error with a cause', () => new Error('outer', { cause: new Error(secret) })],
    ['an HTTPException 500 with a message', () => new HTTPException(500, { message: secret })],
    ['an HTTPException 503 with its own response', () => new HTTPException(503, { res: new Response(secret, { status: 503 }) })],
    ['an HTTPException 401 with its own response', () => new HTTPException(401, { res: new Response(secret, { status: 401 }) })],
    ['an HTTPException 400 about JSON', () => new HTTPException(400, { message: `Unexpected token in JSON at position 3: ${secret}` })],
    ['an HTTPException 422', () => new HTTPException(422, { message: secret })],
    ['an error whose message cannot be read', () => Object.defineProperty(new Error(), 'message', { get() { throw new Error(secret); } })],
    // Hono hands only Error instances to onError; anything else thrown passes it by
    ['a thrown string', () => secret],
    ['a thrown null', () => null],
    ['a thrown plain object', () => ({ message: secret, status: 400 })],
  ];
  thrown.forEach(([, make], i) => app.get(`/throw/${i}`, () => { throw make(); }));
  app.get('/problem', () => { throw new DomainError('datasource-name-taken', 'A data source named "x" already exists.'); });

  let small: http.Server;
  let smallUrl: string;
  beforeAll(async () => {
    small = http.createServer(getRequestListener(app.fetch));
    await new Promise<void>((ok) => small.listen(0, '127.0.0.1', ok));
    smallUrl = `http://127.0.0.1:${(small.address() as AddressInfo).port}`;
  });
  afterAll(async () => { await new Promise((ok) => small.close(ok)); });

  thrown.forEach(([what], i) => {
    const why = KNOWN_FAILURES[`toProblem > ${what}`];
    (why ? it.fails : it)(`${why ? `known failure (${why}): ` : ''}${what} becomes a problem that shows none of it`, async () => {
      lines.length = 0;
      const res = await send(smallUrl, { method: 'GET', path: `/throw/${i}` });
      expect(problemDefects(res), `${res.status} ${res.headers['content-type']} ${JSON.stringify(res.text)}`).toEqual([]);
      expect(res.text).not.toContain('password');
      expect(res.text).not.toContain('users');
      if (res.status >= 500) {
        expect(JSON.parse(res.text)).toMatchObject({ status: 500, title: 'server-error' });
        // the operator still learns what happened
        expect(lines.join('')).toContain('unhandled error');
      }
    });
  });

  it('passes a deliberate problem through unchanged', async () => {
    const res = await send(smallUrl, { method: 'GET', path: '/problem' });
    expect(res.status).toBe(409);
    expect(JSON.parse(res.text)).toMatchObject({ title: 'datasource-name-taken', detail: 'A data source named "x" already exists.' });
  });
});
