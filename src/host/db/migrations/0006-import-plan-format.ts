/*
 * Released migration: never edit it. Import jobs keep their plan in a compact format (2) and the
 * catalog revision, day and planner version it was planned with, so that execution of a plan whose
 * catalog has not changed since the preview writes it without planning the file a second time.
 */
import type { Kysely } from 'kysely'

import { bigintType, type DialectName } from '../dialect.js'

export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .alterTable('import_jobs')
    .addColumn('plan_format', 'integer', (c) => c.notNull().defaultTo(1))
    .execute()
  await db.schema.alterTable('import_jobs').addColumn('plan_revision', bigintType(dialect)).execute()
  await db.schema.alterTable('import_jobs').addColumn('plan_today', 'text').execute()
  await db.schema.alterTable('import_jobs').addColumn('plan_version', 'text').execute()
}
