/** API contracts: every endpoint of src/domain/api is served as described, and the OpenAPI document and its page come from them. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVICES } from '../../src/domain/api/services.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => { server = await startTestServer(); });
afterAll(async () => { await server?.close(); });

const fullPath = (base: string, path: string) => `${base}${path === '/' ? '' : path}`;

describe('API contracts', () => {
  it('every endpoint of every contract is a route of the app', () => {
    const routes = new Set(server.app.routes.map((r) => `${r.method} ${r.path.replace(/\/$/, '')}`));
    for (const service of SERVICES) {
      for (const [name, e] of Object.entries(service.endpoints)) {
        const key = `${e.method.toUpperCase()} ${fullPath(service.basePath, e.path).replace(/\/$/, '')}`;
        expect(routes.has(key), `${service.name}.${name}: ${key}`).toBe(true);
      }
    }
  });

  it('serves an OpenAPI document with every endpoint, its access, body and response', async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await res.json() as { openapi: string; paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, { content?: unknown }>; description: string }>> };
    expect(doc.openapi).toMatch(/^3\./);
    let operations = 0;
    for (const service of SERVICES) {
      for (const e of Object.values(service.endpoints)) {
        const path = fullPath(service.basePath, e.path).replace(/:([A-Za-z]\w*)/g, '{$1}');
        const op = doc.paths[path]?.[e.method];
        expect(op, `${e.method} ${path}`).toBeDefined();
        expect(!!op!.requestBody).toBe(!!e.body);
        expect(!!op!.responses[String(e.status ?? (e.response ? 200 : 204))], `${e.method} ${path} success`).toBe(true);
        expect(op!.description).toMatch(/^Who may call: /);
        operations += 1;
      }
    }
    expect(operations).toBeGreaterThan(10);
    // a body schema carries its fields: the active-tenant switch needs a tenantId
    const patch = doc.paths['/account-management/v1/user/active-tenant']!.patch!.requestBody as { content: { 'application/json': { schema: { required: string[] } } } };
    expect(patch.content['application/json'].schema.required).toContain('tenantId');
  });

  it('shows the document as a page without any script', async () => {
    const res = await fetch(`${server.url}/api-docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<h1>Tributary API</h1>');
    expect(html).toContain('PATCH /account-management/v1/user/active-tenant');
    expect(html).not.toMatch(/<script/i);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
  });
});
