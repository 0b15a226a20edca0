import { describe, expect, it } from 'vitest'

import {
  lookupPropertyType,
  lookupStatus,
  lookupVoivodeship,
  normalizeWord,
} from '../../src/offers/canonical-fields.js'
import {
  describeValue,
  describeValuePl,
  isBlank,
  parseArea,
  parseCalendarDate,
  parseInteger,
  parseMoney,
  parsePostalCode,
  parsePropertyType,
  parseStatus,
  parseText,
  parseVoivodeship,
} from '../../src/offers/validation/parse-values.js'

const value = <T>(result: { ok: true; value: T } | { ok: false }): T | 'failed' => (result.ok ? result.value : 'failed')
const code = (result: { ok: true } | { ok: false; code: string }): string => (result.ok ? 'ok' : result.code)

describe('parseMoney', () => {
  it.each([
    ['123456.78', 12_345_678],
    ['123456,78', 12_345_678],
    ['123 456,78', 12_345_678],
    ['123\u00A0456,78', 12_345_678],
    ['1\u202F234\u202F567,89', 123_456_789],
    ['1 234 567.89', 123_456_789],
    ['123456', 12_345_600],
    ['1.5', 150],
    ['1,05', 105],
    ['0', 0],
    ['0,01', 1],
    ['007', 700],
    ['  42,10  ', 4210],
    ['123 456,78 zł', 12_345_678],
    ['999zł', 99_900],
    ['1500 PLN', 150_000],
    ['1500 pln', 150_000],
    ['100000000000', 10_000_000_000_000],
  ])('reads %j as %i grosze', (text, cents) => {
    expect(parseMoney(text)).toEqual({ ok: true, value: cents })
  })

  it('has no float artefacts where parseFloat would have them', () => {
    // parseFloat('1.15') * 100 = 114.99999999999999, parseFloat('4.35') * 100 = 434.99999999999994
    expect(value(parseMoney('1.15'))).toBe(115)
    expect(value(parseMoney('4.35'))).toBe(435)
    expect(value(parseMoney('99999999999.99'))).toBe(9_999_999_999_999)
  })

  it.each([
    ['1.234', 'invalid_decimal'],
    ['1,234', 'invalid_decimal'],
    ['12.345', 'invalid_decimal'],
    ['1.234,56', 'invalid_decimal'],
    ['1,234.56', 'invalid_decimal'],
    ['1.234.567', 'invalid_decimal'],
    ['1e5', 'invalid_decimal'],
    ['1.5E+3', 'invalid_decimal'],
    ['NaN', 'invalid_decimal'],
    ['Infinity', 'invalid_decimal'],
    ['-Infinity', 'invalid_decimal'],
    ['-5', 'negative_not_allowed'],
    ['-1 234,50', 'negative_not_allowed'],
    ['\u22125', 'negative_not_allowed'],
    ['--5', 'invalid_decimal'],
    ['+5', 'invalid_decimal'],
    ['12 34', 'invalid_decimal'],
    ['1 2345', 'invalid_decimal'],
    ['1.', 'invalid_decimal'],
    ['.5', 'invalid_decimal'],
    ['abc', 'invalid_decimal'],
    ['zł', 'invalid_decimal'],
    ['١٢٣', 'invalid_decimal'],
    ['１２３', 'invalid_decimal'],
    ['100000000000.01', 'out_of_range'],
    ['99999999999999999999999999', 'out_of_range'],
  ])('refuses %j with %s', (text, expected) => {
    expect(code(parseMoney(text))).toBe(expected)
  })

  it('refuses JSON numbers, saying amounts must be strings', () => {
    const result = parseMoney(123456.78)
    expect(result).toMatchObject({ ok: false, code: 'invalid_decimal' })
    expect(!result.ok && result.message).toContain('must be sent as strings')
    expect(code(parseMoney(100))).toBe('invalid_decimal')
  })

  it('refuses booleans and structures as invalid_type', () => {
    expect(code(parseMoney(true))).toBe('invalid_type')
    expect(code(parseMoney({ amount: '1' }))).toBe('invalid_type')
    expect(code(parseMoney(['1']))).toBe('invalid_type')
  })

  it('treats blank input as not sent, leaving the decision to the caller', () => {
    for (const blank of [undefined, null, '', '   ', '\u00A0'])
      expect(parseMoney(blank)).toEqual({ ok: true, value: null })
  })

  it('explains why mixed separators are refused and how to write the amount', () => {
    const result = parseMoney('1.234,56')
    expect(!result.ok && result.message).toMatch(/"1\.234,56".*ambiguous/)
    const decimals = parseMoney('1,234')
    expect(!decimals.ok && decimals.message).toContain('more than 2 decimal places')
  })
})

