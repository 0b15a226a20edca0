/*
 * The catalog's current prices are the prices in force today (price-in-force.ts), read when a
 * page is built: a price announced for a later day shows from that day on without any write, and
 * the response cache is keyed by the day as well as by the catalog revision.
 */
import type { Executor } from '../host/context.js'
import { selectPriceRecordsUpTo } from '../offers/offers-repository.js'
import { groupPriceRecords, priceInForce, priceKey } from '../offers/price-in-force.js'

interface PricedOffer {
  id: number
  price_total_cents: number | null
  price_total_from: string | null
  price_m2_cents: number | null
  price_m2_from: string | null
}

interface PricedComponent {
  id: number
  offer_id: number
  price_cents: number | null
  price_from: string | null
}

/** Copies of the offers and components with each price as in force on `day`. */
export async function withPricesInForce<O extends PricedOffer, C extends PricedComponent>(
  db: Executor,
  offers: readonly O[],
  components: readonly C[],
  day: string,
): Promise<{ offers: O[]; components: C[] }> {
  if (offers.length === 0) return { offers: [], components: [...components] }
  const records = groupPriceRecords(
    await selectPriceRecordsUpTo(
      db,
      offers.map((o) => o.id),
      day,
    ),
  )
  const resolved = offers.map((offer) => {
    const own = records.get(offer.id)
    const total = priceInForce(
      own?.get('total') ?? [],
      { cents: offer.price_total_cents, from: offer.price_total_from },
      day,
    )
    const m2 = priceInForce(own?.get('m2') ?? [], { cents: offer.price_m2_cents, from: offer.price_m2_from }, day)
    const out = {
      ...offer,
      price_total_cents: total.cents,
      price_total_from: total.from,
      price_m2_cents: m2.cents,
      price_m2_from: m2.from,
    }
    const combined = offer as unknown as { price_combined_cents?: number | null; price_combined_from?: string | null }
    if (combined.price_combined_cents !== undefined) {
      const price = priceInForce(
        own?.get('combined') ?? [],
        { cents: combined.price_combined_cents, from: combined.price_combined_from ?? null },
        day,
      )
      Object.assign(out, { price_combined_cents: price.cents, price_combined_from: price.from })
    }
    return out
  })
  const resolvedComponents = components.map((component) => {
    const price = priceInForce(
      records.get(component.offer_id)?.get(priceKey('component', component.id)) ?? [],
      { cents: component.price_cents, from: component.price_from },
      day,
    )
    return { ...component, price_cents: price.cents, price_from: price.from }
  })
  return { offers: resolved, components: resolvedComponents }
}
