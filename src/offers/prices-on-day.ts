/*
 * What held on day D, for every output (docs/decisions/published-record.md): the file of day D,
 * the catalog's prices, the public prices and the website component, the editor's `in_force` and
 * the export all read a unit's prices here, from the one price ledger (price_history, with the
 * offer's stored prices as its last written record: price-in-force.ts), never from a column a
 * write may leave stale. Column 42 is derived here too (combined-price.ts).
 */
import type { Executor } from '../host/context.js'
import { type CombinedOnDay, combinedOnDay } from './combined-price.js'
import { selectPriceRecordsUpTo } from './offers-repository.js'
import { groupPriceRecords, type OfferPriceRecords, priceInForce, type PriceState, priceKey } from './price-in-force.js'

/** An offer's stored prices: the latest written of each, whatever its date. */
export interface StoredOfferPrices {
  id: number
  price_m2_cents: number | null
  price_m2_from: string | null
  price_total_cents: number | null
  price_total_from: string | null
  price_combined_cents: number | null
  price_combined_from: string | null
}

/** A component (part, appurtenant room, right, other payment) as stored with its offer. */
export interface StoredComponentPrice {
  id: number
  offer_id: number
  group_kind: string
  price_cents: number | null
  price_from: string | null
}

export interface UnitPricesOnDay {
  m2: PriceState
  total: PriceState
  /** Column 42 on the day: the package price while it holds, else the total plus the parts. */
  combined: CombinedOnDay
  /** Each component's price on the day, by component id. */
  components: Map<number, PriceState>
}

/** A unit's prices on `day` from its records (those up to the day suffice) and its stored prices. */
export function unitPricesOnDay(
  offer: StoredOfferPrices,
  components: readonly StoredComponentPrice[],
  records: OfferPriceRecords | undefined,
  day: string,
): UnitPricesOnDay {
  const resolve = (key: string, cents: number | null, from: string | null) =>
    priceInForce(records?.get(key) ?? [], { cents, from }, day)
  const total = resolve('total', offer.price_total_cents, offer.price_total_from)
  const parts = new Map<number, PriceState>()
  const priced: { groupKind: string; priceCents: number | null; priceFrom: string | null }[] = []
  for (const component of components) {
    const price = resolve(priceKey('component', component.id), component.price_cents, component.price_from)
    parts.set(component.id, price)
    priced.push({ groupKind: component.group_kind, priceCents: price.cents, priceFrom: price.from })
  }
  return {
    m2: resolve('m2', offer.price_m2_cents, offer.price_m2_from),
    total,
    combined: combinedOnDay(total, priced, resolve('combined', offer.price_combined_cents, offer.price_combined_from)),
    components: parts,
  }
}

/** The prices on `day` of these offers, with their components (any order), read in one query per page. */
export async function readPricesOnDay(
  db: Executor,
  offers: readonly StoredOfferPrices[],
  components: readonly StoredComponentPrice[],
  day: string,
): Promise<Map<number, UnitPricesOnDay>> {
  const out = new Map<number, UnitPricesOnDay>()
  if (offers.length === 0) return out
  const records = groupPriceRecords(
    await selectPriceRecordsUpTo(
      db,
      offers.map((o) => o.id),
      day,
    ),
  )
  const byOffer = new Map<number, StoredComponentPrice[]>()
  for (const component of components) {
    let list = byOffer.get(component.offer_id)
    if (!list) byOffer.set(component.offer_id, (list = []))
    list.push(component)
  }
  for (const offer of offers)
    out.set(offer.id, unitPricesOnDay(offer, byOffer.get(offer.id) ?? [], records.get(offer.id), day))
  return out
}
