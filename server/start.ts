/** `npm start` (and `npm run dev` with --dev): build the app when needed, then run everything in one process. */
import { ensureAppBuilt } from './appBuild.ts';
import { loadConfig } from './config.ts';
import { createLogger } from './log.ts';
import { startServer, type StartOptions } from './main.ts';
import { DEMO_PASSWORD, DEMO_USERS } from './db/seed.ts';
import { seedDemoFormula } from './services/demoFormula.ts';

const dev = process.argv.includes('--dev');
async function main() {
  const config = loadConfig();
  const log = createLogger(config.logLevel);
  const opts: StartOptions = { work: true };
  if (dev) {
    const { createServer } = await import('vite');
    opts.devMiddleware = async (server) => {
      const vite = await createServer({ server: { middlewareMode: true, hmr: { server } }, appType: 'spa' });
      return vite.middlewares;
    };
  } else {
    opts.staticRoot = await ensureAppBuilt();
  }

  const running = await startServer(config, log, opts);
  console.log(`\nTributary is running at ${running.url}${running.seeded ? ' (demo data seeded)' : ''}`);
  if (config.seedDemo) {
    console.log(`Demo organisation: subdomain "demo"; password for every demo user: ${DEMO_PASSWORD}`);
    for (const u of DEMO_USERS) {
      const roles = Object.values(u.roles).flat();
      console.log(`  ${u.email.padEnd(42)} ${Object.keys(u.roles).length === 0 ? '(no tenants)' : roles.length ? [...new Set(roles)].join(', ') : '(no roles)'}`);
    }
  }
  // only with a freshly seeded demo: a restart keeps whatever people did with it
  if (running.seeded) {
    try {
      const demo = await seedDemoFormula({ database: running.database, config, services: running.services, log });
      console.log(`Demo formula "${demo.name}" is running: its records wait for review in the Data Queue.`);
    } catch (err) {
      // the demo organisation works without it
      log.error({ err }, 'the demo formula could not be created');
    }
  }
  console.log('Press Ctrl-C to stop.\n');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    await running.stop();
    process.exit(0);
  };
  // stop() stops the HTTP server, the job queue, the pool and then the embedded PostgreSQL, in that
  // order; the embedded PostgreSQL library's own handlers of these signals would stop the database
  // at once, under the job queue (and exit before it has closed)
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.removeAllListeners(signal);
    process.on(signal, () => void stop(signal));
  }
}

main().catch((err) => {
  console.error(`\nTributary could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
