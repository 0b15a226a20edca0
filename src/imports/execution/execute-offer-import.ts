/*
 * The second step of an offer import: under an Idempotency-Key and the import lock, the previewed
 * plan is committed in one transaction (write-import-job.ts), or the job records why not. Offers,
 * price history, the audit entry, the job's result and the lock release commit together, so a
 * crash leaves either all of it or none (see docs/decisions/import-two-steps.md).
 */
import type { Actor } from '../../host/audit/audit.js'
import { recordAudit } from '../../host/audit/audit.js'
import { actorScope, assertOwnJob } from '../../host/auth/scope.js'
import type { HostContext } from '../../host/context.js'
import { refreshStatisticsAfterLargeWrite } from '../../host/db/dialect.js'
import { connectionBehind } from '../../host/db/database.js'
import { PluginError } from '../../host/errors.js'
import { keepLockAlive, newLockOwner, releaseLock, tryAcquireLock } from '../../host/locks.js'
import { measured, recordImportExecution } from '../../host/metrics.js'
import { keepListingValues, recentListingQueries } from '../../catalog/caching/listing-cache.js'
import type { PriceNote } from '../../offers/editor-operation.js'
import type { OfferPlan } from '../../offers/offer-planner.js'
import {
  findImportJob,
  findJobByIdempotencyKey,
  type ImportJobRow,
  transitionJob,
  updateImportJobOfRun,
} from '../import-jobs-repository.js'
import { IMPORT_LOCK, storedResult } from '../import-job-lifecycle.js'
import { PlanChanged, writeJobOnWorker } from './execute-import-thread.js'
import { recoverInterruptedImports } from './recover-interrupted-imports.js'
import { assertJobInScope, type WriteProgress, writeJob } from './write-import-job.js'
import type { ImportResult, WrittenJob } from './written-job.js'

const LEASE_MS = 120_000
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{8,128}$/

const pending = () =>
  new PluginError(
    'import_pending',
    409,
    { message: 'An import is being executed; retry in a few seconds.' },
    { 'Retry-After': 5 },
  )

export interface ExecuteArgs {
  actor: Actor
  jobId: string
  idempotencyKey: string | undefined
  confirmArchiving: boolean
  /** Offers written so far of the plan's creates, updates and archives (`dg import` draws it). */
  onProgress?: WriteProgress
  /** The operator's reason, kept on every price record of the run (a bulk price change). */
  note?: PriceNote
}

export const executeOfferImport = measured(executeImport, recordImportExecution)

