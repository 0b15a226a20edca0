/*
 * An investment a file or the webhook creates without its location ("SLON-1", the CRM's id) is not
 * published on the website: it waits in `pending` (off the catalog), named by the publication's
 * `investment_awaiting_location` warning, while its offers on sale stay in the official daily file
 * (the act lists every unit on offer). The editor publishes it once its location is full, not before.
 */
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { deliver } from '../helpers/webhook.js'

const API = '/wp-json/dg/v2'
const MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID lokalu',
  prop_no: 'Numer',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  price_total: 'Cena',
  price_total_from: 'Cena od',
  price_m2: 'Cena m2',
  price_m2_from: 'Cena m2 od',
  proj_voivod: 'Województwo',
  proj_powiat: 'Powiat',
  proj_gmina: 'Gmina',
  proj_city: 'Miasto',
  proj_street: 'Ulica',
  proj_build_no: 'Numer budynku',
  proj_zip: 'Kod',
}
const HEADER =
  'Inwestycja;ID lokalu;Numer;Rodzaj;Status;Powierzchnia;Cena;Cena od;Cena m2;Cena m2 od;Województwo;Powiat;Gmina;Miasto;Ulica;Numer budynku;Kod'
const FULL_LOCATION = {
  voivodeship: 'mazowieckie',
  powiat: 'Warszawa',
  gmina: 'Warszawa',
  city: 'Warszawa',
  street: 'Słoneczna',
  building_no: '7',
  postal_code: '02-495',
}

