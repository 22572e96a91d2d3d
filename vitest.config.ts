import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  test: {
    // vitest's default on 2 cores is one worker: everything in series. The API and e2e files spend
    // most of their time waiting on PostgreSQL, Chromium and clamd, so two files run at once
    // (e2e files one at a time: fileParallelism below; `npm test` runs that project in a vitest
    // process of its own beside the others, scripts/test-suites.ts). Three at once cost more CPU
    // than the waits freed: on fresh clones of one commit, `npm test` took 396 s with two and
    // 456 s with three (11.8 minutes of CPU against 9.3).
    maxWorkers: 2,
    projects: [
      // a unit test that parses a workbook or walks every route takes seconds on a busy 2-core
      // machine: vitest's 5 s default failed them under load, not for anything they test
      // (a unit file starts nothing and mocks no module: the files share their worker's imports,
      // measured 37.5 s → 31 s wall and 60 s → 49 s of CPU for the project)
      { test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], environment: 'node', testTimeout: 30_000, isolate: false } },
      {
        plugins: [react()],
        test: {
          name: 'model', include: ['tests/model/**/*.test.{ts,tsx}'], environment: 'jsdom', testTimeout: 30_000,
          // a worker is started, and sets jsdom up, once for many files rather than once per file
          // (about 2.7 s each, 40 files), and runs each file's modules in a fresh VM context of its
          // own; the page is the worker's, so the setup file empties it first. (isolate: false
          // shares the modules as well: the step editor's and the live inspector's files then
          // failed on what the files before them had left.)
          pool: 'vmForks',
          setupFiles: ['tests/support/jsdomSetup.ts'],
        },
      },
      {
        test: {
          name: 'api', include: ['tests/api/**/*.test.ts'], environment: 'node',
          // the server's modules are imported once per worker, not once per file (about 10 s each):
          // every file starts servers of its own over a database of its own, and the server keeps
          // no module state that one server could leave to the next
          isolate: false,
          globalSetup: ['tests/support/globalSetup.ts', 'tests/support/clamav.ts'], testTimeout: 60_000, hookTimeout: 120_000,
          // what a test polls for comes from a server (and a browser) on a busy machine: a second is too little
          expect: { poll: { timeout: 15_000 } },
        },
      },
      {
        test: {
          // as in the API project, each file's server is its own but the server's modules are
          // imported once for the run instead of once per file (about 3 s each on a busy machine)
          name: 'e2e', include: ['tests/e2e/**/*.test.ts'], environment: 'node', isolate: false,
          globalSetup: ['tests/support/globalSetup.ts', 'tests/support/buildApp.ts', 'tests/support/clamav.ts'],
          // one file at a time: two at once took the browser files from 382 s to 318 s but slowed the
          // rest of the suite more, the machine's two cores being busy already
          testTimeout: 120_000, hookTimeout: 180_000, fileParallelism: false,
          expect: { poll: { timeout: 15_000 } },
        },
      },
    ],
  },
});
