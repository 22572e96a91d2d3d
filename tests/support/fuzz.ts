/**
 * Requests no browser sends, for the fuzz suite (tests/api/fuzz.test.ts) and the upload tests:
 * raw HTTP with exact bytes (duplicated headers, bodies without a length, bodies cut off by a
 * closed socket), the routes the Hono app has registered, and JSON bodies made from each route's
 * own valibot schema: a valid one, and one per field per wrong type, judged by the same schema.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import * as v from 'valibot';
import { bodySchemaOf } from '../../server/http/validation.ts';
import { PROBLEM_TITLES } from '../../src/domain/errors.ts';

// ---------------------------------------------------------------- raw HTTP

export interface FuzzRequest {
  method: string;
  path: string;
  /** an array sends the header once per value, as separate lines */
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** send the body in chunks without a Content-Length */
  chunked?: boolean;
}

export interface RawResponse { status: number; headers: http.IncomingHttpHeaders; text: string }

const target = (base: string) => {
  const url = new URL(base);
  return { host: '127.0.0.1', port: Number(url.port), headers: { host: url.host } };
};

/** One request on its own connection; the whole answer, however the server framed it. */
export function send(base: string, r: FuzzRequest, timeoutMs = 15_000): Promise<RawResponse> {
  const { host, port, headers: hostHeader } = target(base);
  const body = r.body === undefined ? undefined : Buffer.from(r.body);
  const headers: Record<string, string | string[]> = { ...hostHeader, connection: 'close', ...r.headers };
  if (body && !r.chunked) headers['content-length'] = String(body.length);
  // node:http frames a DELETE's body only when told to
  if (body && r.chunked) headers['transfer-encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request({ host, port, method: r.method, path: r.path, headers, agent: false, timeout: timeoutMs }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    // a server that refuses a body early may close before all of it is written; its answer still counts
    req.on('error', (err) => { if (!answered) reject(err); });
    req.on('timeout', () => req.destroy(new Error(`no answer to ${r.method} ${r.path} within ${timeoutMs} ms`)));
    if (body && r.chunked) {
      const half = Math.floor(body.length / 2);
      req.write(body.subarray(0, half));
      req.end(body.subarray(half));
    } else {
      req.end(body);
    }
  });
}

/**
 * Declares `declaredLength` bytes, sends only `body`, then closes the socket: a client that goes
 * away mid-upload. `beforeAbort` may wait for the server to have started on the body.
 */
export function sendAborted(base: string, r: FuzzRequest & { declaredLength: number; beforeAbort?: () => Promise<void> }): Promise<void> {
  const { host, port, headers: hostHeader } = target(base);
  const headers = { ...hostHeader, ...r.headers, 'content-length': String(r.declaredLength) };
  return new Promise((resolve) => {
    const req = http.request({ host, port, method: r.method, path: r.path, headers, agent: false });
    req.on('error', () => undefined);
    req.on('response', (res) => res.resume());
    req.on('close', () => resolve());
    req.flushHeaders();
    req.write(r.body ?? '', () => {
      void (r.beforeAbort ?? (() => new Promise<void>((ok) => setTimeout(ok, 25))))().finally(() => req.destroy());
    });
  });
}

// ---------------------------------------------------------------- what an answer may say

