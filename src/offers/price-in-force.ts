/*
 * The one rule of "the price in force on day D" (art. 19b of the act: the file of a day lists the
 * prices of that day): per price, the latest record whose "valid from" is on or before D, with its
 * own date. A record dated after D is an announcement (a price list prepared ahead): stored, shown
 * as announced, and in force from its date, not before. The official file of a day, the catalog's
 * current prices, the editor and the example website all read prices through this rule.
 *
 * The stored price (the offer's columns, a component's price) is the latest written; it counts as
 * the last record of its date, so a date-only change (which adds no history record) and an offer
 * with no history (entered before the history existed) read as they are stored. A stored price
 * that is empty without any withdrawal record was removed outside the write path: none on any day.
 * A stored price without its date (also only outside the write path, which always dates a price)
 * cannot be placed among the records: it is read as stored, undated, so the file of any day is
 * refused for the missing date rather than published with `X` for a price the catalog holds.
 */

/** One price-history record of one price (an offer's total, m² or combined price, or a component's). */
export interface PriceRecord {
  /** Write order: among records of the same date the later one holds (a correction). */
  id: number
  afterCents: number | null
  validFrom: string
}

export interface PriceState {
  cents: number | null
  from: string | null
}

export const NO_PRICE: PriceState = Object.freeze({ cents: null, from: null })

/** The price in force on `day` (YYYY-MM-DD); `records` in any order. */
export function priceInForce(records: readonly PriceRecord[], stored: PriceState, day: string): PriceState {
  // a price removed without a withdrawal record (outside the write path) is removed on every day
  if (stored.cents === null && !records.some((record) => record.afterCents === null)) return NO_PRICE
  if (stored.cents !== null && stored.from === null) return { cents: stored.cents, from: null }
  let best: { from: string; id: number; cents: number | null } | undefined
  for (const record of records) {
    if (record.validFrom > day) continue
    if (!best || record.validFrom > best.from || (record.validFrom === best.from && record.id > best.id))
      best = { from: record.validFrom, id: record.id, cents: record.afterCents }
  }
  if (stored.cents !== null && stored.from !== null && stored.from <= day && (!best || stored.from >= best.from))
    return { cents: stored.cents, from: stored.from }
  return best ? { cents: best.cents, from: best.cents === null ? null : best.from } : NO_PRICE
}

/**
 * The next price announced after `day`: the record with the earliest "valid from" after it (the
 * stored price counting as the last written). A change written with an earlier date than a pending
 * announcement leaves that announcement to come into force on its date, so it is read from the
 * records, not only from the stored price.
 */
export function nextAnnounced(records: readonly PriceRecord[], stored: PriceState, day: string): PriceState | null {
  let next: { from: string; id: number; cents: number | null } | undefined
  const candidates =
    stored.from !== null && stored.from > day && stored.cents !== null
      ? [...records, { id: Number.POSITIVE_INFINITY, afterCents: stored.cents, validFrom: stored.from }]
      : records
  for (const record of candidates) {
    if (record.validFrom <= day) continue
    if (!next || record.validFrom < next.from || (record.validFrom === next.from && record.id > next.id))
      next = { from: record.validFrom, id: record.id, cents: record.afterCents }
  }
  return next ? { cents: next.cents, from: next.from } : null
}

/** The history's key of a price: `m2`, `total`, `combined` of the offer, or `component:<id>`. */
export function priceKey(priceType: string, componentId: number | null): string {
  return componentId === null ? priceType : `component:${componentId}`
}

/** Records of one offer, grouped by priceKey. */
export type OfferPriceRecords = Map<string, PriceRecord[]>

export function groupPriceRecords(
  rows: ReadonlyArray<{
    id: number
    offer_id: number
    component_id: number | null
    price_type: string
    after_cents: number | null
    valid_from: string
  }>,
): Map<number, OfferPriceRecords> {
  const out = new Map<number, OfferPriceRecords>()
  for (const row of rows) {
    let byKey = out.get(row.offer_id)
    if (!byKey) out.set(row.offer_id, (byKey = new Map<string, PriceRecord[]>()))
    const key = priceKey(row.price_type, row.component_id)
    let list = byKey.get(key)
    if (!list) byKey.set(key, (list = []))
    list.push({ id: row.id, afterCents: row.after_cents, validFrom: row.valid_from })
  }
  return out
}
