/*
 * The operators' dashboard in one answer: is today's legal duty done (per dataset, with the issues
 * of a failure and their corrective messages), when the schedule runs next, the last publications,
 * what the catalog holds and lacks for the official file, the recent imports, the webhook's
 * activity, the licence and mode, and the alerts. Only reads; not licence-gated, because the
 * publication continues in continuity mode and so must its supervision.
 */
import { Cron } from 'croner'

import { recentAlerts } from '../alerts/alert-service.js'
import type { HostContext } from '../host/context.js'
import { getLicenseState } from '../licensing/license.js'
import { warsawDate } from '../host/warsaw-day.js'
import { listDatasets } from '../publication/daily-file/datasets.js'
import {
  type PublicationRecord,
  publicationHistory,
  publicationRecord,
} from '../publication/history/publication-history.js'
import { getPublicationSettings } from '../publication/settings/publication-settings.js'
import { countUntypedListedOffers } from '../publication/publications-repository.js'
import { sourcesOverview } from '../sources/source-service.js'
import { webhookActivity } from '../webhook/webhook-activity.js'
import {
  countInvestments,
  countOffersByStatus,
  selectIncompleteInvestments,
  selectPublicationsOfDay,
  selectRecentImportJobs,
} from './dashboard-repository.js'

export type DayStatus = 'published' | 'failed' | 'pending'

export interface DatasetToday {
  developer_id: number
  developer_name: string
  status: DayStatus
  /** The day's successful publication (its latest), when there is one. */
  published: PublicationRecord | null
  /** The day's latest failure when no success came after it. */
  failure: PublicationRecord | null
}

function parseObject(text: string | null): Record<string, unknown> {
  if (!text) return {}
  try {
    const value = JSON.parse(text) as unknown
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}

function nextRunOf(schedule: string, now: Date): string | null {
  try {
    const cron = new Cron(schedule, { paused: true, timezone: 'Europe/Warsaw' })
    const next = cron.nextRun(now)
    cron.stop()
    return next ? next.toISOString() : null
  } catch {
    return null
  }
}

const LISTED_INCOMPLETE = 20

/**
 * `scope`: what a user limited to some developer entities and investments sees (host/auth/scope.ts):
 * the catalog's counts and lists of its investments, the datasets of the entities it may read, its
 * own imports, no sources; undefined: everything.
 */
export async function getDashboard(
  ctx: HostContext,
  scope?: { investments: readonly number[]; developers: readonly number[]; userId: number },
) {
  const now = ctx.now()
  const today = warsawDate(now)
  const [settings, license, datasets, dayRows, last, byStatus, investments, incomplete, imports, webhook, alerts] =
    await Promise.all([
      getPublicationSettings(ctx),
      getLicenseState(ctx),
      listDatasets(ctx),
      selectPublicationsOfDay(ctx.db, today),
      publicationHistory(ctx, {}, 1, 5),
      countOffersByStatus(ctx.db, scope?.investments),
      countInvestments(ctx.db, scope?.investments),
      selectIncompleteInvestments(ctx.db, scope?.investments),
      selectRecentImportJobs(ctx.db, 8, scope?.userId),
      webhookActivity(ctx, 7),
      recentAlerts(ctx),
    ])

  const visible = scope ? datasets.filter((dataset) => scope.developers.includes(dataset.developer.id)) : datasets
  const todayDatasets: DatasetToday[] = visible.map((dataset) => {
    const developerId = dataset.primary ? null : dataset.developer.id
    const rows = dayRows.filter((row) => (row.developer_id === null ? null : Number(row.developer_id)) === developerId)
    const success = rows.find((row) => row.status === 'published')
    const latest = rows[0]
    const failed = latest && latest.status !== 'published' ? latest : undefined
    return {
      developer_id: dataset.developer.id,
      developer_name: dataset.developer.name,
      status: success ? 'published' : failed ? 'failed' : 'pending',
      published: success ? publicationRecord(success) : null,
      failure: failed ? publicationRecord(failed) : null,
    }
  })
  const status: DayStatus | 'not_configured' =
    todayDatasets.length === 0
      ? 'not_configured'
      : todayDatasets.some((d) => d.status === 'failed')
        ? 'failed'
        : todayDatasets.some((d) => d.status === 'pending')
          ? 'pending'
          : 'published'

  const offersByStatus = Object.fromEntries(byStatus.map((row) => [row.status, row.count]))
  return {
    generated_at: now.toISOString(),
    today: { date: today, status, datasets: todayDatasets },
    schedule: { pattern: settings.schedule, next_run_at: nextRunOf(settings.schedule, now), timezone: 'Europe/Warsaw' },
    public_base_url: settings.public_base_url,
    last_publications: last.items,
    catalog: {
      offers_by_status: offersByStatus,
      offers_total: byStatus.reduce((sum, row) => sum + row.count, 0),
      offers_without_type: await countUntypedListedOffers(ctx.db, settings.published_statuses),
      published_statuses: settings.published_statuses,
      investments_total: investments.total,
      investments_published: investments.published,
      investments_without_location: incomplete.filter((i) => i.location_missing).length,
      investments_without_prospectus: incomplete.filter((i) => i.prospectus_missing).length,
      incomplete_investments: incomplete.slice(0, LISTED_INCOMPLETE),
    },
    recent_imports: imports.map((job) => ({
      id: job.id,
      type: job.type,
      mode: job.mode,
      status: job.status,
      operator: job.operator_name,
      file_name: job.file_name,
      file_format: job.file_format,
      counters: parseObject(job.counters),
      result: job.result ? parseObject(job.result) : null,
      created_at: job.created_at,
      finished_at: job.finished_at,
    })),
    webhook: { days: webhook },
    license: {
      status: license.status,
      plan: license.plan,
      entitlements: license.entitlements,
      valid_until: license.valid_until,
      continuity_mode: license.continuity_mode,
    },
    alerts,
    // scheduled sources are the whole catalog's: a scoped user has none (source-routes.ts)
    sources: scope ? { sources: 0, held_runs: 0, failing: 0 } : await sourcesOverview(ctx),
  }
}
