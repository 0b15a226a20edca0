/*
 * The planner of the shared write path (design.md section 2): for each offer key one operation
 * (create, update with the changed fields, unchanged, archive) computed against the current
 * catalog. Preview is the plan without a commit, and execution re-plans inside its transaction and
 * must arrive at the same digest, so what is committed is exactly what the operator saw.
 */
import { createHash } from 'node:crypto'

import type { Executor } from '../host/context.js'
import { type OfferStatus, STANDALONE_PART_TYPES } from './canonical-fields.js'
import { decodeChangeSet, encodeChangeSet } from './change-set.js'
import { createsExactlySent } from './compared-values.js'
import { priceWithinRounding } from './price-consistency.js'
import { fieldError, formatAreaPl, formatCentsPl } from './row-errors.js'
import {
  type InvestmentKeyRow,
  type PlanOffer,
  type PlanOfferRow,
  selectInvestmentsBySourceIds,
  selectOfferKeysOfInvestments,
  selectPlanOffersByKeys,
} from './offers-repository.js'
import { type ImportMode, type NormalizedOfferValues, offerKey, type RowError } from './validate-offer-row.js'

export type PlanAction = 'create' | 'update' | 'unchanged' | 'archive'

/**
 * The planner's rules, as stored with a previewed plan: a plan made by other rules (a release in
 * between) is planned again before it is executed, never taken as it is. Change it with the rules.
 */
export const PLANNER_VERSION = '2026-11-25.1'

export interface PlannedOperation {
  /** Row of the file (or null for an archive, which has no row). */
  row: number | null
  key: string
  action: PlanAction
  sourceInvestmentId: string
  sourcePropertyId: string
  /** Values to write: the sent fields, plus defaults the planner added (price dates). */
  values: NormalizedOfferValues
  /** Canonical field names whose stored value changes. */
  changes: string[]
  /** The stored values of the changed fields, as the plan saw them (part of the digest). */
  before: Record<string, Comparable>
  offerId: number | null
  investmentId: number | null
  /** `values` as stored-operations text, when the input came with it and the planner added nothing. */
  storedValues?: string
  /** `changes` as a change set (change-set.ts), when the planner made them from one. */
  changeSet?: number
}

export interface ArchiveScope {
  /** Source ids of the investments the snapshot names, with how many offers it archives in each. */
  investments: Array<{ source_investment_id: string; archived: number }>
  total: number
}

export interface OfferPlan {
  mode: ImportMode
  operations: PlannedOperation[]
  errors: RowError[]
  counts: { create: number; update: number; unchanged: number; archive: number }
  archiveScope: ArchiveScope
  digest: string
}

export interface PlanInput {
  row: number | null
  values: NormalizedOfferValues
  /** The same values as stored-operations text, when the reader made it already (see encodeValues). */
  storedValues?: string
  /*
   * What a reader that encoded the values (the file worker) knows of them without decoding them:
   * both ids, the offer key and `sentChangeSet(values)`, all four or none, and `comparedText(values)`
   * unless the row's investment is new (compared-values.ts). A row whose text equals its stored
   * offer's is planned `unchanged`, and a new offer that `createsExactlySent` a `create`, without
   * reading `values`, which such a reader decodes only when they are read.
   */
  sourceInvestmentId?: string
  sourcePropertyId?: string
  key?: string
  compared?: string
  sent?: number
}

export type Comparable = string | number | null

interface FieldRule {
  field: string
  read: (offer: PlanOfferRow) => Comparable
  sent: (values: NormalizedOfferValues) => Comparable | undefined
}

const OFFER_FIELDS: FieldRule[] = [
  { field: 'prop_no', read: (o) => o.code, sent: (v) => v.code },
  { field: 'prop_type', read: (o) => o.property_type, sent: (v) => v.propertyType },
  { field: 'property_status', read: (o) => o.status, sent: (v) => v.status },
  { field: 'prop_area', read: (o) => o.area, sent: (v) => v.area },
  { field: 'prop_rooms', read: (o) => o.rooms, sent: (v) => v.rooms },
  { field: 'prop_floor', read: (o) => o.floor, sent: (v) => v.floor },
  { field: 'price_m2', read: (o) => o.price_m2_cents, sent: (v) => v.priceM2Cents },
  { field: 'price_m2_from', read: (o) => o.price_m2_from, sent: (v) => v.priceM2From },
  { field: 'price_total', read: (o) => o.price_total_cents, sent: (v) => v.priceTotalCents },
  { field: 'price_total_from', read: (o) => o.price_total_from, sent: (v) => v.priceTotalFrom },
  { field: 'price_combined', read: (o) => o.price_combined_cents, sent: (v) => v.priceCombinedCents },
  { field: 'price_combined_from', read: (o) => o.price_combined_from, sent: (v) => v.priceCombinedFrom },
  { field: 'price_combined_variant', read: (o) => o.price_combined_variant, sent: (v) => v.priceCombinedVariant },
  { field: 'price_combined_status', read: (o) => o.price_combined_status, sent: (v) => v.priceCombinedStatus },
]