async function executeImport(
  ctx: HostContext,
  args: ExecuteArgs,
): Promise<{ id: string; result: ImportResult; replayed: boolean }> {
  const key = args.idempotencyKey
  if (!key || !IDEMPOTENCY_KEY.test(key)) {
    throw new PluginError('invalid_idempotency_key', 400, {
      message: 'Send an Idempotency-Key header of 8–128 characters from A-Za-z0-9._:-',
    })
  }
  let job = await findImportJob(ctx.db, args.jobId)
  if (!job || job.expires_at < ctx.now().toISOString())
    throw new PluginError('import_not_found', 404, { message: `No import job ${args.jobId} (unknown or expired).` })
  const userScope = await actorScope(ctx.db, args.actor)
  assertOwnJob(userScope, job, args.actor.type === 'user' ? args.actor.userId : null)
  await assertJobInScope(ctx.db, job, userScope)

  if (job.status === 'running') {
    await recoverInterruptedImports(ctx)
    job = (await findImportJob(ctx.db, args.jobId)) ?? job
  }
  if (job.idempotency_key === key) {
    if (job.status === 'completed') return { id: job.id, result: storedResult(job), replayed: true }
    if (job.status === 'running') throw pending()
    if (job.status === 'recovery_required')
      throw new PluginError('import_recovery_required', 409, {
        message: 'The outcome of this execution could not be confirmed; check the job before retrying.',
      })
  }
  if (job.idempotency_key !== null && job.idempotency_key !== key) {
    throw new PluginError('import_conflict', 409, {
      message: 'This job was already executed under another Idempotency-Key.',
    })
  }
  const other = await findJobByIdempotencyKey(ctx.db, key)
  if (other && other.id !== job.id)
    throw new PluginError('import_conflict', 409, { message: 'This Idempotency-Key belongs to another import job.' })
  if (job.status === 'invalid')
    throw new PluginError('import_invalid', 422, {
      message: 'The preview of this job found errors; it cannot be executed.',
      id: job.id,
    })
  if (job.status === 'stale')
    throw new PluginError('import_conflict', 409, {
      message: 'The catalog changed since this preview; preview the file again.',
    })
  if (job.status === 'running') throw pending()
  if (job.status === 'previewing')
    throw new PluginError(
      'import_pending',
      409,
      { message: 'The preview of this job is still being made; retry in a few seconds.' },
      { 'Retry-After': 5 },
    )
  if (job.status !== 'previewed' && job.status !== 'failed')
    throw new PluginError('import_conflict', 409, { message: `The job is ${job.status} and cannot be executed.` })
  const scope = JSON.parse(job.archive_scope) as OfferPlan['archiveScope']
  if (scope.total > 0 && !args.confirmArchiving) {
    throw new PluginError('archiving_confirmation_required', 422, {
      message: `This snapshot archives ${scope.total} offer(s) missing from the file; send confirm_archiving=true after showing the scope to an operator.`,
      archive_scope: scope,
    })
  }

  const runToken = newLockOwner()
  let lock = await tryAcquireLock(ctx, IMPORT_LOCK, runToken, LEASE_MS)
  if (!lock.acquired) {
    // the holder may be a process of this machine that died: recover, then try once more
    await recoverInterruptedImports(ctx)
    lock = await tryAcquireLock(ctx, IMPORT_LOCK, runToken, LEASE_MS)
  }
  if (!lock.acquired) throw pending()
  const lease = keepLockAlive(ctx, IMPORT_LOCK, runToken, LEASE_MS)
  try {
    if (lock.staleOwner) await recoverInterruptedImports(ctx)
    const started = await transitionJob(ctx.db, job.id, job.status, {
      status: 'running',
      idempotency_key: key,
      run_token: runToken,
      started_at: ctx.now().toISOString(),
      updated_at: ctx.now().toISOString(),
    }).catch((error: unknown) => {
      // the unique index on idempotency_key: a concurrent request bound this key to another job
      ctx.log.info({ err: error }, 'idempotency key race')
      return false
    })
    if (!started) {
      await releaseLock(ctx.db, IMPORT_LOCK, runToken)
      const now = await findImportJob(ctx.db, job.id)
      if (now?.status === 'completed' && now.idempotency_key === key)
        return { id: job.id, result: storedResult(now), replayed: true }
      throw now?.idempotency_key === key || now?.status === 'running'
        ? pending()
        : new PluginError('import_conflict', 409, { message: 'This job or key is being used by another execution.' })
    }
    return await commitJob(ctx, job, args.actor, runToken, args.onProgress, args.note)
  } finally {
    lease.stop()
  }
}

/** Above this many writes an execution runs on a worker thread (see commitJob). */
const WORKER_MIN_WRITES = 1_000

/**
 * Commits the job, or records why not. A large execution writes from a worker thread with its own
 * connection. On SQLite better-sqlite3 answers synchronously, so a transaction of seconds run here
 * would hold the event loop for all of it and no request would be answered (see holdWriter). On
 * PostgreSQL the database waits for the client most of that time: planning the stored rows again
 * (when the catalog changed since the preview) and building the inserts are JavaScript work, run
 * here between a catalog request's queries, so each of them waited behind it (bench:mixed, two
 * instances: requests of 300-600 ms in the execution's first second).
 */
