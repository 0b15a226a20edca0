/*
 * The official column 40 is the price per m² × the usable area, so the total must equal that
 * product "within rounding": at most 1 zł (a total rounded to whole złoty) plus half a grosz per m²
 * (a price per m² rounded to grosze). Anything more is a wrong number in a legal file, not rounding
 * (a 1% tolerance would let 10,000 zł through on a 1,000,000 zł flat). Integer arithmetic only.
 */
import { fieldError, formatAreaPl, formatCentsPl, type RowError } from './row-errors.js'

/** The prices of a row, as far as it sends them (a row's NormalizedOfferValues). */
interface SentPrices {
  area?: string
  priceM2Cents?: number
  priceTotalCents?: number
  priceCombinedCents?: number
}

export function priceWithinRounding(totalCents: number, m2Cents: number, area: string): boolean {
  const hundredths = areaHundredths(area)
  // exact in doubles while every product stays below 2^53; BigInt only beyond (never for a real flat)
  if (
    hundredths !== undefined &&
    Number.isSafeInteger(m2Cents * hundredths) &&
    Number.isSafeInteger(totalCents * 100) &&
    Math.abs(m2Cents * hundredths) < 2 ** 52 &&
    Math.abs(totalCents * 100) < 2 ** 52
  ) {
    const difference = Math.abs(totalCents * 100 - m2Cents * hundredths)
    return difference <= 100 * 100 + Math.floor(hundredths / 2)
  }
  const [whole = '0', fraction = ''] = area.split('.')
  const bigHundredths = BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2))
  const expectedHundredthsOfGrosz = BigInt(m2Cents) * bigHundredths
  const difference = BigInt(totalCents) * 100n - expectedHundredthsOfGrosz
  const abs = difference < 0n ? -difference : difference
  // tolerance in hundredths of a grosz: 100 gr + areaHundredths/200 gr
  const tolerance = 100n * 100n + bigHundredths / 2n
  return abs <= tolerance
}

/**
 * A stored area (`54.30`, digits and at most one `.`, up to 12 digits) in hundredths of a m², read
 * digit by digit: every offer of a file is checked, and splitting the text cost more than the check.
 * Undefined for anything else, which the general path reads.
 */
function areaHundredths(area: string): number | undefined {
  if (area.length === 0 || area.length > 13) return undefined
  let whole = 0
  let fraction = 0
  let fractionDigits = -1
  for (let i = 0; i < area.length; i++) {
    const code = area.charCodeAt(i)
    if (code === 46 /* . */) {
      if (fractionDigits !== -1) return undefined
      fractionDigits = 0
    } else if (code >= 48 && code <= 57) {
      if (fractionDigits === -1) whole = whole * 10 + (code - 48)
      else if (fractionDigits++ < 2) fraction = fraction * 10 + (code - 48)
    } else {
      return undefined
    }
  }
  if (fractionDigits === 1) fraction *= 10
  return whole * 100 + fraction
}

export const PRICE_ROUNDING_RULE = 'at most 1 zł plus half a grosz per m² from price_m2 × prop_area'
export const PRICE_ROUNDING_RULE_PL = 'dopuszczalna różnica to najwyżej 1 zł plus pół grosza na każdy m²'

/**
 * `price_total` must equal `price_m2 × prop_area` within rounding. Checked by the validator only
 * when all three are in the row; a row that sends some of them is held to the stored values by
 * `storedPriceInconsistency`.
 */
