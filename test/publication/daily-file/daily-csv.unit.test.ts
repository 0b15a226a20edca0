import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

import {
  buildDailyCsv,
  compareOfferCodes,
  csvEscape,
  DailyCsvError,
  dailyCsvFileName,
  DailyCsvSerializer,
  formatMoney,
  slugify,
  type DailyCsvComponent,
  type DailyCsvDeveloper,
  type DailyCsvInput,
  type DailyCsvInvestment,
  type DailyCsvOffer,
} from '../../../src/publication/daily-file/daily-csv.js'
import { OFFICIAL_HEADER_LINE, OFFICIAL_HEADERS } from '../../../src/publication/daily-file/official-columns.js'

const zl = (amount: number): number => Math.round(amount * 100)

const developer: DailyCsvDeveloper = {
  name: 'Przykładowy Deweloper Sp. z o.o.',
  legalForm: 'spółka z ograniczoną odpowiedzialnością',
  krs: '0000987654',
  ceidg: null,
  nip: '5251234560',
  regon: '146123459',
  phone: '221234567',
  email: 'sprzedaz@example.com',
  fax: '  ',
  website: 'https://www.example.com',
  seat: {
    voivodeship: 'mazowieckie',
    powiat: 'Warszawa',
    gmina: 'Warszawa',
    city: 'Warszawa',
    street: 'ul. Przykładowa',
    buildingNo: '10',
    localNo: '5',
    postalCode: '00-950',
  },
  salesOffice: {
    voivodeship: 'mazowieckie',
    powiat: 'Warszawa',
    gmina: 'Warszawa',
    city: 'Warszawa',
    street: 'ul. Zielona',
    buildingNo: '12',
    localNo: null,
    postalCode: '01-234',
  },
  additionalSalesLocations: 'Poznań, ul. Nadbrzeżna 5\nbiuro "Nad Wartą"',
  contactMethod: 'Telefonicznie; e-mailowo',
}

const warszawa: DailyCsvInvestment = {
  id: 1,
  location: {
    voivodeship: 'mazowieckie',
    powiat: 'Warszawa',
    gmina: 'Warszawa',
    city: 'Warszawa',
    street: 'ul. Zielona',
    buildingNo: '12',
    postalCode: '01-234',
  },
  prospectusUrl: 'https://www.example.com/zielone-tarasy/prospekt.pdf',
}

const poznan: DailyCsvInvestment = {
  id: 2,
  location: {
    voivodeship: 'wielkopolskie',
    powiat: 'Poznań',
    gmina: 'Poznań',
    city: 'Poznań',
    street: 'ul. Nadbrzeżna',
    buildingNo: '5',
    postalCode: '61-101',
  },
  prospectusUrl: null,
}

const component = (
  groupKind: DailyCsvComponent['groupKind'],
  kindLabel: string,
  designation: string | null,
  price: number | null,
  extra: Partial<DailyCsvComponent> = {},
): DailyCsvComponent => ({
  groupKind,
  kindLabel,
  designation,
  priceCents: price === null ? null : zl(price),
  priceFrom: price === null ? null : '2026-03-09',
  description: null,
  ...extra,
})

function flat(id: number, code: string, extra: Partial<DailyCsvOffer> = {}): DailyCsvOffer {
  return {
    id,
    investment: warszawa,
    offerKind: 'property',
    propertyType: 'mieszkanie',
    code,
    priceM2Cents: zl(15_000),
    priceM2From: '2026-03-09',
    priceTotalCents: zl(750_000),
    priceTotalFrom: '2026-03-09',
    priceCombinedCents: null,
    priceCombinedFrom: null,
    components: [],
    ...extra,
  }
}

function standalone(
  id: number,
  propertyType: 'parking_space' | 'garage' | 'storage_room' | 'other',
  code: string,
  price: number,
): DailyCsvOffer {
  return {
    id,
    investment: poznan,
    offerKind: 'standalone_part',
    propertyType,
    code,
    priceM2Cents: null,
    priceM2From: null,
    priceTotalCents: zl(price),
    priceTotalFrom: '2026-03-10',
    priceCombinedCents: null,
    priceCombinedFrom: null,
    components: [],
  }
}

