/**
 * The end of `npm test`: reads the JSON reports of its vitest runs (scripts/test-suites.ts), lists every skipped test by name, prints the
 * wall time of each run and each project, then the closing line 'N passed, N failed, N skipped', and
 * refuses the run when vitest, the typecheck, the import lint or the build failed, a test failed,
 * one of the four projects ran no test (a global setup that gave up, a filter gone wrong), or a
 * suite was left out for a missing program under CI. The runs' exit codes and times come in
 * TRIBUTARY_TEST_RUNS, since unhandled errors fail a run without failing a test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPORTS, type RunOutcome } from './testReports.ts';

const PROJECT_DIRS = ['tests/unit/', 'tests/model/', 'tests/api/', 'tests/e2e/'];
// A developer without these programs may leave their tests out of a local run, never under CI
// (scripts/setup.mjs and tests/support/clamav.ts refuse them there too).
const OPT_OUTS: Record<string, { what: string; dir?: string }> = {
  TRIBUTARY_SKIP_E2E: { what: 'the end-to-end suite (Chromium) did not run', dir: 'tests/e2e/' },
  TRIBUTARY_SKIP_CLAMAV: { what: 'the virus-scanning tests against a real clamd were skipped' },
};

interface Report {
  success: boolean;
  startTime: number;
  testResults: { name: string; status: string; message: string; startTime: number; endTime: number; assertionResults: { fullName: string; status: string }[] }[];
}

const ci = Boolean(process.env.CI) && process.env.CI !== 'false';
const runs = JSON.parse(process.env.TRIBUTARY_TEST_RUNS ?? '{"started":0,"outcomes":[]}') as { started: number; outcomes: RunOutcome[] };
// the end-to-end run's report, unless a developer left that suite out
const expected = process.env.TRIBUTARY_SKIP_E2E ? [REPORTS.main] : [REPORTS.main, REPORTS.e2e];

const missing = expected.filter((f) => !fs.existsSync(f));
if (missing.length) {
  console.error(`No test report at ${missing.join(', ')}: a test run did not finish (${runs.outcomes.map((o) => `${o.name} exited with ${o.code}`).join(', ')}).`);
  console.log('0 passed, 1 failed, 0 skipped');
  process.exit(1);
}
const reports = expected.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')) as Report);
const report = { success: reports.every((r) => r.success), testResults: reports.flatMap((r) => r.testResults) };
const tests = report.testResults.flatMap((file) =>
  file.assertionResults.map((t) => ({ ...t, file: path.relative(process.cwd(), file.name) })));
const ran = (dir: string) => tests.filter((t) => t.file.startsWith(dir) && (t.status === 'passed' || t.status === 'failed')).length;

const passed = tests.filter((t) => t.status === 'passed').length;
const skipped = tests.filter((t) => t.status === 'skipped' || t.status === 'todo');
// a file that failed to load has no failed test of its own; a test still 'pending' never finished
const brokenFiles = report.testResults.filter((f) => f.status === 'failed' && !f.assertionResults.some((t) => t.status === 'failed'));
const failed = tests.filter((t) => t.status === 'failed' || t.status === 'pending').length + brokenFiles.length;

const optedOut = Object.entries(OPT_OUTS).filter(([name]) => process.env[name]);
const problems = [
  ...runs.outcomes.filter((o) => o.code !== 0).map((o) => `${o.name} exited with code ${o.code}${o.error ? ` (${o.error})` : ''}`),
  ...(!report.success && failed === 0 ? ['vitest reported the run as unsuccessful'] : []),
  ...(failed > 0 ? [`${failed} failed`] : []),
  ...brokenFiles.map((f) => `${path.relative(process.cwd(), f.name)} did not load: ${f.message}`),
  ...PROJECT_DIRS
    .filter((dir) => ran(dir) === 0 && (ci || !optedOut.some(([, o]) => o.dir === dir)))
    .map((dir) => `no test ran in ${dir}`),
  ...(ci ? optedOut.map(([name]) => `${name} is set, but under CI every suite must run`) : []),
];

if (skipped.length) {
  console.log(`\nSkipped (${skipped.length}):`);
  for (const t of skipped) console.log(`  ${t.file} > ${t.fullName}${t.status === 'todo' ? ' (todo)' : ''}`);
}
// wall times: each run from its start, each project from its run's start to its last file's end
const seconds = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
console.log('\nWall time:');
for (const o of runs.outcomes) console.log(`  ${o.name.padEnd(18)} ${seconds(o.ms).padStart(6)}`);
for (const r of reports) {
  for (const dir of PROJECT_DIRS) {
    const files = r.testResults.filter((f) => path.relative(process.cwd(), f.name).startsWith(dir) && f.endTime);
    if (files.length) console.log(`  ${`${dir.split('/')[1]} project`.padEnd(18)} ${seconds(Math.max(...files.map((f) => f.endTime)) - (r.startTime || Math.min(...files.map((f) => f.startTime)))).padStart(6)}`);
  }
}
if (runs.started) console.log(`  ${'npm test'.padEnd(18)} ${seconds(Date.now() - runs.started).padStart(6)}`);
for (const [name, o] of optedOut) console.warn(`\n*** ${name} is set: ${o.what}. ***`);
if (problems.length) console.error(`\nTest run refused: ${problems.join('; ')}.`);
console.log(`\n${passed} passed, ${Math.max(failed, problems.length ? 1 : 0)} failed, ${skipped.length} skipped`);
process.exit(problems.length ? 1 : 0);
