/*
 * The guards a run's plan must stay within to be applied without a person: the share of offers it
 * archives or withdraws, each unit's price change, the share of rows the import refused, and how
 * much the file shrank against the last one applied. The plan is read from the import job the
 * preview stored, so what is judged is exactly what the writer would write.
 */
import type { Executor } from '../host/context.js'
import { countJobItemChunks, findImportJob, selectJobItemChunks } from '../imports/import-jobs-repository.js'
import { decodeChunk } from '../imports/execution/stored-operations.js'
import type { PlannedOperation } from '../offers/offer-planner.js'
import type { GuardLimits } from './source-settings.js'

export type GuardName = 'archived' | 'price_change' | 'invalid_rows' | 'shrink'

/** An offer the guard stopped at: its key and the value before and after, as the operator reads it. */
export interface FlaggedOffer {
  key: string
  field: string
  before: string | number | null
  after: string | number | null
  change_pct?: number
}

export interface GuardBreach {
  guard: GuardName
  limit_pct: number
  actual_pct: number
  /** What the percent is of: offers in the catalog, rows of the file, or a unit's price. */
  count: number
  of: number
  offers: FlaggedOffer[]
}

export interface PlanFacts {
  jobId: string | null
  rows: number
  errorsTotal: number
  archive: number
}

const FLAGGED_SHOWN = 50
const PRICE_FIELDS = [
  ['price_total', 'priceTotalCents'],
  ['price_m2', 'priceM2Cents'],
  ['price_combined', 'priceCombinedCents'],
] as const
/** Statuses an offer is withdrawn to (no longer on sale without being sold). */
const WITHDRAWN = new Set(['unavailable'])

function percent(part: number, whole: number): number {
  if (whole <= 0) return part > 0 ? 100 : 0
  return Math.round((part / whole) * 1000) / 10
}

function money(cents: number): string {
  return (cents / 100).toFixed(2)
}

async function* planOperations(db: Executor, jobId: string): AsyncGenerator<PlannedOperation> {
  const job = await findImportJob(db, jobId)
  if (!job) return
  const chunks = await countJobItemChunks(db, jobId)
  for (let from = 0; from < chunks; from += 4)
    for (const payload of await selectJobItemChunks(db, jobId, { fromSeq: from, toSeq: from + 3, writesOnly: true }))
      for (const op of decodeChunk(payload, job.plan_format)) yield op
}

/** Offers not archived in the investments named by their source ids (what the archive guard's share is of). */
async function activeOffers(db: Executor, investments: ReadonlySet<string>): Promise<number> {
  if (investments.size === 0) return 0
  const row = await db
    .selectFrom('offers')
    .innerJoin('investments', 'investments.id', 'offers.investment_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('offers.status', '!=', 'archived')
    .where('investments.source_id', 'in', [...investments])
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** The guards the plan breaks (none: it may be applied without a person). */
export async function checkGuards(
  db: Executor,
  limits: GuardLimits,
  plan: PlanFacts,
  previousRows: number | null,
): Promise<GuardBreach[]> {
  const breaches: GuardBreach[] = []
  const invalidPct = percent(plan.errorsTotal, Math.max(plan.rows, 1))
  if (plan.errorsTotal > 0 && invalidPct > limits.max_invalid_pct)
    breaches.push({
      guard: 'invalid_rows',
      limit_pct: limits.max_invalid_pct,
      actual_pct: invalidPct,
      count: plan.errorsTotal,
      of: plan.rows,
      offers: [],
    })
  if (previousRows !== null && previousRows > 0 && plan.rows < previousRows) {
    const shrinkPct = percent(previousRows - plan.rows, previousRows)
    if (shrinkPct > limits.max_shrink_pct)
      breaches.push({
        guard: 'shrink',
        limit_pct: limits.max_shrink_pct,
        actual_pct: shrinkPct,
        count: plan.rows,
        of: previousRows,
        offers: [],
      })
  }
  if (plan.jobId === null) return breaches

  const withdrawn: FlaggedOffer[] = []
  let withdrawnTotal = 0
  const withdrawnIn = new Set<string>()
  const repriced: FlaggedOffer[] = []
  let repricedTotal = 0
  let worstPrice = 0
  for await (const op of planOperations(db, plan.jobId)) {
    if (op.action === 'archive') {
      withdrawnTotal++
      withdrawnIn.add(op.sourceInvestmentId)
      if (withdrawn.length < FLAGGED_SHOWN)
        withdrawn.push({
          key: op.key,
          field: 'property_status',
          before: typeof op.before.property_status === 'string' ? op.before.property_status : null,
          after: 'archived',
        })
      continue
    }
    if (op.action !== 'update') continue
    const status = op.values.status
    if (op.changes.includes('property_status') && status !== undefined && WITHDRAWN.has(status)) {
      withdrawnTotal++
      withdrawnIn.add(op.sourceInvestmentId)
      if (withdrawn.length < FLAGGED_SHOWN)
        withdrawn.push({
          key: op.key,
          field: 'property_status',
          before: typeof op.before.property_status === 'string' ? op.before.property_status : null,
          after: status,
        })
    }
    for (const [field, valueKey] of PRICE_FIELDS) {
      if (!op.changes.includes(field)) continue
      const before = op.before[field]
      const after = op.values[valueKey]
      if (typeof before !== 'number' || before <= 0 || after === undefined) continue
      const changePct = percent(Math.abs(after - before), before)
      if (changePct <= limits.max_price_change_pct) continue
      repricedTotal++
      worstPrice = Math.max(worstPrice, changePct)
      if (repriced.length < FLAGGED_SHOWN)
        repriced.push({ key: op.key, field, before: money(before), after: money(after), change_pct: changePct })
    }
  }
  if (withdrawnTotal > 0) {
    const offers = await activeOffers(db, withdrawnIn)
    const pct = percent(withdrawnTotal, offers)
    if (pct > limits.max_archived_pct)
      breaches.push({
        guard: 'archived',
        limit_pct: limits.max_archived_pct,
        actual_pct: pct,
        count: withdrawnTotal,
        of: offers,
        offers: withdrawn,
      })
  }
  if (repricedTotal > 0)
    breaches.push({
      guard: 'price_change',
      limit_pct: limits.max_price_change_pct,
      actual_pct: worstPrice,
      count: repricedTotal,
      of: repricedTotal,
      offers: repriced,
    })
  return breaches
}