const LOCATION_FIELDS: Array<{
  field: string
  column: keyof InvestmentKeyRow
  key: keyof NonNullable<NormalizedOfferValues['location']>
}> = [
  { field: 'proj_voivod', column: 'loc_voivodeship', key: 'voivodeship' },
  { field: 'proj_powiat', column: 'loc_powiat', key: 'powiat' },
  { field: 'proj_gmina', column: 'loc_gmina', key: 'gmina' },
  { field: 'proj_city', column: 'loc_city', key: 'city' },
  { field: 'proj_street', column: 'loc_street', key: 'street' },
  { field: 'proj_build_no', column: 'loc_building_no', key: 'buildingNo' },
  { field: 'proj_zip', column: 'loc_postal_code', key: 'postalCode' },
]

/** Price fields whose change without its own date is dated today (Europe/Warsaw). */
const PRICE_DATES: Array<{
  date: 'priceM2From' | 'priceTotalFrom' | 'priceCombinedFrom'
  column: 'price_m2_from' | 'price_total_from' | 'price_combined_from'
  priceField: string
}> = [
  { date: 'priceM2From', column: 'price_m2_from', priceField: 'price_m2' },
  { date: 'priceTotalFrom', column: 'price_total_from', priceField: 'price_total' },
  { date: 'priceCombinedFrom', column: 'price_combined_from', priceField: 'price_combined' },
]

export function isStandalonePart(type: string): boolean {
  return (STANDALONE_PART_TYPES as readonly string[]).includes(type)
}

/** One line of the plan digest: what the plan decided and what it saw in the catalog. */
function digestLine(op: PlannedOperation): string {
  const line = `\n${op.key}\t${op.action}\t${op.changeSet ?? encodeChangeSet(op.changes)}\t${op.offerId ?? ''}\t${op.investmentId ?? ''}`
  return op.changes.length > 0 ? line + JSON.stringify(op.before) : line
}

/** The end of a planning session: what only the whole input can tell. */
export interface PlanSummary {
  /** A snapshot's archive operations, after every planned row. */
  archives: PlannedOperation[]
  counts: OfferPlan['counts']
  archiveScope: ArchiveScope
  /*
   * What the plan decided and what it saw in the catalog. The values are not hashed: execution
   * re-plans from the very values the preview stored, so only the catalog side can differ (and the
   * date a price without its own date gets, which is hashed as `today`).
   */
  digest: string
}

export interface Planner {
  /** Row-level problems only the catalog reveals (a price that disagrees with the stored values). */
  readonly errors: RowError[]
  /** Plans the next inputs, in file order; call as often as needed, then `finish` once. */
  plan(inputs: readonly PlanInput[]): Promise<PlannedOperation[]>
  finish(): Promise<PlanSummary>
}

/**
 * A planning session over an input read in batches, so that a 100,000-row file is planned without
 * holding it, or its plan, in memory: each batch reads only the investments and offers it names,
 * and the digest is computed as the operations go by. One session gives the same operations and
 * digest whatever the batch sizes.
 */
