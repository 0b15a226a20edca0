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

export async function deleteSessionsOfUser(db: Executor, userId: number): Promise<number> {
  const result = await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst()
  return Number(result.numDeletedRows)
}
