import type { Kysely } from 'kysely'
import type { Logger } from 'pino'

import type { AppConfig } from '../config.js'
import type { DialectCaps } from './db/dialect.js'
import type { Database } from './db/schema.js'
import type { HookRegistry } from './hooks/hooks.js'
import type { MetaRegistry } from './meta/meta-registry.js'

/**
 * What the host gives every service function: storage, settings, extension hooks, a logger and
 * the clock. Services receive it as their first argument instead of importing globals, so a test
 * can build as many independent apps as it needs.
 */
export interface HostContext {
  readonly config: AppConfig
  readonly db: Kysely<Database>
  readonly caps: DialectCaps
  readonly hooks: HookRegistry
  /** Meta keys code registered for REST exposure. */
  readonly meta: MetaRegistry
  readonly log: Logger
  /** Key of keyed hashes (application passwords, nonces); see resolveAuthKey. */
  readonly authKey: string
  /** The current time; replaced in tests that need a fixed or moving clock. */
  now(): Date
}

/** A Kysely handle that may be the database itself or an open transaction. */
export type Executor = Kysely<Database>
