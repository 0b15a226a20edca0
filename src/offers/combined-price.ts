/*
 * Column 42 of the official file, the combined price (docs/decisions/column-42-combined-price.md):
 * the unit's total (column 40) plus the prices of the parts of the property, the appurtenant rooms
 * and the rights listed with it (art. 19a ust. 1 pkt 1–3; columns 44–54 are the parts "będących
 * przedmiotem umowy", bought with the unit). Other payments (55–57) are not part of it.
 */

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
