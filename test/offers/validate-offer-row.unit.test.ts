import { describe, expect, it } from 'vitest'

import { CANONICAL_FIELDS } from '../../src/offers/canonical-fields.js'
import {
  offerKey,
  type RowError,
  splitOfferKey,
  validateOfferRow,
  validateRows,
} from '../../src/offers/validation/validate-offer-row.js'

const FULL_ROW = {
  source_investment_id: 'INV-1',
  source_property_id: 'A-1.01',
  prop_no: 'A/1/01',
  prop_type: 'Mieszkanie',
  property_status: 'wolne',
  prop_area: '54,3',
  prop_rooms: '3',
  prop_floor: '-1',
  price_m2: '12 000,00',
  price_m2_from: '2026-01-15',
  price_total: '651 600,00 zł',
  price_total_from: '15.01.2026',
  price_combined: '690000',
  price_combined_from: '2026-01-20',
  price_combined_variant: 'z miejscem postojowym',
  price_combined_status: 'approved',
  proj_voivod: 'Województwo Mazowieckie',
  proj_powiat: 'Warszawa',
  proj_gmina: 'Warszawa',
  proj_city: 'Warszawa',
  proj_street: 'ul. Zielona',
  proj_build_no: 12,
  proj_local_no: '4a',
  proj_zip: '00950',
}

const codes = (errors: RowError[]): string[] => errors.map((error) => `${error.field}:${error.code}`)

