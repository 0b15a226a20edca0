/*
 * Released migration: never edit it. Password reset by e-mail: at most one pending reset per
 * account (a newer request replaces it), kept as the keyed hash of its token only, with its expiry.
 */
import type { Kysely } from 'kysely'

import { bigintType, type DialectName } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('password_resets')
    .addColumn('user_id', bigintType(dialect), (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
}
