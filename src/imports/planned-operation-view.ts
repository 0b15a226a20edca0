/*
 * A planned operation as a preview and a job's pages show it to the operator: values in canonical
 * field names, amounts as decimal złoty text, and the names of the offer and investment it touches.
 */
import type { Executor } from '../host/context.js'
import type { Comparable, PlannedOperation } from '../offers/offer-planner.js'
import { META_FIELD_PREFIX, type MetaScalar } from '../offers/validation/meta-values.js'
import type { NormalizedOfferValues } from '../offers/validation/validate-offer-row.js'
import { selectOperationNames } from './import-jobs-repository.js'

function centsToDecimal(cents: number): string {
  const abs = Math.abs(cents)
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
}

/** Normalized values back in canonical field names, as shown to the operator. */
export function canonicalValues(values: NormalizedOfferValues): Record<string, string | number> {
  const out: Record<string, string | number> = {}
  const put = (field: string, value: string | number | undefined) => {
    if (value !== undefined) out[field] = value
  }
  put('source_investment_id', values.sourceInvestmentId)
  put('source_property_id', values.sourcePropertyId)
  put('prop_no', values.code)
  put('prop_type', values.propertyType)
  put('property_status', values.status)
  put('prop_area', values.area)
  put('prop_rooms', values.rooms)
  put('prop_floor', values.floor)
  put('price_m2', values.priceM2Cents === undefined ? undefined : centsToDecimal(values.priceM2Cents))
  put('price_m2_from', values.priceM2From)
  put('price_total', values.priceTotalCents === undefined ? undefined : centsToDecimal(values.priceTotalCents))
  put('price_total_from', values.priceTotalFrom)
  put('price_combined', values.priceCombinedCents === undefined ? undefined : centsToDecimal(values.priceCombinedCents))
  put('price_combined_from', values.priceCombinedFrom)
  put('price_combined_variant', values.priceCombinedVariant)
  put('price_combined_status', values.priceCombinedStatus)
  const loc = values.location ?? {}
  put('proj_voivod', loc.voivodeship)
  put('proj_powiat', loc.powiat)
  put('proj_gmina', loc.gmina)
  put('proj_city', loc.city)
  put('proj_street', loc.street)
  put('proj_build_no', loc.buildingNo)
  put('proj_local_no', loc.localNo)
  put('proj_zip', loc.postalCode)
  return out
}

function beforeView(before: Record<string, Comparable>): Record<string, Comparable> {
  const out: Record<string, Comparable> = {}
  for (const [field, value] of Object.entries(before)) {
    out[field] =
      typeof value === 'number' && (field === 'price_m2' || field === 'price_total' || field === 'price_combined')
        ? centsToDecimal(value)
        : value
  }
  return out
}

export type OperationNames = Awaited<ReturnType<typeof selectOperationNames>>

/** The names the operations of a page show beside their source ids (see operationView). */
export async function namesOf(db: Executor, ops: readonly PlannedOperation[]): Promise<OperationNames> {
  const offerIds = new Set<number>()
  const investmentIds = new Set<number>()
  for (const op of ops) {
    if (op.offerId !== null) offerIds.add(op.offerId)
    if (op.investmentId !== null) investmentIds.add(op.investmentId)
  }
  return selectOperationNames(db, [...offerIds], [...investmentIds])
}

/*
 * An operation as the preview shows it. Its designation is the file's (`prop_no`) or else the
 * stored offer's; its investment's title is the stored one, and a new investment is titled by its
 * source id (the import names it so).
 */
export function operationView(op: PlannedOperation, names: OperationNames) {
  return {
    row: op.row,
    action: op.action,
    key: op.key,
    designation: op.values.code ?? (op.offerId === null ? null : (names.offers.get(op.offerId) ?? null)),
    investment_title:
      op.investmentId === null ? op.sourceInvestmentId : (names.investments.get(op.investmentId) ?? null),
    values: { ...canonicalValues(op.values), ...metaValues(op.values) },
    changes: op.changes,
    before: beforeView(op.before),
  }
}

/** The custom fields of the values by their mapping name (`meta:<key>`), as the preview shows them. */
function metaValues(values: NormalizedOfferValues): Record<string, MetaScalar> {
  const out: Record<string, MetaScalar> = {}
  for (const [key, value] of Object.entries(values.meta ?? {})) out[`${META_FIELD_PREFIX}${key}`] = value
  return out
}

export type OperationView = ReturnType<typeof operationView>
