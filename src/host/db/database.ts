import path from 'node:path'

import { Kysely } from 'kysely'

import type { AppConfig } from '../../config.js'
import { createPostgresDialect, createSqliteDialect, type DialectCaps } from './dialect.js'
import type { Database } from './schema.js'

export interface DatabaseHandle {
  readonly db: Kysely<Database>
  readonly caps: DialectCaps
  /** Human-readable location without credentials, for start-up messages. */
  readonly location: string
  destroy(): Promise<void>
}

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string; otherwise SQLite at `sqliteFile`. */
  databaseUrl?: string | undefined
  sqliteFile?: string
  /** SQLite page cache in MiB (see createSqliteDialect). */
  sqliteCacheMib?: number
  pgSchema?: string
}

export function openDatabase(options: OpenDatabaseOptions): DatabaseHandle {
  if (options.databaseUrl) {
    const { dialect, caps } = createPostgresDialect({
      connectionString: options.databaseUrl,
      ...(options.pgSchema ? { schema: options.pgSchema } : {}),
    })
    const db = new Kysely<Database>({ dialect })
    return { db, caps, location: redactConnectionString(options.databaseUrl), destroy: () => db.destroy() }
  }
  const file = options.sqliteFile ?? ':memory:'
  const { dialect, caps } = createSqliteDialect({
    file,
    ...(options.sqliteCacheMib === undefined ? {} : { cacheSizeKib: options.sqliteCacheMib * 1024 }),
  })
  const db = new Kysely<Database>({ dialect })
  return { db, caps, location: file, destroy: () => db.destroy() }
}

export function openConfiguredDatabase(
  config: Pick<AppConfig, 'databaseUrl' | 'dataDir'> & Partial<Pick<AppConfig, 'sqliteCacheMib'>>,
): DatabaseHandle {
  return openDatabase({
    databaseUrl: config.databaseUrl,
    sqliteFile: path.join(config.dataDir, 'dg.sqlite'),
    ...(config.sqliteCacheMib === undefined ? {} : { sqliteCacheMib: config.sqliteCacheMib }),
  })
}

export function redactConnectionString(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return 'postgres://(unparseable connection string)'
  }
}
