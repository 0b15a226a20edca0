/*
 * The operation of one keyed input (a file's row, the webhook's offer): its fields compared with
 * the stored offer found by its source ids, the dates a changed price takes, and the price rules
 * only the catalog can check.
 */
import { datedOnPublishedDay, earliestOpenDay } from '../closed-day.js'
import { decodeChangeSet } from '../change-set.js'
import { createsExactlySent } from '../compared-values.js'
import type { InvestmentKeyRow, PlanOffer } from '../offers-repository.js'
import { META_FIELD_PREFIX } from '../validation/meta-values.js'
import { combinedBelowStoredTotal, storedPriceInconsistency } from '../validation/price-consistency.js'
import type { RowError } from '../validation/row-errors.js'
import { type NormalizedOfferValues, offerKey } from '../validation/validate-offer-row.js'
import { OFFER_FIELDS, sortChanges, storedObject } from './offer-fields.js'
import type { Comparable, PlanInput, PlannedOperation } from './planned-operation.js'
import { type FirstPriceDates, pairDate, priceBeforeFirstRecord, splitDatedPrices } from './price-dates.js'

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

/**
 * The operation of one input: `undefined` when the input has no key (the validator reported it),
 * `null` when the catalog makes it an error (added to `errors`).
 */
export function planRow(
  input: PlanInput,
  investmentBySource: ReadonlyMap<string, InvestmentKeyRow | null>,
  offersByKey: ReadonlyMap<string, PlanOffer>,
  today: string,
  errors: RowError[],
  customMeta: boolean,
  firstDates: FirstPriceDates,
  lastPublished: ReadonlyMap<number, string | undefined>,
): PlannedOperation | null | undefined {
  const sourceInvestmentId = input.sourceInvestmentId ?? input.values.sourceInvestmentId
  const sourcePropertyId = input.sourcePropertyId ?? input.values.sourcePropertyId
  if (sourceInvestmentId === undefined || sourcePropertyId === undefined) return undefined
  const key = input.key ?? offerKey(sourceInvestmentId, sourcePropertyId)
  const investment = investmentBySource.get(sourceInvestmentId) ?? undefined
  const stored = offersByKey.get(key)
  if (input.sent !== undefined && !customMeta) {
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
      const from = pairDate(input.values, price.date) ?? today
      values[price.date] = from
      datesAdded = true
      if (!existing || existing[price.column] !== from) {
        changes.push(`${price.priceField}_from`)
        if (existing) before[`${price.priceField}_from`] = existing[price.column]
      }
    }
  }
  // a price an automated channel dates on a published day takes effect on the earliest open day
  // instead (closed-day.ts); a sent date alone that would move a price onto a published day is ignored
  let movedDates: Record<string, string> | undefined
  const closedThrough = existing ? lastPublished.get(existing.investment_id) : undefined
  if (existing && closedThrough !== undefined) {
    for (const price of PRICE_DATES) {
      const from = values[price.date]
      const dateField = `${price.priceField}_from`
      if (from === undefined || !datedOnPublishedDay(from, closedThrough, today)) continue
      const priceChanged = changes.includes(price.priceField)
      if (!priceChanged && !changes.includes(dateField)) continue
      if (values === input.values) values = { ...input.values }
      datesAdded = true
      const at = changes.indexOf(dateField)
      if (at >= 0) changes.splice(at, 1)
      delete before[dateField]
      if (!priceChanged) {
        delete values[price.date]
        continue
      }
      const open = earliestOpenDay(closedThrough, today)
      values[price.date] = open
      ;(movedDates ??= {})[price.priceField] = from
      if (existing[price.column] !== open) {
        changes.push(dateField)
        before[dateField] = existing[price.column]
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

  if (values.meta !== undefined) {
    // custom fields are merged into the stored ones: a key the row leaves empty keeps its value
    const storedMeta = existing ? storedObject(stored?.customMeta) : {}
    for (const [key, sent] of Object.entries(values.meta)) {
      const current = Object.hasOwn(storedMeta, key) ? storedMeta[key] : null
      if (!existing || current !== sent) {
        changes.push(`${META_FIELD_PREFIX}${key}`)
        if (existing) before[`${META_FIELD_PREFIX}${key}`] = comparable(current)
      }
    }
  }

  // a new offer without `prop_type` is created without a type (docs/decisions/one-write-path.md):
  // its legal qualification is never guessed; the writer stores it as unqualified
  const total = values.priceTotalCents ?? existing?.price_total_cents ?? null
  const m2 = values.priceM2Cents ?? existing?.price_m2_cents ?? null
  const area = values.area ?? existing?.area ?? null
  // a row that sends all three was held to the rule by the validator already; one that sends some
  // of them is held to it with the stored values
  const inconsistent = storedPriceInconsistency(row, values, { total, m2, area })
  if (inconsistent) {
    errors.push(inconsistent)
    return null
  }

  const split = existing ? splitDatedPrices(row, values, new Set(changes), existing, area) : undefined
  if (split) {
    errors.push(split)
    return null
  }

  const early = priceBeforeFirstRecord(row, existing?.id, values, new Set(changes), firstDates, false)
  if (early) {
    errors.push(early)
    return null
  }

  const below = combinedBelowStoredTotal(row, values, existing?.price_total_cents ?? null)
  if (below) {
    errors.push(below)
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
  if (movedDates) op.movedDates = movedDates
  return op
}

/** A stored custom field as the plan records it: a scalar as it is, anything else (a list) as its JSON. */
function comparable(value: unknown): Comparable {
  if (value === null || value === undefined) return null
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value
  return JSON.stringify(value)
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
