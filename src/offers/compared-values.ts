/*
 * The values the planner compares with the catalog, as one text: a row whose text equals its stored
 * offer's is `unchanged`, and the planner can say so without decoding the row or the offer. The
 * file worker makes the row's text (`comparedText`), the database makes the offer's
 * (offers-repository.ts, from COMPARED_COLUMNS), both as a JSON array in the same order.
 *
 * Equal texts prove the row unchanged: every field the row sends equals the stored value, and
 * every field it leaves out is empty in the catalog (null on both sides; the type of an offer not
 * qualified yet, stored as '', is null in the offer's text too), so no field changes, no price
 * date is added and no price rule can fail. Texts that differ prove nothing (an unsent field
 * whose stored value is set, a text that the two sides escape differently): the planner then
 * compares field by field, as for any row.
 */
import { changeBit } from './change-set.js'
import type { NormalizedOfferValues } from './validation/validate-offer-row.js'

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

const bit = changeBit
const PROP_NO = bit('prop_no')
const PROP_TYPE = bit('prop_type')
const PROPERTY_STATUS = bit('property_status')
const PROP_AREA = bit('prop_area')
const PROP_ROOMS = bit('prop_rooms')
const PROP_FLOOR = bit('prop_floor')
const PRICE_M2 = bit('price_m2')
const PRICE_M2_FROM = bit('price_m2_from')
const PRICE_TOTAL = bit('price_total')
const PRICE_TOTAL_FROM = bit('price_total_from')
const PRICE_COMBINED = bit('price_combined')
const PRICE_COMBINED_FROM = bit('price_combined_from')
const PRICE_COMBINED_VARIANT = bit('price_combined_variant')
const PRICE_COMBINED_STATUS = bit('price_combined_status')
const PROJ_VOIVOD = bit('proj_voivod')
const PROJ_POWIAT = bit('proj_powiat')
const PROJ_GMINA = bit('proj_gmina')
const PROJ_CITY = bit('proj_city')
const PROJ_STREET = bit('proj_street')
const PROJ_BUILD_NO = bit('proj_build_no')
const PROJ_ZIP = bit('proj_zip')
/** The location fields the planner compares with an investment. */
const LOCATION_BITS = PROJ_VOIVOD | PROJ_POWIAT | PROJ_GMINA | PROJ_CITY | PROJ_STREET | PROJ_BUILD_NO | PROJ_ZIP

/**
 * The fields of `comparedText` a row sends, as a change set (change-set.ts): what a new offer
 * changes, when the planner adds no price date and the investment is new.
 */
export function sentChangeSet(v: NormalizedOfferValues): number {
  let set = 0
  if (v.code !== undefined) set |= PROP_NO
  if (v.propertyType !== undefined) set |= PROP_TYPE
  if (v.status !== undefined) set |= PROPERTY_STATUS
  if (v.area !== undefined) set |= PROP_AREA
  if (v.rooms !== undefined) set |= PROP_ROOMS
  if (v.floor !== undefined) set |= PROP_FLOOR
  if (v.priceM2Cents !== undefined) set |= PRICE_M2
  if (v.priceM2From !== undefined) set |= PRICE_M2_FROM
  if (v.priceTotalCents !== undefined) set |= PRICE_TOTAL
  if (v.priceTotalFrom !== undefined) set |= PRICE_TOTAL_FROM
  if (v.priceCombinedCents !== undefined) set |= PRICE_COMBINED
  if (v.priceCombinedFrom !== undefined) set |= PRICE_COMBINED_FROM
  if (v.priceCombinedVariant !== undefined) set |= PRICE_COMBINED_VARIANT
  if (v.priceCombinedStatus !== undefined) set |= PRICE_COMBINED_STATUS
  const l = v.location
  if (l !== undefined) {
    if (l.voivodeship !== undefined) set |= PROJ_VOIVOD
    if (l.powiat !== undefined) set |= PROJ_POWIAT
    if (l.gmina !== undefined) set |= PROJ_GMINA
    if (l.city !== undefined) set |= PROJ_CITY
    if (l.street !== undefined) set |= PROJ_STREET
    if (l.buildingNo !== undefined) set |= PROJ_BUILD_NO
    if (l.postalCode !== undefined) set |= PROJ_ZIP
  }
  return set
}

/**
 * Whether a new offer that sends these fields is planned as a `create` of exactly them: every
 * price it sends has its date (else the planner adds today's), and it sends no location for an
 * investment that exists (which the planner compares field by field). With or without a type: a
 * new offer without one is created unqualified, and the planner adds nothing to it. A create cannot
 * break the price rule: without a stored offer, the validator checked it.
 */
export function createsExactlySent(sent: number, investmentExists: boolean): boolean {
  return (
    ((sent & PRICE_M2) === 0 || (sent & PRICE_M2_FROM) !== 0) &&
    ((sent & PRICE_TOTAL) === 0 || (sent & PRICE_TOTAL_FROM) !== 0) &&
    ((sent & PRICE_COMBINED) === 0 || (sent & PRICE_COMBINED_FROM) !== 0) &&
    (!investmentExists || (sent & LOCATION_BITS) === 0)
  )
}
