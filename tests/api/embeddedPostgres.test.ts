/**
 * Embedded PostgreSQL recovers by itself after a crash: a postmaster left running by a killed
 * process, and a port someone else holds.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startEmbeddedPostgres } from '../../server/db/embedded.ts';
import { openDatabase } from '../../server/db/database.ts';
import { seedDemo } from '../../server/db/seed.ts';
import { createLogger } from '../../server/log.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-pg-'));
fs.chmodSync(dataDir, 0o755);
const log = createLogger('silent');
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('embedded PostgreSQL', () => {
  it('starts again after the process holding it was killed with SIGKILL, keeping its data', async () => {
    const port = await freePort();
    // a child process starts the cluster, seeds, and is then killed without any chance to stop it
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', `
      const { startEmbeddedPostgres } = await import(${JSON.stringify(path.resolve('server/db/embedded.ts'))});
      const { openDatabase } = await import(${JSON.stringify(path.resolve('server/db/database.ts'))});
      const { seedDemo } = await import(${JSON.stringify(path.resolve('server/db/seed.ts'))});
      const { createLogger } = await import(${JSON.stringify(path.resolve('server/log.ts'))});
      const db = await startEmbeddedPostgres(${JSON.stringify(dataDir)}, ${port}, createLogger('silent'));
      const database = await openDatabase(db.url);
      await seedDemo(database.db);
      console.log('READY');
      setInterval(() => {}, 1000);
    `], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => { if (d.toString().includes('READY')) resolve(); });
      child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const pid = Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(() => process.kill(pid, 0)).not.toThrow(); // the orphaned postmaster still holds port and folder

    const again = await startEmbeddedPostgres(dataDir, port, log);
    try {
      const database = await openDatabase(again.url);
      expect(await seedDemo(database.db)).toBe(false); // a second start keeps all data
      const { rows } = await database.pool.query('select count(*)::int as n from users');
      expect(rows[0].n).toBe(9);
      await database.close();
    } finally {
      await again.stop();
    }
  }, 120_000);

  it('uses another port when its own is taken by someone else', async () => {
    const taken = await freePort();
    const holder = net.createServer().listen(taken, '127.0.0.1');
    await new Promise((r) => holder.once('listening', r));
    const db = await startEmbeddedPostgres(dataDir, taken, log);
    try {
      expect(new URL(db.url).port).not.toBe(String(taken));
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      expect((await client.query('select 1 as one')).rows[0].one).toBe(1);
      await client.end();
    } finally {
      await db.stop();
      holder.close();
    }
  }, 60_000);

  it('says clearly why it cannot start', async () => {
    const file = path.join(dataDir, 'not-a-folder');
    fs.writeFileSync(file, 'x');
    await expect(startEmbeddedPostgres(file, await freePort(), log)).rejects.toThrow(/not-a-folder/);
  });
});
