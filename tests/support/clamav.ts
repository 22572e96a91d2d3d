/**
 * A real clamd (Debian's clamav-daemon) for the API and end-to-end tests, with the project's own
 * test signature database (tests/fixtures/clamav: the EICAR test string), since live signature
 * updates cannot be fetched here. Started on a unix socket in a temporary folder and stopped after
 * the run. `npm test` installs clamd first (scripts/setup.mjs). Without it the run stops, unless
 * TRIBUTARY_SKIP_CLAMAV is set outside CI: the tests that need clamd then skip, and the summary
 * lists them (scripts/check-test-report.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext { clamavSocket: string }
}

const CANDIDATES = [process.env.CLAMD_PATH, '/usr/sbin/clamd', '/usr/bin/clamd', '/usr/local/sbin/clamd'].filter(Boolean) as string[];

let clamd: ChildProcess | undefined;
let dir: string | undefined;

export function clamdConfig(folder: string, databaseDirectory: string): string {
  return [
    `LocalSocket ${path.join(folder, 'clamd.sock')}`,
    'LocalSocketMode 600',
    `DatabaseDirectory ${databaseDirectory}`,
    `TemporaryDirectory ${folder}`,
    'Foreground yes',
    // larger than the 15MB upload limit; anything past the limits is reported, never passed
    'StreamMaxLength 20M',
    'MaxFileSize 20M',
    'MaxScanSize 100M',
    'AlertExceedsMax yes',
    'LogTime no',
    'LogVerbose no',
    'SelfCheck 3600',
    '',
  ].join('\n');
}

export async function setup(project: TestProject) {
  if (process.env.TRIBUTARY_SKIP_CLAMAV) {
    if (process.env.CI && process.env.CI !== 'false') {
      throw new Error('TRIBUTARY_SKIP_CLAMAV is set, but under CI the virus-scanning tests must run against clamd.');
    }
    console.warn('\n[clamav] *** TRIBUTARY_SKIP_CLAMAV is set: the virus-scanning tests against clamd are skipped. ***\n');
    project.provide('clamavSocket', '');
    return;
  }
  const binary = CANDIDATES.find((p) => fs.existsSync(p));
  if (!binary) {
    throw new Error(`clamd is not installed (looked for ${CANDIDATES.join(', ')}): the virus-scanning tests need it. `
      + '`npm test` installs it when run as root; otherwise apt-get install clamav-daemon, '
      + 'or set TRIBUTARY_SKIP_CLAMAV=1 to skip those tests in a local run.');
  }
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tributary-clamd-'));
  const conf = path.join(dir, 'clamd.conf');
  fs.writeFileSync(conf, clamdConfig(dir, path.resolve('tests/fixtures/clamav')));
  const log: string[] = [];
  clamd = spawn(binary, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  clamd.stdout!.on('data', (d: Buffer) => log.push(d.toString()));
  clamd.stderr!.on('data', (d: Buffer) => log.push(d.toString()));
  const socket = path.join(dir, 'clamd.sock');
  const deadline = Date.now() + 60_000;
  while (!(await pong(socket))) {
    if (clamd.exitCode !== null || Date.now() > deadline) {
      await teardown();
      throw new Error(`clamd did not start:\n${log.join('').slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  project.provide('clamavSocket', socket);
}

function pong(socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    if (!fs.existsSync(socket)) { resolve(false); return; }
    const s = net.connect(socket, () => s.write('zPING\0'));
    let text = '';
    s.on('data', (d) => { text += d.toString(); });
    s.on('close', () => resolve(text.startsWith('PONG')));
    s.on('error', () => resolve(false));
    s.setTimeout(2000, () => s.destroy());
  });
}

export async function teardown() {
  const proc = clamd;
  clamd = undefined;
  if (proc && proc.exitCode === null) {
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
    if (proc.exitCode === null) proc.kill('SIGKILL');
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
}
