/*
 * Released migration: never edit it. One row per alert, keyed by its cause, the day it is about
 * and its scope (a developer entity's dataset, or '' for the whole service): inserting that row is
 * an instance's claim to send the alert, so two instances never both send it and a cause is told
 * once a day. `channels` records each channel's outcome; `state` says whether sending is under way.
 */
import type { Kysely } from 'kysely'

import { bigintType, type DialectName, withIdColumn } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withIdColumn(db.schema.createTable('alerts'), dialect)
    .addColumn('cause', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('developer_id', bigintType(dialect))
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('message_pl', 'text', (c) => c.notNull())
    .addColumn('message_en', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('raised_at', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'text', (c) => c.notNull())
    .addColumn('channels', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute()
  await db.schema.createIndex('alerts_once').on('alerts').columns(['cause', 'day', 'scope']).unique().execute()
  await db.schema.createIndex('alerts_raised').on('alerts').column('raised_at').execute()
  await db.schema.createIndex('alerts_state').on('alerts').columns(['state', 'claimed_at']).execute()
}
