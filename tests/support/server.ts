/** The whole server in-process on a free port, over a database and a data folder of its own. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../server/config.ts';
import { freePort } from '../../server/db/embedded.ts';
import { createLogger } from '../../server/log.ts';
import { startServer, type Running } from '../../server/main.ts';
import { createTestDatabase } from './database.ts';
import { TEST_PASSWORD_HASH_COST } from './globalSetup.ts';

export interface TestServer extends Running {
  databaseUrl: string;
  close(): Promise<void>;
}

const PORT_ATTEMPTS = 5;

/**
 * A fresh DATA_DIR, removed by `remove()`. Every test database holds the same demo tenants, so
 * servers sharing one folder would share their drop folders and stored files (`flat-files/<tenant>`,
 * `files`) with the test files running beside them; the key file (`secret.key`) is made in it too.
 */
export function tempDataDir(): { dir: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-test-data-'));
  return { dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * `work`: run the job workers in this process too (the engine's tests); off by default, so jobs wait.
 * The server's files are under `server.config.dataDir`, a folder of its own removed by `close()`
 * (unless `env.DATA_DIR` names one); a worker process for it takes that folder and key (workerProcess.ts).
 */
export async function startTestServer(opts: { staticRoot?: string; env?: Record<string, string>; work?: boolean } = {}): Promise<TestServer> {
  const data = opts.env?.DATA_DIR ? undefined : tempDataDir();
  const settings = (port: number, databaseUrl: string) => loadConfig({
    PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://localhost:${port}`,
    DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent',
    ...(data ? { DATA_DIR: data.dir } : {}),
    // production refuses a cheap password hash
    ...(opts.env?.NODE_ENV === 'production' ? {} : { PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST) }),
    ...opts.env,
  });
  let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  try {
    // a copy of the template a first start would leave (seeded or not, as this server's settings say)
    database = await createTestDatabase(settings(0, '').seedDemo ? 'seeded' : 'migrated');
    let running: Running | undefined;
    // a free port can be taken before the server listens on it (an outgoing connection's port, in a
    // busy run): another free port then, as many times as that happens
    for (let attempt = 1; !running; attempt++) {
      const config = settings(await freePort(), database.url);
      try {
        running = await startServer(config, createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'), {
          staticRoot: opts.staticRoot, work: opts.work ?? false,
        });
      } catch (err) {
        if (attempt >= PORT_ATTEMPTS || !/is already in use/.test((err as Error).message)) throw err;
      }
    }
    const { drop } = database;
    const started = running;
    return {
      ...started,
      databaseUrl: database.url,
      async close() {
        await started.stop();
        await drop();
        data?.remove();
      },
    };
  } catch (err) {
    await database?.drop().catch(() => {});
    data?.remove();
    throw err;
  }
}
