/*
 * Released migration: never edit it. The public price endpoint's settings, one row per investment
 * that has any: whether its prices are answered without credentials and the website origins
 * allowed to read them from a browser (CORS). An investment without a row is off. Read on every
 * public request (no instance keeps them), so a change holds at once on every instance.
 */
import type { Kysely } from 'kysely'

import { bigintType, type DialectName } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('public_prices_settings')
    .addColumn('investment_id', bigintType(dialect), (c) =>
      c.primaryKey().references('investments.id').onDelete('cascade'),
    )
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('allowed_origins', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute()
}
