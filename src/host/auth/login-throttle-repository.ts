import { type Expression, sql } from 'kysely'

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

export interface ThrottleClaim {
  bucket: string
  /** Failures counted before the bucket is slowed down. */
  freeFailures: number
  /**
   * Until when the bucket is refused after its (freeFailures + i)-th failure, for i = 0, 1, …; the
   * last entry also holds for every count beyond.
   */
  blockedUntilAfter: readonly string[]
}

/** Refuses the claims' transaction: one bucket is slowed down, so nothing of the attempt is counted. */
class ClaimRefused extends Error {
  constructor(readonly bucket: string) {
    super('sign-in attempt refused by the throttle')
  }
}

/**
 * Counts one sign-in attempt as a failure in every bucket, in one transaction, unless one of them
 * is slowed down: then nothing is counted and the bucket is returned. The count and the check are
 * one conditional UPDATE per bucket: it takes the row's lock (PostgreSQL re-reads the condition
 * once a concurrent attempt holding it commits; SQLite has one writer), so however many attempts
 * run at once, on however many instances, each sees the count of those before it and exactly the
 * free ones get through. The buckets are claimed in one order, so two attempts never wait on each
 * other's rows. `nowIso` and `forgetBefore` are ISO instants: the columns hold ISO text.
 */
export async function claimThrottles(
  db: Executor,
  claims: readonly ThrottleClaim[],
  nowIso: string,
  forgetBefore: string,
): Promise<{ refusedBucket: string } | null> {
  const ordered = [...claims].sort((a, b) => (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0))
  try {
    await db.transaction().execute(async (trx) => {
      for (const claim of ordered) {
        await trx
          .insertInto('login_throttle')
          .values({ bucket: claim.bucket, failures: 0, last_failed_at: nowIso, blocked_until: null })
          .onConflict((conflict) => conflict.column('bucket').doNothing())
          .execute()
        const failures = sql<number>`(CASE WHEN login_throttle.last_failed_at < ${forgetBefore} THEN 1 ELSE login_throttle.failures + 1 END)`
        const counted = await trx
          .updateTable('login_throttle')
          .set({
            failures,
            last_failed_at: nowIso,
            blocked_until: blockedUntilSql(failures, claim),
          })
          .where('bucket', '=', claim.bucket)
          .where((eb) => eb.or([eb('blocked_until', 'is', null), eb('blocked_until', '<=', nowIso)]))
          .returning('failures')
          .executeTakeFirst()
        if (!counted) throw new ClaimRefused(claim.bucket)
      }
    })
  } catch (error) {
    if (error instanceof ClaimRefused) return { refusedBucket: error.bucket }
    throw error
  }
  return null
}

function blockedUntilSql(failures: Expression<number>, claim: ThrottleClaim) {
  const steps = claim.blockedUntilAfter
  const last = steps.at(-1) ?? null
  const branches = steps.slice(0, -1).map((until, i) => sql`WHEN ${failures} = ${claim.freeFailures + i} THEN ${until}`)
  return sql<
    string | null
  >`(CASE WHEN ${failures} < ${claim.freeFailures} THEN NULL ${sql.join(branches, sql` `)} ELSE ${last} END)`
}

/**
 * Takes back one counted attempt of a bucket (a sign-in that succeeded was counted as a failure in
 * advance); below the free failures it is no longer slowed down.
 */
export async function uncountThrottle(db: Executor, bucket: string, freeFailures: number): Promise<void> {
  await db
    .updateTable('login_throttle')
    .set({
      failures: sql<number>`(CASE WHEN failures > 0 THEN failures - 1 ELSE 0 END)`,
      blocked_until: sql<string | null>`(CASE WHEN failures - 1 < ${freeFailures} THEN NULL ELSE blocked_until END)`,
    })
    .where('bucket', '=', bucket)
    .execute()
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