describe('parseArea', () => {
  it.each([
    ['54,3', '54.30'],
    ['54', '54.00'],
    ['54.30', '54.30'],
    ['054.5', '54.50'],
    ['0,5', '0.50'],
    ['1 234,5', '1234.50'],
    ['54,3 m²', '54.30'],
    ['54,3m2', '54.30'],
  ])('normalizes %j to %j', (text, normalized) => {
    expect(parseArea(text)).toEqual({ ok: true, value: normalized })
  })

  it.each([
    ['54.301', 'invalid_decimal'],
    ['54,3.1', 'invalid_decimal'],
    ['5e1', 'invalid_decimal'],
    ['-54', 'negative_not_allowed'],
    ['0', 'out_of_range'],
    ['0,00', 'out_of_range'],
    ['1000000.01', 'out_of_range'],
    ['pięćdziesiąt', 'invalid_decimal'],
  ])('refuses %j with %s', (text, expected) => {
    expect(code(parseArea(text))).toBe(expected)
  })

  it('refuses JSON numbers and booleans', () => {
    expect(code(parseArea(54.3))).toBe('invalid_decimal')
    expect(code(parseArea(false))).toBe('invalid_type')
  })
})

describe('parseCalendarDate', () => {
  it.each([
    ['2026-02-28', '2026-02-28'],
    ['2024-02-29', '2024-02-29'],
    ['2000-02-29', '2000-02-29'],
    [' 2026-12-31 ', '2026-12-31'],
    ['01.02.2026', '2026-02-01'],
    ['1.2.2026', '2026-02-01'],
    ['29.02.2024', '2024-02-29'],
  ])('reads %j as %j', (text, iso) => {
    expect(parseCalendarDate(text)).toEqual({ ok: true, value: iso })
  })

  it.each([
    '2026-02-30',
    '2026-02-29',
    '1900-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-04-31',
    '2026-1-5',
    '31.04.2026',
    '02/01/2026',
    '2026-02-01T00:00:00Z',
    '2026/02/01',
    '1899-12-31',
    '2200-01-01',
    'yesterday',
  ])('refuses %j', (text) => {
    expect(code(parseCalendarDate(text))).toBe('invalid_date')
  })

  it('refuses numbers (Excel serials) and booleans', () => {
    expect(code(parseCalendarDate(46054))).toBe('invalid_date')
    expect(code(parseCalendarDate(true))).toBe('invalid_type')
  })
})

