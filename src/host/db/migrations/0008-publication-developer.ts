/*
 * Released migration: never edit it. Each developer entity publishes its own dataset, so a
 * publication records whose it is; NULL (every publication before this) is the dataset at the
 * original /dane-gov/ paths, the publishing developer's.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('publications').addColumn('developer_id', 'integer').execute()
}
