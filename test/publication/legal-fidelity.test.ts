/*
 * What a lawyer reading the files would catch: nothing the file shows incompletely is
 * silent (offers without a price, components priced without the combined price of column 42,
 * investments without location or prospectus), a missed day is reported and never fabricated, and
 * the dataset carries the operator's website page and note.
 */
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { runScheduledPublication } from '../../src/publication/publication-schedule.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'
const GAP_CODES = [
  'offer_price_missing',
  'price_combined_missing',
  'investment_location_missing',
  'investment_prospectus_missing',
]

describeEachDatabase('legal fidelity of the daily file', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
      headers: { authorization: admin.authorization },
    })
  const codes = (list: Array<{ code: string }>) => list.map((i) => i.code)

  beforeAll(async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
  })

  it('publishes the complete demo catalog without any gap warning', async () => {
    const published = await call('POST', '/publications', { date: '2026-11-20' })
    expect(published.statusCode).toBe(200)
    const outcome = published.json()
    expect(codes(outcome.warnings).filter((c: string) => GAP_CODES.includes(c))).toEqual([])
    expect(outcome.gaps).toEqual({
      offers_without_price: 0,
      offers_without_price_m2: 0,
      offers_without_total: 0,
      combined_price_missing: 0,
      combined_package_held: 0,
      offers_left_out_by_status: 0,
      offers_hidden_in_draft: 0,
      investments_without_location: 0,
      investments_without_prospectus: 0,
    })
  })

  it('names every incomplete place in the preflight, the outcome and /status, and still publishes the rest', async () => {
    env.clock.set('2026-11-21T10:00:00Z')
    const priced = (
      await env.ctx.db
        .selectFrom('offers')
        .innerJoin('investments', 'investments.id', 'offers.investment_id')
        .select(['offers.id', 'offers.code', 'offers.price_combined_cents', 'offers.investment_id'])
        .where('offers.status', '=', 'available')
        .where('offers.host_status', '=', 'publish')
        .where('investments.host_status', '=', 'publish')
        .where('offers.property_type', '=', 'mieszkanie')
        .orderBy('offers.id')
        .execute()
    ).filter((o, _, all) => all.filter((x) => x.code === o.code).length === 1)
    const withParts = priced.find((o) => o.price_combined_cents !== null)
    const withoutPrice = priced.find((o) => o.price_combined_cents === null)
    if (!withParts || !withoutPrice) throw new Error('the demo catalog lacks the flats this test needs')
    await env.ctx.db
      .updateTable('offers')
      .set({ price_total_cents: null, price_total_from: null, price_m2_cents: null, price_m2_from: null })
      .where('id', '=', withoutPrice.id)
      .execute()
    // a package price below the total it packages is set aside, never published
    await env.ctx.db
      .updateTable('offers')
      .set({ price_combined_cents: 10_000_000 })
      .where('id', '=', withParts.id)
      .execute()
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select(['id', 'title'])
      .where('id', '=', withParts.investment_id)
      .executeTakeFirstOrThrow()
    await env.ctx.db
      .updateTable('investments')
      .set({ loc_street: null, prospectus_url: null })
      .where('id', '=', investment.id)
      .execute()

    const preflight = await call('POST', '/publications/preflight', { date: '2026-11-21' })
    expect(preflight.statusCode).toBe(200)
    const warnings = preflight.json().warnings as Array<{ code: string; message: string; details: any }>
    const byCode = (code: string) => warnings.find((w) => w.code === code)
    expect(byCode('offer_price_missing')?.details.offers).toEqual([{ id: withoutPrice.id, code: withoutPrice.code }])
    expect(byCode('offer_price_missing')?.message).toContain(withoutPrice.code)
    // column 42 is then the total plus the priced parts: the package is named, with where to set it again
    expect(byCode('price_combined_package_held')?.details.offers).toEqual([
      { id: withParts.id, code: withParts.code, package_cents: 10_000_000, cents: expect.any(Number) },
    ])
    expect(byCode('price_combined_package_held')?.message).toMatch(/kolumnie 42.*„Cena z elementami dodatkowymi”/)
    expect(byCode('investment_location_missing')?.details.investments).toEqual([investment])
    expect(byCode('investment_prospectus_missing')?.details.investments).toEqual([investment])

    const published = await call('POST', '/publications', { date: '2026-11-21' })
    expect(published.statusCode).toBe(200)
    expect(published.json().gaps).toEqual({
      offers_without_price: 1,
      offers_without_price_m2: 0,
      offers_without_total: 0,
      combined_price_missing: 0,
      combined_package_held: 1,
      offers_left_out_by_status: 0,
      offers_hidden_in_draft: 0,
      investments_without_location: 1,
      investments_without_prospectus: 1,
    })
    const status = (await call('GET', '/status')).json()
    expect(status.last_publication.gaps).toEqual(published.json().gaps)
  })

  it('reports the days nobody published and never fabricates them', async () => {
    env.clock.set('2026-11-24T10:00:00Z') // the service was down on the 22nd and the 23rd
    expect((await call('GET', '/status')).json().missed_days).toEqual(['2026-11-22', '2026-11-23'])
    // the catch-up publishes today, and the missed days stay missed
    expect(await runScheduledPublication(env.ctx)).toBe('published')
    const status = (await call('GET', '/status')).json()
    expect(status.last_publication.date).toBe('2026-11-24')
    expect(status.missed_days).toEqual(['2026-11-22', '2026-11-23'])
    const failure = await env.ctx.db
      .selectFrom('publications')
      .select(['issues'])
      .where('publication_date', '=', '2026-11-24')
      .where('status', '=', 'published')
      .executeTakeFirstOrThrow()
    const recorded = JSON.parse(failure.issues ?? '{}') as { warnings: Array<{ code: string; details: any }> }
    expect(recorded.warnings.find((w) => w.code === 'publication_days_missed')?.details.dates).toEqual([
      '2026-11-22',
      '2026-11-23',
    ])
    const xml = (await env.app.inject({ url: '/dane-gov/dataset.xml' })).body
    expect(xml).not.toContain('<dataDate>2026-11-22</dataDate>')
    expect(xml).not.toContain('<dataDate>2026-11-23</dataDate>')
    const refused = await call('POST', '/publications', { date: '2026-11-22' })
    expect(refused.json()).toMatchObject({ error: 'publication_date_past' })
  })

  it("carries the entity's price page as the dataset url and its own notes in the descriptions", async () => {
    const developer = await env.ctx.db.selectFrom('developers').select('id').orderBy('id').executeTakeFirstOrThrow()
    const refused = await call('PUT', `/developers/${developer.id}`, {
      dataset_url: 'http://www.example.pl/ceny',
      description_note_pl: 'Sprzedaż <b>zakończona</b>',
    })
    expect(refused.statusCode).toBe(422)
    expect(codes(refused.json().issues).sort()).toEqual(['https_required', 'invalid_text'])

    const note = 'Sprzedaż lokali w inwestycji Zielone Tarasy została zakończona.'
    const saved = await call('PUT', `/developers/${developer.id}`, {
      dataset_url: 'https://www.example.pl/ceny-mieszkan',
      description_note_pl: note,
    })
    expect(saved.statusCode).toBe(200)
    expect((await call('POST', '/publications', { date: '2026-11-24' })).statusCode).toBe(200)
    const xml = (await env.app.inject({ url: '/dane-gov/dataset.xml' })).body
    expect(xml).toContain('\t\t<url>https://www.example.pl/ceny-mieszkan</url>')
    expect(xml).toMatch(new RegExp(`<polish>Zbiór danych zawiera[^<]*${note}</polish>`))
    // the Polish note never goes into <english>: without an English note the English description has none
    expect(xml).not.toMatch(new RegExp(`<english>[^<]*${note}</english>`))
  })
})