describe('parseInteger', () => {
  it.each([
    ['-1', -1],
    ['0', 0],
    ['12', 12],
    [' 7 ', 7],
    ['007', 7],
    ['-0', 0],
    [3, 3],
    [-2, -2],
  ])('reads %j as %i', (input, expected) => {
    expect(parseInteger(input)).toEqual({ ok: true, value: expected })
  })

  it.each(['1.0', '1,5', '1e2', '١٢', '１２', '+3', '3 pokoje'])('refuses %j as invalid_integer', (text) => {
    expect(code(parseInteger(text))).toBe('invalid_integer')
  })

  it('refuses non-integer numbers, NaN and Infinity', () => {
    expect(code(parseInteger(1.5))).toBe('invalid_integer')
    expect(code(parseInteger(Number.NaN))).toBe('invalid_integer')
    expect(code(parseInteger(Number.POSITIVE_INFINITY))).toBe('invalid_integer')
  })

  it('reports a negative value as negative_not_allowed when the minimum is 0, otherwise out_of_range', () => {
    expect(code(parseInteger('-1', { min: 0 }))).toBe('negative_not_allowed')
    expect(code(parseInteger(-1, { min: 0 }))).toBe('negative_not_allowed')
    expect(code(parseInteger('-21', { min: -20 }))).toBe('out_of_range')
    expect(code(parseInteger('101', { max: 100 }))).toBe('out_of_range')
    expect(code(parseInteger('99999999999999999999'))).toBe('out_of_range')
    expect(code(parseInteger('-99999999999999999999'))).toBe('out_of_range')
  })

  it('refuses booleans and treats blanks as not sent', () => {
    expect(code(parseInteger(true))).toBe('invalid_type')
    expect(parseInteger(null)).toEqual({ ok: true, value: null })
  })
})

describe('parseStatus', () => {
  it.each([
    ['available', 'available'],
    ['Wolne', 'available'],
    ['WOLNY', 'available'],
    ['dostępne', 'available'],
    ['dostepny', 'available'],
    ['w  sprzedaży', 'available'],
    ['W_SPRZEDAZY', 'available'],
    ['free', 'available'],
    ['rezerwacja', 'reserved'],
    ['Zarezerwowane', 'reserved'],
    ['reserved', 'reserved'],
    ['sprzedane', 'sold'],
    ['SPRZEDANY', 'sold'],
    ['sold', 'sold'],
    ['niedostępne', 'unavailable'],
    ['wycofane', 'unavailable'],
    ['withdrawn', 'unavailable'],
    ['archiwalne', 'archived'],
    ['archived', 'archived'],
  ])('maps %j to %s', (word, status) => {
    expect(parseStatus(word)).toEqual({ ok: true, value: status })
  })

  it('refuses unknown words and numbers as invalid_enum, listing the codes', () => {
    const result = parseStatus('w budowie')
    expect(result).toMatchObject({ ok: false, code: 'invalid_enum' })
    expect(!result.ok && result.message).toContain('available, reserved, sold, unavailable, archived')
    expect(code(parseStatus(1))).toBe('invalid_enum')
    expect(code(parseStatus(false))).toBe('invalid_type')
  })
})

describe('parsePropertyType (mieszkanie or dom)', () => {
  it.each([
    ['mieszkanie', 'mieszkanie'],
    ['  MIESZKANIE ', 'mieszkanie'],
    ['Lokal mieszkalny', 'mieszkanie'],
    ['flat', 'mieszkanie'],
    ['dom', 'dom'],
    [' Dom\t', 'dom'],
    ['Dom jednorodzinny', 'dom'],
    ['House', 'dom'],
  ])('maps %j to a property of type %s', (word, propertyType) => {
    expect(parsePropertyType(word)).toEqual({ ok: true, value: { offerKind: 'property', propertyType } })
  })

  it.each([
    'parking_space',
    'Miejsce postojowe',
    'miejsce parkingowe',
    'garaż',
    'GARAZ',
    'garage',
    'komórka lokatorska',
    'storage_room',
    'piwnica',
    'pomieszczenie przynależne',
    'lokal użytkowy',
    'inne',
    'other',
  ])('refuses %j as prop_type_not_allowed, pointing to the editor', (word) => {
    const result = parsePropertyType(word)
    expect(result).toMatchObject({ ok: false, code: 'prop_type_not_allowed' })
    if (result.ok) return
    expect(result.message).toContain(describeValue(word))
    expect(result.message).toContain('offer editor')
    expect(result.message_pl).toBe(
      `dozwolone są tylko „mieszkanie” lub „dom”, a przesłano ${describeValuePl(word)}; miejsca postojowe, garaże ` +
        'i komórki lokatorskie (części samodzielne i pomieszczenia przynależne) dodaje się w edytorze oferty ' +
        '(panel administracyjny lub REST API)',
    )
  })

  it('refuses unknown words, numbers and words whose legal qualification would be a guess as invalid_enum', () => {
    for (const word of ['apartament', 'zamek', 'mieszkanie dom', 7]) {
      const result = parsePropertyType(word)
      expect(result).toMatchObject({ ok: false, code: 'invalid_enum' })
      expect(!result.ok && result.message_pl).toContain('edytorze oferty')
    }
    expect(code(parsePropertyType(true))).toBe('invalid_type')
  })
})

