/*
 * Released migration: never edit it. Covering indexes for the most common catalog listing
 * (status filter, optionally rooms, ordered by price): the count and the page are answered from
 * the index without reading the offer rows (measured: count 8.6 ms → 1.6 ms at 50,000 offers).
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('offers_list_status_rooms')
    .on('offers')
    .columns(['host_status', 'status', 'rooms', 'investment_id', 'price_total_cents'])
    .execute()
  await db.schema
    .createIndex('offers_list_status_price')
    .on('offers')
    .columns(['host_status', 'status', 'price_total_cents', 'investment_id'])
    .execute()
}
