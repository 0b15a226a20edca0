/*
 * The SQL of alerts. The row keyed by (cause, day, scope) is the claim: the instance whose insert
 * creates it sends the alert, every other one (or a second cause the same day) finds it there.
 */
import type { Selectable } from 'kysely'

import type { Executor } from '../host/context.js'
import type { AlertsTable } from '../host/db/schema.js'

export type AlertRow = Selectable<AlertsTable>

export interface NewAlert {
  cause: string
  day: string
  scope: string
  developer_id: number | null
  severity: string
  message_pl: string
  message_en: string
  details: string
  raised_at: string
  state: string
  channels: string
}

/** Inserts the alert unless its cause, day and scope already have one; its id when this call made it. */
export async function claimAlert(db: Executor, alert: NewAlert): Promise<number | undefined> {
  const row = await db
    .insertInto('alerts')
    .values({ ...alert, claimed_at: alert.raised_at, finished_at: null })
    .onConflict((oc) => oc.columns(['cause', 'day', 'scope']).doNothing())
    .returning('id')
    .executeTakeFirst()
  return row === undefined ? undefined : Number(row.id)
}

/** Records the channels' outcome so far; `finishedAt` when sending is over. */
export async function recordAlertDelivery(
  db: Executor,
  id: number,
  update: { state: string; channels: string; finishedAt: string | null },
): Promise<void> {
  await db
    .updateTable('alerts')
    .set({ state: update.state, channels: update.channels, finished_at: update.finishedAt })
    .where('id', '=', id)
    .execute()
}

/**
 * Takes over an alert whose sending instance stopped (crashed, killed) before it finished: the
 * update succeeds for one instance only, since it requires the claim time it read.
 */
export async function takeOverStaleAlert(db: Executor, row: AlertRow, now: string): Promise<boolean> {
  const result = await db
    .updateTable('alerts')
    .set({ claimed_at: now })
    .where('id', '=', row.id)
    .where('state', '=', 'sending')
    .where('claimed_at', '=', row.claimed_at)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) === 1
}

export async function selectStaleAlerts(db: Executor, claimedBefore: string): Promise<AlertRow[]> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('state', '=', 'sending')
    .where('claimed_at', '<', claimedBefore)
    .orderBy('id')
    .limit(50)
    .execute()
}

/** Alerts raised since `since` (ISO time), newest first. */
export async function selectRecentAlerts(db: Executor, since: string, limit: number): Promise<AlertRow[]> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('raised_at', '>=', since)
    .orderBy('raised_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
}
