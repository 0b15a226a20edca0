/*
 * The round trip: every file the service publishes, uploaded to the report import,
 * previews valid and converts to the very same bytes, so confirmed for its date into an empty
 * dataset it republishes byte for byte. A property over generated catalogs (flats and houses,
 * several parts, rooms, rights and payments per offer, priced or not, standalone parts, combined
 * prices, offers without a price), then once through HTTP into a fresh database.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'

import { setUpDemo } from '../../../src/demo/demo-setup.js'
import { readOfferFile } from '../../../src/imports/reading/read-offer-file.js'
import {
  type DailyCsvComponent,
  type DailyCsvDeveloper,
  type DailyCsvInvestment,
  type DailyCsvOffer,
  DailyCsvSerializer,
} from '../../../src/publication/daily-file/daily-csv.js'
import { updatePublicationSettings } from '../../../src/publication/settings/publication-settings.js'
import { convertReport } from '../../../src/publication/report/report-convert.js'
import { createTestUser, grantProLicense } from '../../helpers/factories.js'
import { multipart } from '../../helpers/multipart.js'
import { describeEachDatabase, startTestApp, type TestEnv } from '../../helpers/test-app.js'

const DEVELOPER: DailyCsvDeveloper = {
  name: 'Zielona Dolina Sp. z o.o.',
  legalForm: 'spółka z ograniczoną odpowiedzialnością',
  krs: '0000987654',
  ceidg: null,
  nip: '5251234560',
  regon: '146123459',
  phone: '221234567',
  email: 'sprzedaz@example.com',
  fax: null,
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
  additionalSalesLocations: null,
  contactMethod: 'telefon, e-mail',
}

const investment = (id: number, city: string, postal: string): DailyCsvInvestment => ({
  id,
  location: {
    voivodeship: 'mazowieckie',
    powiat: city,
    gmina: city,
    city,
    street: 'ul. Łąkowa',
    buildingNo: `${id}`,
    postalCode: postal,
  },
  prospectusUrl: `https://www.example.com/inwestycja-${id}/prospekt.pdf`,
})
const INVESTMENTS = [investment(1, 'Warszawa', '02-001'), investment(2, 'Piaseczno', '05-500')]

const DAY = '2026-11-20'
const price = fc.option(fc.integer({ min: 1, max: 500_000_000 }), { nil: null, freq: 4 })
const dateOf = (cents: number | null, from: string) => (cents === null ? null : from)
const priceDate = fc.constantFrom('2026-01-15', '2026-06-01', '2026-11-20')

const component = fc
  .record({
    groupKind: fc.constantFrom<DailyCsvComponent['groupKind']>('part', 'appurtenant_room', 'right', 'other_payment'),
    kindLabel: fc.constantFrom('Miejsce postojowe', 'Komórka lokatorska', 'Garaż', 'Udział w drodze', 'Opłata'),
    designation: fc.option(fc.stringMatching(/^[A-Z]{1,2} ?[0-9]{1,3}$/), { nil: null }),
    priceCents: price,
    from: priceDate,
  })
  .map(({ from, ...c }) => ({ ...c, priceFrom: dateOf(c.priceCents, from), description: null }))

const offer = fc.record({
  standalone: fc.boolean(),
  dwelling: fc.constantFrom<'mieszkanie' | 'dom'>('mieszkanie', 'dom'),
  part: fc.constantFrom<'parking_space' | 'garage' | 'storage_room' | 'other'>(
    'parking_space',
    'garage',
    'storage_room',
    'other',
  ),
  investment: fc.constantFrom(...INVESTMENTS),
  m2: price,
  total: price,
  combined: price,
  from: priceDate,
  components: fc.array(component, { maxLength: 6 }),
})

/** Offers with unique designations per investment, in the shapes the catalog can hold. */
const catalog = fc.array(offer, { minLength: 1, maxLength: 12 }).map((drawn) =>
  drawn.map(
    (o, index): DailyCsvOffer =>
      o.standalone
        ? {
            id: index + 1,
            investment: o.investment,
            offerKind: 'standalone_part',
            propertyType: o.part,
            code: `MP ${index + 1}`,
            priceM2Cents: null,
            priceM2From: null,
            priceTotalCents: o.total,
            priceTotalFrom: dateOf(o.total, o.from),
            priceCombinedCents: null,
            priceCombinedFrom: null,
            components: [],
          }
        : {
            id: index + 1,
            investment: o.investment,
            offerKind: 'property',
            propertyType: o.dwelling,
            code: `A/${index + 1}`,
            priceM2Cents: o.m2,
            priceM2From: dateOf(o.m2, o.from),
            priceTotalCents: o.total,
            priceTotalFrom: dateOf(o.total, o.from),
            priceCombinedCents: o.combined,
            priceCombinedFrom: dateOf(o.combined, o.from),
            components: o.components,
          },
  ),
)

