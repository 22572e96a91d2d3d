/**
 * The OpenAPI document, generated from the contracts of src/domain/api (never written by hand),
 * served at /openapi.json, and a readable page of it at /api-docs (plain HTML: the CSP allows no
 * inline script, and a reader needs none).
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import type { GenericSchema } from 'valibot';
import type { Access, Endpoint, Service } from '../../src/domain/api/contract.ts';
import type { EventStream } from '../../src/domain/api/formulaStatusStream.ts';
import { PROBLEM_TITLES } from '../../src/domain/errors.ts';

type Json = Record<string, unknown>;

const schemaOf = (schema: GenericSchema): Json =>
  // custom checks (v.check) have no JSON Schema form: they are described by the endpoint's problems
  toJsonSchema(schema, { target: 'openapi-3.0', errorMode: 'ignore' }) as Json;

const accessText = (a: Access) => (a === 'public' ? 'public'
  : a === 'signed-in' ? 'any signed-in user'
    : a === 'tenant' ? 'any member of the tenant named by the tenantId header'
      : `${a.resource} ${a.action} permission in the tenant named by the tenantId header`);

const IDENTITY_HEADERS = ['orgId', 'clientId', 'userId', 'userEmail'];

const Problem: Json = {
  type: 'object',
  required: ['type', 'title', 'status'],
  properties: {
    type: { type: 'string' }, title: { type: 'string', enum: Object.keys(PROBLEM_TITLES) }, status: { type: 'integer' },
    detail: { type: 'string' }, code: { type: 'string' },
  },
};

function operation(e: Endpoint, service: Service): Json {
  const params: Json[] = [...e.path.matchAll(/:([A-Za-z]\w*)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  if (e.query) {
    const query = schemaOf(e.query) as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, { description, ...schema }] of Object.entries(query.properties ?? {})) {
      params.push({ name, in: 'query', required: query.required?.includes(name) ?? false, ...(description ? { description } : {}), schema });
    }
  }
  if (e.access !== 'public') {
    for (const h of IDENTITY_HEADERS) params.push({ name: h, in: 'header', required: true, schema: { type: 'string' } });
    params.push({ name: 'tenantId', in: 'header', required: e.access !== 'signed-in', schema: { type: 'string', format: 'uuid' } });
  }
  const status = String(e.status ?? (e.response ? 200 : 204));
  const problem = { description: 'a problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
  return {
    tags: [service.name],
    summary: e.summary,
    description: `Who may call: ${accessText(e.access)}.${e.problems?.length ? ` Problems: ${e.problems.join(', ')}.` : ''}`,
    ...(e.access === 'public' ? { security: [] } : {}),
    parameters: params,
    ...(e.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(e.body) } } } } : {}),
    responses: {
      [status]: e.response ? { description: 'success', content: { 'application/json': { schema: schemaOf(e.response) } } } : { description: 'success, no content' },
      ...(e.access === 'public' ? {} : { 401: problem, 403: problem }),
      400: problem, 404: problem,
    },
  };
}

/** An event stream (outside the JSON contracts): text/event-stream, each event's data described by its schema. */
function streamOperation(s: EventStream): Json {
  const headers: Json[] = IDENTITY_HEADERS.map((h) => ({ name: h, in: 'header', required: true, schema: { type: 'string' } }));
  headers.push({ name: 'tenantId', in: 'header', required: s.access !== 'signed-in', schema: { type: 'string', format: 'uuid' } });
  headers.push({ name: 'Accept', in: 'header', required: true, schema: { type: 'string', enum: ['text/event-stream'] } });
  const problem = { description: 'a problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
  return {
    tags: [s.service],
    summary: s.summary,
    description: `Who may call: ${accessText(s.access)}. Events: ${Object.keys(s.events).join(', ')}; a comment line every ${s.heartbeatMs / 1000} seconds.`,
    parameters: headers,
    responses: {
      200: {
        description: 'server-sent events, each event\'s data one line of JSON (x-events: the schema of each)',
        content: { 'text/event-stream': { schema: { type: 'string' } } },
        'x-events': Object.fromEntries(Object.entries(s.events).map(([name, schema]) => [name, schemaOf(schema)])),
      },
      400: problem, 401: problem, 403: problem,
    },
  };
}

export function openApiDocument(services: Service[], serverUrl: string, streams: EventStream[] = []): Json {
  const paths: Record<string, Json> = {};
  for (const s of streams) paths[s.path] = { get: streamOperation(s) };
  for (const service of services) {
    for (const e of Object.values(service.endpoints)) {
      const path = `${service.basePath}${e.path === '/' ? '' : e.path}`.replace(/:([A-Za-z]\w*)/g, '{$1}');
      paths[path] = { ...(paths[path] ?? {}), [e.method]: operation(e, service) };
    }
  }
  return {
    openapi: '3.0.3',
    info: { title: 'Tributary API', version: '1', description: 'Gateway services of Tributary. Errors are RFC 9457 problem+json.' },
    servers: [{ url: serverUrl }],
    components: {
      schemas: { Problem },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
    security: [{ bearer: [] }],
    paths,
  };
}

const escape = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** The document as a page: services, their endpoints, who may call, request and response schemas. */
export function apiDocsPage(services: Service[], streams: EventStream[] = []): string {
  const sections = services.map((service) => {
    const rows = Object.values(service.endpoints).map((e) => {
      const path = `${service.basePath}${e.path === '/' ? '' : e.path}`;
      const query = e.query ? `<details><summary>Query</summary><pre>${escape(JSON.stringify(schemaOf(e.query), null, 2))}</pre></details>` : '';
      const body = e.body ? `<details><summary>Request body</summary><pre>${escape(JSON.stringify(schemaOf(e.body), null, 2))}</pre></details>` : '';
      const response = e.response ? `<details><summary>Response ${e.status ?? 200}</summary><pre>${escape(JSON.stringify(schemaOf(e.response), null, 2))}</pre></details>` : `<p>Response ${e.status ?? 204}, no content</p>`;
      return `<article><h3><code>${e.method.toUpperCase()} ${escape(path)}</code></h3><p>${escape(e.summary)}</p>
<p><strong>Who may call:</strong> ${escape(accessText(e.access))}${e.problems?.length ? `. <strong>Problems:</strong> ${escape(e.problems.join(', '))}` : ''}</p>${query}${body}${response}</article>`;
    }).join('\n');
    const streamRows = streams.filter((st) => st.service === service.name).map((st) => {
      const events = Object.entries(st.events).map(([name, schema]) => `<details><summary>Event ${escape(name)}</summary><pre>${escape(JSON.stringify(schemaOf(schema), null, 2))}</pre></details>`).join('');
      return `<article><h3><code>GET ${escape(st.path)}</code></h3><p>${escape(st.summary)}</p>
<p><strong>Who may call:</strong> ${escape(accessText(st.access))}</p>${events}</article>`;
    }).join('\n');
    return `<section><h2>${escape(service.name)} <small><code>${escape(service.basePath)}</code></small></h2>${rows}${streamRows}</section>`;
  }).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tributary API</title><style>body{font-family:system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;line-height:1.5}
article{border-top:1px solid #ddd;padding:.5rem 0}pre{background:#f6f6f6;padding:.75rem;overflow:auto;font-size:.8rem}h3 code{font-size:1rem}</style></head>
<body><header><h1>Tributary API</h1><p>Every request but the public ones carries <code>Authorization: Bearer</code> and the headers orgId, clientId, userId, userEmail and, for anything
tenant-scoped, tenantId. Errors are <code>application/problem+json</code>. The machine-readable document is <a href="/openapi.json">/openapi.json</a>.</p></header>
<main>${sections}</main></body></html>`;
}
