/*
 * Where a company's database lives: a schema beside the first company's in the same PostgreSQL
 * database, or an SQLite file in the company's data folder. Each company's connections are its
 * own (a PostgreSQL pool whose connections open with the company's search_path), so a query can
 * only ever see one company's tables: there is no tenant column a query could forget.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

import type { Kysely } from 'kysely'

import { connectionBehind, type DatabaseHandle, openDatabase, sqliteFileOf } from '../host/db/database.js'
import { createCompanySchema, type DialectName, dropCompanySchema, migrationSchema } from '../host/db/dialect.js'
import type { Database } from '../host/db/schema.js'
import { HostError } from '../host/errors.js'
import { tenantDataDir, tenantSchemaName } from './tenant-names.js'
import type { TenantRow } from './tenants-repository.js'

/** Connections a company keeps at most; idle ones close after 10 s, so a quiet company holds none. */
const TENANT_POOL_SIZE = 4

export interface FirstCompanyDatabase {
  db: Kysely<Database>
  dialect: DialectName
  dataDir: string
}

export async function storageNameFor(first: FirstCompanyDatabase, slug: string): Promise<string> {
  if (first.dialect === 'postgres') return tenantSchemaName(await migrationSchema(first.db, 'postgres'), slug)
  return path.join('tenants', slug)
}

export async function createTenantStorage(first: FirstCompanyDatabase, row: Pick<TenantRow, 'slug' | 'storage'>) {
  await fs.mkdir(tenantDataDir(first.dataDir, row.slug), { recursive: true })
  await createCompanySchema(first.db, first.dialect, row.storage)
}

export async function dropTenantStorage(first: FirstCompanyDatabase, row: Pick<TenantRow, 'slug' | 'storage'>) {
  await dropCompanySchema(first.db, first.dialect, row.storage)
  await fs.rm(tenantDataDir(first.dataDir, row.slug), { recursive: true, force: true })
}

export function openTenantDatabase(
  first: FirstCompanyDatabase,
  row: Pick<TenantRow, 'slug' | 'storage'>,
): DatabaseHandle {
  const behind = connectionBehind(first.db)
  if (behind?.databaseUrl) {
    return openDatabase({ databaseUrl: behind.databaseUrl, pgSchema: row.storage, maxConnections: TENANT_POOL_SIZE })
  }
  if (behind?.sqliteFile === undefined)
    throw new HostError(
      'tenants_need_storage',
      409,
      'Other companies need a database on disk or PostgreSQL; this service runs on an in-memory database.',
    )
  return openDatabase({ sqliteFile: sqliteFileOf({ dataDir: tenantDataDir(first.dataDir, row.slug) }) })
}