describe('validateOfferRow', () => {
  it('normalizes a complete valid row', () => {
    const result = validateOfferRow(FULL_ROW, { row: 1, mode: 'patch' })
    expect(result.errors).toEqual([])
    expect(result.key).toBe('INV-1/A-1.01')
    expect(result.values).toEqual({
      sourceInvestmentId: 'INV-1',
      sourcePropertyId: 'A-1.01',
      code: 'A/1/01',
      offerKind: 'property',
      propertyType: 'mieszkanie',
      status: 'available',
      area: '54.30',
      rooms: 3,
      floor: -1,
      priceM2Cents: 1_200_000,
      priceM2From: '2026-01-15',
      priceTotalCents: 65_160_000,
      priceTotalFrom: '2026-01-15',
      priceCombinedCents: 69_000_000,
      priceCombinedFrom: '2026-01-20',
      priceCombinedVariant: 'z miejscem postojowym',
      priceCombinedStatus: 'approved',
      location: {
        voivodeship: 'mazowieckie',
        powiat: 'Warszawa',
        gmina: 'Warszawa',
        city: 'Warszawa',
        street: 'ul. Zielona',
        buildingNo: '12',
        localNo: '4a',
        postalCode: '00-950',
      },
    })
  })

  it('returns only the keys that were sent, treating empty strings and null as not sent', () => {
    const result = validateOfferRow(
      { source_investment_id: ' INV-1 ', source_property_id: 7, price_total: '', prop_area: null, proj_city: 'Poznań' },
      { row: 4, mode: 'snapshot' },
    )
    expect(result.errors).toEqual([])
    expect(result.values).toEqual({ sourceInvestmentId: 'INV-1', sourcePropertyId: '7', location: { city: 'Poznań' } })
    expect(result.key).toBe('INV-1/7')
  })

  it('takes prop_type mieszkanie or dom whatever its case and surrounding spaces', () => {
    for (const [word, type] of [
      [' MIESZKANIE ', 'mieszkanie'],
      ['Dom', 'dom'],
      ['lokal mieszkalny', 'mieszkanie'],
      ['dom jednorodzinny', 'dom'],
    ] as const) {
      const result = validateOfferRow({ source_investment_id: 'I', source_property_id: 'P1', prop_type: word }, opts())
      expect(result.errors).toEqual([])
      expect(result.values).toMatchObject({ offerKind: 'property', propertyType: type })
    }
  })

  it('refuses a standalone part, a room or any other word as prop_type, in Polish and English, pointing to the editor', () => {
    const refused = (word: string) =>
      validateOfferRow(
        { source_investment_id: 'I', source_property_id: 'P1', prop_type: word, price_total: '35000' },
        { row: 7, mode: 'patch' },
      )
    const garage = refused('Miejsce postojowe')
    expect(garage.errors).toEqual([
      {
        row: 7,
        field: 'prop_type',
        code: 'prop_type_not_allowed',
        message: garage.errors[0]?.message_pl,
        message_pl:
          'Rodzaj oferty: dozwolone są tylko „mieszkanie” lub „dom”, a przesłano „Miejsce postojowe”; miejsca ' +
          'postojowe, garaże i komórki lokatorskie (części samodzielne i pomieszczenia przynależne) dodaje się w ' +
          'edytorze oferty (panel administracyjny lub REST API)',
        message_en:
          'prop_type: only mieszkanie or dom (a flat or a house) can be sent here, not "Miejsce postojowe"; ' +
          'standalone parts (parking spaces, garages, storage rooms) and appurtenant rooms are entered in the ' +
          'offer editor (admin panel or REST API)',
      },
    ])
    expect(garage.values.propertyType).toBeUndefined()
    for (const word of ['garaż', 'komórka lokatorska', 'parking_space', 'lokal użytkowy'])
      expect(codes(refused(word).errors)).toEqual(['prop_type:prop_type_not_allowed'])
    const unknown = refused('bliźniak')
    expect(codes(unknown.errors)).toEqual(['prop_type:invalid_enum'])
    expect(unknown.errors[0]?.message_pl).toMatch(
      /^Rodzaj oferty: „bliźniak” nie jest znanym rodzajem; .*edytorze oferty/,
    )
  })

  it('requires both ids and gives no key without them', () => {
    const result = validateOfferRow({ source_investment_id: '  ', prop_no: 'A1' }, { row: 3, mode: 'patch' })
    expect(result.key).toBeNull()
    expect(result.errors).toEqual([
      {
        row: 3,
        field: 'source_investment_id',
        code: 'required',
        message: 'Identyfikator inwestycji: to pole jest wymagane, a nie zostało wypełnione',
        message_pl: 'Identyfikator inwestycji: to pole jest wymagane, a nie zostało wypełnione',
        message_en: 'source_investment_id: is required and was not sent or is empty',
      },
      {
        row: 3,
        field: 'source_property_id',
        code: 'required',
        message: 'Identyfikator oferty: to pole jest wymagane, a nie zostało wypełnione',
        message_pl: 'Identyfikator oferty: to pole jest wymagane, a nie zostało wypełnione',
        message_en: 'source_property_id: is required and was not sent or is empty',
      },
    ])
  })

  it('refuses ids that are too long, unprintable, floats or booleans', () => {
    expect(
      codes(validateOfferRow({ source_investment_id: 'x'.repeat(101), source_property_id: 'P' }, opts()).errors),
    ).toEqual(['source_investment_id:too_long'])
    expect(codes(validateOfferRow({ source_investment_id: 'I\tJ', source_property_id: 1.5 }, opts()).errors)).toEqual([
      'source_investment_id:invalid_text',
      'source_property_id:invalid_type',
    ])
    const booleans = validateOfferRow({ source_investment_id: true, source_property_id: 'P' }, opts())
    expect(codes(booleans.errors)).toEqual(['source_investment_id:invalid_type'])
    expect(booleans.key).toBeNull()
    expect(
      codes(validateOfferRow({ source_investment_id: 'x'.repeat(100), source_property_id: 'P' }, opts()).errors),
    ).toEqual([])
  })

  it('reports every problem of a row, each with the row number, field and value', () => {
    const result = validateOfferRow(
      {
        source_investment_id: 'I',
        source_property_id: 'P',
        prop_type: 'apartament',
        property_status: 'w budowie',
        prop_area: '-54',
        prop_rooms: '-1',
        prop_floor: '1.5',
        price_m2: 12000.5,
        price_m2_from: '2026-02-30',
        price_total: '1.234,56',
        price_total_from: true,
        price_combined: '1e6',
        price_combined_from: '30.02.2026',
        proj_voivod: 'Mazowsze',
        proj_zip: '123',
        proj_city: { name: 'Warszawa' },
        colour: 'red',
      },
      { row: 17, mode: 'patch' },
    )
    expect(codes(result.errors)).toEqual([
      'prop_type:invalid_enum',
      'property_status:invalid_enum',
      'prop_area:negative_not_allowed',
      'prop_rooms:negative_not_allowed',
      'prop_floor:invalid_integer',
      'price_m2:invalid_decimal',
      'price_m2_from:invalid_date',
      'price_total:invalid_decimal',
      'price_total_from:invalid_type',
      'price_combined:invalid_decimal',
      'price_combined_from:invalid_date',
      'proj_voivod:invalid_enum',
      'proj_city:invalid_type',
      'proj_zip:invalid_postal_code',
      'colour:unknown_field',
    ])
    expect(result.errors.every((error) => error.row === 17)).toBe(true)
    // Polish by default, both texts beside, each naming the field and the value
    for (const error of result.errors) {
      expect(error.message).toBe(error.message_pl)
      // an unknown field has no name to give: its message starts with the key as sent
      if (error.code !== 'unknown_field') expect(error.message_en.startsWith(`${error.field}: `)).toBe(true)
    }
    const total = result.errors.find((error) => error.field === 'price_total')
    expect(total?.message_en).toContain('"1.234,56"')
    expect(total?.message_pl).toBe(
      'Cena całkowita: „1.234,56” zawiera i kropkę, i przecinek, więc nie wiadomo, który oddziela tysiące; ' +
        'wpisz 1234.56, 1234,56 lub 1 234,56',
    )
    expect(result.errors.find((error) => error.field === 'price_m2')?.message_en).toMatch(
      /^price_m2: 12000\.5 .*must be sent as strings/,
    )
    expect(result.errors.find((error) => error.field === 'colour')?.message_pl).toBe(
      '„colour” nie jest polem oferty; pola oferty to source_investment_id, source_property_id, prop_no, prop_type, …',
    )
    expect(result.key).toBe('I/P')
    expect(result.values).toEqual({ sourceInvestmentId: 'I', sourcePropertyId: 'P' })
  })

  it('lists errors in canonical field order whatever the key order of the input', () => {
    const result = validateOfferRow(
      { extra: 1, proj_zip: 'x', price_total: 'x', source_property_id: 'P', prop_no: true },
      { row: 2, mode: 'patch' },
    )
    expect(codes(result.errors)).toEqual([
      'source_investment_id:required',
      'prop_no:invalid_type',
      'price_total:invalid_decimal',
      'proj_zip:invalid_postal_code',
      'extra:unknown_field',
    ])
  })

  it('does not let a caller corrupt the cached type of later rows', () => {
    const first = validateOfferRow({ source_investment_id: 'I', source_property_id: 'P', prop_type: 'flat' }, opts())
    first.values.propertyType = 'dom'
    const second = validateOfferRow({ source_investment_id: 'I', source_property_id: 'Q', prop_type: 'flat' }, opts())
    expect(second.values).toMatchObject({ offerKind: 'property', propertyType: 'mieszkanie' })
  })

  it('truncates long bad values to 40 characters in messages', () => {
    const result = validateOfferRow(
      { source_investment_id: 'I', source_property_id: 'P', price_total: 'x'.repeat(500) },
      opts(),
    )
    expect(result.errors[0]?.message_en).toContain(`"${'x'.repeat(40)}…"`)
    expect(result.errors[0]?.message_pl).toContain(`„${'x'.repeat(40)}…”`)
    expect(result.errors[0]?.message_en).not.toContain('x'.repeat(41))
    expect(result.errors[0]?.message_pl).not.toContain('x'.repeat(41))
  })

  it('accepts JSON integers for rooms and floor but not floats', () => {
    const result = validateOfferRow(
      { source_investment_id: 'I', source_property_id: 'P', prop_rooms: 2, prop_floor: -2 },
      opts(),
    )
    expect(result.values).toMatchObject({ rooms: 2, floor: -2 })
    expect(
      codes(validateOfferRow({ source_investment_id: 'I', source_property_id: 'P', prop_rooms: 2.5 }, opts()).errors),
    ).toEqual(['prop_rooms:invalid_integer'])
  })

  it('refuses rooms and floors outside the sanity bounds', () => {
    const result = validateOfferRow(
      { source_investment_id: 'I', source_property_id: 'P', prop_rooms: '450000', prop_floor: '-21' },
      opts(),
    )
    expect(codes(result.errors)).toEqual(['prop_rooms:out_of_range', 'prop_floor:out_of_range'])
  })

  it('reports unknown fields, suggesting the canonical spelling when it is a near miss', () => {
    const result = validateOfferRow(
      { source_investment_id: 'I', source_property_id: 'P', 'Price Total': '1', __proto__x: 1, buyer_name: 'Jan' },
      opts(),
    )
    expect(codes(result.errors)).toEqual([
      'Price Total:unknown_field',
      '__proto__x:unknown_field',
      'buyer_name:unknown_field',
    ])
    expect(result.errors[0]?.message_en).toContain('did you mean price_total?')
    expect(result.errors[0]?.message_pl).toBe('„Price Total” nie jest polem oferty; czy chodziło o price_total?')
  })

  it('reports an own __proto__ key from JSON.parse as an unknown field without being confused by it', () => {
    const input = JSON.parse('{"source_investment_id":"I","source_property_id":"P","__proto__":{"prop_no":"X"}}')
    const result = validateOfferRow(input, opts())
    expect(codes(result.errors)).toEqual(['__proto__:unknown_field'])
    expect(result.values.code).toBeUndefined()
  })

  it('allows a price without its date and a date without its price', () => {
    const result = validateOfferRow(
      { source_investment_id: 'I', source_property_id: 'P', price_total: '500000', price_m2_from: '2026-03-01' },
      opts(),
    )
    expect(result.errors).toEqual([])
    expect(result.values).toMatchObject({ priceTotalCents: 50_000_000, priceM2From: '2026-03-01' })
  })

  describe('price consistency (total = price per m² × area within rounding)', () => {
    const row = (priceM2: string, area: string, total: string) =>
      validateOfferRow(
        { source_investment_id: 'I', source_property_id: 'P', price_m2: priceM2, prop_area: area, price_total: total },
        opts(),
      )

    it('accepts an exact product and a total rounded to whole złoty, refuses a total rounded to thousands', () => {
      expect(row('12000', '54.30', '651600').errors).toEqual([])
      expect(row('12345,67', '54.37', '671234,08').errors).toEqual([])
      expect(row('12345,67', '54.37', '671234').errors).toEqual([])
      expect(codes(row('12345,67', '54.37', '671000').errors)).toEqual(['price_total:inconsistent_price'])
    })

    it('accepts rounding (1 zł plus half a grosz per m²) and refuses a grosz more', () => {
      // 10 000 × 100 m² = 1 000 000.00 expected; tolerance 1.00 zł + 100 × 0.005 zł = 1.50 zł
      expect(row('10000', '100', '1000001,50').errors).toEqual([])
      expect(codes(row('10000', '100', '1000001,51').errors)).toEqual(['price_total:inconsistent_price'])
      expect(row('10000', '100', '999998,50').errors).toEqual([])
      expect(codes(row('10000', '100', '999998,49').errors)).toEqual(['price_total:inconsistent_price'])
      expect(codes(row('10000', '100', '1010101').errors)).toEqual(['price_total:inconsistent_price'])
    })

    it('catches a price per m² typed into the total, explaining the expected value', () => {
      const result = row('12000', '54,3', '12000')
      expect(result.errors).toHaveLength(1)
      expect(result.errors[0]?.message_en).toBe(
        'price_total: 12000.00 does not match price_m2 × prop_area = 12000.00 × 54.30 = 651600.00 (at most 1 zł plus half a grosz per m² from price_m2 × prop_area)',
      )
      expect(result.errors[0]?.message).toBe(
        'Cena całkowita: 12 000,00 zł nie zgadza się z ceną za m² × powierzchnią = 12 000,00 zł × 54,30 m² = ' +
          '651 600,00 zł (dopuszczalna różnica to najwyżej 1 zł plus pół grosza na każdy m²)',
      )
    })

    it('is not checked when one of the three is missing or invalid', () => {
      expect(row('12000', '', '1').errors).toEqual([])
      expect(codes(row('12000', '0', '1').errors)).toEqual(['prop_area:out_of_range'])
    })
  })

  it('validates patch and snapshot rows alike', () => {
    const patch = validateOfferRow(FULL_ROW, { row: 2, mode: 'patch' })
    const snapshot = validateOfferRow(FULL_ROW, { row: 2, mode: 'snapshot' })
    expect(snapshot).toEqual(patch)
  })

  it('knows all 24 canonical fields', () => {
    expect(CANONICAL_FIELDS).toHaveLength(24)
    expect(Object.keys(FULL_ROW).sort()).toEqual([...CANONICAL_FIELDS].sort())
  })
})

