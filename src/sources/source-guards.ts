/*
 * The guards a run's plan must stay within to be applied without a person. Four are limits: the
 * share of offers it archives or withdraws, each unit's price change, the share of rows the import
 * refused, and how much the file shrank against the last one applied. Three stop at an operator's
 * decision the file would undo, whatever its size: a sold or reserved unit back on sale, an
 * announced price (valid from a day after the plan's day) replaced, and a value changed in the
 * panel (the editor or a bulk price change) since the source's previous applied run. The plan is
 * read from the import job the preview stored (each operation's values and the stored values it
 * changes), so what is judged is exactly what the writer would write.
 */
import { PRICE_CHANGE_NAME_PREFIX } from '../bulk-changes/bulk-price-change.js'
import type { Executor } from '../host/context.js'
import { countJobItemChunks, findImportJob, selectJobItemChunks } from '../imports/import-jobs-repository.js'
import { decodeChunk } from '../imports/execution/stored-operations.js'
import type { OfferStatus } from '../offers/canonical-fields.js'
import type { Comparable, PlannedOperation } from '../offers/offer-planner.js'
import type { NormalizedOfferValues } from '../offers/validation/validate-offer-row.js'
import type { GuardLimits } from './source-settings.js'
import {
  type AuditFact,
  selectAuditFacts,
  selectEditorWritesAfter,
  selectOfferCodes,
  selectPriceRecordsAfter,
} from './sources-repository.js'

export type GuardName =
  | 'archived'
  | 'price_change'
  | 'invalid_rows'
  | 'shrink'
  | 'back_on_sale'
  | 'announced_price'
  | 'panel_change'

/** The guards that protect an operator's decision: any one change holds the run (their limit is 0). */
export const DECISION_GUARDS: ReadonlySet<GuardName> = new Set(['back_on_sale', 'announced_price', 'panel_change'])

/** Where a value the run would overwrite was changed in the panel. */
export type PanelChannel = 'editor' | 'bulk_price_change'

/** An offer the guard stopped at: its key and the value before and after, as the operator reads it. */
export interface FlaggedOffer {
  key: string
  /** The offer in the catalog and its designation (prop_no), as the operator knows the unit. */
  offer_id?: number
  unit?: string
  field: string
  before: string | number | null
  after: string | number | null
  change_pct?: number
  /** An announced price: the stored price's "valid from" and the one the file gives. */
  before_from?: string
  after_from?: string
  /** A value changed in the panel: where, when (ISO) and by whom. */
  changed_in?: PanelChannel
  changed_at?: string
  changed_by?: string
}