function published(offers: DailyCsvOffer[]): Buffer {
  const serializer = new DailyCsvSerializer({ date: DAY, companySlug: 'zielona-dolina', developer: DEVELOPER })
  const pieces: string[] = []
  for (const inv of INVESTMENTS) pieces.push(...serializer.add(offers.filter((o) => o.investment.id === inv.id)))
  pieces.push(serializer.end())
  return Buffer.from(pieces.join(''), 'utf8')
}

describe('the report import takes back what the service publishes', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-round-trip-'))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('converts every generated daily file to the same bytes, without an error', async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(catalog, async (offers) => {
        const bytes = published(offers)
        const file = path.join(dir, `day-${run++}.csv`)
        fs.writeFileSync(file, bytes)
        const reader = await readOfferFile({
          path: file,
          fileName: 'raport.csv',
          limits: { maxBytes: 1e8, maxRows: 1e6 },
        })
        const converted = await convertReport(reader, {
          today: DAY,
          maxErrors: 50,
          developerNips: [DEVELOPER.nip ?? ''],
        })
        expect(converted.errors).toEqual([])
        expect(converted.content?.equals(bytes)).toBe(true)
      }),
      { numRuns: 25 },
    )
  })
})

describeEachDatabase('a published file, imported as a report into an empty dataset', (getEnv) => {
  let fresh: TestEnv | undefined
  afterAll(async () => {
    await fresh?.app.close()
    await fresh?.database.cleanup()
  })

  it('republishes byte for byte', async () => {
    const env = getEnv()
    await setUpDemo(env.ctx)
    const admin = await createTestUser(env.ctx, 'administrator')
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    // a flat with two parking spaces and two storage rooms (rows of their own), and one without a price
    const flats = await env.ctx.db
      .selectFrom('offers')
      .select(['id'])
      .where('property_type', '=', 'mieszkanie')
      .where('status', '=', 'available')
      .orderBy('id')
      .execute()
    const now = env.clock.now().toISOString()
    for (const [position, label, designation] of [
      [10, 'Miejsce postojowe', 'MP 90'],
      [11, 'Komórka lokatorska', 'KL 90'],
    ] as const)
      await env.ctx.db
        .insertInto('offer_components')
        .values({
          offer_id: flats[0]?.id as number,
          position,
          group_kind: label === 'Miejsce postojowe' ? 'part' : 'appurtenant_room',
          kind_label: label,
          designation,
          description: null,
          price_cents: 4_000_000,
          price_from: '2026-11-01',
          relation: null,
          requirement: null,
          variant: null,
          legal_title: null,
          created_at: now,
          modified_at: now,
        })
        .execute()
    await env.ctx.db
      .updateTable('offers')
      .set({ price_total_cents: null, price_total_from: null, price_m2_cents: null, price_m2_from: null })
      .where('id', '=', flats[1]?.id as number)
      .execute()
    const outcome = await env.app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/publications',
      payload: { date: '2026-11-20' },
      headers: { authorization: admin.authorization },
    })
    expect(outcome.statusCode, outcome.body).toBe(200)
    const original = (await env.app.inject({ url: `/dane-gov/${outcome.json().csv.file_name}` })).rawPayload

    // an empty dataset of the same developer entity, in a database of its own
    fresh = await startTestApp(env.dialect)
    const developer = await env.ctx.db.selectFrom('developers').selectAll().executeTakeFirstOrThrow()
    const { id: _id, ...entity } = developer
    await fresh.ctx.db.insertInto('developers').values(entity).execute()
    await grantProLicense(fresh.ctx)
    const freshAdmin = await createTestUser(fresh.ctx, 'administrator')
    await updatePublicationSettings(fresh.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    const body = multipart({}, { name: 'raport.csv', content: original, type: 'text/csv' })
    const preview = await fresh.app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/imports/report',
      payload: body.payload,
      headers: { ...body.headers, authorization: freshAdmin.authorization },
    })
    expect(preview.statusCode, preview.body).toBe(200)
    expect(preview.json().preview).toMatchObject({ valid: true, errors: [] })
    const confirmed = await fresh.app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/imports/report',
      payload: `job_id=${preview.json().id}&confirm=true&date=2026-11-20`,
      headers: { authorization: freshAdmin.authorization, 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    const republished = (await fresh.app.inject({ url: `/dane-gov/${confirmed.json().result.csv.file_name}` }))
      .rawPayload
    expect(republished.equals(original)).toBe(true)
  })
})
