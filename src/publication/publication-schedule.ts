/*
 * The daily publication job (default 00:30 Europe/Warsaw, setting `schedule`). It is not gated by
 * the licence: in continuity mode the legal duty goes on. It runs once across instances (the
 * pipeline's lock; an instance that finds today already published by the schedule skips), and at
 * start it catches up today's run when the service was down at the scheduled time. A failure is
 * recorded (publications row, audit) and shown in /status; after the run everything published is
 * audited again, and the run tells what it met through the action dg_after_scheduled_publication,
 * on which the alert rules look at what was published (src/alerts). Until the installation has an
 * active administrator and a developer entity no run publishes or tells anything
 * (installation-readiness.ts): a fresh install has nothing to publish and nobody to tell.
 */
import { Cron } from 'croner'

import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import type { TrackJob } from '../host/scheduler.js'
import { auditPublications } from './audit/publication-audit.js'
import { type Dataset, datasetStore, listDatasets } from './daily-file/datasets.js'
import { missingSetUp } from './installation-readiness.js'
import { getPublicationSettings } from './settings/publication-settings.js'
import { scheduledPublicationDone } from './publications-repository.js'
import { GAP_WARNING_CODES } from './publishing/gap-warnings.js'
import { publish } from './publishing/publish.js'
import { todayInWarsaw } from '../host/warsaw-day.js'

/** `not_set_up`: nothing ran, the installation has no active administrator or no developer entity yet. */
export type ScheduledPublicationOutcome = 'published' | 'skipped' | 'failed' | 'busy' | 'not_set_up'

/** The dataset a publication concerns: its developer entity. */
export interface PublishedDataset {
  id: number
  name: string
}

export interface FailedPublication {
  date: string
  dataset: PublishedDataset | null
  issues: { code: string; message_pl?: string; message_en?: string }[]
  /** Whether the dataset already serves a file (an earlier day's or today's earlier one) despite the failure. */
  earlierFileServed: boolean
}

/** A publication that succeeded with warnings that its file is legally incomplete. */
export interface GappedPublication {
  date: string
  dataset: PublishedDataset | null
  warnings: readonly { code: string; message_pl: string; message_en: string }[]
}

/** A dataset whose nightly audit of everything published found errors. */
export interface AuditedPublication {
  date: string
  dataset: PublishedDataset | null
  problems: readonly {
    code: string
    message_pl: string
    message_en: string
    unit?: string | null
    /** The day and the file the problem is about, when it is about one. */
    day?: string | null
    file?: string | null
  }[]
}

/** What a scheduled run met, told once every dataset had its turn. */
export interface ScheduledPublicationRun {
  date: string
  /** Whether the run published a file of some dataset. */
  published: boolean
  failures: readonly FailedPublication[]
  gapped: readonly GappedPublication[]
  audited: readonly AuditedPublication[]
}

declare module '../host/hooks/hooks.js' {
  interface ActionMap {
    /** Fired by the scheduled publication only (extensions cannot register it): what the run met. */
    dg_after_scheduled_publication: [ctx: HostContext, run: ScheduledPublicationRun]
  }
}

/**
 * Publishes today's file of every developer entity's dataset (one after another under the
 * pipeline's lock). `force`: publish even when the schedule already published today (the demo's
 * start). The outcome is the worst of the datasets': failed, then busy, then published, then skipped.
 */
export async function runScheduledPublication(
  ctx: HostContext,
  options: { force?: boolean } = {},
): Promise<ScheduledPublicationOutcome> {
  const missing = await missingSetUp(ctx)
  if (missing.length > 0) {
    ctx.log.info({ missing }, 'scheduled publication waits until the installation is set up')
    return 'not_set_up'
  }
  const date = todayInWarsaw(ctx)
  const datasets = await listDatasets(ctx)
  // no dataset although an entity exists: the publication fails and says why
  const targets = datasets.length > 0 ? datasets : [undefined]
  const outcomes: ScheduledPublicationOutcome[] = []
  const failures: FailedPublication[] = []
  const gapped: GappedPublication[] = []
  for (const dataset of targets) {
    const developerId = dataset && !dataset.primary ? dataset.developer.id : null
    if (!options.force && (await scheduledPublicationDone(ctx.db, date, developerId))) {
      outcomes.push('skipped')
      continue
    }
    try {
      const outcome = await publish(ctx, { date, trigger: 'schedule', actor: { type: 'scheduler' }, developerId })
      outcomes.push('published')
      const gaps = outcome.warnings.filter((warning) => GAP_WARNING_CODES.has(warning.code))
      if (gaps.length > 0)
        gapped.push({
          date,
          dataset: dataset ? { id: dataset.developer.id, name: dataset.developer.name } : null,
          warnings: gaps,
        })
    } catch (error) {
      if (error instanceof PluginError && error.error === 'publication_in_progress') outcomes.push('busy')
      else {
        ctx.log.error({ err: error, date, developer_id: dataset?.developer.id }, 'scheduled publication failed')
        outcomes.push('failed')
        failures.push({
          date,
          dataset: dataset ? { id: dataset.developer.id, name: dataset.developer.name } : null,
          issues: failureIssues(error),
          earlierFileServed: dataset ? await servesAFile(ctx, dataset) : false,
        })
      }
    }
  }
  // everything published, of every dataset and every day, is read again and checked as the
  // harvester and a lawyer would: a file damaged or deleted on any earlier day is found tonight
  const audited =
    datasets.length > 0 && (outcomes.includes('published') || outcomes.includes('failed'))
      ? await auditEverythingPublished(ctx, date)
      : []
  // told after every dataset had its turn, so a slow alert channel delays no publication
  const run = { date, published: outcomes.includes('published'), failures, gapped, audited }
  await ctx.hooks.doAction('dg_after_scheduled_publication', ctx, run)
  for (const worst of ['failed', 'busy', 'published'] as const) if (outcomes.includes(worst)) return worst
  return 'skipped'
}

