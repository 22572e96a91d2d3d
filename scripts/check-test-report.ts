/**
 * Vitest exits 0 when a global setup fails (its projects then run no test at all), so `npm test`
 * also reads the JSON report: every project must have run, and nothing may have failed.
 */
import fs from 'node:fs';

const REPORT = '.data/test-report.json';
const PROJECT_DIRS = ['tests/unit/', 'tests/model/', 'tests/api/', 'tests/e2e/'];

interface Report { success: boolean; numTotalTests: number; numFailedTests: number; testResults: { name: string; status: string }[] }

if (!fs.existsSync(REPORT)) {
  console.error(`No test report at ${REPORT}: the test run did not finish.`);
  process.exit(1);
}
const report = JSON.parse(fs.readFileSync(REPORT, 'utf8')) as Report;
const missing = PROJECT_DIRS.filter((dir) => !report.testResults.some((r) => r.name.includes(`/${dir}`)));
const problems = [
  ...(report.success ? [] : ['the run did not succeed']),
  ...(report.numFailedTests > 0 ? [`${report.numFailedTests} tests failed`] : []),
  ...missing.map((dir) => `no test ran in ${dir} (did its global setup fail?)`),
];
const passed = report.numTotalTests - report.numFailedTests;
if (problems.length) {
  console.error(`Test run refused: ${problems.join('; ')}.`);
  console.log(`${passed} passed, ${Math.max(report.numFailedTests, 1)} failed`);
  process.exit(1);
}
console.log(`${passed} passed, 0 failed`);
