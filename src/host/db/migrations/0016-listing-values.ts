/*
 * Released migration: never edit it. `listing_values` holds what a large import counted in its
 * own transaction, before it committed (catalog/caching/listing-cache.ts): list totals, the offer ids of
 * pages and match sets, under the listing revision that import made. The instance that ran the
 * import keeps them in memory; every other instance reads them here on its first request for such
 * a list instead of counting it again (measured with two PostgreSQL instances in bench:mixed: the
 * other instance's lists all counted again at once after the commit, one waited 0.8 s). Written in
 * the import's transaction, the rows commit or roll back with its offers.
 */
import type { Kysely } from 'kysely'

import { bigintType, type DialectName } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('listing_values')
    .addColumn('listing_revision', bigintType(dialect), (c) => c.notNull())
    .addColumn('list_key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('stored_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('listing_values_pk', ['listing_revision', 'list_key'])
    .execute()
}
