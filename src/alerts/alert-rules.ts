/*
 * When the operators must be told. Run after every scheduled publication (on the action it fires,
 * with the failures it met, and a delivery check of what it published when a channel is
 * configured) and hourly by the
 * maintenance schedule; each cause is raised at most once per day and dataset (the alerts table
 * decides), so running the rules again, or on every instance, repeats nothing.
 *
 * - publication_failed: the scheduled publication of a dataset failed (its issues named);
 * - missed_days: days before today without a file since the last one published;
 * - row_drop: today's file has fewer rows than the previous published day's by more than
 *   DG_ALERT_ROW_DROP_SHARE (usually a broken import or feed, not sales);
 * - delivery_failed: the public URLs do not serve what was published (delivery-check.ts);
 * - license_continuity: the licence expired or was suspended (continuity mode), told daily while it lasts;
 * - publication_gaps: a scheduled publication succeeded, but its file shows the offer incompletely
 *   (the preflight's gap warnings: offers without price or type, column 42, location, prospectus);
 * - publication_audit: the nightly audit of everything published (every dataset, every day's file,
 *   the XML and what each resource was first published with) found an error.
 *
 * No rule runs before the installation has an active administrator and a developer entity.
 */
import type { HostContext } from '../host/context.js'
import type { HookRegistry } from '../host/hooks/hooks.js'
import { getLicenseState } from '../licensing/license.js'
import { type Dataset, datasetBase, datasetStore, listDatasets } from '../publication/daily-file/datasets.js'
import { checkDelivery } from '../publication/delivery/delivery-check.js'
import { missingSetUp } from '../publication/installation-readiness.js'
import { getPublicationSettings } from '../publication/settings/publication-settings.js'
import { daysMissedSinceLastFile } from '../publication/publishing/publication-days.js'
import { isTrialAddress } from '../publication/publishing/public-address.js'
import { todayInWarsaw } from '../host/warsaw-day.js'
import type { Manifest } from '../publication/publication-store.js'
import type {
  AuditedPublication,
  FailedPublication,
  GappedPublication,
  ScheduledPublicationRun,
} from '../publication/publication-schedule.js'
import {
  type AlertDataset,
  type AlertInput,
  deliveryFailedAlert,
  licenseContinuityAlert,
  missedDaysAlert,
  publicationAuditAlert,
  publicationFailedAlert,
  publicationGapsAlert,
  rowDropAlert,
} from './alert-causes.js'
import { type AlertView, configuredChannels, raiseAlert } from './alert-service.js'

export interface AlertCheckOptions {
  /** The datasets whose nightly audit of everything published found errors. */
  auditedPublications?: readonly AuditedPublication[]
  /** Scheduled publications that failed in the run that calls the rules. */
  failedPublications?: readonly FailedPublication[]
  /** Scheduled publications of the run that succeeded with gap warnings. */
  gappedPublications?: readonly GappedPublication[]
  /** Fetch the public files and alert when they are not served as published (after a scheduled publication). */
  checkDelivery?: boolean
}

function alertDataset(dataset: Dataset): AlertDataset {
  return { id: dataset.developer.id, name: dataset.developer.name }
}

/** The latest revision of each day's file, by date. */
function latestRowsByDay(manifest: Manifest): Map<string, number> {
  const rows = new Map<string, { revision: number; rows: number }>()
  for (const day of manifest.days) {
    const revision = day.revision ?? 1
    const known = rows.get(day.date)
    if (!known || revision >= known.revision) rows.set(day.date, { revision, rows: day.rows })
  }
  return new Map([...rows].map(([date, value]) => [date, value.rows]))
}

/** Today's file against the latest earlier day's, when the drop is larger than the configured share. */
export function rowDropFinding(
  manifest: Manifest,
  today: string,
  share: number,
): { rows: number; previous: { date: string; rows: number } } | undefined {
  const byDay = latestRowsByDay(manifest)
  const rows = byDay.get(today)
  if (rows === undefined) return undefined
  const previousDate = [...byDay.keys()]
    .filter((date) => date < today)
    .sort()
    .at(-1)
  if (previousDate === undefined) return undefined
  const previousRows = byDay.get(previousDate) ?? 0
  if (previousRows <= 0 || 1 - rows / previousRows <= share) return undefined
  return { rows, previous: { date: previousDate, rows: previousRows } }
}

