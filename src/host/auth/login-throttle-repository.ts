import { sql } from 'kysely'

import type { Executor } from '../context.js'

export interface ThrottleRow {
  bucket: string
  failures: number
  last_failed_at: string
  blocked_until: string | null
}

export async function selectThrottles(db: Executor, buckets: readonly string[]): Promise<ThrottleRow[]> {
  if (buckets.length === 0) return []
  return db
    .selectFrom('login_throttle')
    .selectAll()
    .where('bucket', 'in', [...buckets])
    .execute()
}

/**
 * Counts one failure of a bucket atomically (one upsert, so instances that fail at once both count)
 * and returns the bucket's failures; a count whose last failure is older than `forgetBefore` starts over.
 */
export async function countFailure(
  db: Executor,
  bucket: string,
  nowIso: string,
  forgetBefore: string,
): Promise<number> {
  const row = await db
    .insertInto('login_throttle')
    .values({ bucket, failures: 1, last_failed_at: nowIso, blocked_until: null })
    .onConflict((conflict) =>
      conflict.column('bucket').doUpdateSet({
        failures: sql<number>`CASE WHEN login_throttle.last_failed_at < ${forgetBefore} THEN 1 ELSE login_throttle.failures + 1 END`,
        last_failed_at: nowIso,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow()
  return Number(row.failures)
}

export async function setBlockedUntil(db: Executor, bucket: string, until: string): Promise<void> {
  await db.updateTable('login_throttle').set({ blocked_until: until }).where('bucket', '=', bucket).execute()
}

export async function deleteThrottles(db: Executor, buckets: readonly string[]): Promise<void> {
  if (buckets.length === 0) return
  await db
    .deleteFrom('login_throttle')
    .where('bucket', 'in', [...buckets])
    .execute()
}

/** Buckets with no failure since `before` and no delay still running. */
export async function deleteForgottenThrottles(db: Executor, before: string, nowIso: string): Promise<number> {
  const result = await db
    .deleteFrom('login_throttle')
    .where('last_failed_at', '<', before)
    .where((eb) => eb.or([eb('blocked_until', 'is', null), eb('blocked_until', '<', nowIso)]))
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
