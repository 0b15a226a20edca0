import type { Executor } from '../context.js'
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
