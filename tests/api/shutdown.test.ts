/**
 * Stopping `npm start` with Ctrl-C: the terminal signals the whole foreground process group, and
 * the server stops in order (HTTP, the job queue, the pool, then the embedded PostgreSQL), logging
 * no error, exiting 0 and leaving no PostgreSQL running. The server runs as `npm run dev` does
 * (no build), in a process group of its own that stands for the terminal's.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../server/db/embedded.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-stop-'));
fs.chmodSync(dataDir, 0o755);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** The log's JSON lines (console lines for people are left out). */
const logLines = (out: string) => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string; err?: { message?: string } });

describe('npm start stopped with Ctrl-C', () => {
  it('stops the job queue before PostgreSQL, logging no error', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env, DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1', EMBEDDED_PG_PORT: String(await freePort()), LOG_LEVEL: 'info',
    };
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, ['--import', 'tsx', 'server/start.ts', '--dev'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await expect.poll(() => out, { timeout: 150_000, interval: 250 }).toContain('Press Ctrl-C to stop.');
      // the demo formula's run and the job workers are busy with the database
      await new Promise((r) => setTimeout(r, 2000));
      const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
      // Ctrl-C: every process of the terminal's foreground group
      process.kill(-child.pid!, 'SIGINT');
      expect(await exited).toBe(0);
      const lines = logLines(out);
      const stopping = lines.findIndex((l) => l.msg === 'stopping');
      expect(stopping).toBeGreaterThanOrEqual(0);
      expect(lines.slice(stopping).filter((l) => l.level >= 50).map((l) => `${l.msg}: ${l.err?.message ?? ''}`)).toEqual([]);
      expect(fs.existsSync(path.join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
      expect(() => process.kill(postmaster, 0)).toThrow();
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  }, 240_000);
});