describe('offer keys', () => {
  it('joins the ids with a slash and escapes slashes and percent signs inside them', () => {
    expect(offerKey('INV-1', 'A-1')).toBe('INV-1/A-1')
    expect(offerKey('a/b', 'c')).toBe('a%2Fb/c')
    expect(offerKey('a', 'b/c')).toBe('a/b%2Fc')
    expect(offerKey('100%', '%2F')).toBe('100%25/%252F')
  })

  it('round-trips through splitOfferKey and rejects text no key can be', () => {
    for (const [investment, property] of [
      ['a/b', 'c'],
      ['100%', '%2F'],
      ['Łódź 1', 'P/1/2'],
    ] as const) {
      expect(splitOfferKey(offerKey(investment, property))).toEqual({
        sourceInvestmentId: investment,
        sourcePropertyId: property,
      })
    }
    expect(splitOfferKey('a/b/c')).toBeUndefined()
    expect(splitOfferKey('a%20/b')).toBeUndefined()
    expect(splitOfferKey('ab')).toBeUndefined()
  })

  it('gives the row key in escaped form', () => {
    expect(validateOfferRow({ source_investment_id: 'INV/2024', source_property_id: 'P/1' }, opts()).key).toBe(
      'INV%2F2024/P%2F1',
    )
  })
})

