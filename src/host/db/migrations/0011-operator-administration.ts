/*
 * Released migration: never edit it. What operator administration in the admin panel keeps:
 * - `users.disabled_at`: a disabled account keeps its audit trail and application passwords on
 *   record but cannot log in or call the API (null: active);
 * - `login_throttle`: failed sign-ins per bucket (an account, a browser that signed in before, a
 *   client address) and until when the bucket is slowed down, shared by every instance;
 * - `webhook_activity`: webhook deliveries per day and outcome code (accepted, replayed, each
 *   refusal's code), a bounded table however many deliveries arrive;
 * - audit-log indexes for the panel's filters by action and by who acted, newest first.
 */
import type { Kysely } from 'kysely'

import { bigintType, type DialectName } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema.alterTable('users').addColumn('disabled_at', 'text').execute()

  await db.schema
    .createTable('login_throttle')
    .addColumn('bucket', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failed_at', 'text', (c) => c.notNull())
    .addColumn('blocked_until', 'text')
    .execute()
  await db.schema.createIndex('login_throttle_last_failed').on('login_throttle').column('last_failed_at').execute()

  await db.schema
    .createTable('webhook_activity')
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('count', bigintType(dialect), (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_activity_pk', ['day', 'code'])
    .execute()

  await db.schema.createIndex('audit_log_action').on('audit_log').columns(['action', 'id']).execute()
  await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor_name', 'id']).execute()
}
