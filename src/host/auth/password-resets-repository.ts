import type { Executor } from '../context.js'

/** Stores the account's pending reset, replacing an earlier one (a newer request invalidates it). */
export async function replacePasswordReset(
  db: Executor,
  row: { user_id: number; token_hash: string; created_at: string; expires_at: string },
): Promise<void> {
  await db.deleteFrom('password_resets').where('user_id', '=', row.user_id).execute()
  await db.insertInto('password_resets').values(row).execute()
}

/**
 * Takes the live reset with this token hash, once: the row is deleted by the same statement that
 * finds it, so two uses of one link cannot both succeed. The account it was for, or undefined.
 */
export async function claimPasswordReset(db: Executor, tokenHash: string, nowIso: string): Promise<number | undefined> {
  const row = await db
    .deleteFrom('password_resets')
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', nowIso)
    .returning('user_id')
    .executeTakeFirst()
  return row === undefined ? undefined : Number(row.user_id)
}

/** A password set any way (reset, own change, an administrator, `dg`) voids the account's pending reset. */
export async function deletePasswordResetsOf(db: Executor, userId: number): Promise<void> {
  await db.deleteFrom('password_resets').where('user_id', '=', userId).execute()
}

export async function deleteExpiredPasswordResets(db: Executor, nowIso: string): Promise<number> {
  const result = await db.deleteFrom('password_resets').where('expires_at', '<=', nowIso).executeTakeFirst()
  return Number(result.numDeletedRows)
}
