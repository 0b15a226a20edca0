/*
 * Released migration: never edit it. The offers whose total is announced for a later day (its
 * "valid from" after today: docs/decisions/price-in-force-on-the-day.md) are found from an index.
 * A list filtered or ordered by price asks on every request whether any total is announced, and
 * without the index that question read every offer when none was: at 50,000 offers on SQLite,
 * 5 ms of each uncached list (which otherwise takes about 1 ms) and of the first list after every
 * write. While some are announced, a list reads those few offers through the index for their
 * price in force and the others by their stored total, in the price indexes' order. The offer
 * status and rooms, which the catalog's lists filter on most, are in the index so that an
 * announced offer another list filters out is never read from the table.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('offers_total_from')
    .on('offers')
    .columns(['price_total_from', 'host_status', 'status', 'rooms'])
    .execute()
}