/** Whether the dataset's XML lists a file the portal can still fetch after today's run failed. */
async function servesAFile(ctx: HostContext, dataset: Dataset): Promise<boolean> {
  try {
    return ((await datasetStore(ctx, dataset).currentManifest())?.days.length ?? 0) > 0
  } catch (error) {
    ctx.log.warn({ err: error, developer_id: dataset.developer.id }, 'the served files could not be read')
    return false
  }
}

/**
 * The errors of the nightly audit of everything published, by dataset: every day file and the XML
 * against their recorded checksums, every resource against what it was first published with, no
 * resource dropped; the rules a file passed before it was written (XSD, day-file rules) on today's
 * files and on whatever changed since (docs/decisions/publication-audit.md). An audit that cannot
 * run is logged, never fatal.
 */
async function auditEverythingPublished(ctx: HostContext, date: string): Promise<AuditedPublication[]> {
  try {
    const report = await auditPublications(ctx, { rulesOnlyForDay: date })
    return report.datasets.flatMap((audit) => {
      const problems = audit.problems.filter((p) => p.severity === 'error')
      return problems.length > 0
        ? [{ date, dataset: { id: audit.developer_id, name: audit.developer_name }, problems }]
        : []
    })
  } catch (error) {
    ctx.log.error({ err: error, date }, 'the nightly audit of everything published could not run')
    return []
  }
}

/** The issues a failed publication named, or its error as one. */
function failureIssues(error: unknown): FailedPublication['issues'] {
  const issues = error instanceof PluginError ? error.extra.issues : undefined
  if (Array.isArray(issues))
    return issues.map((i: { code?: unknown; message_pl?: unknown; message_en?: unknown }) => ({
      code: String(i.code),
      ...(typeof i.message_pl === 'string' ? { message_pl: i.message_pl } : {}),
      ...(typeof i.message_en === 'string' ? { message_en: i.message_en } : {}),
    }))
  return [{ code: error instanceof PluginError ? error.error : 'publication_error' }]
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

export interface RunningPublicationSchedule {
  stop(): void
  catchUp: Promise<ScheduledPublicationOutcome> | undefined
  /** When this instance's timer fires next (ISO), after any reload. */
  nextRun(): string | null
}

/** How often an instance looks for a changed schedule (a change saved on any instance). */
export const SCHEDULE_RELOAD_MS = 10_000

/**
 * `track` hands each run to the shutdown, which waits for a publication under way. The pattern is
 * read again every `reloadMs` (the settings are in the database, shared by every instance), so a
 * schedule saved in the panel applies without a restart; when the new time of today has already
 * passed and today was not published by the schedule, it runs at once, as at start.
 */
export async function startPublicationSchedule(
  ctx: HostContext,
  options: { catchUpNow?: boolean; track?: TrackJob; reloadMs?: number } = {},
): Promise<RunningPublicationSchedule> {
  const track: TrackJob = options.track ?? ((_name, run) => run)
  const settings = await getPublicationSettings(ctx)
  const scheduled = (pattern: string) =>
    new Cron(pattern, { timezone: 'Europe/Warsaw', protect: true }, async () => {
      ctx.log.info({ outcome: await track('publication', runScheduledPublication(ctx)) }, 'scheduled publication')
    })
  let pattern = settings.schedule
  let cron = scheduled(pattern)
  let catchUp: Promise<ScheduledPublicationOutcome> | undefined
  if (options.catchUpNow || scheduledTimePassed(settings.schedule, ctx.now())) {
    catchUp = track('publication', runScheduledPublication(ctx, { force: options.catchUpNow ?? false }))
    void catchUp.then((outcome) => ctx.log.info({ outcome }, 'publication catch-up at start'))
  }
  let stopped = false
  let checking = false
  const reload = async () => {
    if (stopped || checking) return
    checking = true
    try {
      const next = (await getPublicationSettings(ctx)).schedule
      if (next === pattern || stopped) return
      const replacement = scheduled(next)
      cron.stop()
      cron = replacement
      ctx.log.info({ from: pattern, to: next }, 'publication schedule changed')
      pattern = next
      if (scheduledTimePassed(next, ctx.now()))
        void track('publication', runScheduledPublication(ctx)).then((outcome) =>
          ctx.log.info({ outcome }, 'publication after a schedule change'),
        )
    } catch (error) {
      // a database hiccup or a pattern croner refuses: the old schedule keeps running
      ctx.log.warn({ err: error }, 'publication schedule not reloaded')
    } finally {
      checking = false
    }
  }
  const timer = setInterval(() => void reload(), options.reloadMs ?? SCHEDULE_RELOAD_MS)
  timer.unref()
  return {
    stop: () => {
      stopped = true
      clearInterval(timer)
      cron.stop()
    },
    catchUp,
    nextRun: () => cron.nextRun()?.toISOString() ?? null,
  }
}
