/*
 * Released migration: never edit it. A revision of everything an application password check reads
 * (users, and application passwords apart from their last use), bumped by triggers in the writing
 * transaction. Each instance keeps the checks it has verified under that revision, so a catalog
 * request costs one small read instead of a user and a password lookup, and a change made on any
 * instance (or by hand in SQL) is seen by all of them on their next request.
 */
import { type Kysely, sql } from 'kysely'

import { addCredentialsRevisionTriggers, bigintType, type DialectName } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('credentials_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('revision', bigintType(dialect), (c) => c.notNull())
    .execute()
  await sql`INSERT INTO credentials_state (id, revision) VALUES (1, 1)`.execute(db)
  await addCredentialsRevisionTriggers(db, dialect, 'users', ['login', 'email', 'password_hash', 'role', 'disabled_at'])
  await addCredentialsRevisionTriggers(db, dialect, 'app_passwords', ['user_id', 'name', 'password_hash'])
}
