import { describe, expect, it } from 'vitest'

import { offerFiltersOf } from '../../src/catalog/schemas.js'

describe('offer filters of a list query', () => {
  it('are the repositories’ filters: a decimal comma becomes a dot, a date-time is written in ISO', () => {
    expect(
      offerFiltersOf({
        investment: 3,
        status: 'available',
        offer_kind: 'property',
        type: 'mieszkanie',
        rooms: 2,
        floor: -1,
        area_min: '40,5',
        area_max: '60.25',
        price_min: 100,
        price_max: 900,
        search: 'A/1',
        modified_after: '2026-11-20T12:00:00+01:00',
      }),
    ).toEqual({
      investment: 3,
      status: 'available',
      offerKind: 'property',
      type: 'mieszkanie',
      rooms: 2,
      floor: -1,
      areaMin: '40.5',
      areaMax: '60.25',
      priceMin: 100,
      priceMax: 900,
      search: 'A/1',
      modifiedAfter: '2026-11-20T11:00:00.000Z',
    })
  })

  it('leave out what the query leaves out', () => {
    expect(Object.values(offerFiltersOf({})).every((value) => value === undefined)).toBe(true)
  })
})
