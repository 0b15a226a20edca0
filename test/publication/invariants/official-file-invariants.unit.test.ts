import fs from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { buildDailyCsv, type DailyCsvInput, type DailyCsvOffer } from '../../../src/publication/daily-file/daily-csv.js'
import {
  checkOfficialFile,
  MAX_DEVELOPER_NAME_LENGTH,
  OfficialFileInvariants,
} from '../../../src/publication/invariants/official-file-invariants.js'

const GOLDEN = path.join(import.meta.dirname, '../../fixtures/golden/daily-2026-11-20.csv')

const investment = {
  id: 1,
  location: {
    voivodeship: 'mazowieckie',
    powiat: 'Warszawa',
    gmina: 'Warszawa',
    city: 'Warszawa',
    street: 'ul. Łąkowa',
    buildingNo: '5',
    postalCode: '00-001',
  },
  prospectusUrl: 'https://example.com/prospekt.pdf',
}

const flat = (fields: Partial<DailyCsvOffer> & Pick<DailyCsvOffer, 'id' | 'code'>): DailyCsvOffer => ({
  investment,
  offerKind: 'property',
  propertyType: 'mieszkanie',
  priceM2Cents: 1_200_000,
  priceM2From: '2026-11-01',
  priceTotalCents: 60_000_000,
  priceTotalFrom: '2026-11-01',
  priceCombinedCents: null,
  priceCombinedFrom: null,
  components: [],
  ...fields,
})

const file = (offers: DailyCsvOffer[], name = 'Deweloper Sp. z o.o.'): Buffer => {
  const empty = {
    voivodeship: null,
    powiat: null,
    gmina: null,
    city: null,
    street: null,
    buildingNo: null,
    localNo: null,
    postalCode: null,
  }
  const input: DailyCsvInput = {
    date: '2026-11-28',
    companySlug: 'deweloper',
    developer: {
      name,
      legalForm: null,
      krs: null,
      ceidg: null,
      nip: null,
      regon: null,
      phone: null,
      email: null,
      fax: null,
      website: null,
      seat: empty,
      salesOffice: empty,
      additionalSalesLocations: null,
      contactMethod: null,
    },
    offers,
  }
  return buildDailyCsv(input).content
}

