/*
 * Released migration: never edit it. `catalog_state.listing_revision`: bumped, in the writing
 * transaction, by a write that can change which offers a catalog list without a price or
 * modification-time filter counts: an offer added or removed, an offer's change of any column such
 * a list filters on (LISTED_OFFER_COLUMNS; a filter on another column needs a new migration that
 * recreates the triggers, and test/host/db/listing-revision.test.ts says so), an investment
 * published, unpublished or removed. A price change (a CRM's webhook, most writes of a day) leaves
 * it, so the lists' totals (X-WP-Total) counted under it stay valid across such writes
 * (docs/decisions/catalog-cache-and-revisions.md: every list counted again after each write saturated the service at 120,000
 * offers and ten price changes a second).
 */
import { type Kysely, sql } from 'kysely'

import { addListingRevisionTriggers, bigintType, type DialectName } from '../dialect.js'

/** The offers' columns a catalog count filters on (catalog-repository.ts), prices and modification time apart. */
export const LISTED_OFFER_COLUMNS = [
  'investment_id',
  'host_status',
  'status',
  'offer_kind',
  'property_type',
  'rooms',
  'floor',
  'area',
  'title',
  'code',
] as const

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('catalog_state')
    .addColumn('listing_revision', bigintType(dialect), (c) => c.notNull().defaultTo(1))
    .execute()
  await sql`UPDATE catalog_state SET listing_revision = 1 WHERE id = 1`.execute(db)
  await addListingRevisionTriggers(db, dialect, LISTED_OFFER_COLUMNS)
}
