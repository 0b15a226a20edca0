/*
 * Released migration: never edit it. On PostgreSQL `offers_status_price` (0015) also carries the
 * area text itself. PostgreSQL answers from an index alone only when every column the query names
 * is in it, and it does not see that `CAST(area AS numeric)` is already there as an indexed
 * expression: every list with a price range and an area filter read each offer of the range from
 * the table and cast its area again. Those lists are counted again after every price change
 * (their totals follow prices): at 120,000 offers, 31-50 ms a count (a parallel scan on a busy
 * 2-core machine), 9.5 ms from the index alone, and after a large import the catalog's slowest
 * requests in bench:mixed with two instances were these counts. SQLite reads indexed expressions
 * from the index already (0015) and has nothing to change.
 */
import { type Kysely, sql } from 'kysely'

import { areaNumericSql, type DialectName } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  if (dialect !== 'postgres') return
  await db.schema.dropIndex('offers_status_price').execute()
  await sql
    .raw(
      `CREATE INDEX offers_status_price ON offers ` +
        `(host_status, price_total_cents, id, status, rooms, (${areaNumericSql(dialect)})) INCLUDE (area)`,
    )
    .execute(db)
}
