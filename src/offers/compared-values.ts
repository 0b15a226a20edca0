/*
 * The values the planner compares with the catalog, as one text: a row whose text equals its stored
 * offer's is `unchanged`, and the planner can say so without decoding the row or the offer. The
 * file worker makes the row's text (`comparedText`), the database makes the offer's
 * (offers-repository.ts, from COMPARED_COLUMNS), both as a JSON array in the same order.
 *
 * Equal texts prove the row unchanged: every field the row sends equals the stored value, and
 * every field it leaves out is empty in the catalog (null on both sides), so no field changes, no
 * price date is added and no price rule can fail. Texts that differ prove nothing (an unsent field
 * whose stored value is set, a text that the two sides escape differently): the planner then
 * compares field by field, as for any row.
 */
import type { NormalizedOfferValues } from './validate-offer-row.js'

/**
 * The stored columns, in `comparedText` order: offer columns (`o.`) for the planner's offer fields,
 * then the investment's location columns (`i.`). `proj_local_no` is not stored, so not compared.
 */
export const COMPARED_COLUMNS = [
  'o.code',
  'o.property_type',
  'o.status',
  'o.area',
  'o.rooms',
  'o.floor',
  'o.price_m2_cents',
  'o.price_m2_from',
  'o.price_total_cents',
  'o.price_total_from',
  'o.price_combined_cents',
  'o.price_combined_from',
  'o.price_combined_variant',
  'o.price_combined_status',
  'i.loc_voivodeship',
  'i.loc_powiat',
  'i.loc_gmina',
  'i.loc_city',
  'i.loc_street',
  'i.loc_building_no',
  'i.loc_postal_code',
] as const

/** The values of COMPARED_COLUMNS a row sends, null where it sends nothing, as JSON text. */
export function comparedText(v: NormalizedOfferValues): string {
  const l = v.location
  return JSON.stringify([
    v.code ?? null,
    v.propertyType ?? null,
    v.status ?? null,
    v.area ?? null,
    v.rooms ?? null,
    v.floor ?? null,
    v.priceM2Cents ?? null,
    v.priceM2From ?? null,
    v.priceTotalCents ?? null,
    v.priceTotalFrom ?? null,
    v.priceCombinedCents ?? null,
    v.priceCombinedFrom ?? null,
    v.priceCombinedVariant ?? null,
    v.priceCombinedStatus ?? null,
    l?.voivodeship ?? null,
    l?.powiat ?? null,
    l?.gmina ?? null,
    l?.city ?? null,
    l?.street ?? null,
    l?.buildingNo ?? null,
    l?.postalCode ?? null,
  ])
}
