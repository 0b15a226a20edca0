/*
 * Released migration: never edit it. The append-only tables refused UPDATE and DELETE row by row
 * only; on PostgreSQL TRUNCATE fires no row trigger and emptied them. A statement trigger now
 * refuses it (makeAppendOnly adds it to every later table).
 */
import type { Kysely } from 'kysely'

import { type DialectName, refuseTruncate } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  for (const table of ['audit_log', 'price_history', 'status_history']) await refuseTruncate(db, dialect, table)
}
