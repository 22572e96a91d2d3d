/** Where `npm test`'s runs leave what the others read (scripts/test-suites.ts, scripts/check-test-report.ts). */
export const REPORTS = {
  /** the JSON reports of the two vitest runs */
  main: '.data/test-report.json', e2e: '.data/test-report-e2e.json',
  /** written once the shared production build is done (or failed): tests/support/appBuild.ts waits for it */
  build: '.data/test-build.json',
} as const;

/** one run of `npm test` (a vitest process, the typecheck, the build): its exit code and how long it took */
export interface RunOutcome { name: string; code: number; ms: number; error?: string }
