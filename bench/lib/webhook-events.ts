/*
 * The webhook benchmarks' catalog and events: `offers` flats in investments `BENCH-<i>` of
 * `perInvestment` offers `P<j>` each, seeded directly with their first price records (50 m², 8,000 zł
 * per m²), and event n, which changes offer n mod `offers` to a price no earlier event gave it
 * (so every event is a change and its price records can be found by value), signed as docs/integration/webhook.md
 * asks (own nonce and timestamp per attempt, the same key and body for every attempt).
 * Used by `bench:webhook`, `bench:mixed`, `bench:soak` and `bench:faults`.
 */
import { randomBytes } from 'node:crypto'

import type { Executor } from '../../src/host/context.js'
import { sign } from '../../src/webhook/verify-signature.js'

export const WEBHOOK_PATH = '/wp-json/dg/v2/webhooks/properties'
export const AREA_HUNDREDTHS = 5000
export const SEED_M2_CENTS = 8_000_00
const EVENT_PREFIX = 'bench-event-'

export const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`

export interface WebhookCatalog {
  offers: number
  perInvestment: number
}

export function webhookCatalog(offers: number, perInvestment: number): WebhookCatalog {
  return { offers, perInvestment: Math.max(1, perInvestment) }
}

export async function seedWebhookCatalog(trx: Executor, catalog: WebhookCatalog): Promise<void> {
  const { offers: total, perInvestment } = catalog
  const now = new Date().toISOString()
  for (let i = 0; i < Math.ceil(total / perInvestment); i++) {
    const investment = await trx
      .insertInto('investments')
      .values({
        source_id: `BENCH-${i}`,
        title: `Inwestycja ${i}`,
        slug: `inwestycja-${i}`,
        content: '',
        excerpt: '',
        loc_city: 'Warszawa',
        host_status: 'publish',
        visibility: 'public',
        custom_meta: '{}',
        gallery: '[]',
        documents: '[]',
        created_at: now,
        modified_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const rows = []
    for (let j = 0; j < perInvestment && i * perInvestment + j < total; j++) {
      rows.push({
        investment_id: investment.id,
        source_property_id: `P${j}`,
        offer_kind: 'property',
        property_type: 'mieszkanie',
        code: `${i}/${j}`,
        title: `Mieszkanie ${i}/${j}`,
        status: 'available',
        area: money(AREA_HUNDREDTHS),
        rooms: 1 + (j % 5),
        floor: j % 8,
        price_total_cents: (SEED_M2_CENTS * AREA_HUNDREDTHS) / 100,
        price_total_from: '2026-01-01',
        price_m2_cents: SEED_M2_CENTS,
        price_m2_from: '2026-01-01',
        host_status: 'publish',
        custom_meta: '{}',
        gallery: '[]',
        created_at: now,
        modified_at: now,
      })
    }
    const offers = await trx.insertInto('offers').values(rows).returning(['id']).execute()
    await trx
      .insertInto('price_history')
      .values(
        offers.flatMap(({ id }) =>
          (['total', 'm2'] as const).map((priceType) => ({
            offer_id: id,
            component_id: null,
            price_type: priceType,
            record_type: 'first',
            before_cents: null,
            after_cents: priceType === 'm2' ? SEED_M2_CENTS : (SEED_M2_CENTS * AREA_HUNDREDTHS) / 100,
            valid_from: '2026-01-01',
            recorded_at: now,
            reason: '',
            correction: 0 as const,
            run_id: null,
          })),
        ),
      )
      .execute()
  }
}

export interface BenchEvent {
  key: string
  body: Buffer
}

/** What event n writes: its offer (by source ids) and its new price per m², in grosze. */
export function eventTarget(
  catalog: WebhookCatalog,
  n: number,
): { sourceInvestmentId: string; sourcePropertyId: string; m2Cents: number } {
  const offer = n % catalog.offers
  return {
    sourceInvestmentId: `BENCH-${Math.floor(offer / catalog.perInvestment)}`,
    sourcePropertyId: `P${offer % catalog.perInvestment}`,
    m2Cents: SEED_M2_CENTS + 100 + n,
  }
}

/** Event n changes offer n mod `offers` to a price no earlier event gave it (so every one is a change). */
export function webhookEvent(catalog: WebhookCatalog, n: number, prefix = EVENT_PREFIX): BenchEvent {
  const target = eventTarget(catalog, n)
  const body = JSON.stringify({
    source_investment_id: target.sourceInvestmentId,
    source_property_id: target.sourcePropertyId,
    price_m2: money(target.m2Cents),
    price_total: money((target.m2Cents * AREA_HUNDREDTHS) / 100),
  })
  return { key: `${prefix}${n}`, body: Buffer.from(body) }
}

/** The number of the event behind an idempotency key made by webhookEvent (NaN for another key). */
export function eventNumber(key: string, prefix = EVENT_PREFIX): number {
  return key.startsWith(prefix) ? Number(key.slice(prefix.length)) : NaN
}

export interface SignedRequest {
  headers: Record<string, string>
  body: Buffer
}

/** One HTTP attempt of an event: a new timestamp and nonce, signed with the secret. */
export function signed(secret: string, e: BenchEvent): SignedRequest {
  const timestamp = String(Math.floor(Date.now() / 1000))
  const nonce = randomBytes(18).toString('base64url')
  return {
    headers: {
      'content-type': 'application/json',
      'x-dg-timestamp': timestamp,
      'x-dg-nonce': nonce,
      'idempotency-key': e.key,
      'x-dg-signature': sign(secret, { timestamp, nonce, idempotencyKey: e.key }, e.body),
    },
    body: e.body,
  }
}
