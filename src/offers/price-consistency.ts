/*
 * The official column 40 is the price per m² × the usable area, so the total must equal that
 * product "within rounding": at most 1 zł (a total rounded to whole złoty) plus half a grosz per m²
 * (a price per m² rounded to grosze). Anything more is a wrong number in a legal file, not rounding
 * (a 1% tolerance would let 10,000 zł through on a 1,000,000 zł flat). Integer arithmetic only.
 */
export function priceWithinRounding(totalCents: number, m2Cents: number, area: string): boolean {
  const [whole = '0', fraction = ''] = area.split('.')
  const hundredths = Number(whole) * 100 + Number((fraction + '00').slice(0, 2))
  // exact in doubles while every product stays below 2^53; BigInt only beyond (never for a real flat)
  if (
    Number.isSafeInteger(hundredths) &&
    hundredths >= 0 &&
    Number.isSafeInteger(m2Cents * hundredths) &&
    Number.isSafeInteger(totalCents * 100) &&
    Math.abs(m2Cents * hundredths) < 2 ** 52 &&
    Math.abs(totalCents * 100) < 2 ** 52
  ) {
    const difference = Math.abs(totalCents * 100 - m2Cents * hundredths)
    return difference <= 100 * 100 + Math.floor(hundredths / 2)
  }
  const areaHundredths = BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2))
  const expectedHundredthsOfGrosz = BigInt(m2Cents) * areaHundredths
  const difference = BigInt(totalCents) * 100n - expectedHundredthsOfGrosz
  const abs = difference < 0n ? -difference : difference
  // tolerance in hundredths of a grosz: 100 gr + areaHundredths/200 gr
  const tolerance = 100n * 100n + areaHundredths / 2n
  return abs <= tolerance
}

export const PRICE_ROUNDING_RULE = 'at most 1 zł plus half a grosz per m² from price_m2 × prop_area'
