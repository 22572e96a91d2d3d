/** Production defaults: no public demo users, HSTS behind https, no public source maps, a terse health check. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { freePort } from '../../server/db/embedded.ts';
import { createLogger } from '../../server/log.ts';
import { startServer } from '../../server/main.ts';
import { call, orgIdFor } from '../support/api.ts';
import { createTestDatabase } from '../support/database.ts';
import { startTestServer, tempDataDir } from '../support/server.ts';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => { for (const c of cleanups.reverse()) await c(); });

async function serverOn(databaseUrl: string, env: Record<string, string>) {
  const port = await freePort();
  const data = tempDataDir();
  cleanups.push(async () => data.remove());
  const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://localhost:${port}`, DATABASE_URL: databaseUrl, DATA_DIR: data.dir, ...env });
  return startServer(config, createLogger('silent'), { work: false });
}

describe('the demo organisation in production', () => {
  it('is not seeded in production unless SEED_DEMO=true asks for it', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const running = await serverOn(database.url, { NODE_ENV: 'production' });
    try {
      expect(running.seeded).toBe(false);
      const res = await call(running.url, '/account-management/v1/authentication/organization/subdomain/demo');
      expect(res.status).toBe(404);
    } finally {
      await running.stop();
    }
    const asked = await serverOn(database.url, { NODE_ENV: 'production', SEED_DEMO: 'true' });
    try {
      expect(asked.seeded).toBe(true);
      expect(await orgIdFor(asked.url)).toMatch(/^[0-9a-f-]{36}$/);
    } finally {
      await asked.stop();
    }
  });

  it('refuses to start in production while the demo users exist, unless SEED_DEMO=true', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const dev = await serverOn(database.url, {});
    expect(dev.seeded).toBe(true);
    await dev.stop();
    await expect(serverOn(database.url, { NODE_ENV: 'production' })).rejects.toThrow(/demo organisation .*password is public/);
    await expect(serverOn(database.url, { NODE_ENV: 'production', SEED_DEMO: 'false' })).rejects.toThrow(/SEED_DEMO=true/);
    const demo = await serverOn(database.url, { NODE_ENV: 'production', SEED_DEMO: 'true' });
    await demo.stop();
  });

  it('refuses a SEED_DEMO that is neither true nor false', () => {
    expect(() => loadConfig({ SEED_DEMO: 'yes' })).toThrow(/SEED_DEMO must be true or false/);
  });
});

describe('transport security', () => {
  it('sends HSTS when the public address is https, and not over plain http', async () => {
    const plain = await startTestServer();
    cleanups.push(() => plain.close());
    expect((await call(`http://127.0.0.1:${new URL(plain.url).port}`, '/health')).headers.get('strict-transport-security')).toBeNull();
    const secure = await startTestServer({ env: { PUBLIC_URL: 'https://tributary.example.org' } });
    cleanups.push(() => secure.close());
    const res = await call(`http://127.0.0.1:${secure.config.port}`, '/health');
    expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
  });
});

describe('the built app', () => {
  it('serves its scripts but never its source maps', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-static-'));
    fs.mkdirSync(path.join(root, 'assets'));
    fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>Tributary</title>');
    fs.writeFileSync(path.join(root, 'assets', 'index-abc.js'), 'console.log(1)');
    fs.writeFileSync(path.join(root, 'assets', 'index-abc.js.map'), '{"version":3,"sources":["src/main.tsx"]}');
    const server = await startTestServer({ staticRoot: root });
    cleanups.push(async () => { await server.close(); fs.rmSync(root, { recursive: true, force: true }); });
    expect((await call(server.url, '/assets/index-abc.js')).status).toBe(200);
    for (const p of ['/assets/index-abc.js.map', '/assets/INDEX-ABC.JS.MAP', '/assets/index-abc.js.map?x=1']) {
      const res = await call(server.url, p);
      expect(res.status, p).toBe(404);
      expect(await res.text(), p).not.toContain('sources');
    }
  });
});

describe('health', () => {
  it('says degraded without quoting the database\'s error', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.close());
    const up = await call(server.url, '/health');
    expect(await up.json()).toEqual({ status: 'ok', database: { ok: true }, jobs: { ok: true } });
    await server.database.pool.end();
    const down = await call(server.url, '/health');
    expect(down.status).toBe(503);
    const body = await down.json();
    expect(body).toEqual({ status: 'degraded', database: { ok: false }, jobs: expect.objectContaining({ ok: expect.any(Boolean) }) });
    expect(JSON.stringify(body)).not.toMatch(/pool|postgres|connect|detail/i);
  });
});
