/*
 * Column 42 of the official file, the combined price (docs/decisions/column-42-combined-price.md):
 * the unit's total (column 40) plus the prices of the parts of the property, the appurtenant rooms
 * and the rights listed with it (art. 19a ust. 1 pkt 1–3; columns 44–54 are the parts "będących
 * przedmiotem umowy", bought with the unit), each as in force on the day, dated by the latest of
 * them. Other payments (55–57) are not part of it.
 *
 * It is derived, never read from a column a write can leave stale. A package price (the stored
 * combined price: a CRM's or an operator's price for the unit with its parts) is an explicit
 * choice that holds only while it was set on or after the last change of the total and of every
 * part, and is not below the total; once the total or a part changes after it, it is held (not
 * published) and named in a warning until someone sets it again, and the derived sum is used.
 */
import type { PriceState } from './price-in-force.js'

export const COMBINED_GROUPS: readonly string[] = ['part', 'appurtenant_room', 'right']

export interface PricedPart {
  groupKind: string
  priceCents: number | null
  priceFrom: string | null
}

/**
 * The combined price of a unit and the date it holds from (the latest date of the prices summed),
 * or null when the unit has no total or no priced part, room or right (column 42 then has X).
 */
export function combinedPrice(
  totalCents: number | null,
  totalFrom: string | null,
  parts: readonly PricedPart[],
): { cents: number; from: string } | null {
  if (totalCents === null || totalFrom === null) return null
  let cents = totalCents
  let from = totalFrom
  let priced = 0
  for (const part of parts) {
    if (!COMBINED_GROUPS.includes(part.groupKind) || part.priceCents === null || part.priceFrom === null) continue
    cents += part.priceCents
    if (part.priceFrom > from) from = part.priceFrom
    priced++
  }
  return priced > 0 ? { cents, from } : null
}

/** Whether a unit has a part, room or right with a price (then column 42 is due). */
export function hasPricedParts(parts: readonly PricedPart[]): boolean {
  return parts.some((part) => COMBINED_GROUPS.includes(part.groupKind) && part.priceCents !== null)
}

/** Column 42 of a unit on a day, and where it comes from. */
export interface CombinedOnDay {
  cents: number | null
  from: string | null
  /** `package`: the stored package price holds; `derived`: total plus parts; `none`: X. */
  source: 'package' | 'derived' | 'none'
  /** A package price set aside because the total or a part changed after it, or it is below the total. */
  heldPackage: PriceState | null
}

/**
 * Column 42 on a day from the prices in force on that day: the total, the unit's parts, rooms and
 * rights, and the package price. The one rule the file, the catalog, the public prices, the editor
 * and the export all use.
 */
export function combinedOnDay(
  total: PriceState,
  parts: readonly PricedPart[],
  packagePrice: PriceState,
): CombinedOnDay {
  const derived = combinedPrice(total.cents, total.from, parts)
  if (packagePrice.cents !== null) {
    let inputsFrom = total.from
    for (const part of parts)
      if (COMBINED_GROUPS.includes(part.groupKind) && part.priceCents !== null && part.priceFrom !== null)
        if (inputsFrom === null || part.priceFrom > inputsFrom) inputsFrom = part.priceFrom
    const setAfterInputs = packagePrice.from !== null && (inputsFrom === null || packagePrice.from >= inputsFrom)
    const notBelowTotal = total.cents === null || packagePrice.cents >= total.cents
    if (setAfterInputs && notBelowTotal)
      return { cents: packagePrice.cents, from: packagePrice.from, source: 'package', heldPackage: null }
    // a stored price equal to the sum is no package of its own: nothing to set aside or to name
    if (derived && derived.cents === packagePrice.cents) return { ...derived, source: 'derived', heldPackage: null }
    return derived
      ? { ...derived, source: 'derived', heldPackage: packagePrice }
      : { cents: null, from: null, source: 'none', heldPackage: packagePrice }
  }
  return derived
    ? { ...derived, source: 'derived', heldPackage: null }
    : { cents: null, from: null, source: 'none', heldPackage: null }
}
