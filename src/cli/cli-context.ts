import { pino } from 'pino'

import { createHostContext } from '../app.js'
import type { AppConfig } from '../config.js'
import type { HostContext } from '../host/context.js'
import { type DatabaseHandle, openConfiguredDatabase } from '../host/db/database.js'
import { loggerOptions } from '../host/http/logging.js'

export interface CliIo {
  stdout(text: string): void
  stderr(text: string): void
  /** Asks the operator a yes/no question; undefined when nobody can answer (no terminal). */
  confirm?(question: string): Promise<boolean>
  /** Whether stderr is a terminal, so progress can be redrawn in place. */
  interactive?: boolean
}

export interface CliEnvironment {
  config: AppConfig
  io: CliIo
  /** Opens the database; tests pass one that points at their own SQLite file or schema. */
  openDatabase?: () => DatabaseHandle
}

/** Runs `body` with a migrated database and a host context; logs go to stderr, never stdout. */
export async function withHostContext<T>(env: CliEnvironment, body: (ctx: HostContext) => Promise<T>): Promise<T> {
  const database = env.openDatabase ? env.openDatabase() : openConfiguredDatabase(env.config)
  const log = pino(loggerOptions(env.config.logLevel === 'info' ? 'warn' : env.config.logLevel), pino.destination(2))
  try {
    const ctx = await createHostContext({ config: env.config, database, log })
    return await body(ctx)
  } finally {
    await database.destroy()
  }
}
