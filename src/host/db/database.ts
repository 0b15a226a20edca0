import path from 'node:path'

import { Kysely } from 'kysely'

import type { AppConfig } from '../../config.js'
import { createPostgresDialect, createSqliteDialect, type DialectCaps } from './dialect.js'
import type { Database } from './schema.js'
import { ReadWriteSqliteDialect, sqliteFileBehind } from './sqlite-connections.js'

export interface DatabaseHandle {
  readonly db: Kysely<Database>
  readonly caps: DialectCaps
  /** Human-readable location without credentials, for start-up messages. */
  readonly location: string
  /** The PostgreSQL pool's connection counts (metrics); SQLite has one connection and none. */
  readonly pool?: { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number }
  destroy(): Promise<void>
}

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string; otherwise SQLite at `sqliteFile`. */
  databaseUrl?: string | undefined
  sqliteFile?: string
  /** SQLite page cache in MiB (see createSqliteDialect). */
  sqliteCacheMib?: number
  /** See SqliteOptions.walCheckpointer. */
  sqliteWalCheckpointer?: boolean
  pgSchema?: string
  /** PostgreSQL connections kept at most (10 unless set). */
  maxConnections?: number
}

/** How each open PostgreSQL database was reached, so that a worker thread can open its own connection. */
const postgresConnections = new WeakMap<object, Pick<OpenDatabaseOptions, 'databaseUrl' | 'pgSchema'>>()

/**
 * The options that open another connection to the database behind `db`: a file-backed SQLite
 * database or a PostgreSQL database opened here; undefined for an in-memory SQLite database.
 */
export function connectionBehind(db: Kysely<Database>): OpenDatabaseOptions | undefined {
  const postgres = postgresConnections.get(db)
  if (postgres) return { ...postgres }
  const file = sqliteFileBehind(db as unknown as Kysely<never>)
  return file === undefined ? undefined : { sqliteFile: file }
}

export function openDatabase(options: OpenDatabaseOptions): DatabaseHandle {
  if (options.databaseUrl) {
    const { dialect, caps, pool } = createPostgresDialect({
      connectionString: options.databaseUrl,
      ...(options.pgSchema ? { schema: options.pgSchema } : {}),
      ...(options.maxConnections ? { maxConnections: options.maxConnections } : {}),
    })
    const db = new Kysely<Database>({ dialect })
    postgresConnections.set(db, {
      databaseUrl: options.databaseUrl,
      ...(options.pgSchema ? { pgSchema: options.pgSchema } : {}),
    })
    return { db, caps, pool, location: redactConnectionString(options.databaseUrl), destroy: () => db.destroy() }
  }
  const file = options.sqliteFile ?? ':memory:'
  const { dialect, caps } = createSqliteDialect({
    file,
    ...(options.sqliteCacheMib === undefined ? {} : { cacheSizeKib: options.sqliteCacheMib * 1024 }),
    ...(options.sqliteWalCheckpointer === undefined ? {} : { walCheckpointer: options.sqliteWalCheckpointer }),
  })
  const db = new Kysely<Database>({ dialect })
  if (dialect instanceof ReadWriteSqliteDialect) dialect.register(db as unknown as Kysely<never>)
  return { db, caps, location: file, destroy: () => db.destroy() }
}

/** Where the embedded database of a data folder lives. */
export function sqliteFileOf(config: Pick<AppConfig, 'dataDir'>): string {
  return path.join(config.dataDir, 'dg.sqlite')
}

export function openConfiguredDatabase(
  config: Pick<AppConfig, 'databaseUrl' | 'dataDir'> & Partial<Pick<AppConfig, 'sqliteCacheMib' | 'databaseSchema'>>,
): DatabaseHandle {
  return openDatabase({
    databaseUrl: config.databaseUrl,
    sqliteFile: sqliteFileOf(config),
    ...(config.databaseSchema ? { pgSchema: config.databaseSchema } : {}),
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
