import { fileURLToPath } from 'node:url'

import { defineConfig } from 'vitest/config'

export default defineConfig({
  resolve: {
    // the example website imports the package's client by its name; in this checkout it is the source
    alias: { 'dg-offers/client': fileURLToPath(new URL('./src/catalog/client.ts', import.meta.url)) },
  },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // files run in parallel workers; each opens its own SQLite file or PostgreSQL schema
    pool: 'forks',
    reporters: ['default', './test/helpers/database-reporter.ts'],
    // PostgreSQL for the storage suites: the README's local server unless told otherwise
    globalSetup: ['./test/helpers/postgres-setup.ts'],
    env: { NODE_ENV: 'test' },
  },
})