describe('validateRows', () => {
  it('numbers rows from 1 by default, or from firstRow', () => {
    const rows = [
      { source_investment_id: 'I', source_property_id: 'P1' },
      { source_investment_id: 'I', source_property_id: '' },
    ]
    expect(validateRows(rows, { mode: 'patch' })[1]?.errors[0]?.row).toBe(2)
    expect(validateRows(rows, { mode: 'patch', firstRow: 10 })[1]?.errors[0]?.row).toBe(11)
  })

  it('reports a key seen twice on the second occurrence, naming the first row', () => {
    function* rows(): Generator<Record<string, unknown>> {
      yield { source_investment_id: 'I', source_property_id: 'P1' }
      yield { source_investment_id: 'I', source_property_id: 'P2' }
      yield { source_investment_id: ' I ', source_property_id: 'P1', price_total: '1' }
      yield { source_investment_id: 'J', source_property_id: 'P1' }
      yield { source_investment_id: 'I', source_property_id: 'P1' }
    }
    const results = validateRows(rows(), { mode: 'snapshot' })
    expect(results.map((result) => codes(result.errors))).toEqual([
      [],
      [],
      ['source_property_id:duplicate_key'],
      [],
      ['source_property_id:duplicate_key'],
    ])
    expect(results[2]?.errors[0]).toEqual({
      row: 3,
      field: 'source_property_id',
      code: 'duplicate_key',
      message: 'Identyfikator oferty: oferta „I/P1” występuje już w wierszu 1',
      message_pl: 'Identyfikator oferty: oferta „I/P1” występuje już w wierszu 1',
      message_en: 'source_property_id: offer "I/P1" already appears in row 1',
    })
    expect(results[4]?.errors[0]?.message_en).toContain('row 1')
  })

  it('does not confuse ids that differ only by a slash position', () => {
    const results = validateRows(
      [
        { source_investment_id: 'a/b', source_property_id: 'c' },
        { source_investment_id: 'a', source_property_id: 'b/c' },
      ],
      { mode: 'patch' },
    )
    expect(results.flatMap((result) => result.errors)).toEqual([])
  })
})

function opts(): { row: number; mode: 'patch' } {
  return { row: 1, mode: 'patch' }
}
