/** The whole server in-process on a free port, over a database of its own. */
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

/** `work`: run the job workers in this process too (the engine's tests); off by default, so jobs wait */
export async function startTestServer(opts: { staticRoot?: string; env?: Record<string, string>; work?: boolean } = {}): Promise<TestServer> {
  const settings = (port: number, databaseUrl: string) => loadConfig({
    PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: `http://localhost:${port}`,
    DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent',
    // production refuses a cheap password hash
    ...(opts.env?.NODE_ENV === 'production' ? {} : { PASSWORD_HASH_COST: String(TEST_PASSWORD_HASH_COST) }),
    ...opts.env,
  });
  // a copy of the template a first start would leave (seeded or not, as this server's settings say)
  const database = await createTestDatabase(settings(0, '').seedDemo ? 'seeded' : 'migrated');
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
      if (attempt >= PORT_ATTEMPTS || !/is already in use/.test((err as Error).message)) {
        await database.drop();
        throw err;
      }
    }
  }
  return {
    ...running,
    databaseUrl: database.url,
    async close() {
      await running!.stop();
      await database.drop();
    },
  };
}
