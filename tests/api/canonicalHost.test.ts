/**
 * Opening the app at another loopback name of PUBLIC_URL (the address the server listens on,
 * [::1], localhost) lands on PUBLIC_URL; a sign-in the provider cannot complete explains itself
 * in words and links back to the app. Real HTTP against the whole server, with the Host header a
 * browser would send for each address.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../server/db/embedded.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/** what a browser sends when the user opens a page */
const NAVIGATE = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-dest': 'document',
};

function request(port: number, host: string, path: string, headers: Record<string, string> = {}, method = 'GET') {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, agent: false, headers: { host, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('PUBLIC_URL http://localhost:PORT', () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    server = await startTestServer();
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => { await server?.close(); });

  it('sends a page opened at 127.0.0.1 or [::1] to PUBLIC_URL, keeping path and query', async () => {
    for (const host of [`127.0.0.1:${port}`, `[::1]:${port}`]) {
      const res = await request(port, host, '/connections?tab=sources&q=a%20b', NAVIGATE);
      expect(res.status, host).toBe(307);
      expect(res.headers.location, host).toBe(`http://localhost:${port}/connections?tab=sources&q=a%20b`);
    }
    // a browser that sends no fetch metadata still asks for HTML
    const plain = await request(port, `127.0.0.1:${port}`, '/', { accept: NAVIGATE.accept });
    expect(plain.headers.location).toBe(`http://localhost:${port}/`);
    const head = await request(port, `127.0.0.1:${port}`, '/formulas', NAVIGATE, 'HEAD');
    expect(head.status).toBe(307);
  });

  it('answers API calls, data and asset fetches where they are asked', async () => {
    const api = await request(port, `127.0.0.1:${port}`, '/account-management/v1/authentication/organization/subdomain/demo', NAVIGATE);
    expect(api.status).toBe(200);
    expect(JSON.parse(api.body)).toMatchObject({ subdomain: 'demo' });
    const health = await request(port, `127.0.0.1:${port}`, '/health', NAVIGATE);
    expect(health.status).toBe(200);
    const config = await request(port, `127.0.0.1:${port}`, '/app-config.json', { accept: '*/*', 'sec-fetch-mode': 'cors' });
    expect(config.status).toBe(200);
    const asset = await request(port, `127.0.0.1:${port}`, '/assets/index.js', { accept: '*/*', 'sec-fetch-mode': 'no-cors' });
    expect(asset.headers.location).toBeUndefined();
  });

  it('leaves PUBLIC_URL itself and organisation subdomains alone', async () => {
    for (const host of [`localhost:${port}`, `demo.localhost:${port}`]) {
      const res = await request(port, host, '/connections', NAVIGATE);
      expect(res.status, host).not.toBe(307);
      expect(res.headers.location, host).toBeUndefined();
    }
  });

  it('explains a sign-in started from an address it does not serve, with a link to PUBLIC_URL and no OAuth error code', async () => {
    const params = new URLSearchParams({
      client_id: 'tributary-app', redirect_uri: `http://127.0.0.1:${port}`, audience: 'https://api.tributary.local',
      scope: 'openid profile email offline_access', response_type: 'code', response_mode: 'query', state: 's', nonce: 'n',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuyOZ2ftxwE', code_challenge_method: 'S256',
    });
    const res = await request(port, `127.0.0.1:${port}`, `/authorize?${params}`, NAVIGATE);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('<h1>Sign-in problem</h1>');
    expect(res.body).toContain('Tributary was opened at an address it does not sign in from.');
    expect(res.body).toContain(`<a href="http://localhost:${port}">http://localhost:${port}</a>`);
    expect(res.body).not.toMatch(/redirect_uri|invalid_|did not match|error_description/);
  });

  it('explains any other request the provider refuses in words too', async () => {
    const res = await request(port, `localhost:${port}`, '/authorize?client_id=someone-else&response_type=code', NAVIGATE);
    expect(res.status).toBe(400);
    expect(res.body).toContain(`<a href="http://localhost:${port}">`);
    expect(res.body).not.toMatch(/invalid_client|client_id|invalid_request/);
    const noClient = await request(port, `localhost:${port}`, '/authorize', NAVIGATE);
    expect(noClient.status).toBe(400);
    expect(noClient.body).toContain('<h1>Sign-in problem</h1>');
    expect(noClient.body).not.toMatch(/invalid_request|missing required parameter/i);
  });
});

describe('PUBLIC_URL http://127.0.0.1:PORT', () => {
  let server: TestServer;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    server = await startTestServer({ env: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` } });
  });
  afterAll(async () => { await server?.close(); });

  it('sends a page opened at localhost to PUBLIC_URL', async () => {
    const res = await request(port, `localhost:${port}`, '/history?page=2', NAVIGATE);
    expect(res.status).toBe(307);
    expect(res.headers.location).toBe(`http://127.0.0.1:${port}/history?page=2`);
    const own = await request(port, `127.0.0.1:${port}`, '/history?page=2', NAVIGATE);
    expect(own.headers.location).toBeUndefined();
  });
});
