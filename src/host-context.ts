/*
 * A service context without an HTTP app: the database migrated, the signing key, the hooks. buildApp
 * makes one for its app; the CLI, the platform (a company's database) and benchmarks make their own.
 */
import type { Logger } from 'pino'

import { alertAfterScheduledPublications } from './alerts/alert-rules.js'
import type { AppConfig } from './config.js'
import { resolveAuthKey } from './host/auth/secrets.js'
import type { HostContext } from './host/context.js'
import type { DatabaseHandle } from './host/db/database.js'
import { refreshPlannerStatistics } from './host/db/dialect.js'
import { migrateToLatest } from './host/db/migrate.js'
import { HookRegistry } from './host/hooks/hooks.js'
import { MetaRegistry } from './host/meta/meta-registry.js'

export interface HostContextOptions {
  config: AppConfig
  database: DatabaseHandle
  log: Logger
  hooks?: HookRegistry
  meta?: MetaRegistry
  now?: () => Date
}

export async function createHostContext(options: HostContextOptions): Promise<HostContext> {
  const base = { config: options.config, db: options.database.db }
  await migrateToLatest(options.database.db, options.database.caps.name)
  await refreshPlannerStatistics(options.database.db, options.database.caps.name, 'opening')
  const authKey = await resolveAuthKey(base)
  const hooks = options.hooks ?? new HookRegistry()
  hooks.reportFailuresTo(({ kind, hook, owner, error, args }) =>
    options.log.error(
      { err: error, hook, extension: owner, ...(typeof args[0] === 'number' ? { entryId: args[0] } : {}) },
      `extension ${kind} failed; it was skipped and its change left out`,
    ),
  )
  alertAfterScheduledPublications(hooks)
  return Object.freeze({
    config: options.config,
    db: options.database.db,
    caps: options.database.caps,
    hooks,
    meta: options.meta ?? new MetaRegistry(),
    log: options.log,
    authKey,
    now: options.now ?? (() => new Date()),
  })
}
