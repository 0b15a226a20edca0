import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

import {
  CANONICAL_FIELDS,
  type CanonicalField,
  isCanonicalField,
  lookupStatus,
} from '../../src/offers/canonical-fields.js'
import {
  describeValue,
  describeValuePl,
  MAX_AMOUNT_CENTS,
  parseArea,
  parseCalendarDate,
  parseInteger,
  parseMoney,
  VALUE_ERROR_CODES,
} from '../../src/offers/validation/parse-values.js'
import {
  type NormalizedOfferValues,
  offerKey,
  ROW_ERROR_CODES,
  splitOfferKey,
  validateOfferRow,
  validateRows,
} from '../../src/offers/validation/validate-offer-row.js'

const KNOWN_ROW_CODES: ReadonlySet<string> = new Set(ROW_ERROR_CODES)
const KNOWN_VALUE_CODES: ReadonlySet<string> = new Set(VALUE_ERROR_CODES)

/** Where each canonical field lands in the normalized values. */
const VALUE_PATH: Record<CanonicalField, (values: NormalizedOfferValues) => unknown> = {
  source_investment_id: (v) => v.sourceInvestmentId,
  source_property_id: (v) => v.sourcePropertyId,
  prop_no: (v) => v.code,
  prop_type: (v) => v.propertyType,
  property_status: (v) => v.status,
  prop_area: (v) => v.area,
  prop_rooms: (v) => v.rooms,
  prop_floor: (v) => v.floor,
  price_m2: (v) => v.priceM2Cents,
  price_m2_from: (v) => v.priceM2From,
  price_total: (v) => v.priceTotalCents,
  price_total_from: (v) => v.priceTotalFrom,
  price_combined: (v) => v.priceCombinedCents,
  price_combined_from: (v) => v.priceCombinedFrom,
  price_combined_variant: (v) => v.priceCombinedVariant,
  price_combined_status: (v) => v.priceCombinedStatus,
  proj_voivod: (v) => v.location?.voivodeship,
  proj_powiat: (v) => v.location?.powiat,
  proj_gmina: (v) => v.location?.gmina,
  proj_city: (v) => v.location?.city,
  proj_street: (v) => v.location?.street,
  proj_build_no: (v) => v.location?.buildingNo,
  proj_local_no: (v) => v.location?.localNo,
  proj_zip: (v) => v.location?.postalCode,
}

const isBlank = (value: unknown): boolean =>
  value === undefined || value === null || (typeof value === 'string' && value.trim() === '')

/** Plausible cell contents, so that random rows also hit the accepting paths. */
const plausibleText = fc.constantFrom(
  '12 345,67',
  '123456.78',
  '1.234,56',
  '1e5',
  '-5',
  '54,3',
  '0',
  '3',
  '-1',
  '1.0',
  '2026-02-28',
  '2026-02-30',
  '01.02.2026',
  'wolne',
  'Sprzedane',
  'w budowie',
  'mieszkanie',
  'Miejsce postojowe',
  'apartament',
  'mazowieckie',
  'Województwo Śląskie',
  '00-950',
  '00950',
  'Łódź',
  'A/1/01',
  '100%',
  '',
  '   ',
)
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: plausibleText, weight: 4 },
  { arbitrary: fc.string({ unit: 'binary' }), weight: 2 },
  { arbitrary: fc.string({ unit: 'grapheme' }), weight: 1 },
  { arbitrary: fc.double(), weight: 1 },
  { arbitrary: fc.integer(), weight: 1 },
  { arbitrary: fc.boolean(), weight: 1 },
  { arbitrary: fc.constantFrom(null, undefined), weight: 1 },
  { arbitrary: fc.bigInt(), weight: 1 },
  { arbitrary: fc.anything({ maxDepth: 1 }), weight: 1 },
)
const anyKey = fc.oneof(
  { arbitrary: fc.constantFrom(...CANONICAL_FIELDS), weight: 6 },
  { arbitrary: fc.string({ unit: 'binary' }), weight: 1 },
  { arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'Price_Total', 'buyer_email'), weight: 1 },
)
const anyRecord = fc.dictionary(anyKey, anyValue, { maxKeys: 30 })

