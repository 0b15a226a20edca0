import type { Executor } from '../context.js'

export async function insertSession(
  db: Executor,
  row: { token_hash: string; user_id: number; created_at: string; expires_at: string },
): Promise<void> {
  await db.insertInto('sessions').values(row).execute()
}

export async function findLiveSession(
  db: Executor,
  tokenHash: string,
  nowIso: string,
): Promise<{ id: number; user_id: number; expires_at: string } | undefined> {
  return db
    .selectFrom('sessions')
    .select(['id', 'user_id', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', nowIso)
    .executeTakeFirst()
}

export async function deleteSession(db: Executor, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute()
}

export async function deleteExpiredSessions(db: Executor, nowIso: string): Promise<number> {
  const result = await db.deleteFrom('sessions').where('expires_at', '<=', nowIso).executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function deleteSessionsOfUser(db: Executor, userId: number, exceptTokenHash?: string): Promise<number> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId)
  if (exceptTokenHash !== undefined) query = query.where('token_hash', '!=', exceptTokenHash)
  const result = await query.executeTakeFirst()
  return Number(result.numDeletedRows)
}
