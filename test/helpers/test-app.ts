import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { afterAll, beforeAll, describe } from 'vitest'

import { buildApp } from '../../src/app.js'
import { type AppConfig, loadConfig } from '../../src/config.js'
import type { HostContext } from '../../src/host/context.js'
import { HookRegistry } from '../../src/host/hooks/hooks.js'
import { openTestDatabase, TEST_DIALECTS, type TestDatabase, type TestDialect } from './databases.js'

/** A clock the test moves by hand. */
export class TestClock {
  #now: number
  constructor(start = Date.parse('2026-11-20T10:00:00Z')) {
    this.#now = start
  }
  now = (): Date => new Date(this.#now)
  set(iso: string): void {
    this.#now = Date.parse(iso)
  }
  advance(ms: number): void {
    this.#now += ms
  }
}

export interface TestEnv {
  app: FastifyInstance
  ctx: HostContext
  config: AppConfig
  dialect: TestDialect
  database: TestDatabase
  hooks: HookRegistry
  clock: TestClock
}

export interface TestAppOptions {
  env?: Record<string, string>
  logger?: Logger
}

export async function startTestApp(dialect: TestDialect, options: TestAppOptions = {}): Promise<TestEnv> {
  const database = await openTestDatabase(dialect)
  const config = loadConfig({ DG_ENV: 'test', DG_LOG_LEVEL: 'silent', DG_DATA_DIR: database.dataDir, ...options.env })
  const hooks = new HookRegistry()
  const clock = new TestClock()
  const app = await buildApp({
    config,
    database: database.handle,
    hooks,
    now: clock.now,
    ...(options.logger ? { logger: options.logger } : {}),
  })
  await app.ready()
  return { app, ctx: app.ctx, config, dialect, database, hooks, clock }
}

/**
 * Declares `title` once per test database. The callback receives a getter because the app is
 * built in `beforeAll`, and the dialect, so a test that applies to one database only is declared
 * with `it.skipIf(dialect !== …)` and counted as skipped on the other.
 */
export function describeEachDatabase(
  title: string,
  body: (env: () => TestEnv, dialect: TestDialect) => void,
  options: TestAppOptions = {},
): void {
  for (const dialect of TEST_DIALECTS) {
    describe(`${title} [${dialect}]`, () => {
      let env: TestEnv | undefined
      beforeAll(async () => {
        env = await startTestApp(dialect, options)
      })
      afterAll(async () => {
        if (!env) return
        await env.app.close()
        await env.database.cleanup()
      })
      body(() => {
        if (!env) throw new Error('test app not started')
        return env
      }, dialect)
    })
  }
}
