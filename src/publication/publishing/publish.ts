/*
 * The one publication pipeline (docs/decisions/publication-pipeline.md), used by the API, the daily schedule, the
 * report import and legacy generate: lock → new version folder → build the day's CSV from the
 * catalog (row rules and prices checked on the rows, byte rules on the bytes as they are written
 * to the folder) and the harvester XML (XSD-checked in a worker thread meanwhile) → prove the
 * written bytes by their MD5 read back → complete the version → switch one pointer → record. Any
 * failure before the switch answers 422 with issues, removes the new folder and leaves the
 * previous version served untouched.
 */
import { randomBytes } from 'node:crypto'

import { actorScope, assertInScope } from '../../host/auth/scope.js'
import type { Actor } from '../../host/audit/audit.js'
import type { HostContext } from '../../host/context.js'
import { PluginError } from '../../host/errors.js'
import { keepLockAlive, releaseLock, tryAcquireLock } from '../../host/locks.js'
import { measured, recordPublication } from '../../host/metrics.js'
import { isCalendarDate } from '../../host/warsaw-day.js'
import { type Dataset, datasetStore } from '../daily-file/datasets.js'
import { issue, PublicationFailed, type PublicationIssue } from '../publication-issue.js'
import { publicationStore, type PublicationStore } from '../publication-store.js'
import type { PreparedCsv } from './day-file-sink.js'
import { datasetOrNone, prepareForDataset } from './prepare-publication.js'
import { outcomeOf, type PublicationOutcome, type PublicationTrigger } from './publication-outcome.js'
import { recordFailedPublication, recordPublished } from './publication-record.js'
import { publicationDayFinding } from './publication-days.js'
import { stagedCsvPath, writeVersion } from './store-version.js'

export const PUBLICATION_LOCK = 'publication'
const LEASE_MS = 120_000

export interface PublishArgs {
  date: string
  trigger: PublicationTrigger
  actor: Actor
  /** A ready CSV for the date (report import) instead of one built from the catalog. */
  csv?: PreparedCsv
  /** Already holding the publication lock (the caller took it). */
  lockHeld?: boolean
  /** The developer entity whose dataset is published; the publishing developer's by default. */
  developerId?: number | null
}

export const publish = measured(publishOnce, recordPublication)

/** A publication under way: the version it writes, and what the pointer named before it switched. */
interface VersionRun {
  store: PublicationStore
  version?: string
  previous?: string
  switched: boolean
}

async function publishOnce(ctx: HostContext, args: PublishArgs): Promise<PublicationOutcome> {
  if (!isCalendarDate(args.date))
    throw new PluginError('invalid_date', 400, { message: 'date must be a real calendar date YYYY-MM-DD' })
  const dataset = await datasetOrNone(ctx, args.developerId)
  // a dataset is published for the whole developer entity: only a user whose scope holds it may
  await assertInScope(ctx.db, await actorScope(ctx.db, args.actor), {
    kind: 'dataset',
    developerId: dataset?.developer.id ?? args.developerId ?? null,
  })
  const store = dataset ? datasetStore(ctx, dataset) : publicationStore(ctx)
  await refuseClosedDay(ctx, store, args)
  const release = await takePublicationLock(ctx, args.lockHeld)
  const started = ctx.now()
  const run: VersionRun = { store, switched: false }
  try {
    return await publishVersion(ctx, run, dataset, args, started)
  } catch (error) {
    await withdrawVersion(ctx, run)
    if (run.switched) throw notRecordedError(error, run.version)
    const issues = failureIssues(ctx, error)
    await recordFailedPublication(ctx, { dataset, args, started, issues })
    throw new PluginError('publication_failed', 422, {
      message: 'The publication was not made; the previous version is still served.',
      issues,
    })
  } finally {
    await release()
  }
}

