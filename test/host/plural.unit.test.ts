import { describe, expect, it } from 'vitest'

import { englishCount, polishCount } from '../../src/host/plural.js'

describe('counts with their word', () => {
  it('chooses the Polish form by Intl.PluralRules: 1 lokal, 2–4 lokale, 5–21 lokali, 22 lokale', () => {
    const forms = ['lokal ma', 'lokale mają', 'lokali ma'] as const
    expect([1, 2, 4, 5, 12, 21, 22, 25, 0].map((n) => polishCount(n, forms))).toEqual([
      '1 lokal ma',
      '2 lokale mają',
      '4 lokale mają',
      '5 lokali ma',
      '12 lokali ma',
      '21 lokali ma',
      '22 lokale mają',
      '25 lokali ma',
      '0 lokali ma',
    ])
  })

  it('chooses the English form: 1 unit, 2 units', () => {
    expect([1, 2, 0].map((n) => englishCount(n, ['unit has', 'units have']))).toEqual([
      '1 unit has',
      '2 units have',
      '0 units have',
    ])
  })
})
