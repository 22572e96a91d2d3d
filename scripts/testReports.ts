/** Where `npm test`'s two vitest runs write their JSON reports (scripts/test-suites.ts). */
export const REPORTS = { main: '.data/test-report.json', e2e: '.data/test-report-e2e.json' } as const;
