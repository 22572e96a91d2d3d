/**
 * `npm test`'s vitest runs, side by side: the end-to-end project in one vitest process, the unit,
 * model and API projects in another, then scripts/check-test-report.ts over both reports.
 *
 * Why two processes: the end-to-end files run one at a time (each drives Chromium against a server
 * of its own), and vitest runs a project like that as a group of its own after every other file.
 * In one vitest the browser journeys would wait for the whole rest of the suite and then run alone,
 * leaving a core idle for half the run. Side by side, they overlap.
 *
 * Each line an end-to-end run prints starts with 'e2e │ ' so the two outputs can be told apart.
 * TRIBUTARY_SKIP_E2E leaves the end-to-end process out (scripts/check-test-report.ts says so, and
 * refuses it under CI).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { REPORTS } from './testReports.ts';

fs.rmSync(REPORTS.main, { force: true });
fs.rmSync(REPORTS.e2e, { force: true });

const vitest = ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json'];

function run(args: string[], prefix: string): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...vitest, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    for (const [from, to] of [[child.stdout, process.stdout], [child.stderr, process.stderr]] as const) {
      let rest = '';
      from.setEncoding('utf8');
      from.on('data', (chunk: string) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop()!;
        if (lines.length) to.write(lines.map((l) => prefix + l).join('\n') + '\n');
      });
      from.on('end', () => { if (rest) to.write(prefix + rest + '\n'); });
    }
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const runs = [run(['--project=unit', '--project=model', '--project=api', `--outputFile.json=${REPORTS.main}`], '')];
if (!process.env.TRIBUTARY_SKIP_E2E) runs.push(run(['--project=e2e', `--outputFile.json=${REPORTS.e2e}`], 'e2e │ '));
const codes = await Promise.all(runs);

const check = spawn(process.execPath, ['--import', 'tsx', 'scripts/check-test-report.ts', ...codes.map(String)], { stdio: 'inherit' });
check.on('close', (code) => process.exit(code ?? 1));
