/*
 * A previewed plan is kept as text until it is executed or paged through: what is read back must be
 * exactly what the planner made, in the current format and in the formats of earlier releases.
 */
import { describe, expect, it } from 'vitest'

import type { PlannedOperation } from '../../src/offers/offer-planner.js'
import {
  decodeChunk,
  decodeValues,
  encodeOperation,
  encodeValues,
  PLAN_FORMAT,
  STORED_LOCATION_FIELDS,
  STORED_VALUE_FIELDS,
} from '../../src/imports/execution/stored-operations.js'
import type { NormalizedOfferValues } from '../../src/offers/validation/validate-offer-row.js'

const create: PlannedOperation = {
  row: 2,
  key: 'INV-1/101',
  action: 'create',
  sourceInvestmentId: 'INV-1',
  sourcePropertyId: '101',
  values: {
    sourceInvestmentId: 'INV-1',
    sourcePropertyId: '101',
    code: 'A/1',
    propertyType: 'mieszkanie',
    status: 'available',
    area: '54.30',
    rooms: 3,
    floor: 0,
    priceTotalCents: 67_036_988,
    priceTotalFrom: '2026-05-01',
    location: { city: 'Łódź', postalCode: '90-001' },
  },
  changes: [
    'price_total',
    'price_total_from',
    'proj_city',
    'proj_zip',
    'prop_area',
    'prop_floor',
    'prop_no',
    'prop_rooms',
    'prop_type',
    'property_status',
  ],
  before: {},
  offerId: null,
  investmentId: 7,
}
const update: PlannedOperation = {
  ...create,
  row: 3,
  action: 'update',
  values: { sourceInvestmentId: 'INV-1', sourcePropertyId: '101', priceTotalCents: 65_000_000 },
  changes: ['price_total', 'price_total_from'],
  before: { price_total: 67_036_988, price_total_from: '2026-05-01' },
  offerId: 41,
}
const unchanged: PlannedOperation = { ...update, row: 4, action: 'unchanged', changes: [], before: {} }
const archive: PlannedOperation = {
  row: null,
  key: 'INV-1/%2342',
  action: 'archive',
  sourceInvestmentId: 'INV-1',
  sourcePropertyId: '#42',
  values: {},
  changes: ['property_status'],
  before: { property_status: 'available' },
  offerId: 42,
  investmentId: 7,
}

const chunkOf = (ops: PlannedOperation[]) => `[${ops.map(encodeOperation).join(',')}]`

describe('stored operations', () => {
  it('reads back every kind of operation as the planner made it', () => {
    const ops = [create, update, unchanged, archive]
    expect(decodeChunk(chunkOf(ops), PLAN_FORMAT)).toEqual(ops)
  })

  it('keeps the text a reader made of the values, and it reads back as the values', () => {
    const storedValues = JSON.stringify(encodeValues(create.values))
    const passed = encodeOperation({ ...create, storedValues })
    expect(passed).toBe(encodeOperation(create))
    expect(decodeChunk(`[${passed}]`, PLAN_FORMAT)).toEqual([create])
  })

  it('keeps each value at the position its field has in the stored layout, and reads it back alone', () => {
    const fields = [...STORED_VALUE_FIELDS, ...STORED_LOCATION_FIELDS]
    fields.forEach((field, position) => {
      const inLocation = position >= STORED_VALUE_FIELDS.length
      const value = position % 2 === 0 ? `value of ${field}` : position
      const values = (inLocation ? { location: { [field]: value } } : { [field]: value }) as NormalizedOfferValues
      const stored = encodeValues(values)
      expect(stored).toHaveLength(position + 1)
      expect(stored[position]).toBe(value)
      expect(stored.slice(0, position).every((other) => other === null)).toBe(true)
      expect(decodeValues(stored)).toEqual(values)
      expect(Object.keys(inLocation ? (decodeValues(stored).location ?? {}) : decodeValues(stored))).toEqual([field])
    })
  })

  it('keeps a change outside the canonical fields as its name', () => {
    const odd = { ...update, changes: ['price_total', 'something_new'] }
    expect(decodeChunk(chunkOf([odd]), PLAN_FORMAT)).toEqual([odd])
  })

  it('reads a plan stored by the previous release (changes as names)', () => {
    const format2 = JSON.stringify([
      [3, 'u', encodeValues(update.values), 'price_total,price_total_from', update.before, 41, 7],
      [null, 'a', [], 'property_status', archive.before, 42, 7, 'INV-1', '#42', 'INV-1/%2342'],
    ])
    expect(decodeChunk(format2, 2)).toEqual([update, archive])
  })
})
