import fs from 'node:fs'

import { pino } from 'pino'

import { createHostContext } from '../app.js'
import { type AppConfig, ConfigError } from '../config.js'
import type { HostContext } from '../host/context.js'
import {
  type DatabaseHandle,
  openConfiguredDatabase,
  redactConnectionString,
  sqliteFileOf,
} from '../host/db/database.js'
import { HostError } from '../host/errors.js'
import { loadExtensions } from '../host/extensions/load-extensions.js'
import { HookRegistry } from '../host/hooks/hooks.js'
import { loggerOptions } from '../host/http/logging.js'
import { MetaRegistry } from '../host/meta/meta-registry.js'

/** What a progress bar needs of a terminal: stderr when it is a TTY, or a test's fake one. */
export interface TerminalStream extends NodeJS.WritableStream {
  isTTY?: boolean
  columns?: number
}

export interface CliIo {
  stdout(text: string): void
  stderr(text: string): void
  /** Asks the operator a yes/no question; undefined when nobody can answer (no terminal). */
  confirm?(question: string): Promise<boolean>
  /** stderr when it is a terminal, so that progress can be drawn in place; undefined otherwise. */
  terminal?: TerminalStream
}

export interface CliEnvironment {
  config: AppConfig
  io: CliIo
  /** Opens the database; tests pass one that points at their own SQLite file or schema. */
  openDatabase?: () => DatabaseHandle
  /** The command may start a new SQLite database (serve, migrate, demo); the others refuse to. */
  createsDatabase?: boolean
}

/** A command run where there is no database: a configuration error (exit code 2) with its own code. */
export class DatabaseMissingError extends ConfigError {
  readonly code = 'database_missing'
}

/**
 * Opens the command's database. Opening SQLite creates the file, so a command run from the wrong
 * folder (or with DG_DATA_DIR unset) would otherwise work on a new, empty database and report
 * "no users" or "unknown user" instead of saying where it looked.
 */
export function openCliDatabase(env: CliEnvironment): DatabaseHandle {
  if (env.openDatabase) return env.openDatabase()
  const { config } = env
  if (!config.databaseUrl && !env.createsDatabase && !fs.existsSync(sqliteFileOf(config))) {
    throw new DatabaseMissingError(
      [
        `There is no database in ${config.dataDir} (no dg.sqlite there), and this command does not create one.`,
        'Point DG_DATA_DIR at the folder that holds your dg.sqlite (DG_DATA_DIR=/path/to/data npm run dg -- …),',
        'or set DATABASE_URL=postgres://… to use PostgreSQL. To create a new, empty database there instead,',
        'run dg migrate or dg serve with the same settings (npm start and npm run demo use ./data of the checkout).',
      ].join('\n'),
    )
  }
  return openConfiguredDatabase(config)
}

// node's socket errors and PostgreSQL's connection (08), authorization (28), unknown database
// (3D000) and "starting up" (57P03) states: what a wrong DATABASE_URL or a stopped server gives
const UNREACHABLE = /^(E[A-Z]+|08\w{3}|28\w{3}|3D000|57P03)$/

/** The error of a PostgreSQL server that cannot be used at all, named with its (redacted) address. */
export function databaseUnavailable(config: AppConfig, error: unknown): HostError | undefined {
  if (!config.databaseUrl || typeof error !== 'object' || error === null) return undefined
  const { code, message, errors } = error as { code?: unknown; message?: unknown; errors?: unknown }
  if (typeof code !== 'string' || !UNREACHABLE.test(code)) return undefined
  // connecting to "localhost" tries ::1 and 127.0.0.1 and fails with an AggregateError without a message
  const first = Array.isArray(errors) ? (errors[0] as { message?: unknown } | undefined) : undefined
  const reason =
    (typeof message === 'string' && message) || (typeof first?.message === 'string' && first.message) || code
  return new HostError(
    'database_unavailable',
    503,
    `Cannot use the PostgreSQL database at ${redactConnectionString(config.databaseUrl)}: ${reason}. ` +
      'Check DATABASE_URL (host, port, database name, user and password) and that the server is running.',
  )
}

/**
 * Runs `body` with a migrated database and a host context; logs go to stderr, never stdout.
 * `extensions`: load the `DG_EXTENSIONS` modules first, for a command that needs what they
 * register (the import's `meta:` mapping); the others run even when an extension is broken, so
 * that backup, users or migrations never depend on a site's code.
 */
export async function withHostContext<T>(
  env: CliEnvironment,
  body: (ctx: HostContext) => Promise<T>,
  options: { extensions?: boolean } = {},
): Promise<T> {
  const log = pino(loggerOptions(env.config.logLevel === 'info' ? 'warn' : env.config.logLevel), pino.destination(2))
  const hooks = new HookRegistry()
  const meta = new MetaRegistry()
  if (options.extensions) await loadExtensions(env.config.extensions, { hooks, meta, log, config: env.config })
  const database = openCliDatabase(env)
  try {
    let ctx: HostContext
    try {
      ctx = await createHostContext({ config: env.config, database, log, hooks, meta })
    } catch (error) {
      throw databaseUnavailable(env.config, error) ?? error
    }
    return await body(ctx)
  } finally {
    await database.destroy()
  }
}