const flatWithEverything = flat(10, 'A/2.01', {
  priceCombinedCents: zl(875_500.5),
  priceCombinedFrom: '2026-03-11',
  components: [
    component('part', 'Miejsce postojowe', 'MP 14', 65_000, { position: 0 }),
    component('appurtenant_room', 'Komórka lokatorska', 'KL 5', 16_500, { position: 1 }),
    component('part', 'Miejsce postojowe', 'MP 15', 60_000, { position: 2 }),
    component('appurtenant_room', 'Komórka lokatorska', 'KL 6', null, { position: 3 }),
    component('right', 'Udział w drodze wewnętrznej', 'dz. 123/4', 15_000, {
      position: 4,
      description: 'udział 1/8',
    }),
    component('other_payment', 'Opłata za zmiany lokatorskie', null, 2_000, { position: 5 }),
  ],
})

const catalog: DailyCsvInput = {
  date: '2026-03-12',
  companySlug: 'Przykładowy Deweloper Sp. z o.o.',
  developer,
  offers: [
    standalone(31, 'storage_room', 'KL 7', 24_000),
    flat(11, 'A/10.01'),
    flatWithEverything,
    {
      ...flat(12, 'D1'),
      investment: poznan,
      propertyType: 'dom',
      priceTotalCents: zl(12_345_678.9),
      components: [component('right', 'Służebność przejazdu', null, 0)],
    },
    standalone(30, 'parking_space', 'MP 24', 85_000),
    standalone(32, 'garage', 'G 1', 99_999.99),
  ],
}

/** Parses the file the way a consumer would, so quoting is checked too. */
function rowsOf(content: Buffer): string[][] {
  return parse(content, { delimiter: ';', relaxQuotes: false, bom: false })
}

/** 1-based column access, as the official documentation numbers the columns. */
const cols = (row: string[] | undefined, from: number, to = from): string[] => {
  if (!row) throw new Error('row missing')
  return row.slice(from - 1, to)
}

const X = (count: number): string[] => new Array<string>(count).fill('X')

