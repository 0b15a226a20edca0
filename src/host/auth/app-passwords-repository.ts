import type { Executor } from '../context.js'
import { compiledOnce } from '../db/compiled-once.js'
import type { AppPasswordRow } from '../db/schema.js'

export async function insertAppPassword(
  db: Executor,
  row: { uuid: string; user_id: number; name: string; password_hash: string; created_at: string },
): Promise<AppPasswordRow> {
  return db.insertInto('app_passwords').values(row).returningAll().executeTakeFirstOrThrow()
}

export async function selectAppPasswordsOfUser(db: Executor, userId: number): Promise<AppPasswordRow[]> {
  return db.selectFrom('app_passwords').selectAll().where('user_id', '=', userId).orderBy('id').execute()
}

export async function deleteAppPassword(db: Executor, userId: number, uuid: string): Promise<number> {
  const result = await db
    .deleteFrom('app_passwords')
    .where('user_id', '=', userId)
    .where('uuid', '=', uuid)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function touchAppPassword(db: Executor, id: number, usedAt: string, ip: string): Promise<void> {
  await db.updateTable('app_passwords').set({ last_used_at: usedAt, last_ip: ip }).where('id', '=', id).execute()
}

const credentialsRevisionQuery = compiledOnce((db: Executor) =>
  db.selectFrom('credentials_state').select('revision').where('id', '=', 1),
)

/** Bumped by triggers whenever a user or an application password changes (migration 0012). */
export async function selectCredentialsRevision(db: Executor): Promise<number> {
  const [state] = await credentialsRevisionQuery(db)
  if (!state) throw new Error('credentials_state has no row')
  return Number(state.revision)
}