describeEachDatabase('a new investment from an import awaits its location', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let reader: TestUser
  let secret: string
  const call = (
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
      headers: { authorization: admin.authorization, ...headers },
    })
  const investmentBySource = (sourceId: string) =>
    env.ctx.db
      .selectFrom('investments')
      .select(['id', 'title', 'host_status'])
      .where('source_id', '=', sourceId)
      .executeTakeFirstOrThrow()
  const catalogTitles = async () => {
    const answer = await env.app.inject({
      url: `${API}/catalog/investments?per_page=100`,
      headers: { authorization: reader.authorization },
    })
    expect(answer.statusCode, answer.body).toBe(200)
    const body = answer.json() as Array<{ title: string }> | { items: Array<{ title: string }> }
    return (Array.isArray(body) ? body : body.items).map((i) => i.title)
  }

  beforeAll(async () => {
    env = getEnv()
    secret = (await setUpDemo(env.ctx)).webhook_secret
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
  })

  it('creates SLON-1 unpublished, keeps it off the catalog and names it, while the file lists its offer', async () => {
    const rows = [
      // the CRM sends the city only: the location is not full
      'SLON-1;S1-1;SLON1-A1;mieszkanie;wolne;50,00;600000;2026-11-01;12000;2026-11-01;;;;Warszawa;;;',
      // a complete location in the file: published at once, as before
      `SLON-2;S2-1;SLON2-A1;mieszkanie;wolne;40,00;480000;2026-11-01;12000;2026-11-01;${Object.values(FULL_LOCATION).join(';')}`,
    ]
    const form = multipart(
      { mode: 'patch', mapping: JSON.stringify(MAPPING) },
      { name: 'crm.csv', content: `${HEADER}\n${rows.join('\n')}\n` },
    )
    const preview = await env.app.inject({
      method: 'POST',
      url: `${API}/imports/offer`,
      payload: form.payload,
      headers: { ...form.headers, authorization: admin.authorization },
    })
    expect(preview.statusCode, preview.body).toBe(200)
    const executed = await env.app.inject({
      method: 'POST',
      url: `${API}/imports/offer`,
      payload: `job_id=${preview.json().id}&confirm_archiving=false`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': 'slon-import-1',
        authorization: admin.authorization,
      },
    })
    expect(executed.statusCode, executed.body).toBe(200)

    const slon1 = await investmentBySource('SLON-1')
    expect(slon1).toMatchObject({ title: 'SLON-1', host_status: 'pending' })
    expect((await investmentBySource('SLON-2')).host_status).toBe('publish')
    const listed = await catalogTitles()
    expect(listed).toContain('SLON-2')
    expect(listed).not.toContain('SLON-1')

    // the webhook goes through the same write path
    const body = JSON.stringify({
      source_investment_id: 'SLON-W',
      source_property_id: 'W-1',
      prop_type: 'mieszkanie',
      proj_city: 'Kraków',
    })
    const timestamp = Math.floor(env.clock.now().getTime() / 1000)
    const delivered = await deliver(env.app, { body, key: 'slon-webhook-1', secret, timestamp })
    expect([200, 202]).toContain(delivered.statusCode)
    expect((await investmentBySource('SLON-W')).host_status).toBe('pending')

    const preflight = await call('POST', '/publications/preflight', { date: '2026-11-20' })
    expect(preflight.statusCode, preflight.body).toBe(200)
    const warnings = preflight.json().warnings as Array<{ code: string; message: string; details: any }>
    const awaiting = warnings.find((w) => w.code === 'investment_awaiting_location')
    expect(awaiting?.details.investments).toEqual(expect.arrayContaining([{ id: slon1.id, title: 'SLON-1' }]))
    expect(awaiting?.message).toMatch(/czekają na lokalizację.*SLON-1.*„opublikowana”/)
    expect(warnings.find((w) => w.code === 'investment_location_missing')?.details.investments).toEqual(
      expect.arrayContaining([{ id: slon1.id, title: 'SLON-1' }]),
    )

    // and the dashboard names it among the investments to complete
    const dashboard = await call('GET', '/dashboard')
    expect(dashboard.statusCode, dashboard.body).toBe(200)
    expect(dashboard.json().catalog.incomplete_investments).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: slon1.id, title: 'SLON-1', location_missing: true })]),
    )

    // the official file lists its offer on sale all the same
    const published = await call('POST', '/publications', { date: '2026-11-20' })
    expect(published.statusCode, published.body).toBe(200)
    const csv = await env.app.inject({ url: new URL(published.json().csv.url as string).pathname })
    expect(csv.statusCode).toBe(200)
    expect(csv.body, 'the offer of SLON-1 in the daily file').toContain('SLON1-A1')
  })

  it('is published by the editor once its location is full, and refused before', async () => {
    const slon1 = await investmentBySource('SLON-1')
    const current = await call('GET', `/investments/${slon1.id}`)
    expect(current.json()).toMatchObject({ host_status: 'pending' })
    const early = await call(
      'PATCH',
      `/investments/${slon1.id}`,
      { host_status: 'publish' },
      { 'if-match': current.json().version as string },
    )
    expect(early.statusCode).toBe(422)
    const issue = (early.json().issues as Array<{ field: string; code: string; message_pl: string }>).find(
      (i) => i.field === 'host_status',
    )
    expect(issue).toMatchObject({ code: 'location_required' })
    expect(issue?.message_pl).toContain('województwo')
    expect((await investmentBySource('SLON-1')).host_status).toBe('pending')

    const done = await call(
      'PATCH',
      `/investments/${slon1.id}`,
      { host_status: 'publish', location: FULL_LOCATION },
      { 'if-match': current.json().version as string },
    )
    expect(done.statusCode, done.body).toBe(200)
    expect((await investmentBySource('SLON-1')).host_status).toBe('publish')
    expect(await catalogTitles()).toContain('SLON-1')

    const preflight = await call('POST', '/publications/preflight', { date: '2026-11-20' })
    const awaiting = (preflight.json().warnings as Array<{ code: string; details: any }>).find(
      (w) => w.code === 'investment_awaiting_location',
    )
    expect(awaiting?.details.investments ?? []).not.toEqual(
      expect.arrayContaining([expect.objectContaining({ title: 'SLON-1' })]),
    )
  })
})