async function datasetFindings(ctx: HostContext, dataset: Dataset, options: AlertCheckOptions): Promise<AlertInput[]> {
  const today = todayInWarsaw(ctx)
  const manifest = await datasetStore(ctx, dataset).currentManifest()
  if (!manifest) return []
  const found: AlertInput[] = []
  // told once, when new: an older gap was alerted on its day and stays listed in /status
  const missed = daysMissedSinceLastFile(
    manifest.days.map((day) => day.date),
    today,
  )
  if (missed.length > 0) found.push(missedDaysAlert(today, alertDataset(dataset), missed))
  const drop = rowDropFinding(manifest, today, ctx.config.alerts.rowDropShare)
  if (drop)
    found.push(rowDropAlert(today, alertDataset(dataset), drop.rows, drop.previous, ctx.config.alerts.rowDropShare))
  if (options.checkDelivery) {
    const settings = await getPublicationSettings(ctx)
    const base = settings.public_base_url ? datasetBase(settings.public_base_url, dataset) : null
    const delivery = await checkDelivery({
      baseUrl: base,
      manifest,
      now: () => ctx.now(),
      trial: base !== null && isTrialAddress(base) && ctx.config.env !== 'production',
    })
    if (delivery.status === 'failed') found.push(deliveryFailedAlert(today, alertDataset(dataset), delivery.issues))
  }
  return found
}

/**
 * Evaluates every rule and raises what it finds, each alert through its channels at once. Never
 * throws: a rule or a channel that fails is logged and the others go on. Resolves when every
 * alert raised has been delivered or given up, with the alerts raised now.
 */
export async function checkAlertConditions(ctx: HostContext, options: AlertCheckOptions = {}): Promise<AlertView[]> {
  const missing = await missingSetUp(ctx).catch((error: unknown) => {
    ctx.log.error({ err: error }, 'alert rules: the installation could not be checked')
    return ['unknown']
  })
  // nobody to tell and nothing of theirs to tell about: an alert would only be noise, and untrue
  if (missing.length > 0) {
    ctx.log.debug({ missing }, 'alert rules wait until the installation is set up')
    return []
  }
  const found: AlertInput[] = []
  const attempt = async (rule: string, run: () => Promise<AlertInput[]>) => {
    try {
      found.push(...(await run()))
    } catch (error) {
      ctx.log.error({ err: error, rule }, 'alert rule could not be evaluated')
    }
  }
  for (const failure of options.failedPublications ?? [])
    found.push(publicationFailedAlert(failure.date, failure.dataset, failure.issues, failure.earlierFileServed))
  for (const gapped of options.gappedPublications ?? [])
    found.push(publicationGapsAlert(gapped.date, gapped.dataset, gapped.warnings))
  for (const audited of options.auditedPublications ?? [])
    found.push(publicationAuditAlert(audited.date, audited.dataset, audited.problems))
  let datasets: Dataset[] = []
  await attempt('datasets', async () => {
    datasets = await listDatasets(ctx)
    return []
  })
  for (const dataset of datasets)
    await attempt(`dataset ${dataset.developer.id}`, () => datasetFindings(ctx, dataset, options))
  await attempt('license', async () => {
    const license = await getLicenseState(ctx)
    // a licence that ran out or was suspended lapsed; none installed, or a free plan chosen, did not
    if (license.status !== 'expired' && license.status !== 'suspended') return []
    return [licenseContinuityAlert(todayInWarsaw(ctx), license.status, license.valid_until)]
  })
  const raised = await Promise.all(
    found.map((input) =>
      raiseAlert(ctx, input).catch((error: unknown) => {
        ctx.log.error({ err: error, cause: input.cause, day: input.day }, 'alert could not be raised')
        return undefined
      }),
    ),
  )
  return raised.filter((view): view is AlertView => view !== undefined)
}

/** Whether a scheduled run should also check the delivery of what it published. */
export async function deliveryCheckWanted(ctx: Pick<HostContext, 'config' | 'db'>): Promise<boolean> {
  return (await configuredChannels(ctx)).length > 0
}

/**
 * The rules run after every scheduled publication, on what it met. Registered on each host
 * context's hooks; never throws, so the publication's run ends as it ended.
 */
export function alertAfterScheduledPublications(hooks: HookRegistry): void {
  hooks.addAction('dg_after_scheduled_publication', async (ctx, run) => {
    try {
      await checkAlertConditions(ctx, await scheduledRunFindings(ctx, run))
    } catch (error) {
      ctx.log.error({ err: error, date: run.date }, 'alert rules could not run after the scheduled publication')
    }
  })
}

async function scheduledRunFindings(ctx: HostContext, run: ScheduledPublicationRun): Promise<AlertCheckOptions> {
  return {
    failedPublications: run.failures,
    gappedPublications: run.gapped,
    auditedPublications: run.audited,
    checkDelivery: run.published && (await deliveryCheckWanted(ctx)),
  }
}
