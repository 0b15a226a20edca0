/*
 * Released migration: never edit it. Two offer indexes are prefixes of wider ones that serve the
 * same queries (offers_investment of offers_investment_modified, offers_status_state of
 * offers_list_status_rooms and offers_list_status_price); every offer written paid for them.
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('offers_investment').ifExists().execute()
  await db.schema.dropIndex('offers_status_state').ifExists().execute()
}
