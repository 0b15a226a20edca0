import { defineConfig } from 'vitest/config'

export default defineConfig({
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
