/*
 * How many webhook deliveries each day were accepted, replayed or refused (by the refusal's code),
 * for the operators' dashboard. A delivery must not pay a database write for a statistic (on
 * SQLite it would queue behind every other write), so each instance counts in memory and adds its
 * counts to the shared table every few seconds, before the dashboard reads it and when it stops;
 * a crash loses at most those seconds' counts. The table holds one row per day and code, however
 * many deliveries arrive, and keeps 90 days.
 */
import type { HostContext } from '../host/context.js'
import { warsawDate } from '../host/warsaw-day.js'
import {
  addWebhookActivity,
  deleteWebhookActivityBefore,
  selectWebhookActivity,
} from './webhook-activity-repository.js'

const FLUSH_MS = 5000
export const WEBHOOK_ACTIVITY_DAYS = 90

interface Pending {
  counts: Map<string, number>
  timer: NodeJS.Timeout | undefined
}

const pending = new WeakMap<HostContext, Pending>()

/** Counts one delivery: `accepted`, `replayed` or the refusal's code. */
export function countWebhookDelivery(ctx: HostContext, code: string): void {
  let state = pending.get(ctx)
  if (!state) {
    state = { counts: new Map(), timer: undefined }
    pending.set(ctx, state)
  }
  const key = `${warsawDate(ctx.now())}\u0000${code}`
  state.counts.set(key, (state.counts.get(key) ?? 0) + 1)
  if (!state.timer) {
    const owner = state
    state.timer = setTimeout(() => {
      owner.timer = undefined
      flushWebhookActivity(ctx).catch((error: unknown) =>
        ctx.log.warn({ err: error }, 'webhook activity counts could not be saved; kept for the next try'),
      )
    }, FLUSH_MS)
    state.timer.unref()
  }
}

/** Adds this instance's counts to the shared table. */
export async function flushWebhookActivity(ctx: HostContext): Promise<void> {
  const state = pending.get(ctx)
  if (!state || state.counts.size === 0) return
  if (state.timer) clearTimeout(state.timer)
  state.timer = undefined
  const counts = [...state.counts].map(([key, count]) => {
    const [day = '', code = ''] = key.split('\u0000')
    return { day, code, count }
  })
  state.counts.clear()
  try {
    await ctx.db.transaction().execute((trx) => addWebhookActivity(trx, counts))
  } catch (error) {
    // put them back: counted again on the next flush
    for (const { day, code, count } of counts) {
      const key = `${day}\u0000${code}`
      state.counts.set(key, (state.counts.get(key) ?? 0) + count)
    }
    throw error
  }
}

export interface WebhookActivityDay {
  day: string
  accepted: number
  replayed: number
  /** Refusals by code (invalid_signature, validation_failed, …). */
  refused: Record<string, number>
}

/** The last `days` days (today first), with this instance's latest counts included. */
export async function webhookActivity(ctx: HostContext, days: number): Promise<WebhookActivityDay[]> {
  await flushWebhookActivity(ctx).catch((error: unknown) =>
    ctx.log.warn({ err: error }, 'webhook activity counts could not be saved'),
  )
  const today = warsawDate(ctx.now())
  const noon = Date.parse(`${today}T12:00:00Z`)
  const list: WebhookActivityDay[] = []
  for (let i = 0; i < days; i++)
    list.push({ day: warsawDate(new Date(noon - i * 24 * 3600 * 1000)), accepted: 0, replayed: 0, refused: {} })
  const byDay = new Map(list.map((d) => [d.day, d]))
  for (const row of await selectWebhookActivity(ctx.db, list.at(-1)?.day ?? today)) {
    const entry = byDay.get(row.day)
    if (!entry) continue
    if (row.code === 'accepted') entry.accepted += row.count
    else if (row.code === 'replayed') entry.replayed += row.count
    else entry.refused[row.code] = (entry.refused[row.code] ?? 0) + row.count
  }
  return list
}

export async function removeOldWebhookActivity(ctx: HostContext): Promise<number> {
  const cutoff = warsawDate(new Date(ctx.now().getTime() - WEBHOOK_ACTIVITY_DAYS * 24 * 3600 * 1000))
  return deleteWebhookActivityBefore(ctx.db, cutoff)
}
