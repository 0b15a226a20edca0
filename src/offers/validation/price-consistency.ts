/*
 * The official column 40 is the price per m² × the usable area, so the total must equal that
 * product "within rounding": at most 1 zł (a total rounded to whole złoty) plus half a grosz per m²
 * (a price per m² rounded to grosze). Anything more is a wrong number in a legal file, not rounding
 * (a 1% tolerance would let 10,000 zł through on a 1,000,000 zł flat). Integer arithmetic only.
 */
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
