/*
 * The transaction of an offer import's execution, on this thread or on a worker thread
 * (execute-import-thread-worker.ts): the stored plan is planned again when the catalog changed
 * since the preview, then written by the one writer with its price history and the run's audit
 * entry, and the job's result and the lock's release commit with them.
 */
import type { Kysely } from 'kysely'

import { type AccessScope, actorScope, assertInvestmentInScope } from '../../host/auth/scope.js'
import { type Actor, recordAudit } from '../../host/audit/audit.js'
import type { HostContext } from '../../host/context.js'
import {
  bulkLoadDefersIndexes,
  deferCatalogRevisionTriggers,
  deferSecondaryIndexes,
  lockCatalogRevision,
  lockOffersForWrite,
  refreshStatisticsInsideLargeWrite,
} from '../../host/db/dialect.js'
import type { Database } from '../../host/db/schema.js'
import { releaseLock } from '../../host/locks.js'
import { warsawDate } from '../../host/warsaw-day.js'
import { type ListingQueries, warmListingValues } from '../../catalog/caching/listing-cache.js'
import { isDwellingType } from '../../offers/canonical-fields.js'
import type { PriceNote } from '../../offers/editor-operation.js'
import { createPlanner, type PlannedOperation, type PlanInput, PLANNER_VERSION } from '../../offers/offer-planner.js'
import { createPlanWriter } from '../../offers/offer-writer.js'
import { countOffers } from '../../offers/offers-repository.js'
import type { ImportMode } from '../../offers/validation/validate-offer-row.js'
import { countJobItemChunks, type ImportJobRow, selectJobItemChunks, transitionJob } from '../import-jobs-repository.js'
import { IMPORT_LOCK, RESULT_RETENTION_MS } from '../import-job-lifecycle.js'
import { mapsCustomFields } from '../import-mapping.js'
import { PlanChanged } from './execute-import-thread.js'
import { decodeChunk } from './stored-operations.js'
import type { ImportResult, WrittenJob } from './written-job.js'

/** Stored chunks read at once by an execution (× 500 operations). */
const CHUNKS_PER_READ = 4
/** Creates from which an execution that at least doubles the catalog loads it as a bulk load. */
const BULK_LOAD_MIN_CREATES = 5_000
/** Writes from which an execution bumps the catalog revision once (see deferCatalogRevisionTriggers). */
export const BULK_TRIGGERS_MIN_WRITES = 1_000

/** Offers written so far of the plan's creates, updates and archives (`dg import` draws it). */
export type WriteProgress = (written: number, total: number) => void

/** The stored operations of a job, a few chunks at a time, in plan order. */
async function* storedOperations(
  db: Kysely<Database>,
  job: Pick<ImportJobRow, 'id' | 'plan_format'>,
  options: { writesOnly: boolean },
): AsyncGenerator<PlannedOperation[]> {
  const chunks = await countJobItemChunks(db, job.id)
  for (let from = 0; from < chunks; from += CHUNKS_PER_READ) {
    const payloads = await selectJobItemChunks(db, job.id, {
      fromSeq: from,
      toSeq: from + CHUNKS_PER_READ - 1,
      writesOnly: options.writesOnly && job.plan_format >= 2,
    })
    const operations: PlannedOperation[] = []
    for (const payload of payloads) for (const op of decodeChunk(payload, job.plan_format)) operations.push(op)
    if (operations.length > 0) yield operations
  }
}

/**
 * Plans the stored values again against the catalog as it is now, inside the execution's
 * transaction, and refuses when anything the preview decided or saw differs (the digest). A plan
 * previewed by a release that still took standalone parts from files (a type other than a flat's
 * or a house's) is refused too: previewed again, such a row is a row error.
 */
async function verifyPlan(db: Kysely<Database>, job: ImportJobRow, today: string, scope: AccessScope): Promise<void> {
  const planner = createPlanner(db, {
    mode: job.mode as ImportMode,
    today,
    customMeta: mapsCustomFields(job.mapping),
    scope,
  })
  for await (const operations of storedOperations(db, job, { writesOnly: false })) {
    const inputs: PlanInput[] = []
    for (const op of operations) {
      if (op.action === 'archive') continue
      const type: string | undefined = op.values.propertyType
      if (type !== undefined && !isDwellingType(type)) throw new PlanChanged()
      inputs.push({ row: op.row, values: op.values })
    }
    await planner.plan(inputs)
    if (planner.errors.length > 0) throw new PlanChanged()
  }
  const summary = await planner.finish()
  if (summary.digest !== job.plan_digest) throw new PlanChanged()
}

/**
 * Refuses (403 rest_forbidden_scope) a job whose plan names an investment outside the executing
 * user's scope, or creates one: the preview may have been made by someone else, or the scope may
 * have shrunk since. Checked before the execution takes the lock, so a refusal leaves the job as it was.
 */
export async function assertJobInScope(db: Kysely<Database>, job: ImportJobRow, scope: AccessScope): Promise<void> {
  if (!scope.restricted) return
  for await (const operations of storedOperations(db, job, { writesOnly: false }))
    for (const op of operations) assertInvestmentInScope(scope, op.investmentId ?? null, op.sourceInvestmentId)
}

