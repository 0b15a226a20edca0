import os from 'node:os'
import { fileURLToPath } from 'node:url'

import { defineConfig } from 'vitest/config'

/*
 * Three projects, each runnable alone (`npx vitest run --project unit|api|browser`):
 * - unit: functions on their own, no database and no server (`*.unit.test.ts`);
 * - api: the service built with `buildApp` and driven with `inject()` or over HTTP, on SQLite and
 *   PostgreSQL, plus the CLI, the demo and the child-process suites;
 * - browser: Debian's Chromium, nginx and WordPress driving the panel, the component and the plugin.
 */
const UNIT = ['test/**/*.unit.test.ts', 'src/**/*.unit.test.ts']
const BROWSER = ['test/**/*-browser.test.ts', 'test/wordpress/**/*.test.ts', 'test/deploy/**/*.test.ts']

// Most suites wait on a database, a child process or a browser, so a worker per core leaves the
// cores idle; two per core keep them busy without timing out the suites that measure waits.
const workers = Math.max(2, os.availableParallelism() * 2)

export default defineConfig({
  resolve: {
    // the example website imports the package's client by its name; in this checkout it is the source
    alias: { 'dg-offers/client': fileURLToPath(new URL('./src/catalog/client.ts', import.meta.url)) },
  },
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // files run in parallel workers; each opens its own SQLite file or PostgreSQL schema
    pool: 'forks',
    maxWorkers: workers,
    reporters: ['default', './test/helpers/database-reporter.ts'],
    // PostgreSQL for the storage suites: the README's local server unless told otherwise
    globalSetup: ['./test/helpers/postgres-setup.ts'],
    env: { NODE_ENV: 'test' },
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT } },
      {
        extends: true,
        test: {
          name: 'api',
          include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
          exclude: [...UNIT, ...BROWSER],
          // a worker keeps the service's modules loaded from one file to the next instead of
          // importing them again for each: every file builds its own app and database, so nothing
          // a test can observe is shared
          isolate: false,
        },
      },
      { extends: true, test: { name: 'browser', include: BROWSER, isolate: false } },
    ],
  },
})