describe('daily official CSV', () => {
  const file = buildDailyCsv(catalog)
  const [header, ...rows] = rowsOf(file.content)
  const rowFor = (code: string, column = 37) => rows.filter((row) => row[column - 1] === code)

  it('starts with the verbatim header line, in UTF-8 without BOM, with LF line ends', () => {
    expect(file.content.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false)
    expect(file.content.toString('utf8').startsWith(OFFICIAL_HEADER_LINE + '\n')).toBe(true)
    expect(header).toEqual([...OFFICIAL_HEADERS])
    expect(file.content.includes('\r')).toBe(false)
    expect(file.content.at(-1)).toBe(0x0a)
  })

  it('has 58 fields on every row and never an empty cell', () => {
    expect(rows).toHaveLength(file.rowCount)
    for (const row of rows) {
      expect(row).toHaveLength(58)
      for (const cell of row) expect(cell.trim()).not.toBe('')
    }
    expect(file.content.toString('utf8')).not.toMatch(/;;|;\n|^;/m)
  })

  it('puts the first part, room, right and other payment of a flat on its own row', () => {
    const [main] = rowFor('A/2.01').filter((row) => row[37] !== 'X')
    expect(cols(main, 1)).toEqual(['Przykładowy Deweloper Sp. z o.o.'])
    expect(cols(main, 29, 35)).toEqual([
      'mazowieckie',
      'Warszawa',
      'Warszawa',
      'Warszawa',
      'ul. Zielona',
      '12',
      '01-234',
    ])
    expect(cols(main, 36, 43)).toEqual([
      'Lokal mieszkalny',
      'A/2.01',
      '15000.00',
      '2026-03-09',
      '750000.00',
      '2026-03-09',
      '875500.50',
      '2026-03-11',
    ])
    expect(cols(main, 44, 47)).toEqual(['Miejsce postojowe', 'MP 14', '65000.00', '2026-03-09'])
    expect(cols(main, 48, 51)).toEqual(['Komórka lokatorska', 'KL 5', '16500.00', '2026-03-09'])
    expect(cols(main, 52, 54)).toEqual([
      // one elementary value: what the right is (the designation and description have no column)
      'Udział w drodze wewnętrznej',
      '15000.00',
      '2026-03-09',
    ])
    expect(cols(main, 55, 57)).toEqual(['Opłata za zmiany lokatorskie', '2000.00', '2026-03-09'])
    expect(cols(main, 58)).toEqual(['https://www.example.com/zielone-tarasy/prospekt.pdf'])
  })

  it('gives each further part or room a row that repeats columns 1–37 and has X in 38–43', () => {
    const all = rowFor('A/2.01')
    expect(all).toHaveLength(3)
    const [main, part, room] = all
    expect(cols(part, 1, 37)).toEqual(cols(main, 1, 37))
    expect(cols(room, 1, 37)).toEqual(cols(main, 1, 37))
    expect(cols(part, 38, 43)).toEqual(X(6))
    expect(cols(part, 44, 47)).toEqual(['Miejsce postojowe', 'MP 15', '60000.00', '2026-03-09'])
    expect(cols(part, 48, 57)).toEqual(X(10))
    expect(cols(room, 38, 47)).toEqual(X(10))
    // a room without a price keeps its kind and designation; price and date do not apply
    expect(cols(room, 48, 51)).toEqual(['Komórka lokatorska', 'KL 6', 'X', 'X'])
    expect(cols(room, 52, 57)).toEqual(X(6))
    expect(cols(part, 58)).toEqual(cols(main, 58))
  })

  it('writes a flat without components with X in 44–57 and a missing prospectus as X', () => {
    const [row] = rowFor('A/10.01')
    expect(cols(row, 42, 57)).toEqual(X(16))
    const [house] = rowFor('D1')
    expect(cols(house, 36)).toEqual(['Dom jednorodzinny'])
    expect(cols(house, 40)).toEqual(['12345678.90'])
    expect(cols(house, 52, 54)).toEqual(['Służebność przejazdu', '0.00', '2026-03-09'])
    expect(cols(house, 58)).toEqual(['X'])
  })

  it('writes a standalone part as its own row with X in 36–43 and its data in its block', () => {
    const [parking] = rowFor('MP 24', 45)
    expect(cols(parking, 36, 43)).toEqual(X(8))
    expect(cols(parking, 44, 47)).toEqual(['Miejsce postojowe', 'MP 24', '85000.00', '2026-03-10'])
    expect(cols(parking, 48, 57)).toEqual(X(10))
    expect(cols(parking, 29, 35)).toEqual([
      'wielkopolskie',
      'Poznań',
      'Poznań',
      'Poznań',
      'ul. Nadbrzeżna',
      '5',
      '61-101',
    ])

    const [garage] = rowFor('G 1', 45)
    expect(cols(garage, 36, 43)).toEqual(X(8))
    expect(cols(garage, 44, 47)).toEqual(['Garaż', 'G 1', '99999.99', '2026-03-10'])

    const [storage] = rowFor('KL 7', 49)
    expect(cols(storage, 36, 47)).toEqual(X(12))
    expect(cols(storage, 48, 51)).toEqual(['Komórka lokatorska', 'KL 7', '24000.00', '2026-03-10'])
    expect(cols(storage, 52, 57)).toEqual(X(6))
  })

  it('quotes the fields that hold a separator, a quote or a line break, and the file parses back', () => {
    expect(file.content.toString('utf8')).toContain(';"Poznań, ul. Nadbrzeżna 5\nbiuro ""Nad Wartą""";')
    expect(file.content.toString('utf8')).toContain(';"Telefonicznie; e-mailowo";')
    expect(cols(rows[0], 27, 28)).toEqual(['Poznań, ul. Nadbrzeżna 5\nbiuro "Nad Wartą"', 'Telefonicznie; e-mailowo'])
    // blank and missing developer data are "not applicable"
    expect(cols(rows[0], 4)).toEqual(['X'])
    expect(cols(rows[0], 9)).toEqual(['X'])
    expect(cols(rows[0], 25)).toEqual(['X'])
  })

  it('orders offers by investment, then code with numbers by value, then id', () => {
    const keys = rows.map((row) => `${row[36]}|${row[44]}|${row[48]}`)
    expect(keys).toEqual([
      'A/2.01|MP 14|KL 5',
      'A/2.01|MP 15|X',
      'A/2.01|X|KL 6',
      'A/10.01|X|X',
      'D1|X|X',
      'X|G 1|X',
      'X|X|KL 7',
      'X|MP 24|X',
    ])
    expect(compareOfferCodes('A/2', 'A/10')).toBeLessThan(0)
    expect(compareOfferCodes('A/02', 'A/2')).not.toBe(0)
    expect(compareOfferCodes('B', 'A/10')).toBeGreaterThan(0)
  })

  it('is deterministic: the same data in any input order gives the same bytes', () => {
    const again = buildDailyCsv(structuredClone(catalog))
    expect(again.content.equals(file.content)).toBe(true)
    const shuffled = buildDailyCsv({
      ...catalog,
      offers: [...catalog.offers].reverse().map((offer) => ({ ...offer, components: [...offer.components].reverse() })),
    })
    expect(shuffled.content.equals(file.content)).toBe(true)
    expect(shuffled.rowCount).toBe(8)
  })

  it('writes only the header for a day without offers', () => {
    const empty = buildDailyCsv({ ...catalog, offers: [] })
    expect(empty.content.toString('utf8')).toBe(OFFICIAL_HEADER_LINE + '\n')
    expect(empty.rowCount).toBe(0)
  })

  it('refuses data the official file cannot carry truthfully', () => {
    const fails = (offer: DailyCsvOffer, code: string) => {
      const attempt = () => buildDailyCsv({ ...catalog, offers: [offer] })
      expect(attempt).toThrow(DailyCsvError)
      expect(attempt).toThrow(expect.objectContaining({ code }))
    }
    fails(flat(1, 'A', { priceM2From: null }), 'missing_price_date')
    fails(flat(1, 'A', { priceTotalFrom: '2026-02-30' }), 'invalid_date')
    fails(flat(1, 'A', { priceTotalCents: 100.5 }), 'invalid_money')
    fails(flat(1, 'A', { priceTotalCents: -1 }), 'invalid_money')
    fails(flat(1, 'A', { propertyType: 'parking_space' }), 'unknown_property_type')
    fails({ ...standalone(1, 'parking_space', 'MP', 1), propertyType: 'mieszkanie' }, 'unknown_property_type')
    fails(flat(1, 'A', { components: [component('part', 'MP', 'MP 1', 1, { priceFrom: null })] }), 'missing_price_date')
    expect(() => buildDailyCsv({ ...catalog, date: '12.03.2026' })).toThrow(
      expect.objectContaining({ code: 'invalid_date' }),
    )
  })
})