/** A refused date is an answer to the request, not a failed publication of that day. */
async function refuseClosedDay(ctx: HostContext, store: PublicationStore, args: PublishArgs): Promise<void> {
  const published = (await store.currentManifest())?.days.some((d) => d.date === args.date) ?? false
  const refused = publicationDayFinding(ctx, args.date, args.csv !== undefined, published)
  if (refused) throw new PluginError(refused.code, 422, { message: refused.message_en, issues: [refused] })
}

/** Takes the publication lock unless the caller holds it, and keeps it alive; the answer frees it. */
async function takePublicationLock(ctx: HostContext, lockHeld: boolean | undefined): Promise<() => Promise<void>> {
  if (lockHeld) return async () => undefined
  const owner = randomBytes(12).toString('hex')
  const lock = await tryAcquireLock(ctx, PUBLICATION_LOCK, owner, LEASE_MS)
  if (!lock.acquired)
    throw new PluginError(
      'publication_in_progress',
      409,
      { message: 'Another publication or report import is running; retry shortly.' },
      { 'Retry-After': 10 },
    )
  const lease = keepLockAlive(ctx, PUBLICATION_LOCK, owner, LEASE_MS)
  return async () => {
    lease.stop()
    await releaseLock(ctx.db, PUBLICATION_LOCK, owner).catch(() => undefined)
  }
}

async function publishVersion(
  ctx: HostContext,
  run: VersionRun,
  dataset: Dataset | undefined,
  args: PublishArgs,
  started: Date,
): Promise<PublicationOutcome> {
  const { store } = run
  const version = store.newVersionId(started)
  run.version = version
  await store.createVersionDir(version)
  const prepared = await prepareForDataset(ctx, args.date, dataset, args.csv, stagedCsvPath(store, version))
  if (prepared.issues.length > 0) throw new PublicationFailed(prepared.issues)
  const manifest = await writeVersion(ctx, store, prepared, version)
  run.previous = await store.currentVersion()
  await store.switchTo(version)
  run.switched = true
  const outcome = await outcomeOf(ctx, dataset, args, prepared, manifest, version)
  await recordPublished(ctx, { dataset, args, started, outcome, xmlMd5: manifest.xml_md5 })
  return outcome
}

/**
 * After a failure: a version already switched to (the publication could not be recorded) is
 * switched back, so that what is served is always a recorded publication, and a version not
 * served is removed; only if switching back fails too does the new one stay.
 */
async function withdrawVersion(ctx: HostContext, run: VersionRun): Promise<void> {
  const { store, version, previous } = run
  if (version && run.switched) {
    try {
      if (previous) await store.switchTo(previous)
      else await store.clearCurrent()
      run.switched = false
    } catch (restore) {
      ctx.log.error({ err: restore }, 'publication: the previous version could not be served again')
    }
  }
  if (version && !run.switched) await store.discard(version).catch(() => undefined)
}

function notRecordedError(error: unknown, version: string | undefined): PluginError {
  return new PluginError('publication_failed', 422, {
    message:
      'The new version is served but could not be recorded, and the previous one could not be restored; check the data directory and the database.',
    issues: [
      issue(
        'publication_not_recorded',
        'Nowa wersja jest udostępniana, ale nie została zapisana w bazie; sprawdź bazę danych i katalog danych.',
        'The new version is served but was not recorded in the database; check the database and the data directory.',
        { reason: (error as Error).message.slice(0, 300), version },
      ),
    ],
  })
}

/** The issues that stopped the publication; an unexpected error is logged and told as one. */
function failureIssues(ctx: HostContext, error: unknown): PublicationIssue[] {
  if (error instanceof PublicationFailed) return error.issues
  ctx.log.error({ err: error }, 'publication failed')
  return [
    issue(
      'publication_error',
      'Publikacja nie powiodła się; poprzednia wersja jest nadal udostępniana.',
      'The publication failed; the previous version is still served.',
      { reason: (error as Error).message.slice(0, 300) },
    ),
  ]
}
