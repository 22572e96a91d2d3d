/**
 * `npm test`'s runs, side by side: the typecheck and the import lint, the end-to-end project in one
 * vitest process, the unit, model and API projects in another, then scripts/check-test-report.ts
 * over the reports and every run's exit code and time.
 *
 * Why two vitest processes: the end-to-end files run one at a time (each drives Chromium against a
 * server of its own), and vitest runs a project like that as a group of its own after every other
 * file. In one vitest the browser journeys would wait for the whole rest of the suite and then run
 * alone, leaving a core idle for half the run. Side by side, they overlap.
 *
 * The production build is made once, here, into dist/ (skipped when dist/ is newer than every
 * source): the end-to-end run starts when it is there, and the budget test of the unit project
 * reads the same build (TRIBUTARY_APP_BUILD names the file saying it is done) instead of making
 * its own.
 *
 * Each line an end-to-end run prints starts with 'e2e │ ' so the two outputs can be told apart.
 * TRIBUTARY_SKIP_E2E leaves the end-to-end process out (scripts/check-test-report.ts says so, and
 * refuses it under CI).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureAppBuilt } from '../server/appBuild.ts';
import { REPORTS, type RunOutcome } from './testReports.ts';

const started = Date.now();
fs.mkdirSync(path.dirname(REPORTS.main), { recursive: true });
for (const f of [REPORTS.main, REPORTS.e2e, REPORTS.build]) fs.rmSync(f, { force: true });

const vitest = ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json'];
const env = { ...process.env, TRIBUTARY_APP_BUILD: path.resolve(REPORTS.build) };

function run(name: string, args: string[], prefix: string): Promise<RunOutcome> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
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
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), ms: Date.now() - t0 }));
  });
}

/** dist/, built once for the budget test and the end-to-end run; the outcome is written where both look */
async function build(): Promise<RunOutcome> {
  const t0 = Date.now();
  let outcome: RunOutcome;
  try {
    await ensureAppBuilt();
    outcome = { name: 'production build', code: 0, ms: Date.now() - t0 };
  } catch (err) {
    console.error('The production build failed:', err);
    outcome = { name: 'production build', code: 1, ms: Date.now() - t0, error: err instanceof Error ? err.message : String(err) };
  }
  fs.writeFileSync(REPORTS.build, JSON.stringify({ ...outcome, dist: path.resolve('dist') }));
  return outcome;
}

const tsx = [process.execPath, '--import', 'tsx'];
const built = build();
const runs: Promise<RunOutcome>[] = [
  built,
  run('typecheck', ['node_modules/typescript/bin/tsc', '--noEmit', '-p', 'tsconfig.json'], 'tsc │ '),
  run('import lint', [...tsx.slice(1), 'scripts/lint-imports.ts'], 'lint │ '),
  run('unit, model, api', [...vitest, '--project=unit', '--project=model', '--project=api', `--outputFile.json=${REPORTS.main}`], ''),
];
if (!process.env.TRIBUTARY_SKIP_E2E) {
  runs.push(built.then((b) => (b.code === 0
    ? run('e2e', [...vitest, '--project=e2e', `--outputFile.json=${REPORTS.e2e}`], 'e2e │ ')
    : { name: 'e2e', code: 1, ms: 0, error: 'not run: the production build failed' })));
}
const outcomes = await Promise.all(runs);

const check = spawn(process.execPath, ['--import', 'tsx', 'scripts/check-test-report.ts'], {
  stdio: 'inherit', env: { ...process.env, TRIBUTARY_TEST_RUNS: JSON.stringify({ started, outcomes }) },
});
check.on('close', (code) => process.exit(code ?? 1));
