/*
 * Released migration: never edit it. `offers_status_price` (0002) carries the columns the
 * catalog's lists filter on beside a price: offer status, rooms and the area as a number. A list
 * with a price range and an area or rooms filter, counted again after every price change (its
 * total follows prices), read every offer of the range from the table to test those filters: at
 * 120,000 offers on SQLite, 130 ms to count a range with a minimum area; walking the price order
 * for a status and a minimum area, 50 ms a page. With the columns in the index both read the index
 * alone. The 60 lists of bench:mixed, asked while prices change, took 616 ms in all, 350 ms after
 * (docs/decisions/catalog-cache-and-revisions.md).
 */
import { type Kysely, sql } from 'kysely'

import { areaNumericSql, type DialectName } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema.dropIndex('offers_status_price').execute()
  await sql
    .raw(
      `CREATE INDEX offers_status_price ON offers ` +
        `(host_status, price_total_cents, id, status, rooms, (${areaNumericSql(dialect)}))`,
    )
    .execute(db)
}