describe('money, escaping and file names', () => {
  it('formats grosze with a dot and two decimals and no float artefacts', () => {
    expect(formatMoney(1)).toBe('0.01')
    expect(formatMoney(0)).toBe('0.00')
    expect(formatMoney(10)).toBe('0.10')
    expect(formatMoney(100)).toBe('1.00')
    expect(formatMoney(123_450)).toBe('1234.50')
    expect(formatMoney(1_234_567_890)).toBe('12345678.90')
    // 0.1 + 0.2 style artefacts cannot appear: the digits are never divided as floats
    expect(formatMoney(30)).toBe('0.30')
    expect(formatMoney(Number.MAX_SAFE_INTEGER)).toBe('90071992547409.91')
    for (const bad of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => formatMoney(bad)).toThrow(DailyCsvError)
    }
  })

  it('quotes CSV fields only when needed and doubles quotes', () => {
    expect(csvEscape('ul. Leśna 12')).toBe('ul. Leśna 12')
    expect(csvEscape('a;b')).toBe('"a;b"')
    expect(csvEscape('say "hi"')).toBe('"say ""hi"""')
    expect(csvEscape('line\nbreak')).toBe('"line\nbreak"')
    expect(csvEscape('carriage\rreturn')).toBe('"carriage\rreturn"')
  })

  it('builds the official file name with transliterated, lowercase slugs', () => {
    expect(slugify('Żółć Gęślą Jaźń ŁÓDŹ')).toBe('zolc-gesla-jazn-lodz')
    expect(slugify('  Café „Ąę” -- 12 ')).toBe('cafe-ae-12')
    expect(dailyCsvFileName('2026-03-09', 'Przykładowy Deweloper Sp. z o.o.', 'Osiedle Nad Wartą')).toBe(
      'ceny-ofertowe-mieszkan-dewelopera-przykladowy-deweloper-sp-z-o-o-osiedle-nad-warta-2026-03-09.csv',
    )
    expect(dailyCsvFileName('2026-03-09', 'acme')).toBe('ceny-ofertowe-mieszkan-dewelopera-acme-2026-03-09.csv')
    expect(buildDailyCsv({ ...catalog, companySlug: 'Śnieżka S.A.', investmentSlug: 'Źródlana' }).fileName).toBe(
      'ceny-ofertowe-mieszkan-dewelopera-sniezka-s-a-zrodlana-2026-03-12.csv',
    )
    expect(() => dailyCsvFileName('2026-03-09', '---')).toThrow(expect.objectContaining({ code: 'invalid_slug' }))
    expect(() => dailyCsvFileName('2026-3-9', 'acme')).toThrow(expect.objectContaining({ code: 'invalid_date' }))
  })
  it('orders codes exactly as the per-comparison split did, with each code split once', () => {
    // the comparator this replaced, kept here as the reference
    const reference = (a: string, b: string): number => {
      const units = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)
      const chunksA = a.match(/\d+|\D+/g) ?? []
      const chunksB = b.match(/\d+|\D+/g) ?? []
      for (let i = 0; i < Math.min(chunksA.length, chunksB.length); i++) {
        const x = chunksA[i] as string
        const y = chunksB[i] as string
        const order =
          /^\d/.test(x) && /^\d/.test(y)
            ? (() => {
                const p = x.replace(/^0+(?=\d)/, '')
                const q = y.replace(/^0+(?=\d)/, '')
                return p.length - q.length || units(p, q)
              })()
            : units(x, y)
        if (order !== 0) return order
      }
      return chunksA.length - chunksB.length || units(a, b)
    }
    const code = fc.string({ unit: fc.constantFrom('0', '1', '2', '9', 'A', 'a', '/', '-', '.', ' ', 'ł', '\u0000') })
    fc.assert(
      fc.property(code, code, (a, b) => {
        expect(Math.sign(compareOfferCodes(a, b))).toBe(Math.sign(reference(a, b)))
      }),
      { numRuns: 5000 },
    )
  })

  it('gives the same bytes when fed one investment at a time, and refuses an investment out of order', () => {
    const file = buildDailyCsv(catalog)
    const serializer = new DailyCsvSerializer(catalog)
    const pieces: string[] = []
    for (const investment of [warszawa, poznan]) {
      pieces.push(...serializer.add(catalog.offers.filter((offer) => offer.investment === investment)))
    }
    pieces.push(serializer.end())
    expect(Buffer.from(pieces.join(''), 'utf8').equals(file.content)).toBe(true)
    expect(serializer.rows).toBe(file.rowCount)

    const late = new DailyCsvSerializer(catalog)
    expect([...late.add(catalog.offers.filter((offer) => offer.investment === poznan))]).toHaveLength(0)
    expect(() => [...late.add(catalog.offers.filter((offer) => offer.investment === warszawa))]).toThrow(
      /increasing id/,
    )
  })
})
