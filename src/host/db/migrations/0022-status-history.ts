/*
 * Released migration: never edit it. The ledger of offer statuses (docs/decisions/published-record.md):
 * every change of an offer's status, append-only beside the price history, with the run that made
 * it. A unit's status on a day is the `after` of its latest record on or before the day, else the
 * `before` of its earliest later record, else its current status.
 */
import type { Kysely } from 'kysely'

import { bigintType, type DialectName, makeAppendOnly, withIdColumn } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigintType(dialect)
  await withIdColumn(db.schema.createTable('status_history'), dialect)
    .addColumn('offer_id', big, (c) => c.notNull().references('offers.id'))
    .addColumn('before_status', 'text', (c) => c.notNull())
    .addColumn('after_status', 'text', (c) => c.notNull())
    .addColumn('valid_from', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('run_id', big)
    .execute()
  await db.schema.createIndex('status_history_offer').on('status_history').columns(['offer_id', 'id']).execute()
  await makeAppendOnly(db, dialect, 'status_history')
}
