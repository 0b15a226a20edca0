/*
 * The SQL of the portable export (portable-export.ts). Table and column names come from the
 * database's own catalog (describeTables) or from a manifest checked against it, and are quoted
 * here; values always travel as parameters.
 */
import { CompiledQuery, type Kysely, sql } from 'kysely'

import type { DialectName, TableShape } from '../host/db/dialect.js'

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

/** Kysely's migration bookkeeping: the target has its own, made by its own migrations. */
export const MIGRATION_TABLES = new Set(['dg_migration', 'dg_migration_lock'])

/** The migrations applied to the database, by name (sorted: the names begin with their number). */
export async function appliedMigrations(db: Kysely<never>): Promise<string[] | undefined> {
  try {
    const { rows } = await sql<{ name: string }>`SELECT name FROM dg_migration ORDER BY name`.execute(db)
    return rows.map((row) => row.name)
  } catch {
    // no bookkeeping table: a database never migrated
    return undefined
  }
}

/**
 * One batch of a table's rows in its primary key's order, after `after` (the previous batch's last
 * key, compared as a row value, which both databases index) or from the start; a table without a
 * primary key is read by offset. Rows come in the database's own values.
 */
export async function readTableBatch(
  db: Kysely<never>,
  dialect: DialectName,
  table: TableShape,
  position: { after?: readonly unknown[]; offset: number },
  limit: number,
): Promise<Record<string, unknown>[]> {
  const columns = table.columns.map((column) => quote(column.name)).join(', ')
  const keyed = table.primaryKey.length > 0
  const order = (keyed ? table.primaryKey : table.columns.map((c) => c.name)).map(quote).join(', ')
  const after = keyed ? position.after : undefined
  let n = 0
  const marks = after?.map(() => (dialect === 'postgres' ? `$${++n}` : '?')).join(', ')
  const text =
    `SELECT ${columns} FROM ${quote(table.name)}` +
    (after ? ` WHERE (${table.primaryKey.map(quote).join(', ')}) > (${marks})` : '') +
    ` ORDER BY ${order} LIMIT ${Math.trunc(limit)}` +
    (keyed ? '' : ` OFFSET ${Math.trunc(position.offset)}`)
  const result = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, after ? [...after] : []))
  return result.rows
}

export async function countRows(db: Kysely<never>, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db)
  return Number(rows[0]?.n ?? 0)
}

export async function deleteAllRows(db: Kysely<never>, table: string): Promise<void> {
  await sql`DELETE FROM ${sql.table(table)}`.execute(db)
}
