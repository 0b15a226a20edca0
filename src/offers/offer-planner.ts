/*
 * The planner of the shared write path (design.md section 2): for each offer key one operation
 * (create, update with the changed fields, unchanged, archive) computed against the current
 * catalog. Preview is the plan without a commit, and execution re-plans inside its transaction and
 * must arrive at the same digest, so what is committed is exactly what the operator saw.
 */
import { createHash } from 'node:crypto'

import type { Executor } from '../host/context.js'
import type { OfferRow } from '../host/db/schema.js'
import { type OfferStatus, STANDALONE_PART_TYPES } from './canonical-fields.js'
import { priceWithinRounding } from './price-consistency.js'
import {
  type InvestmentKeyRow,
  selectInvestmentsBySourceIds,
  selectOffersByKeys,
  selectOffersOfInvestments,
} from './offers-repository.js'
import { type ImportMode, type NormalizedOfferValues, offerKey, type RowError } from './validate-offer-row.js'

export type PlanAction = 'create' | 'update' | 'unchanged' | 'archive'

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
}

export type Comparable = string | number | null

interface FieldRule {
  field: string
  read: (offer: OfferRow) => Comparable
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

/*
 * What the plan decided and what it saw in the catalog. The values are not hashed: execution
 * re-plans from the very values the preview stored, so only the catalog side can differ (and the
 * date a price without its own date gets, which is hashed as `today`).
 */
function digestOf(operations: PlannedOperation[], today: string): string {
  const hash = createHash('sha256')
  hash.update(today)
  for (const op of operations) {
    hash.update(`\n${op.key}\t${op.action}\t${op.changes.join(',')}\t${op.offerId ?? ''}\t${op.investmentId ?? ''}`)
    if (op.changes.length > 0) hash.update(JSON.stringify(op.before))
  }
  return hash.digest('hex')
}

export async function planOffers(
  db: Executor,
  inputs: readonly PlanInput[],
  options: { mode: ImportMode; today: string },
): Promise<OfferPlan> {
  const sourceIds = [
    ...new Set(inputs.map((i) => i.values.sourceInvestmentId).filter((id): id is string => id !== undefined)),
  ]
  const investments = await selectInvestmentsBySourceIds(db, sourceIds)
  const investmentBySource = new Map(investments.map((inv) => [inv.source_id ?? '', inv]))
  // a snapshot must see every offer of the investments it names (to archive the missing ones);
  // a patch only the offers it names, which keeps a one-offer webhook independent of investment size
  const offers =
    options.mode === 'snapshot'
      ? await selectOffersOfInvestments(
          db,
          investments.map((inv) => inv.id),
        )
      : await selectOffersByKeys(
          db,
          inputs.flatMap((input) => {
            const investment =
              input.values.sourceInvestmentId === undefined
                ? undefined
                : investmentBySource.get(input.values.sourceInvestmentId)
            return investment && input.values.sourcePropertyId !== undefined
              ? [{ investmentId: investment.id, sourcePropertyId: input.values.sourcePropertyId }]
              : []
          }),
        )
  const offersByKey = new Map<string, OfferRow>()
  const sourceOf = new Map(investments.map((inv) => [inv.id, inv.source_id ?? '']))
  for (const offer of offers) {
    if (offer.source_property_id !== null)
      offersByKey.set(offerKey(sourceOf.get(offer.investment_id) ?? '', offer.source_property_id), offer)
  }

  const operations: PlannedOperation[] = []
  const errors: RowError[] = []
  const seen = new Set<string>()

  for (const input of inputs) {
    const values: NormalizedOfferValues = { ...input.values }
    const sourceInvestmentId = values.sourceInvestmentId
    const sourcePropertyId = values.sourcePropertyId
    if (sourceInvestmentId === undefined || sourcePropertyId === undefined) continue
    const key = offerKey(sourceInvestmentId, sourcePropertyId)
    seen.add(key)
    const investment = investmentBySource.get(sourceInvestmentId)
    const existing = offersByKey.get(key)
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
    for (const price of PRICE_DATES) {
      const priceChanged = changes.includes(price.priceField)
      if (priceChanged && values[price.date] === undefined) {
        values[price.date] = options.today
        if (!existing || existing[price.column] !== options.today) {
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

    if (!existing && values.propertyType === undefined) {
      errors.push({
        row,
        field: 'prop_type',
        code: 'required',
        message: `prop_type: offer ${sourcePropertyId} is new, so its type (mieszkanie, dom or a standalone-part type) is required`,
      })
      continue
    }
    const total = values.priceTotalCents ?? existing?.price_total_cents ?? null
    const m2 = values.priceM2Cents ?? existing?.price_m2_cents ?? null
    const area = values.area ?? existing?.area ?? null
    const touchesPrice =
      values.priceTotalCents !== undefined || values.priceM2Cents !== undefined || values.area !== undefined
    if (
      touchesPrice &&
      total !== null &&
      m2 !== null &&
      area !== null &&
      total > 0 &&
      !priceWithinRounding(total, m2, area)
    ) {
      errors.push({
        row,
        field: 'price_total',
        code: 'inconsistent_price',
        message: `price_total: ${(total / 100).toFixed(2)} does not match price_m2 × area with the stored values (${(m2 / 100).toFixed(2)} × ${area})`,
      })
      continue
    }

    operations.push({
      row: input.row,
      key,
      action: !existing ? 'create' : changes.length > 0 ? 'update' : 'unchanged',
      sourceInvestmentId,
      sourcePropertyId,
      values,
      // sorted: re-planning sees planner-added dates as sent fields, in another order
      changes: changes.sort(),
      before,
      offerId: existing?.id ?? null,
      investmentId: investment?.id ?? null,
    })
  }

  const scope: ArchiveScope = { investments: [], total: 0 }
  if (options.mode === 'snapshot') {
    const perInvestment = new Map<string, number>()
    for (const offer of offers) {
      const source = sourceOf.get(offer.investment_id) ?? ''
      // an offer without a source id (made in the editor) gets a key no file row can produce
      const key =
        offer.source_property_id !== null
          ? offerKey(source, offer.source_property_id)
          : `${offerKey(source, '')}%23${offer.id}`
      if (seen.has(key) || offer.status === ('archived' satisfies OfferStatus)) continue
      operations.push({
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
      })
      perInvestment.set(source, (perInvestment.get(source) ?? 0) + 1)
    }
    for (const [source, archived] of perInvestment) scope.investments.push({ source_investment_id: source, archived })
    scope.total = [...perInvestment.values()].reduce((a, b) => a + b, 0)
  }

  const counts = { create: 0, update: 0, unchanged: 0, archive: 0 }
  for (const op of operations) counts[op.action]++
  return {
    mode: options.mode,
    operations,
    errors,
    counts,
    archiveScope: scope,
    digest: digestOf(operations, options.today),
  }
}
