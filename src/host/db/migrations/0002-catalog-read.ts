/*
 * Released migration: never edit it. Catalog revision counter, rate-limit counters and the
 * indexes that keep every catalog filter and order fast at 50,000 offers.
 */
import { type Kysely, sql } from 'kysely'

import { addCatalogRevisionTriggers, areaNumericSql, bigintType, type DialectName } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('catalog_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('revision', bigintType(dialect), (c) => c.notNull())
    .addColumn('modified_at', 'text', (c) => c.notNull())
    .execute()
  await sql`INSERT INTO catalog_state (id, revision, modified_at) VALUES (1, 1, ${new Date().toISOString()})`.execute(
    db,
  )
  // options too: extension options appear in /catalog, so changing one must change its validators
  for (const table of [
    'offers',
    'investments',
    'offer_components',
    'price_history',
    'attachments',
    'developers',
    'options',
  ]) {
    await addCatalogRevisionTriggers(db, dialect, table)
  }

  await db.schema
    .createTable('rate_limit_counters')
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('window_start', bigintType(dialect), (c) => c.notNull())
    .addColumn('hits', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limit_counters_pk', ['bucket', 'window_start'])
    .execute()
  await db.schema.createIndex('rate_limit_counters_window').on('rate_limit_counters').column('window_start').execute()

  await db.schema.createIndex('offers_status_title').on('offers').columns(['host_status', 'title', 'id']).execute()
  await db.schema
    .createIndex('offers_status_price')
    .on('offers')
    .columns(['host_status', 'price_total_cents', 'id'])
    .execute()
  await sql.raw(`CREATE INDEX offers_status_area ON offers (host_status, (${areaNumericSql(dialect)}), id)`).execute(db)
  await db.schema
    .createIndex('offers_investment_modified')
    .on('offers')
    .columns(['investment_id', 'host_status', 'modified_at', 'id'])
    .execute()
  await db.schema.createIndex('offers_status_state').on('offers').columns(['host_status', 'status']).execute()
  await db.schema
    .createIndex('offers_status_kind')
    .on('offers')
    .columns(['host_status', 'offer_kind', 'property_type'])
    .execute()
  await db.schema.createIndex('offers_status_rooms').on('offers').columns(['host_status', 'rooms']).execute()
  await db.schema.createIndex('offers_status_floor').on('offers').columns(['host_status', 'floor']).execute()
}
