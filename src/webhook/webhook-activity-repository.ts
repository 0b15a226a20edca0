import { sql } from 'kysely'

import type { Executor } from '../host/context.js'

/** Adds counts to the day's rows in one upsert per row, so instances that add at once both count. */
export async function addWebhookActivity(
  db: Executor,
  counts: ReadonlyArray<{ day: string; code: string; count: number }>,
): Promise<void> {
  for (const row of counts)
    await db
      .insertInto('webhook_activity')
      .values(row)
      .onConflict((conflict) =>
        conflict.columns(['day', 'code']).doUpdateSet({ count: sql<number>`webhook_activity.count + ${row.count}` }),
      )
      .execute()
}

export async function selectWebhookActivity(
  db: Executor,
  fromDay: string,
): Promise<Array<{ day: string; code: string; count: number }>> {
  const rows = await db
    .selectFrom('webhook_activity')
    .selectAll()
    .where('day', '>=', fromDay)
    .orderBy('day', 'desc')
    .orderBy('code')
    .execute()
  return rows.map((row) => ({ day: row.day, code: row.code, count: Number(row.count) }))
}

export async function deleteWebhookActivityBefore(db: Executor, day: string): Promise<number> {
  const result = await db.deleteFrom('webhook_activity').where('day', '<', day).executeTakeFirst()
  return Number(result.numDeletedRows)
}