export function createPlanner(db: Executor, options: { mode: ImportMode; today: string }): Planner {
  const hash = createHash('sha256').update(options.today)
  const investmentBySource = new Map<string, InvestmentKeyRow | null>()
  // the keys a snapshot names: what `finish` does not archive (a patch archives nothing)
  const seen = new Set<string>()
  const snapshot = options.mode === 'snapshot'
  const errors: RowError[] = []
  const counts = { create: 0, update: 0, unchanged: 0, archive: 0 }

  async function knowInvestments(inputs: readonly PlanInput[]): Promise<void> {
    const unknown = new Set<string>()
    for (const input of inputs) {
      const source = input.sourceInvestmentId ?? input.values.sourceInvestmentId
      if (source !== undefined && !investmentBySource.has(source)) unknown.add(source)
    }
    if (unknown.size === 0) return
    for (const source of unknown) investmentBySource.set(source, null)
    for (const investment of await selectInvestmentsBySourceIds(db, [...unknown]))
      investmentBySource.set(investment.source_id ?? '', investment)
  }

  async function plan(inputs: readonly PlanInput[]): Promise<PlannedOperation[]> {
    await knowInvestments(inputs)
    const keys: Array<{ investmentId: number; sourcePropertyId: string }> = []
    for (const input of inputs) {
      const source = input.sourceInvestmentId ?? input.values.sourceInvestmentId
      const investment = source === undefined ? undefined : investmentBySource.get(source)
      const sourcePropertyId = input.sourcePropertyId ?? input.values.sourcePropertyId
      if (investment && sourcePropertyId !== undefined) keys.push({ investmentId: investment.id, sourcePropertyId })
    }
    const offersByKey = new Map<string, PlanOffer>()
    if (keys.length > 0) {
      const sourceOf = new Map<number, string>()
      for (const [source, investment] of investmentBySource) if (investment) sourceOf.set(investment.id, source)
      for (const offer of await selectPlanOffersByKeys(db, keys)) {
        if (offer.sourcePropertyId !== null)
          offersByKey.set(offerKey(sourceOf.get(offer.investmentId) ?? '', offer.sourcePropertyId), offer)
      }
    }

    const operations: PlannedOperation[] = []
    // the digest takes the lines of a batch at once: the same bytes, one call instead of a thousand
    let lines = ''
    for (const input of inputs) {
      const op = planOne(input, investmentBySource, offersByKey, options.today, errors)
      if (op === undefined) continue
      if (op !== null) {
        operations.push(op)
        counts[op.action]++
        lines += digestLine(op)
        if (snapshot) seen.add(op.key)
      } else if (snapshot) {
        seen.add(
          input.key ?? offerKey(input.values.sourceInvestmentId as string, input.values.sourcePropertyId as string),
        )
      }
    }
    hash.update(lines)
    return operations
  }

  async function finish(): Promise<PlanSummary> {
    const archives: PlannedOperation[] = []
    const scope: ArchiveScope = { investments: [], total: 0 }
    if (snapshot) {
      const sourceOf = new Map<number, string>()
      for (const [source, investment] of investmentBySource) if (investment) sourceOf.set(investment.id, source)
      const perInvestment = new Map<string, number>()
      for (const offer of await selectOfferKeysOfInvestments(db, [...sourceOf.keys()])) {
        const source = sourceOf.get(offer.investment_id) ?? ''
        // an offer without a source id (made in the editor) gets a key no file row can produce
        const key =
          offer.source_property_id !== null
            ? offerKey(source, offer.source_property_id)
            : `${offerKey(source, '')}%23${offer.id}`
        if (seen.has(key) || offer.status === ('archived' satisfies OfferStatus)) continue
        const op: PlannedOperation = {
          row: null,
          key,
          action: 'archive',
          sourceInvestmentId: source,
          sourcePropertyId: offer.source_property_id ?? `#${offer.id}`,
          values: {},
          changes: ['property_status'],
          before: { property_status: offer.status },
          offerId: offer.id,
          investmentId: offer.investment_id,
        }
        archives.push(op)
        counts.archive++
        hash.update(digestLine(op))
        perInvestment.set(source, (perInvestment.get(source) ?? 0) + 1)
      }
      for (const [source, archived] of perInvestment) scope.investments.push({ source_investment_id: source, archived })
      scope.total = archives.length
    }
    return { archives, counts: { ...counts }, archiveScope: scope, digest: hash.digest('hex') }
  }

  return { errors, plan, finish }
}

/**
 * The operation of one input: `undefined` when the input has no key (the validator reported it),
 * `null` when the catalog makes it an error (added to `errors`).
 */