/** The most a large import spends, before it commits, counting again the lists readers asked for. */
const WARM_UP_BUDGET_MS = 2_000

/**
 * The execution's one transaction: offers, history, audit, the job's result and the lock release.
 * A large one also refreshes SQLite's planner statistics and counts again the lists `warmUp` names,
 * before it commits: readers then meet the imported offers with statistics that describe them and
 * with the totals of their lists known, instead of all counting a much larger catalog at once.
 */
export async function writeJob(
  ctx: Pick<HostContext, 'db' | 'caps' | 'now'>,
  job: ImportJobRow,
  actor: Actor,
  runToken: string,
  onProgress: WriteProgress | undefined,
  warmUp?: ListingQueries,
  note?: PriceNote,
): Promise<WrittenJob> {
  const now = ctx.now()
  const today = warsawDate(now)
  return await ctx.db.transaction().execute(async (trx) => {
    await lockOffersForWrite(trx as unknown as Kysely<never>, ctx.caps.name)
    const db = trx as unknown as Kysely<Database>
    // a catalog that has not changed since the preview gives the same plan: it is not made again
    const revision = await lockCatalogRevision(trx as unknown as Kysely<never>, ctx.caps.name)
    const unchangedCatalog =
      job.plan_format >= 2 &&
      job.plan_version === PLANNER_VERSION &&
      job.plan_revision !== null &&
      job.plan_revision === revision &&
      job.plan_today === today
    if (!unchangedCatalog) await verifyPlan(db, job, today, await actorScope(db, actor))

    const planned = JSON.parse(job.counters) as Record<string, number>
    const expected = {
      processed: (planned.create ?? 0) + (planned.update ?? 0) + (planned.unchanged ?? 0),
      created: planned.create ?? 0,
      updated: planned.update ?? 0,
      archived: planned.archive ?? 0,
    }
    const runId = await recordAudit(
      ctx,
      {
        actor,
        action: 'import.execute',
        objectType: 'import_job',
        objectId: job.id,
        outcome: 'success',
        details: {
          mode: job.mode,
          file: job.file_name,
          ...expected,
          unchanged: planned.unchanged ?? 0,
          ...(note?.reason ? { reason: note.reason } : {}),
        },
      },
      trx,
    )
    const writer = createPlanWriter(trx, {
      now,
      today,
      runId,
      bulk: ctx.caps.name,
      customMeta: mapsCustomFields(job.mapping),
      ...(note?.reason ? { note } : {}),
    })
    // a file that creates most of the catalog is loaded as a bulk load (see deferSecondaryIndexes)
    const restoreIndexes =
      bulkLoadDefersIndexes(ctx.caps.name) &&
      expected.created >= BULK_LOAD_MIN_CREATES &&
      expected.created >= (await countOffers(trx))
        ? await deferSecondaryIndexes(trx as unknown as Kysely<never>, ctx.caps.name, 'offers')
        : undefined
    // and a large one bumps the catalog revision once instead of once per row written
    const restoreTriggers =
      expected.created + expected.updated + expected.archived >= BULK_TRIGGERS_MIN_WRITES
        ? await deferCatalogRevisionTriggers(trx as unknown as Kysely<never>, ctx.caps.name, [
            'offers',
            'price_history',
          ])
        : undefined
    const writes = expected.created + expected.updated + expected.archived
    for await (const operations of storedOperations(db, job, { writesOnly: true })) {
      await writer.apply(operations)
      const { created, updated, archived } = writer.counts
      onProgress?.(created + updated + archived, writes)
    }
    await restoreIndexes?.()
    await restoreTriggers?.()
    const counts = writer.counts
    if (
      counts.created !== expected.created ||
      counts.updated !== expected.updated ||
      counts.archived !== expected.archived
    )
      throw new Error('the stored plan does not add up to its preview counts')
    const importResult: ImportResult = {
      status: 'completed',
      processed: expected.processed,
      created: counts.created,
      updated: counts.updated,
      archived: counts.archived,
      run_id: runId,
    }
    const finished = await transitionJob(trx, job.id, 'running', {
      status: 'completed',
      run_id: runId,
      result: JSON.stringify(importResult),
      finished_at: now.toISOString(),
      updated_at: now.toISOString(),
      expires_at: new Date(now.getTime() + RESULT_RETENTION_MS).toISOString(),
    })
    if (!finished) throw new Error('job left the running state during its own execution')
    await releaseLock(trx, IMPORT_LOCK, runToken)
    if (writes >= BULK_TRIGGERS_MIN_WRITES)
      await refreshStatisticsInsideLargeWrite(trx as unknown as Kysely<never>, ctx.caps.name)
    const listing = warmUp && (await warmListingValues(trx, ctx.caps.name, warmUp, WARM_UP_BUDGET_MS, ctx.now()))
    return listing ? { result: importResult, listing } : { result: importResult }
  })
}