/** Text that only an internal error puts in a response: stack frames, SQL, driver and file names. */
export const LEAKS: [string, RegExp][] = [
  ['a stack frame', /^\s*at\s+(?:async\s+)?\S+(?:\s+\(|\s+)(?:file:\/\/|node:|\/)[^\s)]*:\d+/m],
  ['a source path', /(?:\/|file:\/\/)[\w./-]*(?:node_modules|server|src)\/[\w./-]+\.(?:ts|js|mjs|cjs)\b/],
  ['SQL', /\b(?:select\s+[\w*".,\s]+\s+from\s+"?\w|insert\s+into\s|update\s+"?\w+"?\s+set\s|delete\s+from\s)/i],
  ['a database error', /relation\s+"|syntax error at or near|violates\s+[\w-]+\s+constraint|duplicate key value|invalid input syntax|invalid byte sequence|Failed query|column\s+"[^"]+"\s+(?:does not exist|of relation)/i],
  ['a driver or error class name', /\b(?:PostgresError|DatabaseError|DrizzleError|TypeError|RangeError|SyntaxError|ReferenceError|ECONNREFUSED|ECONNRESET)\b/],
];

export function leaksIn(text: string): string[] {
  return LEAKS.filter(([, re]) => re.test(text)).map(([what]) => what);
}

/** What is wrong with an error answer: not problem+json, not a catalogue title, or leaking. */
export function problemDefects(res: RawResponse): string[] {
  const defects: string[] = [];
  if (!/^application\/problem\+json\b/.test(String(res.headers['content-type'] ?? ''))) {
    defects.push(`content-type ${res.headers['content-type'] ?? '(none)'}, not application/problem+json`);
  }
  let body: unknown;
  try { body = JSON.parse(res.text); } catch { defects.push('a body that is not JSON'); }
  if (body && typeof body === 'object') {
    const p = body as Record<string, unknown>;
    if (typeof p.type !== 'string' || !p.type) defects.push('no type');
    if (typeof p.title !== 'string' || !(p.title in PROBLEM_TITLES)) defects.push(`title ${JSON.stringify(p.title)} is not in the error catalogue`);
    if (p.status !== res.status) defects.push(`status ${JSON.stringify(p.status)} in the body`);
  } else if (body !== undefined) {
    defects.push('a body that is not an object');
  }
  for (const leak of leaksIn(res.text)) defects.push(`${leak} in the body`);
  return defects;
}

// ---------------------------------------------------------------- the app's routes

export interface RouteInfo {
  method: string;
  /** Hono's pattern, such as /integrations/v1/data-sources/:id */
  path: string;
  params: string[];
  /** the schema its jsonBody middleware checks, when it has one */
  bodySchema?: v.GenericSchema;
}

/** Every method and path a handler is registered for, in registration order, from the app itself. */
export function routesOf(app: { routes: { method: string; path: string; handler: unknown }[] }): RouteInfo[] {
  const byKey = new Map<string, RouteInfo>();
  for (const r of app.routes) {
    if (r.method === 'ALL') continue; // middleware
    const key = `${r.method} ${r.path}`;
    let route = byKey.get(key);
    if (!route) {
      route = { method: r.method, path: r.path, params: [...r.path.matchAll(/:(\w+)/g)].map((m) => m[1]!) };
      byKey.set(key, route);
    }
    route.bodySchema ??= bodySchemaOf(r.handler);
  }
  return [...byKey.values()];
}

/** The path with each parameter (and wildcard) replaced; values are percent-encoded here. */
export function fillPath(route: RouteInfo, values: Record<string, string>): string {
  return route.path
    // a * in a value is encoded, so only the route's own wildcards are filled below
    .replace(/:(\w+)(\{[^}]*\})?\??/g, (_m, name: string) => encodeURIComponent(values[name] ?? 'fuzz').replaceAll('*', '%2A'))
    .replace(/\*/g, 'fuzz');
}

/** Values no parameter should accept: injection, traversal, control and format characters, sheer size. */
export const IMPLAUSIBLE_PARAMS: [string, string][] = [
  ['SQL', "' or '1'='1"],
  ['traversal', '../../etc/passwd'],
  ['NUL', 'a\u0000b'],
  ['right-to-left override', 'a\u202Eb'],
  ['3000 characters', 'x'.repeat(3000)],
  ['a broken percent escape', '%ZZ'],
];

// ---------------------------------------------------------------- bodies from schemas

type Schema = v.GenericSchema & Record<string, unknown>;
const asSchema = (s: unknown) => s as Schema;

/** A JSON value the server would receive for `value` (what survives JSON.stringify). */
export const overTheWire = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

/** Whether the schema takes `value` as sent (`parsed`: as the server already has it, parsed JSON). */
export async function accepts(schema: v.GenericSchema, value: unknown, parsed = false): Promise<boolean> {
  return (await v.safeParseAsync(schema, parsed ? value : overTheWire(value))).success;
}

/**
 * A value the schema accepts, or undefined. With `full`, optional entries are filled in and lists
 * get one item, so fields nested in them can be fuzzed too.
 */
export async function validSample(schema: v.GenericSchema, full = false, depth = 0): Promise<unknown> {
  const s = asSchema(schema);
  if (depth > 6) return undefined;
  // a schema whose rules are more than its shape says gives its own examples (v.examples)
  const examples = (v.getExamples(schema as never) ?? []) as unknown[];
  const candidates = async (): Promise<unknown[]> => {
    if (examples.length) return examples;
    switch (s.type) {
      case 'optional': case 'exact_optional': case 'nullish': {
        const inner = await validSample(asSchema(s.wrapped), full, depth + 1);
        return full && inner !== undefined ? [inner, undefined] : [undefined, inner];
      }
      case 'nullable': return [await validSample(asSchema(s.wrapped), full, depth + 1), null];
      case 'string': return ['fuzz', randomUUID(), 'fuzz@example.org', 'https://example.org/', 'a', '1', 'fuzz-key'];
      case 'number': return [1, 0, 50, 100, 0.5];
      case 'bigint': return [];
      case 'boolean': return [true, false];
      case 'literal': return [s.literal];
      case 'picklist': case 'enum': return [...(s.options as unknown[])];
      case 'union': case 'variant': {
        const out: unknown[] = [];
        for (const o of s.options as v.GenericSchema[]) out.push(await validSample(o, full, depth + 1));
        return out;
      }
      case 'array': case 'tuple': {
        if (s.type === 'tuple') {
          const items: unknown[] = [];
          for (const i of s.items as v.GenericSchema[]) items.push(await validSample(i, full, depth + 1));
          return [items];
        }
        const item = full ? await validSample(asSchema(s.item), full, depth + 1) : undefined;
        return item === undefined ? [[]] : [[item], []];
      }
      case 'record': return [{}];
      case 'object': case 'loose_object': case 'strict_object': {
        const out: Record<string, unknown> = {};
        for (const [k, entry] of Object.entries(s.entries as Record<string, v.GenericSchema>)) {
          const value = await validSample(entry, full, depth + 1);
          if (value !== undefined) out[k] = value;
        }
        return [out];
      }
      default: return [];
    }
  };
  for (const c of await candidates()) {
    if (c === undefined) {
      if (['optional', 'exact_optional', 'nullish'].includes(String(s.type))) return undefined;
      continue;
    }
    if (await accepts(schema, c)) return c;
  }
  return undefined;
}

/** Values of every JSON type, and text that is hostile rather than mistyped. */
export const WRONG_VALUES: [string, unknown][] = [
  ['a string', 'fuzz'],
  ['a number', 12345],
  ['a boolean', true],
  ['null', null],
  ['an array', ['fuzz']],
  ['an object', { fuzz: 1 }],
  ['a 100,000-character string', 'x'.repeat(100_000)],
  ['a string with NUL', 'a\u0000b'],
];

const unwrap = (s: Schema): Schema => {
  let cur = s;
  while (['optional', 'exact_optional', 'nullish', 'nullable'].includes(String(cur.type))) cur = asSchema(cur.wrapped);
  return cur;
};

/** Where fields sit in a sample body: object keys, the first item of lists, one key of records. */
function fieldPaths(schema: Schema, sample: unknown, prefix: (string | number)[] = [], depth = 0): (string | number)[][] {
  const s = unwrap(schema);
  if (depth > 3) return [];
  if ((s.type === 'object' || s.type === 'loose_object' || s.type === 'strict_object') && sample && typeof sample === 'object' && !Array.isArray(sample)) {
    return Object.entries(s.entries as Record<string, Schema>).flatMap(([k, entry]) => [
      [...prefix, k],
      ...fieldPaths(entry, (sample as Record<string, unknown>)[k], [...prefix, k], depth + 1),
    ]);
  }
  if (s.type === 'array' && Array.isArray(sample) && sample.length) {
    return [[...prefix, 0], ...fieldPaths(asSchema(s.item), sample[0], [...prefix, 0], depth + 1)];
  }
  if (s.type === 'record' && sample && typeof sample === 'object') return [[...prefix, 'fuzz-key']];
  return [];
}

function withValueAt(base: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  let cur = copy;
  for (const key of path.slice(0, -1)) cur = cur[key] as Record<string | number, unknown>;
  cur[path.at(-1)!] = value;
  return copy;
}

export interface BodyCase { name: string; body: unknown; valid: boolean }

/**
 * Bodies for a schema: the valid sample itself, the whole body as each wrong type, and every field
 * set to each wrong value, each judged by the schema (a value that happens to be allowed is valid).
 * At most `limit` cases, spread evenly over the fields.
 */
export async function bodyCases(schema: v.GenericSchema, limit: number): Promise<{ base: unknown; cases: BodyCase[] }> {
  const full = await validSample(schema, true);
  const base = full !== undefined ? full : await validSample(schema, false);
  const cases: BodyCase[] = [];
  const add = async (name: string, body: unknown) => cases.push({ name, body, valid: await accepts(schema, body) });
  if (base !== undefined) await add('a valid body', base);
  for (const [what, value] of WRONG_VALUES) await add(`the body as ${what}`, value);
  const perField: BodyCase[] = [];
  for (const path of base === undefined ? [] : fieldPaths(asSchema(schema), base)) {
    for (const [what, value] of WRONG_VALUES) {
      const body = withValueAt(base, path, value);
      perField.push({ name: `${path.join('.')} as ${what}`, body, valid: await accepts(schema, body) });
    }
  }
  const room = Math.max(0, limit - cases.length);
  if (perField.length <= room) cases.push(...perField);
  else for (let i = 0; i < room; i++) cases.push(perField[Math.floor((i * perField.length) / room)]!);
  return { base, cases };
}