function planOne(
  input: PlanInput,
  investmentBySource: ReadonlyMap<string, InvestmentKeyRow | null>,
  offersByKey: ReadonlyMap<string, PlanOffer>,
  today: string,
  errors: RowError[],
): PlannedOperation | null | undefined {
  const sourceInvestmentId = input.sourceInvestmentId ?? input.values.sourceInvestmentId
  const sourcePropertyId = input.sourcePropertyId ?? input.values.sourcePropertyId
  if (sourceInvestmentId === undefined || sourcePropertyId === undefined) return undefined
  const key = input.key ?? offerKey(sourceInvestmentId, sourcePropertyId)
  const investment = investmentBySource.get(sourceInvestmentId) ?? undefined
  const stored = offersByKey.get(key)
  if (input.sent !== undefined) {
    if (stored !== undefined && input.compared !== undefined && input.compared === stored.compared)
      return new KnownOperation(
        input,
        'unchanged',
        0,
        key,
        sourceInvestmentId,
        sourcePropertyId,
        stored.id,
        stored.investmentId,
      )
    if (stored === undefined && createsExactlySent(input.sent, investment !== undefined))
      return new KnownOperation(
        input,
        'create',
        input.sent,
        key,
        sourceInvestmentId,
        sourcePropertyId,
        null,
        investment?.id ?? null,
      )
  }

  // the input's own values unless the planner adds a date (then a copy): inputs are not reused
  let values: NormalizedOfferValues = input.values
  const existing = stored?.row
  const row = input.row ?? 0

  const changes: string[] = []
  const before: Record<string, Comparable> = {}
  for (const rule of OFFER_FIELDS) {
    const sent = rule.sent(values)
    if (sent === undefined) continue
    if (!existing || rule.read(existing) !== sent) {
      changes.push(rule.field)
      if (existing) before[rule.field] = rule.read(existing)
    }
  }
  let datesAdded = false
  for (const price of PRICE_DATES) {
    if (values[price.date] === undefined && changes.includes(price.priceField)) {
      if (values === input.values) values = { ...input.values }
      values[price.date] = today
      datesAdded = true
      if (!existing || existing[price.column] !== today) {
        changes.push(`${price.priceField}_from`)
        if (existing) before[`${price.priceField}_from`] = existing[price.column]
      }
    }
  }
  if (values.location) {
    for (const loc of LOCATION_FIELDS) {
      const sent = values.location[loc.key]
      if (sent !== undefined && (!investment || investment[loc.column] !== sent)) {
        changes.push(loc.field)
        if (investment) before[loc.field] = investment[loc.column]
      }
    }
  }

  // a new offer without `prop_type` is created without a type (contract 4.7.2): its legal
  // qualification is never guessed; the writer stores it as unqualified
  const total = values.priceTotalCents ?? existing?.price_total_cents ?? null
  const m2 = values.priceM2Cents ?? existing?.price_m2_cents ?? null
  const area = values.area ?? existing?.area ?? null
  const sentPrices =
    (values.priceTotalCents !== undefined ? 1 : 0) +
    (values.priceM2Cents !== undefined ? 1 : 0) +
    (values.area !== undefined ? 1 : 0)
  // a row that sends all three was held to the rule by the validator already; one that sends some
  // of them is held to it with the stored values
  if (
    sentPrices > 0 &&
    sentPrices < 3 &&
    total !== null &&
    m2 !== null &&
    area !== null &&
    total > 0 &&
    !priceWithinRounding(total, m2, area)
  ) {
    errors.push(
      fieldError(
        row,
        'price_total',
        'inconsistent_price',
        `${(total / 100).toFixed(2)} does not match price_m2 × area with the stored values (${(m2 / 100).toFixed(2)} × ${area})`,
        `${formatCentsPl(total)} zł nie zgadza się z ceną za m² × powierzchnią, licząc z wartościami zapisanymi ` +
          `w katalogu (${formatCentsPl(m2)} zł × ${formatAreaPl(area)} m²)`,
      ),
    )
    return null
  }

  const op: PlannedOperation = {
    row: input.row,
    key,
    action: !existing ? 'create' : changes.length > 0 ? 'update' : 'unchanged',
    sourceInvestmentId,
    sourcePropertyId,
    values,
    // sorted: re-planning sees planner-added dates as sent fields, in another order
    changes: changes.length > 1 ? sortChanges(changes) : changes,
    before,
    offerId: existing?.id ?? null,
    investmentId: investment?.id ?? null,
  }
  if (input.storedValues !== undefined && !datesAdded) op.storedValues = input.storedValues
  return op
}

/**
 * A row the planner planned from what the reader knew of it (`compared`, `sent`): an `unchanged`
 * row, or a `create` of exactly the fields it sends; what field-by-field planning would have made
 * of it, with the values read from the input only when asked for (the preview shows the first
 * operations; the rest are stored as the reader's text).
 */
class KnownOperation implements PlannedOperation {
  readonly row: number | null
  readonly changes: string[]
  readonly before: Record<string, Comparable> = {}
  readonly storedValues: string | undefined

  constructor(
    private readonly input: PlanInput,
    readonly action: 'unchanged' | 'create',
    readonly changeSet: number,
    readonly key: string,
    readonly sourceInvestmentId: string,
    readonly sourcePropertyId: string,
    readonly offerId: number | null,
    readonly investmentId: number | null,
  ) {
    this.row = input.row
    this.storedValues = input.storedValues
    this.changes = changeSet === 0 ? [] : decodeChangeSet(changeSet)
  }

  get values(): NormalizedOfferValues {
    return this.input.values
  }
}

/**
 * Field names in sorted order: through the change set (already in that order) when every name is a
 * canonical field, as they all are; `sort` otherwise.
 */
function sortChanges(changes: string[]): string[] {
  const set = encodeChangeSet(changes)
  return typeof set === 'number' ? decodeChangeSet(set) : changes.sort()
}

/** Plans a whole input at once: the webhook's one offer, the editor, tests. */
export async function planOffers(
  db: Executor,
  inputs: readonly PlanInput[],
  options: { mode: ImportMode; today: string },
): Promise<OfferPlan> {
  const planner = createPlanner(db, options)
  const operations = await planner.plan(inputs)
  const summary = await planner.finish()
  operations.push(...summary.archives)
  return {
    mode: options.mode,
    operations,
    errors: planner.errors,
    counts: summary.counts,
    archiveScope: summary.archiveScope,
    digest: summary.digest,
  }
}
