/*
 * Released migration: never edit it. Scheduled sources: an address of a CSV/XLSX file pulled on a
 * schedule and imported through the offer import, and one row per run of a source. `headers` holds
 * the request headers an administrator gave (a token, say): like the webhook secret it is kept as
 * written, never returned by the API and never logged. A run keeps the checksum of the bytes it
 * fetched, the import job it previewed, the plan's summary, the guards that stopped it and who
 * decided a held run.
 */
import type { Kysely } from 'kysely'

import { bigintType, type DialectName, withIdColumn } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withIdColumn(db.schema.createTable('sources'), dialect)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('mapping', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('sheet', 'text')
    .addColumn('schedule', 'text')
    .addColumn('private_hosts', 'text', (c) => c.notNull())
    .addColumn('guards', 'text', (c) => c.notNull())
    .addColumn('stale_after_days', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('etag', 'text')
    .addColumn('last_modified', 'text')
    .addColumn('content_sha256', 'text')
    .addColumn('changed_at', 'text')
    .addColumn('applied_rows', 'integer')
    .addColumn('last_run_at', 'text')
    .execute()
  await withIdColumn(db.schema.createTable('source_runs'), dialect)
    .addColumn('source_id', bigintType(dialect), (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('http_status', 'integer')
    .addColumn('bytes', bigintType(dialect))
    .addColumn('content_sha256', 'text')
    .addColumn('job_id', 'text')
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('guards', 'text', (c) => c.notNull())
    .addColumn('failure', 'text')
    .addColumn('decided_by_user_id', bigintType(dialect))
    .addColumn('decided_by_name', 'text')
    .addColumn('decided_at', 'text')
    .execute()
  await db.schema.createIndex('source_runs_by_source').on('source_runs').columns(['source_id', 'id']).execute()
  await db.schema.createIndex('source_runs_by_outcome').on('source_runs').columns(['outcome', 'id']).execute()
}
