/*
 * Released migration: never edit it. Indexes for the editor's offers table, which lists offers of
 * every host status: the catalog's indexes (0002, 0003) lead with `host_status`, because the
 * catalog shows published offers only, so they order nothing across statuses.
 * - `offers_editor_price`: the table sorted by price over every status (a page was a sort of every
 *   offer: 11 ms of the server's CPU at 50,000 offers; now a walk of the page in the index);
 * - `offers_editor_status_rooms`: offer status and rooms, by price, with or without a host status
 *   (the catalog's covering index has the investment before the price, so its pages walked the
 *   price index and read every offer's row to test the filters: 4–5 ms);
 * - `offers_editor_type`: the offers without a type (`property_type` = '', the ones to qualify),
 *   counted and paged newest first from the index instead of a scan of every offer.
 * Other sorts over every status (designation, area, modification time) are left to a sort: each
 * index costs every imported offer, and those sorts are less used (docs/decisions/editor-offers-table.md).
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('offers_editor_price').on('offers').columns(['price_total_cents', 'id']).execute()
  await db.schema
    .createIndex('offers_editor_status_rooms')
    .on('offers')
    .columns(['status', 'rooms', 'price_total_cents', 'id'])
    .execute()
  await db.schema.createIndex('offers_editor_type').on('offers').columns(['property_type', 'id']).execute()
}