async function commitJob(
  ctx: HostContext,
  job: ImportJobRow,
  actor: Actor,
  runToken: string,
  onProgress: ExecuteArgs['onProgress'],
  note: PriceNote | undefined,
): Promise<{ id: string; result: ImportResult; replayed: boolean }> {
  const counters = JSON.parse(job.counters) as Record<string, number>
  const writes = (counters.create ?? 0) + (counters.update ?? 0) + (counters.archive ?? 0)
  const connection = writes >= WORKER_MIN_WRITES ? connectionBehind(ctx.db) : undefined
  const warmUp = writes >= WORKER_MIN_WRITES ? recentListingQueries(ctx) : undefined
  let written: WrittenJob
  try {
    written = connection
      ? await writeJobOnWorker(ctx, connection, { job, actor, runToken, warmUp, note }, onProgress)
      : await writeJob(ctx, job, actor, runToken, onProgress, warmUp, note)
  } catch (error) {
    throw await settleFailedExecution(ctx, job, actor, runToken, error)
  }
  const { result, listing } = written
  if (listing) {
    keepListingValues(ctx, listing)
    ctx.log.info(
      {
        job: job.id,
        totals: listing.totals.length,
        pages: listing.pages.length,
        matchSets: listing.matchSets.length,
        skipped: listing.skipped,
      },
      'catalog lists counted again before the import committed',
    )
  }
  // committed; SQLite's statistics were refreshed in the transaction (writeJob)
  if (writes >= WORKER_MIN_WRITES) {
    await refreshStatisticsAfterLargeWrite(ctx.db, ctx.caps.name, IMPORTED_TABLES).catch((error: unknown) =>
      ctx.log.warn({ err: error, job: job.id }, 'planner statistics not refreshed after the import'),
    )
  }
  return { id: job.id, result, replayed: false }
}

/** The tables a large import grows, whose statistics the planner needs at once (PostgreSQL). */
const IMPORTED_TABLES = ['offers', 'offer_components', 'price_history'] as const

/** What a failed execution leaves: the job failed or stale, the lock released, an audit entry. */
async function settleFailedExecution(
  ctx: HostContext,
  job: ImportJobRow,
  actor: Actor,
  runToken: string,
  error: unknown,
): Promise<PluginError> {
  const conflict = error instanceof PlanChanged
  try {
    await ctx.db.transaction().execute(async (trx) => {
      // only this run's own state: another run may have taken the job over meanwhile
      await updateImportJobOfRun(trx, job.id, runToken, {
        status: conflict ? 'stale' : 'failed',
        idempotency_key: null,
        run_token: null,
        failure: conflict ? 'The catalog changed since the preview.' : (error as Error).message.slice(0, 500),
        updated_at: ctx.now().toISOString(),
      })
      await releaseLock(trx, IMPORT_LOCK, runToken)
      await recordAudit(
        ctx,
        {
          actor,
          action: 'import.execute',
          objectType: 'import_job',
          objectId: job.id,
          outcome: 'failure',
          details: { file: job.file_name, reason: conflict ? 'import_conflict' : 'import_failed' },
        },
        trx,
      )
    })
  } catch (bookkeeping) {
    // the database is unreachable: whether the commit happened cannot be confirmed from here
    ctx.log.error({ err: bookkeeping, job: job.id }, 'import outcome cannot be confirmed')
    return new PluginError('import_recovery_required', 409, {
      message: 'The outcome of this execution could not be confirmed; the job will show it once the database answers.',
      id: job.id,
    })
  }
  if (conflict)
    return new PluginError('import_conflict', 409, {
      message: 'The catalog changed since the preview in a way that touches this plan; preview the file again.',
      id: job.id,
    })
  ctx.log.error({ err: error, job: job.id }, 'import execution failed')
  return new PluginError('import_failed', 422, {
    message: 'The import was rolled back; nothing was written.',
    id: job.id,
  })
}
