/*
 * The daily publication job (default 00:30 Europe/Warsaw, setting `schedule`). It is not gated by
 * the licence: in continuity mode the legal duty goes on. It runs once across instances (the
 * pipeline's lock; an instance that finds today already published by the schedule skips), and at
 * start it catches up today's run when the service was down at the scheduled time. A failure is
 * recorded (publications row, audit) and shown in /status.
 */
import { Cron } from 'croner'

import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { getPublicationSettings } from './publication-settings.js'
import { publish, todayInWarsaw } from './publication-service.js'

export async function runScheduledPublication(ctx: HostContext): Promise<'published' | 'skipped' | 'failed' | 'busy'> {
  const date = todayInWarsaw(ctx)
  const done = await ctx.db
    .selectFrom('publications')
    .select('id')
    .where('publication_date', '=', date)
    .where('status', '=', 'published')
    .where('trigger', '=', 'schedule')
    .executeTakeFirst()
  if (done) return 'skipped'
  try {
    await publish(ctx, { date, trigger: 'schedule', actor: { type: 'scheduler' } })
    return 'published'
  } catch (error) {
    if (error instanceof PluginError && error.error === 'publication_in_progress') return 'busy'
    ctx.log.error({ err: error, date }, 'scheduled publication failed')
    return 'failed'
  }
}

/** Whether today's scheduled time has passed (so a start after it must catch up). */
export function scheduledTimePassed(pattern: string, now: Date): boolean {
  const cron = new Cron(pattern, { paused: true, timezone: 'Europe/Warsaw' })
  const startOfDay = new Date(now.getTime() - 36 * 3600 * 1000)
  let run = cron.nextRun(startOfDay)
  let last: Date | null = null
  while (run && run <= now) {
    last = run
    run = cron.nextRun(run)
  }
  cron.stop()
  return (
    last !== null &&
    new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Warsaw' }).format(last) ===
      new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Warsaw' }).format(now)
  )
}

export async function startPublicationSchedule(ctx: HostContext): Promise<{ stop(): void }> {
  const settings = await getPublicationSettings(ctx)
  const cron = new Cron(settings.schedule, { timezone: 'Europe/Warsaw', protect: true }, async () => {
    ctx.log.info({ outcome: await runScheduledPublication(ctx) }, 'scheduled publication')
  })
  if (scheduledTimePassed(settings.schedule, ctx.now())) {
    void runScheduledPublication(ctx).then((outcome) => ctx.log.info({ outcome }, 'publication catch-up at start'))
  }
  return { stop: () => cron.stop() }
}