describe('validateOfferRow on arbitrary input', () => {
  it('never throws, uses known codes and the given row number, and accounts for every sent field', () => {
    fc.assert(
      fc.property(anyRecord, fc.integer({ min: 1, max: 1_000_000 }), (input, row) => {
        const result = validateOfferRow(input, { row, mode: 'patch' })
        for (const error of result.errors) {
          expect(error.row).toBe(row)
          expect(KNOWN_ROW_CODES.has(error.code)).toBe(true)
          expect(typeof error.field).toBe('string')
          // Polish by default, English beside it
          expect(error.message).toBe(error.message_pl)
          for (const text of [error.message_pl, error.message_en]) {
            expect(text.length).toBeGreaterThan(0)
            // bad values are truncated, so a message stays readable whatever was sent
            expect(text.length).toBeLessThan(400)
          }
        }
        const failedFields = new Set(result.errors.map((error) => error.field))
        for (const field of CANONICAL_FIELDS) {
          const sent = Object.hasOwn(input, field) && !isBlank(input[field])
          const accepted = VALUE_PATH[field](result.values) !== undefined
          // a sent value is either accepted or reported, never silently dropped
          if (sent) expect(accepted || failedFields.has(field)).toBe(true)
          else expect(accepted).toBe(false)
        }
        for (const name of Object.keys(input)) {
          if (!isCanonicalField(name)) {
            expect(result.errors.some((error) => error.field === name && error.code === 'unknown_field')).toBe(true)
          }
        }
        const idsAccepted =
          result.values.sourceInvestmentId !== undefined && result.values.sourcePropertyId !== undefined
        expect(result.key !== null).toBe(idsAccepted)
        if (result.key !== null) {
          expect(splitOfferKey(result.key)).toEqual({
            sourceInvestmentId: result.values.sourceInvestmentId,
            sourcePropertyId: result.values.sourcePropertyId,
          })
        }
      }),
      { numRuns: 1000 },
    )
  })

  it('behaves the same in snapshot mode and inside validateRows', () => {
    fc.assert(
      fc.property(fc.array(anyRecord, { maxLength: 20 }), (rows) => {
        const results = validateRows(rows, { mode: 'snapshot', firstRow: 2 })
        expect(results).toHaveLength(rows.length)
        results.forEach((result, index) => {
          for (const error of result.errors) {
            expect(error.row).toBe(index + 2)
            expect(KNOWN_ROW_CODES.has(error.code)).toBe(true)
          }
        })
        const keys = results.map((result) => result.key).filter((key) => key !== null)
        const duplicates = results.flatMap((result) => result.errors).filter((error) => error.code === 'duplicate_key')
        expect(duplicates).toHaveLength(keys.length - new Set(keys).size)
      }),
      { numRuns: 300 },
    )
  })
})