describe('parseVoivodeship', () => {
  it.each([
    ['mazowieckie', 'mazowieckie'],
    ['Mazowieckie', 'mazowieckie'],
    ['ŚLĄSKIE', 'śląskie'],
    ['slaskie', 'śląskie'],
    ['Łódzkie', 'łódzkie'],
    ['województwo małopolskie', 'małopolskie'],
    ['Woj. Kujawsko-Pomorskie', 'kujawsko-pomorskie'],
    ['warminsko mazurskie', 'warmińsko-mazurskie'],
  ])('normalizes %j to %j', (text, name) => {
    expect(parseVoivodeship(text)).toEqual({ ok: true, value: name })
  })

  it('refuses cities and made-up names', () => {
    expect(code(parseVoivodeship('Warszawa'))).toBe('invalid_enum')
    expect(code(parseVoivodeship('mazowsze'))).toBe('invalid_enum')
  })
})

describe('parsePostalCode', () => {
  it.each([
    ['00-950', '00-950'],
    ['00950', '00-950'],
    [' 61-001 ', '61-001'],
  ])('normalizes %j to %j', (text, normalized) => {
    expect(parsePostalCode(text)).toEqual({ ok: true, value: normalized })
  })

  it.each(['0-950', '00-9500', '00 950', 'ab-cde', '00–950'])('refuses %j', (text) => {
    expect(code(parsePostalCode(text))).toBe('invalid_postal_code')
  })

  it('refuses numbers, which lose leading zeros', () => {
    expect(code(parsePostalCode(950))).toBe('invalid_postal_code')
  })
})

describe('parseText', () => {
  it('trims, NFC-normalizes and accepts JSON integers', () => {
    expect(value(parseText('  Zielone Tarasy ', { maxLength: 10_000 }))).toBe('Zielone Tarasy')
    expect(value(parseText('Łódz\u0301', { maxLength: 10 }))).toBe('Łódź')
    expect(value(parseText(1234, { maxLength: 10 }))).toBe('1234')
  })

  it('refuses control and invisible characters, floats, booleans and too long text', () => {
    expect(code(parseText('A\u0000B', { maxLength: 10 }))).toBe('invalid_text')
    expect(code(parseText('A\u200BB', { maxLength: 10 }))).toBe('invalid_text')
    expect(code(parseText('A\nB', { maxLength: 10 }))).toBe('invalid_text')
    expect(code(parseText('\uD800x', { maxLength: 10 }))).toBe('invalid_text')
    expect(code(parseText(1.5, { maxLength: 10 }))).toBe('invalid_type')
    expect(code(parseText(true, { maxLength: 10 }))).toBe('invalid_type')
    expect(code(parseText('x'.repeat(11), { maxLength: 10 }))).toBe('too_long')
    // length is counted in characters, not UTF-16 units
    expect(code(parseText('😀'.repeat(10), { maxLength: 10 }))).toBe('ok')
  })
})

