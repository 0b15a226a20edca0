/*
 * Released migration: never edit it. Replay guard of the signed webhook (nonces and signing-string
 * hashes, kept 600 s) and one execution record per idempotency key (exactly-once execution).
 */
import type { Kysely } from 'kysely'

import { bigintType, type DialectName } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('webhook_replay_guard')
    .addColumn('fingerprint', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('webhook_replay_guard_expires').on('webhook_replay_guard').column('expires_at').execute()

  await db.schema
    .createTable('webhook_executions')
    .addColumn('idempotency_key', 'text', (c) => c.primaryKey())
    .addColumn('body_sha256', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('lease_expires_at', 'text', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('run_id', bigintType(dialect))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('webhook_executions_expires').on('webhook_executions').column('expires_at').execute()
}