describe('every bad value is reported', () => {
  const base = { source_investment_id: 'INV', source_property_id: 'P1' }
  const badValues: Partial<Record<CanonicalField, fc.Arbitrary<unknown>>> = {
    price_total: fc.oneof(
      fc.double({ noNaN: false }),
      fc.integer({ min: 1, max: 1_000_000 }).map((n) => `${n}.${String(n % 1000).padStart(3, '0')}`),
      fc.integer({ min: 1, max: 1_000_000 }).map((n) => `-${n}`),
      fc.integer({ min: 1, max: 99 }).map((n) => `${n}e${n % 10}`),
      fc.tuple(fc.integer({ min: 1, max: 999 }), fc.integer({ min: 0, max: 999 })).map(([a, b]) => `${a}.${b},00`),
    ),
    price_m2_from: fc
      .tuple(fc.integer({ min: 1900, max: 2199 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 29, max: 40 }))
      .filter(([year, month, day]) => new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day)
      .map(([year, month, day]) => `${year}-${String(month).padStart(2, '0')}-${day}`),
    prop_rooms: fc.oneof(
      fc.integer({ min: 1, max: 100 }).map((n) => `${n}.0`),
      fc.integer({ min: -1000, max: -1 }),
      fc.double({ min: 0.1, max: 99.9, noInteger: true }),
    ),
    property_status: fc
      .string({ minLength: 1 })
      .filter((text) => text.trim() !== '' && lookupStatus(text) === undefined),
    proj_zip: fc.integer({ min: 0, max: 99_999 }),
  }

  for (const [field, arbitrary] of Object.entries(badValues)) {
    it(`reports a bad ${field}`, () => {
      fc.assert(
        fc.property(arbitrary, (bad) => {
          const result = validateOfferRow({ ...base, [field]: bad }, { row: 5, mode: 'patch' })
          expect(result.errors.map((error) => error.field)).toContain(field)
          expect(result.key).toBe('INV/P1')
        }),
        { numRuns: 300 },
      )
    })
  }

  it('accepts as prop_type mieszkanie, dom and their synonyms in any case and padding, and refuses every word that is neither', () => {
    const accepted = new Map([
      ['mieszkanie', 'mieszkanie'],
      ['lokal mieszkalny', 'mieszkanie'],
      ['flat', 'mieszkanie'],
      ['dom', 'dom'],
      ['dom jednorodzinny', 'dom'],
      ['house', 'dom'],
    ])
    const words = fc.oneof(
      fc.constantFrom(...accepted.keys(), 'garaż', 'miejsce postojowe', 'komórka lokatorska', 'lokal użytkowy'),
      fc.string({ maxLength: 12 }),
    )
    const cased = fc
      .tuple(words, fc.constantFrom('lower', 'upper', 'title'), fc.constantFrom('', ' ', '  ', '\t'))
      .map(([word, casing, pad]) => {
        const shown =
          casing === 'upper'
            ? word.toUpperCase()
            : casing === 'title'
              ? word.charAt(0).toUpperCase() + word.slice(1)
              : word
        return `${pad}${shown}${pad}`
      })
    fc.assert(
      fc.property(cased, (sent) => {
        const result = validateOfferRow({ ...base, prop_type: sent }, { row: 3, mode: 'patch' })
        const expected = accepted.get(sent.trim().toLowerCase())
        if (sent.trim() === '') {
          expect(result.errors).toEqual([])
          expect(result.values.propertyType).toBeUndefined()
        } else if (expected !== undefined) {
          expect(result.errors).toEqual([])
          expect(result.values).toMatchObject({ offerKind: 'property', propertyType: expected })
        } else {
          // a word other than a flat's or a house's is never taken, whatever it folds to
          if (result.errors.length === 0) expect(['mieszkanie', 'dom']).toContain(result.values.propertyType)
          else {
            expect(result.errors).toHaveLength(1)
            expect(result.errors[0]).toMatchObject({ row: 3, field: 'prop_type' })
            expect(['prop_type_not_allowed', 'invalid_enum']).toContain(result.errors[0]?.code)
            expect(result.values.propertyType).toBeUndefined()
          }
        }
      }),
      { numRuns: 1000 },
    )
  })

  it('reports a boolean in any field as invalid_type', () => {
    fc.assert(
      fc.property(fc.constantFrom(...CANONICAL_FIELDS), fc.boolean(), (field, bad) => {
        const result = validateOfferRow({ ...base, [field]: bad }, { row: 1, mode: 'patch' })
        expect(result.errors).toContainEqual(expect.objectContaining({ field, code: 'invalid_type' }))
      }),
    )
  })
})

const groupThousands = (digits: string, separator: string): string => digits.replace(/\B(?=(?:[0-9]{3})+$)/g, separator)

