/*
 * Recurring jobs of one process (croner, Europe/Warsaw). Started by the server, not by buildApp,
 * so tests and CLI commands run no timers. Each run is logged; a failing job is logged and audited
 * and the schedule continues. Jobs must be safe to run on several instances at once (idempotent
 * deletes) or take a database lock themselves.
 */
import { Cron } from 'croner'

import { recordAudit } from './audit/audit.js'
import type { HostContext } from './context.js'

export interface ScheduledJob {
  name: string
  /** Cron pattern in Europe/Warsaw time. */
  pattern: string
  run(ctx: HostContext): Promise<Record<string, unknown>>
}

export interface RunningScheduler {
  /** No further runs start; a run under way goes on (see `track`). */
  stop(): void
}

/** Hands each run to whoever waits for it at shutdown (Lifecycle.track). */
export type TrackJob = <T>(name: string, run: Promise<T>) => Promise<T>

export async function runScheduledJob(ctx: HostContext, job: ScheduledJob): Promise<void> {
  const started = Date.now()
  try {
    const outcome = await job.run(ctx)
    ctx.log.info({ job: job.name, ms: Date.now() - started, ...outcome }, 'scheduled job finished')
  } catch (error) {
    ctx.log.error({ job: job.name, err: error }, 'scheduled job failed')
    await recordAudit(ctx, {
      actor: { type: 'scheduler' },
      action: `schedule.${job.name}`,
      outcome: 'failure',
      details: { message: (error as Error).message.slice(0, 300) },
    }).catch(() => undefined)
  }
}

export function startScheduler(
  ctx: HostContext,
  jobs: readonly ScheduledJob[],
  track: TrackJob = (_name, run) => run,
): RunningScheduler {
  const crons = jobs.map(
    (job) =>
      new Cron(job.pattern, { timezone: 'Europe/Warsaw', protect: true }, () =>
        track(`schedule.${job.name}`, runScheduledJob(ctx, job)),
      ),
  )
  return { stop: () => crons.forEach((cron) => cron.stop()) }
}