export function checkPriceConsistency(values: SentPrices): { pl: string; en: string } | undefined {
  const { priceM2Cents, area, priceTotalCents } = values
  if (priceM2Cents === undefined || area === undefined || priceTotalCents === undefined) return undefined
  if (priceWithinRounding(priceTotalCents, priceM2Cents, area)) return undefined
  const expectedCents = (BigInt(priceM2Cents) * BigInt(area.replace('.', '')) + 50n) / 100n
  return {
    en:
      `price_total: ${formatCents(BigInt(priceTotalCents))} does not match price_m2 × prop_area = ` +
      `${formatCents(BigInt(priceM2Cents))} × ${area} = ${formatCents(expectedCents)} (${PRICE_ROUNDING_RULE})`,
    pl:
      `Cena całkowita: ${formatCentsPl(priceTotalCents)} zł nie zgadza się z ceną za m² × powierzchnią = ` +
      `${formatCentsPl(priceM2Cents)} zł × ${formatAreaPl(area)} m² = ${formatCentsPl(expectedCents)} zł ` +
      `(${PRICE_ROUNDING_RULE_PL})`,
  }
}

/**
 * The price rule of a row or editor input that sends one or two of the total, the price per m² and
 * the area (all three were held to it by the validator): checked with the stored values of the
 * others, `held` (what the offer will have after the write; `null` where it has none).
 */
export function storedPriceInconsistency(
  row: number,
  sent: SentPrices,
  held: { total: number | null; m2: number | null; area: string | null },
): RowError | undefined {
  const { total, m2, area } = held
  const sentPrices =
    (sent.priceTotalCents !== undefined ? 1 : 0) +
    (sent.priceM2Cents !== undefined ? 1 : 0) +
    (sent.area !== undefined ? 1 : 0)
  if (sentPrices === 0 || sentPrices === 3 || total === null || m2 === null || area === null || !(total > 0))
    return undefined
  if (priceWithinRounding(total, m2, area)) return undefined
  return fieldError(
    row,
    'price_total',
    'inconsistent_price',
    `${(total / 100).toFixed(2)} does not match price_m2 × area with the stored values (${(m2 / 100).toFixed(2)} × ${area})`,
    `${formatCentsPl(total)} zł nie zgadza się z ceną za m² × powierzchnią, licząc z wartościami zapisanymi ` +
      `w katalogu (${formatCentsPl(m2)} zł × ${formatAreaPl(area)} m²)`,
  )
}

/**
 * A package price sent without a total is held to the stored total (`storedTotal`); a total sent
 * alone is never held to a stored package price: a price rise goes through, and the package is set
 * aside (combined-price.ts).
 */
export function combinedBelowStoredTotal(
  row: number,
  sent: SentPrices,
  storedTotal: number | null,
): RowError | undefined {
  if (sent.priceCombinedCents === undefined || sent.priceTotalCents !== undefined) return undefined
  const below = combinedBelowTotal(sent.priceCombinedCents, storedTotal)
  return below === undefined ? undefined : fieldError(row, 'price_combined', 'combined_below_total', below.en, below.pl)
}

/**
 * The combined price (column 42) is the total plus the prices of the parts, appurtenant rooms and
 * rights bought with the unit (art. 19a ust. 1 pkt 1–3; docs/decisions/column-42-combined-price.md),
 * so it is never below the total. The planner holds a row that sends one of them to the stored other.
 */
export function combinedBelowTotal(
  combinedCents: number | null | undefined,
  totalCents: number | null | undefined,
): { pl: string; en: string } | undefined {
  if (combinedCents === undefined || combinedCents === null || totalCents === undefined || totalCents === null)
    return undefined
  if (combinedCents >= totalCents) return undefined
  return {
    en:
      `price_combined: ${formatCents(BigInt(combinedCents))} is below price_total ${formatCents(BigInt(totalCents))}; ` +
      'the combined price is the total plus the parts, appurtenant rooms and rights bought with the unit',
    pl:
      `Cena łączna ${formatCentsPl(combinedCents)} zł jest niższa niż cena lokalu ${formatCentsPl(totalCents)} zł. ` +
      'Cena łączna (kolumna 42) to cena lokalu powiększona o ceny części, pomieszczeń przynależnych i praw ' +
      'kupowanych razem z lokalem: popraw ją (w edytorze przycisk „Przelicz cenę łączną”) albo usuń.',
  }
}

function formatCents(cents: bigint): string {
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`
}