export interface GuardBreach {
  guard: GuardName
  limit_pct: number
  actual_pct: number
  /** What the percent is of: offers in the catalog, rows of the file, a unit's price, or the units the plan changes. */
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

/** What the guards compare the plan with, besides the catalog. */
export interface GuardBasis {
  /** Rows of the file last applied (the shrink guard), null before the first. */
  previousRows: number | null
  /**
   * The audit entry of the execution of the source's previous applied run: panel changes recorded
   * after it are the source's to respect; 0 when it has applied nothing yet.
   */
  appliedAfter: number
  /** Today in Europe/Warsaw, for a plan stored without its day. */
  today: string
}

const FLAGGED_SHOWN = 50
const ID_CHUNK = 500
const PRICES = [
  {
    field: 'price_total',
    dateField: 'price_total_from',
    value: 'priceTotalCents',
    date: 'priceTotalFrom',
    type: 'total',
  },
  { field: 'price_m2', dateField: 'price_m2_from', value: 'priceM2Cents', date: 'priceM2From', type: 'm2' },
  {
    field: 'price_combined',
    dateField: 'price_combined_from',
    value: 'priceCombinedCents',
    date: 'priceCombinedFrom',
    type: 'combined',
  },
] as const
/** Statuses an offer is withdrawn to (no longer on sale without being sold). */
const WITHDRAWN = new Set(['unavailable'])
/** Statuses a decision took the unit off sale with: a file saying `available` would put it back. */
const TAKEN: ReadonlySet<Comparable> = new Set<OfferStatus>(['sold', 'reserved'])
/** The offer's own fields as the plan's values hold them (what a panel change may have set). */
const OFFER_VALUES: Readonly<Record<string, Exclude<keyof NormalizedOfferValues, 'location' | 'meta'>>> = {
  prop_no: 'code',
  prop_type: 'propertyType',
  property_status: 'status',
  prop_area: 'area',
  prop_rooms: 'rooms',
  prop_floor: 'floor',
  price_m2: 'priceM2Cents',
  price_m2_from: 'priceM2From',
  price_total: 'priceTotalCents',
  price_total_from: 'priceTotalFrom',
  price_combined: 'priceCombinedCents',
  price_combined_from: 'priceCombinedFrom',
  price_combined_variant: 'priceCombinedVariant',
  price_combined_status: 'priceCombinedStatus',
}
const AMOUNTS: ReadonlySet<string> = new Set(PRICES.map((p) => p.field))

function percent(part: number, whole: number): number {
  if (whole <= 0) return part > 0 ? 100 : 0
  return Math.round((part / whole) * 1000) / 10
}

function money(cents: number): string {
  return (cents / 100).toFixed(2)
}

/** A value of the plan as the flagged offers show it: an amount as decimal złoty text. */
function shown(field: string, value: Comparable | undefined): string | number | null {
  if (value === undefined || value === null) return null
  if (AMOUNTS.has(field) && typeof value === 'number') return money(value)
  return typeof value === 'boolean' ? String(value) : value
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

function flagOf(op: PlannedOperation, flag: Omit<FlaggedOffer, 'key'>): FlaggedOffer {
  return { key: op.key, ...(op.offerId !== null ? { offer_id: op.offerId } : {}), ...flag }
}

/** A sold or reserved unit the operation puts back on sale. */
function backOnSale(op: PlannedOperation): FlaggedOffer[] {
  const before = op.before.property_status
  if (!op.changes.includes('property_status') || op.values.status !== 'available' || !TAKEN.has(before ?? null))
    return []
  return [flagOf(op, { field: 'property_status', before: before as string, after: 'available' })]
}

/**
 * Each announced price the operation changes: one whose stored "valid from" is after the plan's
 * day. The stored date is in the plan: the operation's `before` when the date changes, else the
 * date it keeps (sent, or the day the planner dated the new amount with, which is then the same).
 */
function announcedPrices(op: PlannedOperation, today: string): FlaggedOffer[] {
  const flags: FlaggedOffer[] = []
  for (const price of PRICES) {
    const amountChanges = op.changes.includes(price.field)
    const dateChanges = op.changes.includes(price.dateField)
    if (!amountChanges && !dateChanges) continue
    const storedFrom = dateChanges ? op.before[price.dateField] : op.values[price.date]
    if (typeof storedFrom !== 'string' || storedFrom <= today) continue
    const after = op.values[price.value]
    flags.push(
      flagOf(op, {
        field: price.field,
        before: shown(price.field, amountChanges ? op.before[price.field] : after),
        after: shown(price.field, after),
        before_from: storedFrom,
        after_from: op.values[price.date] ?? storedFrom,
      }),
    )
  }
  return flags
}

interface PanelChange {
  channel: PanelChannel
  auditId: number
  at: string
  by: string
}

function chunked<T>(items: readonly T[]): T[][] {
  const chunks: T[][] = []
  for (let i = 0; i < items.length; i += ID_CHUNK) chunks.push(items.slice(i, i + ID_CHUNK))
  return chunks
}

function parseDetails(details: string | null): Record<string, unknown> {
  try {
    const value: unknown = details ? JSON.parse(details) : {}
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/** The channel of a run that wrote a price record, when it is the panel's. */
function panelChannelOf(run: AuditFact): PanelChannel | null {
  if (run.action.startsWith('editor.offer.')) return 'editor'
  if (run.action === 'import.execute') {
    const file = parseDetails(run.details).file
    if (typeof file === 'string' && file.startsWith(PRICE_CHANGE_NAME_PREFIX)) return 'bulk_price_change'
  }
  return null
}

/**
 * Per offer, the fields the panel changed after the audit entry `afterId`, with the latest such
 * change. The editor's audit entries name the offer and the fields it changed (a date alone too);
 * a bulk price change is an import run, known by the price records it wrote and its file's name.
 */
async function panelChanges(
  db: Executor,
  offerIds: readonly number[],
  afterId: number,
): Promise<Map<number, Map<string, PanelChange>>> {
  const changes = new Map<number, Map<string, PanelChange>>()
  const note = (offerId: number, field: string, change: PanelChange) => {
    let fields = changes.get(offerId)
    if (!fields) changes.set(offerId, (fields = new Map<string, PanelChange>()))
    const known = fields.get(field)
    if (!known || known.auditId < change.auditId) fields.set(field, change)
  }
  const runs = new Map<number, AuditFact | null>()
  for (const ids of chunked(offerIds)) {
    for (const entry of await selectEditorWritesAfter(db, ids, afterId)) {
      const changed = parseDetails(entry.details).changes
      if (!Array.isArray(changed)) continue
      const change = { channel: 'editor' as const, auditId: entry.id, at: entry.occurred_at, by: entry.actor_name }
      for (const field of changed) if (typeof field === 'string') note(Number(entry.object_id), field, change)
    }
    const records = await selectPriceRecordsAfter(db, ids, afterId)
    const unknown = [...new Set(records.map((r) => r.run_id))].filter((id) => !runs.has(id))
    for (const id of unknown) runs.set(id, null)
    for (const run of await selectAuditFacts(db, unknown)) runs.set(run.id, run)
    for (const record of records) {
      const run = runs.get(record.run_id)
      const channel = run ? panelChannelOf(run) : null
      const price = PRICES.find((p) => p.type === record.price_type)
      if (!run || !channel || !price) continue
      const change = { channel, auditId: run.id, at: run.occurred_at, by: run.actor_name }
      note(record.offer_id, price.field, change)
      note(record.offer_id, price.dateField, change)
    }
  }
  return changes
}

/**
 * The values the operation overwrites that the panel changed since the source's previous applied
 * run, except those another decision guard names already. A price's date is named only when its
 * amount is not (one line per price).
 */
function panelOverwrites(
  op: PlannedOperation,
  changed: ReadonlyMap<string, PanelChange>,
  today: string,
): FlaggedOffer[] {
  const named = new Set([...backOnSale(op), ...announcedPrices(op, today)].map((f) => f.field))
  const flags: FlaggedOffer[] = []
  for (const field of op.changes) {
    const change = changed.get(field)
    const valueKey = OFFER_VALUES[field]
    if (!change || valueKey === undefined || named.has(field)) continue
    const price = PRICES.find((p) => p.dateField === field)
    if (price && (named.has(price.field) || (op.changes.includes(price.field) && changed.has(price.field)))) continue
    flags.push(
      flagOf(op, {
        field,
        before: shown(field, op.before[field]),
        after: shown(field, op.values[valueKey]),
        changed_in: change.channel,
        changed_at: change.at,
        changed_by: change.by,
      }),
    )
  }
  return flags
}

/** Collects the flags of one guard: how many units, and the first ones shown. */
class Flagged {
  units = 0
  readonly shown: FlaggedOffer[] = []

  add(flags: readonly FlaggedOffer[]): void {
    if (flags.length === 0) return
    this.units++
    for (const flag of flags) if (this.shown.length < FLAGGED_SHOWN) this.shown.push(flag)
  }

  breach(guard: GuardName, of: number): GuardBreach | null {
    if (this.units === 0) return null
    return { guard, limit_pct: 0, actual_pct: percent(this.units, of), count: this.units, of, offers: this.shown }
  }
}

/** The guards the plan breaks (none: it may be applied without a person). */
export async function checkGuards(
  db: Executor,
  limits: GuardLimits,
  plan: PlanFacts,
  basis: GuardBasis,
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
  const previousRows = basis.previousRows
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
  const today = (await findImportJob(db, plan.jobId))?.plan_today ?? basis.today

  const withdrawn: FlaggedOffer[] = []
  let withdrawnTotal = 0
  const withdrawnIn = new Set<string>()
  const repriced: FlaggedOffer[] = []
  let repricedTotal = 0
  let worstPrice = 0
  const returned = new Flagged()
  const announced = new Flagged()
  const updated = new Set<number>()
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
    if (op.offerId !== null) updated.add(op.offerId)
    returned.add(backOnSale(op))
    announced.add(announcedPrices(op, today))
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
    for (const { field, value } of PRICES) {
      if (!op.changes.includes(field)) continue
      const before = op.before[field]
      const after = op.values[value]
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

  // a second pass over the plan only when the panel changed some of the offers it updates
  const overwritten = new Flagged()
  const changed = await panelChanges(db, [...updated], basis.appliedAfter)
  if (changed.size > 0)
    for await (const op of planOperations(db, plan.jobId)) {
      const fields = op.action === 'update' && op.offerId !== null ? changed.get(op.offerId) : undefined
      if (fields) overwritten.add(panelOverwrites(op, fields, today))
    }
  const decisions = [
    returned.breach('back_on_sale', updated.size),
    announced.breach('announced_price', updated.size),
    overwritten.breach('panel_change', updated.size),
  ].filter((b): b is GuardBreach => b !== null)
  await nameUnits(db, decisions)
  return [...breaches, ...decisions]
}

/** Gives each flagged offer of the decision guards its designation, as the operator knows the unit. */
async function nameUnits(db: Executor, breaches: readonly GuardBreach[]): Promise<void> {
  const ids = [
    ...new Set(breaches.flatMap((b) => b.offers.flatMap((o) => (o.offer_id === undefined ? [] : [o.offer_id])))),
  ]
  if (ids.length === 0) return
  const codes = await selectOfferCodes(db, ids)
  for (const breach of breaches)
    for (const offer of breach.offers) {
      const code = offer.offer_id === undefined ? undefined : codes.get(offer.offer_id)
      if (code) offer.unit = code
    }
}