describe('the invariants of a published day file', () => {
  it('pass the golden file of its own day, and refuse it for an earlier day whose prices it postdates', () => {
    const golden = fs.readFileSync(GOLDEN)
    const own = checkOfficialFile(golden, '2026-11-20')
    expect(own.violations).toEqual([])
    expect(own.rows).toBeGreaterThan(5)
    const earlier = checkOfficialFile(golden, '2026-01-01')
    expect(earlier.violations.length).toBeGreaterThan(0)
    expect(earlier.violations.every((v) => v.code === 'invariant_price_date_after_day')).toBe(true)
    expect(earlier.violations[0]?.details).toMatchObject({ day: '2026-01-01' })
    expect(earlier.violations[0]?.message).toContain('2026-01-01')
  })

  it('names a price valid after the day, with the unit and the column', () => {
    const report = checkOfficialFile(file([flat({ id: 1, code: 'A/1', priceTotalFrom: '2026-12-01' })]), '2026-11-28')
    expect(report.violations).toHaveLength(1)
    expect(report.violations[0]).toMatchObject({
      code: 'invariant_price_date_after_day',
      details: { day: '2026-11-28', unit: 'A/1', column: 41, valid_from: '2026-12-01', line: 2 },
    })
    expect(report.violations[0]?.message_pl).toMatch(/A\/1.*2026-12-01/)
  })

  it('refuses a combined price below the total and accepts one equal to it or above', () => {
    const below = checkOfficialFile(
      file([flat({ id: 1, code: 'A/1', priceCombinedCents: 59_999_999, priceCombinedFrom: '2026-11-01' })]),
      '2026-11-28',
    )
    expect(below.violations.map((v) => v.code)).toEqual(['invariant_combined_below_total'])
    expect(below.violations[0]?.details).toMatchObject({ unit: 'A/1', column: 42 })
    for (const cents of [60_000_000, 70_000_000]) {
      const fine = checkOfficialFile(
        file([flat({ id: 1, code: 'A/1', priceCombinedCents: cents, priceCombinedFrom: '2026-11-01' })]),
        '2026-11-28',
      )
      expect(fine.violations).toEqual([])
    }
  })

  it('names units without a price, without a price per m² alone, and parts sold alone without a price', () => {
    const report = checkOfficialFile(
      file([
        flat({ id: 1, code: 'A/1' }),
        flat({ id: 2, code: 'A/2', priceM2Cents: null, priceM2From: null }),
        flat({
          id: 3,
          code: 'A/3',
          priceM2Cents: null,
          priceM2From: null,
          priceTotalCents: null,
          priceTotalFrom: null,
        }),
        flat({
          id: 4,
          code: 'MP-1',
          offerKind: 'standalone_part',
          propertyType: 'parking_space',
          priceM2Cents: null,
          priceM2From: null,
          priceTotalCents: null,
          priceTotalFrom: null,
        }),
        flat({
          id: 5,
          code: 'MP-2',
          offerKind: 'standalone_part',
          propertyType: 'parking_space',
          priceM2Cents: null,
          priceM2From: null,
        }),
      ]),
      '2026-11-28',
    )
    expect(report.violations).toEqual([])
    expect(report.gapCounts).toEqual({
      offer_price_missing: 2,
      offer_price_m2_missing: 1,
      offer_price_total_missing: 0,
    })
    const byCode = Object.fromEntries(report.gaps.map((g) => [g.code, g]))
    expect(byCode.offer_price_m2_missing?.message_pl).toMatch(/A\/2.*|38–39/)
    expect(byCode.offer_price_m2_missing?.details).toMatchObject({ day: '2026-11-28', units: [{ code: 'A/2' }] })
    // a part sold alone has one price: without it, it has none
    expect(byCode.offer_price_missing?.details).toMatchObject({ units: [{ code: 'A/3' }, { code: 'MP-1' }] })
    expect(byCode.offer_price_total_missing).toBeUndefined()
  })

  it('refuses a cell that is not one elementary value', () => {
    const text = file([flat({ id: 1, code: 'A/1' })])
      .toString('utf8')
      .replace('600000.00', '600 000,00')
    const report = checkOfficialFile(text, '2026-11-28')
    expect(report.violations.map((v) => v.code)).toContain('invariant_cell_not_elementary')
    const quotedBreak = file([flat({ id: 1, code: 'A/1\nA/2' })])
    expect(checkOfficialFile(quotedBreak, '2026-11-28').violations[0]).toMatchObject({
      code: 'invariant_cell_not_elementary',
      details: { column: 37 },
    })
  })

  it('refuses a developer name longer than the XML titles allow', () => {
    const ok = checkOfficialFile(
      file([flat({ id: 1, code: 'A/1' })], 'D'.repeat(MAX_DEVELOPER_NAME_LENGTH)),
      '2026-11-28',
    )
    expect(ok.violations).toEqual([])
    const long = checkOfficialFile(file([flat({ id: 1, code: 'A/1' })], 'D'.repeat(292)), '2026-11-28')
    expect(long.violations.map((v) => v.code)).toEqual(['invariant_developer_name_too_long'])
  })

  it('gives the same findings whatever the pieces the bytes arrive in', () => {
    const content = file([
      flat({ id: 1, code: 'A;"1"', priceTotalFrom: '2026-12-01' }),
      flat({ id: 2, code: 'A/2', priceM2Cents: null, priceM2From: null }),
    ])
    const whole = checkOfficialFile(content, '2026-11-28')
    for (const size of [1, 2, 3, 7, 64]) {
      const checker = new OfficialFileInvariants('2026-11-28')
      for (let i = 0; i < content.length; i += size) checker.feed(content.subarray(i, i + size))
      expect(checker.finish()).toEqual(whole)
    }
    expect(whole.violations[0]?.details).toMatchObject({ unit: 'A;"1"' })
  })
})
