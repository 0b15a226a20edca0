/*
 * Released migration: never edit it. Import jobs (preview, then execution under an idempotency
 * key), their planned operations for paging, and named locks shared by all instances.
 */
import type { Kysely } from 'kysely'

import { bigintType, type DialectName } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('import_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('operator_user_id', bigintType(dialect))
    .addColumn('operator_name', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('file_sha256', 'text', (c) => c.notNull())
    .addColumn('file_format', 'text', (c) => c.notNull())
    .addColumn('mapping', 'text', (c) => c.notNull())
    .addColumn('counters', 'text', (c) => c.notNull())
    .addColumn('errors', 'text', (c) => c.notNull())
    .addColumn('archive_scope', 'text', (c) => c.notNull())
    .addColumn('plan_digest', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.unique())
    .addColumn('run_token', 'text')
    .addColumn('run_id', bigintType(dialect))
    .addColumn('result', 'text')
    .addColumn('failure', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('import_jobs_status_expires')
    .on('import_jobs')
    .columns(['status', 'expires_at'])
    .execute()

  await db.schema
    .createTable('import_job_items')
    .addColumn('job_id', 'text', (c) => c.notNull().references('import_jobs.id').onDelete('cascade'))
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('row', 'integer')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('offer_key', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('import_job_items_pk', ['job_id', 'seq'])
    .execute()

  await db.schema
    .createTable('locks')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('acquired_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
}
