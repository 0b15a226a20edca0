import { sql } from 'kysely'

import type { Executor } from '../../context.js'

/** Atomically counts one hit and returns the count of the window, in one statement. */
export async function incrementCounter(db: Executor, bucket: string, windowStart: number): Promise<number> {
  const row = await db
    .insertInto('rate_limit_counters')
    .values({ bucket, window_start: windowStart, hits: 1 })
    .onConflict((conflict) =>
      conflict.columns(['bucket', 'window_start']).doUpdateSet({ hits: sql<number>`rate_limit_counters.hits + 1` }),
    )
    .returning('hits')
    .executeTakeFirstOrThrow()
  return row.hits
}

export async function deleteCountersBefore(db: Executor, windowStart: number): Promise<void> {
  await db.deleteFrom('rate_limit_counters').where('window_start', '<', windowStart).execute()
}
