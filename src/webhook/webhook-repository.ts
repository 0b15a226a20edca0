import type { Selectable } from 'kysely'

import type { Executor } from '../host/context.js'
import type { WebhookExecutionsTable } from '../host/db/schema.js'

export type WebhookExecutionRow = Selectable<WebhookExecutionsTable>

/** Inserts the fingerprints in one statement; returns how many were new (a seen one is a replay). */
export async function insertReplayFingerprints(
  db: Executor,
  fingerprints: readonly string[],
  expiresAt: string,
): Promise<number> {
  const result = await db
    .insertInto('webhook_replay_guard')
    .values(fingerprints.map((fingerprint) => ({ fingerprint, expires_at: expiresAt })))
    .onConflict((oc) => oc.column('fingerprint').doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0)
}

/** Deletes expired fingerprints, at most `limit` of them (the oldest-expiring first) when given. */
export async function deleteExpiredFingerprints(db: Executor, nowIso: string, limit?: number): Promise<number> {
  const query =
    limit === undefined
      ? db.deleteFrom('webhook_replay_guard').where('expires_at', '<', nowIso)
      : db
          .deleteFrom('webhook_replay_guard')
          .where('fingerprint', 'in', (eb) =>
            eb
              .selectFrom('webhook_replay_guard')
              .select('fingerprint')
              .where('expires_at', '<', nowIso)
              .orderBy('expires_at')
              .limit(limit),
          )
  return Number((await query.executeTakeFirst()).numDeletedRows)
}

export async function insertExecutionClaim(db: Executor, row: WebhookExecutionRow): Promise<boolean> {
  const result = await db
    .insertInto('webhook_executions')
    .values(row)
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
}

export async function findExecution(db: Executor, key: string): Promise<WebhookExecutionRow | undefined> {
  return db.selectFrom('webhook_executions').selectAll().where('idempotency_key', '=', key).executeTakeFirst()
}

/** Takes over a running claim whose lease has run out, only if it is still exactly that claim. */
export async function takeOverExecution(
  db: Executor,
  stale: WebhookExecutionRow,
  owner: string,
  leaseExpiresAt: string,
  nowIso: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_executions')
    .set({ owner, lease_expires_at: leaseExpiresAt, updated_at: nowIso })
    .where('idempotency_key', '=', stale.idempotency_key)
    .where('status', '=', 'running')
    .where('owner', '=', stale.owner)
    .where('lease_expires_at', '=', stale.lease_expires_at)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function completeExecution(
  db: Executor,
  key: string,
  owner: string,
  result: string,
  runId: number,
  nowIso: string,
): Promise<boolean> {
  const updated = await db
    .updateTable('webhook_executions')
    .set({ status: 'completed', result, run_id: runId, updated_at: nowIso })
    .where('idempotency_key', '=', key)
    .where('owner', '=', owner)
    .where('status', '=', 'running')
    .executeTakeFirst()
  return Number(updated.numUpdatedRows) > 0
}

export async function deleteExpiredExecutions(db: Executor, nowIso: string): Promise<number> {
  return Number(
    (
      await db
        .deleteFrom('webhook_executions')
        .where('expires_at', '<', nowIso)
        .where('status', '=', 'completed')
        .executeTakeFirst()
    ).numDeletedRows,
  )
}
