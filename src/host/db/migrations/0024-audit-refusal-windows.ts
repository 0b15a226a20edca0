/*
 * Released migration: never edit it. Anonymous refusals (failed sign-ins, password reset requests)
 * are counted here per client address, cause and window instead of one audit entry each, so that
 * no anonymous caller grows the append-only audit log faster than a fixed rate
 * (docs/decisions/authentication.md).
 */
import type { Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_refusal_windows')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('window_start', 'text', (c) => c.notNull())
    .addColumn('pending', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('audit_refusal_windows_pk', ['action', 'reason', 'address', 'window_start'])
    .execute()
  await db.schema
    .createIndex('audit_refusal_windows_start')
    .on('audit_refusal_windows')
    .column('window_start')
    .execute()
}
