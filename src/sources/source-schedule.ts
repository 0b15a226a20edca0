/*
 * When sources run. A source with its own cron pattern runs at each of its times; one without runs
 * before the daily publication (BEFORE_PUBLICATION_MS ahead of the publication's schedule), so the
 * day's file shows the day's prices. The check runs every few minutes on every instance; a due
 * source is run by whichever instance takes its lock first, and the others find it done. A source
 * whose run failed or was held does not stop the publication: it publishes the catalog as it is.
 */
import { Cron } from 'croner'

import type { HostContext } from '../host/context.js'
import type { ScheduledJob } from '../host/scheduler.js'
import { getPublicationSettings } from '../publication/settings/publication-settings.js'
import { runSource } from './source-runs.js'
import { selectSources, type SourceRow } from './sources-repository.js'

export const BEFORE_PUBLICATION_MS = 30 * 60_000
const LOOK_BACK_MS = 26 * 3600 * 1000

/** The latest time at or before `now` the pattern names (within the last day), shifted by `shiftMs`. */
export function latestSlot(pattern: string, now: Date, shiftMs = 0): Date | null {
  const cron = new Cron(pattern, { paused: true, timezone: 'Europe/Warsaw' })
  try {
    let run = cron.nextRun(new Date(now.getTime() + shiftMs - LOOK_BACK_MS))
    let last: Date | null = null
    while (run && run.getTime() - shiftMs <= now.getTime()) {
      last = new Date(run.getTime() - shiftMs)
      run = cron.nextRun(run)
    }
    return last
  } finally {
    cron.stop()
  }
}

/** Whether the source has a scheduled time since its last run. */
export function isDue(source: SourceRow, publicationSchedule: string, now: Date): boolean {
  if (source.enabled !== 1) return false
  const slot =
    source.schedule === null
      ? latestSlot(publicationSchedule, now, BEFORE_PUBLICATION_MS)
      : latestSlot(source.schedule, now)
  if (slot === null) return false
  return source.last_run_at === null || Date.parse(source.last_run_at) < slot.getTime()
}

export async function runDueSources(ctx: HostContext): Promise<Record<string, number>> {
  const { schedule } = await getPublicationSettings(ctx)
  const outcomes: Record<string, number> = {}
  for (const source of await selectSources(ctx.db)) {
    if (!isDue(source, schedule, ctx.now())) continue
    const ran = await runSource(ctx, source.id, 'schedule', { type: 'scheduler' })
    const outcome = ran.busy ? 'busy' : ran.run.outcome
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1
  }
  return outcomes
}

export const SOURCE_JOBS: readonly ScheduledJob[] = [
  { name: 'sources', pattern: '*/5 * * * *', run: async (ctx) => ({ sources: await runDueSources(ctx) }) },
]
