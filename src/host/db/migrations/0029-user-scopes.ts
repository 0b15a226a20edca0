/*
 * Released migration: never edit it. The scope of a user who is not an administrator: the developer
 * entities and investments it may see and change (docs/decisions/roles-and-capabilities.md, "Scope").
 * A user with no row here works on the whole catalog. `target_id` names a developer or an
 * investment by `kind`, so it carries no foreign key: a row left by a deleted target names nothing
 * and allows nothing. A change bumps the credentials revision (migration 0012), so an instance that
 * keeps a user's resolved scope under that revision sees it at once.
 */
import { type Kysely, sql } from 'kysely'

import { addCredentialsRevisionTriggers, bigintType, type DialectName } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const big = bigintType(dialect)
  await db.schema
    .createTable('user_scopes')
    .addColumn('user_id', big, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('developer', 'investment')`))
    .addColumn('target_id', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('user_scopes_pk', ['user_id', 'kind', 'target_id'])
    .execute()
  // a change of scope bumps the credentials revision, which keys what instances keep of a check
  await addCredentialsRevisionTriggers(db, dialect, 'user_scopes', ['user_id', 'kind', 'target_id'])
}
