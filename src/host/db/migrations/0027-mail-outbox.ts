/*
 * Released migration: never edit it. The outbox of a trial: outside production, with no SMTP server
 * in force, the e-mails the service would have sent (a password reset, a test e-mail) are kept here
 * so that the panel can show them; only the latest hundred are kept.
 */
import type { Kysely } from 'kysely'

import { type DialectName, withIdColumn } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withIdColumn(db.schema.createTable('mail_outbox'), dialect)
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('recipients', 'text', (c) => c.notNull())
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .execute()
}