describe('parseMoney', () => {
  const cents = fc.oneof(
    fc.bigInt({ min: 0n, max: BigInt(MAX_AMOUNT_CENTS) }),
    fc.bigInt({ min: 0n, max: 100_000n }),
    fc.bigInt({ min: 0n, max: 10_000n }).map((n) => n * 100n),
  )
  const notation = fc.record({
    group: fc.constantFrom('', ' ', '\u00A0', '\u202F'),
    decimal: fc.constantFrom('.', ','),
    fraction: fc.constantFrom('full', 'short', 'none'),
    suffix: fc.constantFrom('', ' zł', 'zł', ' PLN', ' ZŁ'),
    padding: fc.constantFrom('', ' ', '\u00A0'),
  })

  it('reads every accepted notation of an amount back to exactly the same grosze', () => {
    fc.assert(
      fc.property(cents, notation, (amount, style) => {
        const zloty = (amount / 100n).toString()
        const grosze = (amount % 100n).toString().padStart(2, '0')
        const fraction =
          style.fraction === 'none' && grosze === '00'
            ? ''
            : style.fraction === 'short' && grosze.endsWith('0')
              ? `${style.decimal}${grosze[0]}`
              : `${style.decimal}${grosze}`
        const text = `${style.padding}${groupThousands(zloty, style.group)}${fraction}${style.suffix}${style.padding}`
        expect(parseMoney(text)).toEqual({ ok: true, value: Number(amount) })
      }),
      { numRuns: 3000 },
    )
  })

  it('parses random garbage to a non-negative integer whose digits are the input digits, or reports it', () => {
    const garbage = fc.oneof(
      fc.string({
        unit: fc.constantFrom(
          '0',
          '1',
          '5',
          '9',
          ' ',
          '\u00A0',
          '\u202F',
          '.',
          ',',
          '-',
          '+',
          'e',
          'E',
          'z',
          'ł',
          'PLN',
          '١',
        ),
        maxLength: 20,
      }),
      fc.string({ unit: 'binary', maxLength: 20 }),
    )
    fc.assert(
      fc.property(garbage, (text) => {
        const result = parseMoney(text)
        if (!result.ok) {
          expect(KNOWN_VALUE_CODES.has(result.code)).toBe(true)
          expect(result.message.startsWith(describeValue(text))).toBe(true)
          expect(result.message_pl.startsWith(describeValuePl(text))).toBe(true)
          return
        }
        if (result.value === null) {
          expect(text.trim()).toBe('')
          return
        }
        expect(Number.isSafeInteger(result.value)).toBe(true)
        expect(result.value).toBeGreaterThanOrEqual(0)
        expect(result.value).toBeLessThanOrEqual(MAX_AMOUNT_CENTS)
        // independent oracle: the ASCII digits of the input, scaled by the number of decimals written
        const number = text.replace(/(?:zł|zl|pln)\s*$/i, '')
        expect(number.includes('.') && number.includes(',')).toBe(false)
        const digits = number.replace(/[^0-9]/g, '')
        const decimals = /[.,]([0-9]*)\s*$/.exec(number)?.[1]?.length ?? 0
        expect(decimals).toBeLessThanOrEqual(2)
        expect(BigInt(result.value)).toBe(BigInt(digits) * 10n ** BigInt(2 - decimals))
      }),
      { numRuns: 5000 },
    )
  })
})

describe('other parsers on arbitrary input', () => {
  it('parseArea returns canonical positive text with 2 decimals, or reports', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 12 }), fc.stringMatching(/^-?[0-9 ]{0,8}[.,]?[0-9]{0,3}$/)),
        (text) => {
          const result = parseArea(text)
          if (!result.ok) {
            expect(KNOWN_VALUE_CODES.has(result.code)).toBe(true)
          } else if (result.value === null) {
            expect(text.trim()).toBe('')
          } else {
            expect(result.value).toMatch(/^(?:0|[1-9][0-9]*)\.[0-9]{2}$/)
            expect(result.value).not.toBe('0.00')
          }
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('parseCalendarDate accepts exactly the real calendar dates, in both notations', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1900, max: 2199 }),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        (year, month, day) => {
          const real =
            month >= 1 && month <= 12 && day >= 1 && new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day
          const mm = String(month).padStart(2, '0')
          const dd = String(day).padStart(2, '0')
          const expected = real ? { ok: true, value: `${year}-${mm}-${dd}` } : expect.objectContaining({ ok: false })
          expect(parseCalendarDate(`${year}-${mm}-${dd}`)).toEqual(expected)
          expect(parseCalendarDate(`${dd}.${mm}.${year}`)).toEqual(expected)
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('parseInteger round-trips every integer within bounds, as text or as a JSON number', () => {
    fc.assert(
      fc.property(fc.integer(), (n) => {
        expect(parseInteger(String(n))).toEqual({ ok: true, value: n })
        expect(parseInteger(n)).toEqual({ ok: true, value: n })
      }),
    )
  })

  it('offerKey is injective and reversible for arbitrary ids', () => {
    const id = fc.string({ unit: fc.constantFrom('a', '/', '%', '2', 'F', '5'), maxLength: 8 })
    fc.assert(
      fc.property(id, id, id, id, (a, b, c, d) => {
        expect(splitOfferKey(offerKey(a, b))).toEqual({ sourceInvestmentId: a, sourcePropertyId: b })
        expect(offerKey(a, b) === offerKey(c, d)).toBe(a === c && b === d)
      }),
      { numRuns: 3000 },
    )
  })
})
