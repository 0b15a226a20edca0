import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

import { priceWithinRounding } from '../../src/offers/validation/price-consistency.js'

/** The rule in exact integer arithmetic, as it was first written: the reference for the fast path. */
function reference(totalCents: number, m2Cents: number, area: string): boolean {
  const [whole = '0', fraction = ''] = area.split('.')
  const hundredths = BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2))
  const difference = BigInt(totalCents) * 100n - BigInt(m2Cents) * hundredths
  return (difference < 0n ? -difference : difference) <= 10_000n + hundredths / 2n
}

describe('price consistency (total = price per m² × area within rounding)', () => {
  it('accepts a total rounded to whole złoty and refuses one off by more than the rounding', () => {
    // 12 345,67 zł/m² × 54,30 m² = 670 369,88 zł
    expect(priceWithinRounding(67_036_988, 1_234_567, '54.30')).toBe(true)
    expect(priceWithinRounding(67_037_000, 1_234_567, '54.30')).toBe(true)
    // the tolerance here is 1 zł + 54,30 × ½ gr = 1,27 zł
    expect(priceWithinRounding(67_037_115, 1_234_567, '54.30')).toBe(true)
    expect(priceWithinRounding(67_037_116, 1_234_567, '54.30')).toBe(false)
    expect(priceWithinRounding(67_036_860, 1_234_567, '54.30')).toBe(false)
  })

  it('reads an area without decimals, with one, or with more than two as the exact rule does', () => {
    for (const area of ['50', '50.', '50.5', '.5', '50.509', '0', '123456789012.34'])
      for (const total of [5_050_000, 5_000_000, 5_050_999, 5_051_000, 0])
        expect(priceWithinRounding(total, 100_000, area)).toBe(reference(total, 100_000, area))
  })

  it('agrees with exact integer arithmetic for any amounts, including ones beyond 2^53', () => {
    const area = fc
      .tuple(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 99 }))
      .map(([whole, cents]) => `${whole}.${String(cents).padStart(2, '0')}`)
    const cents = fc.oneof(fc.integer({ min: 0, max: 10_000_000_000 }), fc.maxSafeNat())
    fc.assert(
      fc.property(cents, cents, area, fc.integer({ min: -20_000, max: 20_000 }), (total, m2, a, nudge) => {
        // totals near the product as well as arbitrary ones, where the answer changes
        const near = Math.max(0, Math.round((m2 * Number(a.replace('.', ''))) / 100) + nudge)
        for (const t of [total, near])
          if (Number.isSafeInteger(t)) expect(priceWithinRounding(t, m2, a)).toBe(reference(t, m2, a))
      }),
      { numRuns: 3000 },
    )
  })
})
