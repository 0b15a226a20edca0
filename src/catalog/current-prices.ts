/*
 * The catalog's current prices are the prices in force today, read through the one module that
 * answers "what held on day D" (offers/prices-on-day.ts) when a page is built: a price announced
 * for a later day shows from that day on without any write, and the response cache is keyed by the
 * day as well as by the catalog revision.
 */
import type { Executor } from '../host/context.js'
import { readPricesOnDay } from '../offers/prices-on-day.js'

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
  group_kind: string
  price_cents: number | null
  price_from: string | null
}

/**
 * Copies of the offers and components with each price as in force on `day`; an offer read with
 * its `price_combined_*` columns gets column 42's combined price of the day in them.
 */
export async function withPricesInForce<O extends PricedOffer, C extends PricedComponent>(
  db: Executor,
  offers: readonly O[],
  components: readonly C[],
  day: string,
): Promise<{ offers: O[]; components: C[] }> {
  if (offers.length === 0) return { offers: [], components: [...components] }
  // the prices alone: the module reads nothing else of an offer, and a page's copies cost time
  const stored = offers.map((offer) => {
    const combined = offer as unknown as { price_combined_cents?: number | null; price_combined_from?: string | null }
    return {
      id: offer.id,
      price_total_cents: offer.price_total_cents,
      price_total_from: offer.price_total_from,
      price_m2_cents: offer.price_m2_cents,
      price_m2_from: offer.price_m2_from,
      price_combined_cents: combined.price_combined_cents ?? null,
      price_combined_from: combined.price_combined_from ?? null,
    }
  })
  const prices = await readPricesOnDay(db, stored, components, day)
  const resolved = offers.map((offer) => {
    const day = prices.get(offer.id)
    if (!day) return offer
    const out = {
      ...offer,
      price_total_cents: day.total.cents,
      price_total_from: day.total.from,
      price_m2_cents: day.m2.cents,
      price_m2_from: day.m2.from,
    }
    if ('price_combined_cents' in offer)
      Object.assign(out, { price_combined_cents: day.combined.cents, price_combined_from: day.combined.from })
    return out
  })
  const resolvedComponents = components.map((component) => {
    const price = prices.get(component.offer_id)?.components.get(component.id)
    return price ? { ...component, price_cents: price.cents, price_from: price.from } : component
  })
  return { offers: resolved, components: resolvedComponents }
}