describe('helpers', () => {
  it('treats undefined, null and whitespace as blank', () => {
    expect([undefined, null, '', ' \t', 0, false, 'x'].map(isBlank)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ])
  })

  it('quotes values and truncates them to 40 characters', () => {
    expect(describeValue('abc')).toBe('"abc"')
    expect(describeValue('x'.repeat(41))).toBe(`"${'x'.repeat(40)}…"`)
    expect(describeValue('x'.repeat(40))).toBe(`"${'x'.repeat(40)}"`)
    expect(describeValue('a\nb')).toBe('"a\\nb"')
    expect(describeValue(12.5)).toBe('12.5')
    expect(describeValue(null)).toBe('null')
    expect(describeValue([1])).toBe('an array')
    expect(describeValue({})).toBe('an object')
  })

  it('shows values in Polish texts in Polish quotation marks, escaped and truncated alike', () => {
    expect(describeValuePl('garaż')).toBe('„garaż”')
    expect(describeValuePl('a\nb')).toBe('„a\\nb”')
    expect(describeValuePl('x'.repeat(41))).toBe(`„${'x'.repeat(40)}…”`)
    expect(describeValuePl(12.5)).toBe('12.5')
    expect(describeValuePl([1])).toBe('tablica')
    expect(describeValuePl({})).toBe('obiekt')
  })

  it('says why a value is refused in Polish as well as in English, naming the value', () => {
    const texts = (result: { ok: boolean; message?: string; message_pl?: string }) => [
      result.message_pl,
      result.message,
    ]
    expect(texts(parseMoney('12,5,0'))).toEqual([
      '„12,5,0” nie jest kwotą; wpisz np. 123456.78 lub 123 456,78',
      '"12,5,0" is not a decimal number (expected e.g. 1234.56 or 1 234,56)',
    ])
    expect(texts(parseMoney('-5'))).toEqual([
      '„-5” jest wartością ujemną; wpisz 0 lub więcej',
      '"-5" is negative; only values of 0 or more are accepted',
    ])
    expect(parseArea('54,3a')).toMatchObject({ message_pl: '„54,3a” nie jest powierzchnią; wpisz np. 54.30 lub 54,3' })
    expect(parseCalendarDate('2026-02-30')).toMatchObject({
      message_pl: '„2026-02-30” nie jest istniejącą datą (takiego dnia nie ma w kalendarzu)',
    })
    expect(parseInteger('-21', { min: -20 })).toMatchObject({
      message_pl: '„-21” jest poza dopuszczalnym zakresem (najmniej -20)',
    })
    expect(parseStatus('w budowie')).toMatchObject({
      message_pl: expect.stringMatching(/^„w budowie” nie jest znanym statusem; wpisz np. wolne/),
    })
    expect(parsePostalCode('1-234')).toMatchObject({
      message_pl: '„1-234” nie jest kodem pocztowym w formacie NN-NNN, np. 60-001',
    })
    expect(parseText(true, { maxLength: 10 })).toMatchObject({
      message_pl: 'true nie jest tu przyjmowane; podaj tekst',
    })
  })

  it('folds words for synonym lookup', () => {
    expect(normalizeWord('  Komórka_Lokatorska ')).toBe('komorka lokatorska')
    expect(lookupStatus('ZAREZERWOWANA')).toBe('reserved')
    expect(lookupPropertyType('LOKAL-mieszkalny')).toEqual({ offerKind: 'property', propertyType: 'mieszkanie' })
    expect(lookupPropertyType('garaz')).toBeUndefined()
    expect(lookupVoivodeship('Dolnoslaskie')).toBe('dolnośląskie')
  })

  it('hands out frozen type codes, since repeated words share one cached result', () => {
    const type = lookupPropertyType('Dom jednorodzinny')
    expect(Object.isFrozen(type)).toBe(true)
    expect(lookupPropertyType('Dom jednorodzinny')).toBe(type)
    expect(lookupStatus('nieznane')).toBeUndefined()
    expect(lookupStatus('nieznane')).toBeUndefined()
  })
})
