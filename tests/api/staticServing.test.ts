/**
 * How the server sends the built app (server/http/static.ts), over real HTTP: the precompressed
 * file the client accepts, a year of immutable caching for content-hashed assets, ETag and 304 for
 * the page, HEAD, and what it never sends.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedEncodings } from '../../server/http/static.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

interface Raw { status: number; headers: http.IncomingHttpHeaders; body: Buffer }

/** One request with exactly these headers; the body as sent (node's fetch would decompress it). */
function request(base: string, target: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: target, method, headers: { host: url.host, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const script = `export const rows = [${Array.from({ length: 400 }, (_, i) => `{ id: ${i}, name: 'supporter ${i}' }`).join(', ')}];\n`;
const style = `${Array.from({ length: 200 }, (_, i) => `.m_${i} { color: var(--c-${i}); }`).join('\n')}\n`;
const page = (title: string) => `<!doctype html><html><head><title>${title}</title><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>`;

let root: string;
let server: TestServer;

function writeWithVariants(file: string, text: string) {
  fs.writeFileSync(file, text);
  fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(text));
  fs.writeFileSync(`${file}.gz`, zlib.gzipSync(text, { level: 9 }));
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-serving-'));
  fs.mkdirSync(path.join(root, 'assets'));
  fs.mkdirSync(path.join(root, '.vite'));
  fs.writeFileSync(path.join(root, 'index.html'), page('Tributary'));
  writeWithVariants(path.join(root, 'assets', 'index-abc123.js'), script);
  writeWithVariants(path.join(root, 'assets', 'index-abc123.css'), style);
  fs.writeFileSync(path.join(root, 'assets', 'index-abc123.js.map'), '{"version":3,"sources":["src/main.tsx"]}');
  fs.writeFileSync(path.join(root, 'assets', 'tiny-def456.js'), 'export {};\n');
  fs.writeFileSync(path.join(root, '.vite', 'manifest.json'), '{"src/main.tsx":{"file":"assets/index-abc123.js"}}');
  server = await startTestServer({ staticRoot: root });
});
afterAll(async () => {
  await server?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('compression', () => {
  it('sends brotli to a client that takes it, else gzip, else the file itself', async () => {
    const cases: [string | undefined, string | undefined][] = [
      ['gzip, deflate, br, zstd', 'br'],
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip;q=0.8', 'gzip'],
      ['*', 'br'],
      ['*;q=0, gzip', 'gzip'],
      ['identity', undefined],
      ['br;q=0, gzip;q=0', undefined],
      [undefined, undefined],
    ];
    for (const [accept, expected] of cases) {
      const res = await request(server.url, '/assets/index-abc123.js', accept ? { 'accept-encoding': accept } : {});
      expect(res.status, accept).toBe(200);
      expect(res.headers['content-encoding'], accept).toBe(expected);
      expect(res.headers['content-type'], accept).toBe('text/javascript; charset=utf-8');
      expect(res.headers.vary, accept).toBe('Accept-Encoding');
      expect(Number(res.headers['content-length']), accept).toBe(res.body.length);
      const text = expected === 'br' ? zlib.brotliDecompressSync(res.body) : expected === 'gzip' ? zlib.gunzipSync(res.body) : res.body;
      expect(text.toString(), accept).toBe(script);
      if (expected) expect(res.body.length, accept).toBeLessThan(script.length / 3);
    }
  });

  it('reads Accept-Encoding weights as RFC 9110 does', () => {
    expect([...acceptedEncodings('gzip, deflate, br')]).toEqual(['br', 'gzip']);
    expect([...acceptedEncodings('BR;Q=0.5')]).toEqual(['br']);
    expect([...acceptedEncodings('x-gzip')]).toEqual(['gzip']);
    expect([...acceptedEncodings('br;q=0.0, *;q=0.1')]).toEqual(['gzip']);
    expect([...acceptedEncodings('')]).toEqual([]);
  });

  it('gives stylesheets their type, and sends a file the build did not compress as it is, without Vary', async () => {
    const css = await request(server.url, '/assets/index-abc123.css', { 'accept-encoding': 'gzip' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(zlib.gunzipSync(css.body).toString()).toBe(style);
    const tiny = await request(server.url, '/assets/tiny-def456.js', { 'accept-encoding': 'br, gzip' });
    expect(tiny.status).toBe(200);
    expect(tiny.headers['content-encoding']).toBeUndefined();
    expect(tiny.headers.vary).toBeUndefined();
    expect(tiny.body.toString()).toBe('export {};\n');
  });
});

describe('caching', () => {
  it('caches content-hashed assets for a year as immutable', async () => {
    for (const p of ['/assets/index-abc123.js', '/assets/index-abc123.css', '/assets/tiny-def456.js']) {
      const res = await request(server.url, p, { 'accept-encoding': 'br' });
      expect(res.headers['cache-control'], p).toBe('public, max-age=31536000, immutable');
      expect(res.headers.etag, p).toMatch(/^"[\w-]+"$/);
    }
  });

  it('has the page revalidated by a strong ETag, and answers 304 while it is unchanged', async () => {
    const first = await request(server.url, '/', { 'accept-encoding': 'br, gzip' });
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(first.headers['cache-control']).toBe('no-cache');
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(first.body.toString()).toBe(page('Tributary'));

    // a client route answers with the same page and the same tag
    const route = await request(server.url, '/data-queue');
    expect(route.headers.etag).toBe(etag);
    expect(route.headers['cache-control']).toBe('no-cache');
    expect(route.body.toString()).toBe(page('Tributary'));

    for (const p of ['/', '/data-queue', '/index.html']) {
      const again = await request(server.url, p, { 'if-none-match': etag });
      expect(again.status, p).toBe(304);
      expect(again.body.length, p).toBe(0);
      expect(again.headers.etag, p).toBe(etag);
      expect(again.headers['cache-control'], p).toBe('no-cache');
    }
    expect((await request(server.url, '/', { 'if-none-match': `W/${etag}` })).status).toBe(304);
    expect((await request(server.url, '/', { 'if-none-match': '"something-else"' })).status).toBe(200);

    // a new build's page is a new representation: 200 with a new tag
    fs.writeFileSync(path.join(root, 'index.html'), page('Tributary, rebuilt'));
    const rebuilt = await request(server.url, '/', { 'if-none-match': etag });
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.headers.etag).not.toBe(etag);
    expect(rebuilt.body.toString()).toBe(page('Tributary, rebuilt'));
  });

  it('answers 304 for an asset whose tag the client holds, in whichever encoding it got it', async () => {
    const br = await request(server.url, '/assets/index-abc123.js', { 'accept-encoding': 'br' });
    const plain = await request(server.url, '/assets/index-abc123.js');
    expect(br.headers.etag).not.toBe(plain.headers.etag);
    const revalidated = await request(server.url, '/assets/index-abc123.js', { 'accept-encoding': 'gzip', 'if-none-match': br.headers.etag! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.etag).toBe(plain.headers.etag!.replace(/"$/, '-gzip"'));
    expect(revalidated.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });
});

describe('HEAD', () => {
  it('answers with the headers GET would send and no body', async () => {
    for (const [p, accept] of [['/assets/index-abc123.js', 'br'], ['/assets/index-abc123.css', 'gzip'], ['/', ''], ['/connections', '']] as const) {
      const get = await request(server.url, p, { 'accept-encoding': accept });
      const head = await request(server.url, p, { 'accept-encoding': accept }, 'HEAD');
      expect(head.status, p).toBe(200);
      expect(head.body.length, p).toBe(0);
      for (const h of ['content-type', 'content-length', 'content-encoding', 'etag', 'cache-control', 'vary']) {
        expect(head.headers[h], `${p} ${h}`).toBe(get.headers[h]);
      }
    }
  });
});

describe('what is never sent', () => {
  it('refuses source maps, the build manifest and other dot folders', async () => {
    for (const p of ['/assets/index-abc123.js.map', '/assets/INDEX-ABC123.JS.MAP', '/.vite/manifest.json', '/.env', '/assets/.hidden']) {
      const res = await request(server.url, p);
      expect(res.status, p).toBe(404);
      expect(res.headers['content-type'], p).toBe('application/problem+json; charset=utf-8');
      expect(res.body.toString(), p).not.toMatch(/sources|src\/main/);
    }
  });

  it('answers a missing asset or static file with 404, never with the app\'s page', async () => {
    for (const p of ['/assets/index-old999.js', '/assets/logo', '/favicon.ico', '/robots.txt', '/f-1/app.js']) {
      const res = await request(server.url, p);
      expect(res.status, p).toBe(404);
      expect(res.headers['content-type'], p).toBe('application/problem+json; charset=utf-8');
    }
    // a client route with a dot in it is still a client route
    expect((await request(server.url, '/f-1/validation-exceptions/duplicates.2026')).headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('never reads outside the built app', async () => {
    const secret = path.join(path.dirname(root), `${path.basename(root)}-secret.txt`);
    fs.writeFileSync(secret, 'do not serve');
    try {
      for (const p of [`/../${path.basename(secret)}`, `/assets/../../${path.basename(secret)}`, `/%2e%2e/${path.basename(secret)}`, `/assets/%2e%2e/%2e%2e/${path.basename(secret)}`]) {
        const res = await request(server.url, p);
        expect(res.body.toString(), p).not.toContain('do not serve');
      }
    } finally {
      fs.rmSync(secret);
    }
  });

  it('leaves the API alone: its answers are never cached', async () => {
    const res = await request(server.url, '/health');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.etag).toBeUndefined();
  });
});
