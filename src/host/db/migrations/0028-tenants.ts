/*
 * Released migration: never edit it. The companies this deployment serves besides its own (the
 * first company is the database this table lives in). Each row names where that company's own
 * database lives — a PostgreSQL schema or an SQLite file under the data folder — so that nothing
 * of one company is stored beside another's. `slug` never changes: it is part of every address the
 * company has handed out and of every file it has published.
 */
import type { Kysely } from 'kysely'

import { type DialectName, withIdColumn } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withIdColumn(db.schema.createTable('tenants'), dialect)
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('storage', 'text', (c) => c.notNull())
    .addColumn('hosts', 'text', (c) => c.notNull())
    .addColumn('site_url', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('suspended_at', 'text')
    .addColumn('exported_at', 'text')
    .execute()
}
