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
 * One batch of a table's rows in its primary key's order: after `after` (the last batch's key) when
 * the key is one column, otherwise at `offset`. Rows come in the database's own values.
 */
export async function readTableBatch(
  db: Kysely<never>,
  dialect: DialectName,
  table: TableShape,
  position: { after?: unknown; offset: number },
  limit: number,
): Promise<Record<string, unknown>[]> {
  const columns = table.columns.map((column) => quote(column.name)).join(', ')
  const order = (table.primaryKey.length > 0 ? table.primaryKey : table.columns.map((c) => c.name))
    .map(quote)
    .join(', ')
  const keyset = table.primaryKey.length === 1 && position.after !== undefined
  const mark = dialect === 'postgres' ? '$1' : '?'
  const text =
    `SELECT ${columns} FROM ${quote(table.name)}` +
    (keyset ? ` WHERE ${quote(table.primaryKey[0] as string)} > ${mark}` : '') +
    ` ORDER BY ${order} LIMIT ${Math.trunc(limit)}` +
    (keyset ? '' : ` OFFSET ${Math.trunc(position.offset)}`)
  const result = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, keyset ? [position.after] : []))
  return result.rows
}

export async function countRows(db: Kysely<never>, table: string): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db)
  return Number(rows[0]?.n ?? 0)
}

export async function deleteAllRows(db: Kysely<never>, table: string): Promise<void> {
  await sql`DELETE FROM ${sql.table(table)}`.execute(db)
}
