/*
 * The requests the catalog editor's panel sections make (view-offers.js, view-offer-edit.js,
 * view-investments.js, editor-forms.js), replayed with the panel's session cookie and nonce on both
 * databases: the browser suite (editor-browser.test.ts) runs on SQLite only, so this is what shows
 * that the same clicks do the same thing on PostgreSQL. The bodies are the ones the panel builds:
 * amounts as the operator types them ("971 800,00"), one date for every price changed, only the
 * fields changed, the version shown in If-Match, and a stale edit sent again with the version of
 * the 409 answer.
 */
import { beforeAll, expect, it } from 'vitest'

import { loadInvestmentChoices } from '../../src/admin-panel/assets/editor/view-offers.js'
import { setUpDemo } from '../../src/demo/demo-setup.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { deliver } from '../helpers/webhook.js'

const API = '/wp-json/dg/v2'
type Json = Record<string, any>

function cookieOf(setCookie: string | string[] | undefined): string {
  const match = /dg_session=([^;]+)/.exec(Array.isArray(setCookie) ? setCookie.join('; ') : (setCookie ?? ''))
  if (!match?.[1]) throw new Error('no session cookie')
  return `dg_session=${match[1]}`
}

describeEachDatabase('catalog editor requests of the admin panel', (getEnv) => {
  let env: TestEnv
  let panel: Record<string, string>
  let reader: TestUser
  let investmentId: number

  /** A call as the panel's api.js makes it: session cookie, nonce, Accept-Language. */
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: Json, headers = {}) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload }),
      headers: { ...panel, accept: 'application/json', 'accept-language': 'pl', ...headers },
    })
  const find = async (query: string) => {
    const list = await call('GET', `/offers?${query}`)
    expect(list.statusCode, list.body).toBe(200)
    return { items: list.json() as Json[], total: Number(list.headers['x-wp-total']) }
  }

  beforeAll(async () => {
    env = getEnv()
    env.clock.set('2026-11-25T10:00:00Z')
    const demo = await setUpDemo(env.ctx)
    const admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    const login = await env.app.inject({
      method: 'POST',
      url: `${API}/session`,
      payload: { login: admin.login, password: admin.loginPassword },
    })
    expect(login.statusCode, login.body).toBe(200)
    panel = { cookie: cookieOf(login.headers['set-cookie']), 'x-wp-nonce': login.json().nonce }
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select('id')
      .where('source_id', '=', 'demo-zielone-tarasy')
      .executeTakeFirstOrThrow()
    investmentId = investment.id
    const event = JSON.stringify({
      source_investment_id: 'demo-zielone-tarasy',
      source_property_id: 'CRM-U-7',
      prop_no: 'U/7',
      property_status: 'available',
      price_total: '310000.00',
      price_total_from: '2026-11-24',
    })
    const delivered = await deliver(env.app, {
      body: event,
      key: 'panel-requests-untyped',
      secret: demo.webhook_secret,
      timestamp: Math.floor(env.clock.now().getTime() / 1000),
    })
    expect(delivered.statusCode, delivered.body).toBe(202)
  })

  it('finds an offer with the list’s filters, prices typed in złoty sent in grosze, and counts the untyped', async () => {
    const found = await find(
      `investment=${investmentId}&search=A%2F0.01&page=1&per_page=20&orderby=modified&order=desc`,
    )
    expect(found.items.map((o) => o.prop_no)).toEqual(['A/0.01'])
    expect(found.total).toBe(1)
    // "Cena od 900 000" and "do 1 000 000" in the form: grosze in the query
    const priced = await find('price_min=90000000&price_max=100000000&orderby=price&order=asc&per_page=100')
    expect(priced.items.length).toBeGreaterThan(0)
    for (const offer of priced.items) {
      const cents = Math.round(Number(offer.price_total) * 100)
      expect(cents).toBeGreaterThanOrEqual(90_000_000)
      expect(cents).toBeLessThanOrEqual(100_000_000)
    }
    expect((await find('without_type=true&per_page=1')).total).toBe(1)
  })

  it('records a price change typed the Polish way, refusing a total that does not match first', async () => {
    const [offer] = (await find(`investment=${investmentId}&search=A%2F0.01`)).items as [Json]
    const refused = await call(
      'PATCH',
      `/offers/${offer.id}`,
      { price_total: '971 800,00', price_total_from: '2026-11-24', reason: 'Cennik grudniowy' },
      { 'if-match': offer.version },
    )
    expect(refused.statusCode, refused.body).toBe(422)
    expect(refused.json().issues).toEqual([
      expect.objectContaining({ field: 'price_total', message: expect.stringMatching(/^Cena całkowita/) }),
    ])

    const changed = await call(
      'PATCH',
      `/offers/${offer.id}`,
      {
        price_total: '971 800,00',
        price_total_from: '2026-11-24',
        price_m2: '21 500,00',
        price_m2_from: '2026-11-24',
        reason: 'Cennik grudniowy',
      },
      { 'if-match': offer.version },
    )
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json()).toMatchObject({ price_total: '971800.00', price_m2: '21500.00' })
    const history = await env.app.inject({
      method: 'GET',
      url: `${API}/catalog/properties/${offer.id}/price-history`,
      headers: { authorization: reader.authorization },
    })
    expect(history.json().items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          record_type: 'change',
          price_type: 'total',
          valid_from: '2026-11-24',
          after: { cents: 97_180_000, formatted: '971 800,00 zł' },
          reason: 'Cennik grudniowy',
        }),
      ]),
    )
    // the panel's history table reads the editor's own endpoint: the same records, with their channel
    const editorHistory = (await call('GET', `/offers/${offer.id}/price-history`)).json()
    expect(editorHistory.items.filter((i: Json) => i.channel === 'editor')).toHaveLength(2)
  })

  it('sets the type of the untyped offer, adds a parking space, creates a storage room sold on its own', async () => {
    const [untyped] = (await find('without_type=true')).items as [Json]
    const typed = await call(
      'PATCH',
      `/offers/${untyped.id}`,
      { prop_type: 'mieszkanie' },
      { 'if-match': untyped.version },
    )
    expect(typed.statusCode, typed.body).toBe(200)
    expect(typed.json()).toMatchObject({ qualified: true, title: 'Mieszkanie U/7' })
    expect((await find('without_type=true&per_page=1')).total).toBe(0)

    const [flat] = (await find(`investment=${investmentId}&search=A%2F0.01`)).items as [Json]
    const added = await call(
      'POST',
      `/offers/${flat.id}/components`,
      {
        kind: 'parking_space',
        designation: 'MP-12',
        price: '45 000,00',
        relation: 'przynależne do lokalu',
        legal_title: 'odrębna własność',
        price_from: '2026-11-24',
      },
      { 'if-match': flat.version },
    )
    expect(added.statusCode, added.body).toBe(201)
    expect(added.json().components).toEqual([
      expect.objectContaining({ kind: 'parking_space', designation: 'MP-12', price: '45000.00' }),
    ])

    const created = await call('POST', '/offers', {
      investment_id: investmentId,
      prop_type: 'storage_room',
      property_status: 'available',
      host_status: 'publish',
      prop_no: 'KL-P1',
      prop_area: '4,5',
      price_total: '18 000',
      price_total_from: '2026-11-24',
    })
    expect(created.statusCode, created.body).toBe(201)
    expect(created.json()).toMatchObject({ offer_kind: 'standalone_part', title: 'Komórka lokatorska KL-P1' })
  })

  it('answers a stale edit with the current values; sent again with their version, it is saved over them', async () => {
    const [flat] = (await find(`investment=${investmentId}&search=A%2F0.01`)).items as [Json]
    const other = await call(
      'PATCH',
      `/offers/${flat.id}`,
      { building: 'B', variant: 'z tarasem' },
      { 'if-match': '*' },
    )
    expect(other.statusCode, other.body).toBe(200)
    const stale = await call('PATCH', `/offers/${flat.id}`, { building: 'C' }, { 'if-match': flat.version })
    expect(stale.statusCode, stale.body).toBe(409)
    const conflict = stale.json()
    expect(conflict).toMatchObject({ error: 'edit_conflict', current: { building: 'B', variant: 'z tarasem' } })
    expect(conflict.message).toMatch(/^W międzyczasie/)
    const again = await call('PATCH', `/offers/${flat.id}`, { building: 'C' }, { 'if-match': conflict.version })
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json()).toMatchObject({ building: 'C', variant: 'z tarasem' })
  })

  it('archives and restores with the version shown; words field issues in English for the English panel', async () => {
    const [offer] = (await find(`investment=${investmentId}&search=B%2F1.01`)).items as [Json]
    const archived = await call(
      'POST',
      `/offers/${offer.id}/archive`,
      { reason: 'Wycofana ze sprzedaży' },
      { 'if-match': offer.version },
    )
    expect(archived.statusCode, archived.body).toBe(200)
    expect(archived.json().property_status).toBe('archived')
    const restored = await call(
      'POST',
      `/offers/${offer.id}/restore`,
      { property_status: 'available' },
      { 'if-match': archived.json().version },
    )
    expect(restored.statusCode, restored.body).toBe(200)
    expect(restored.json()).toMatchObject({ property_status: 'available', host_status: 'publish' })

    const english = await call(
      'PATCH',
      `/offers/${offer.id}`,
      { price_total: 'dużo', price_total_from: '2026-11-25' },
      { 'if-match': restored.json().version, 'accept-language': 'en' },
    )
    expect(english.statusCode).toBe(422)
    expect(english.json().issues[0]).toMatchObject({
      field: 'price_total',
      message: expect.stringMatching(/^price_total/),
    })
  })

  it('changes an investment’s location, refusing a wrong postal code at its field', async () => {
    const investment = (await call('GET', `/investments/${investmentId}`)).json()
    const refused = await call(
      'PATCH',
      `/investments/${investmentId}`,
      { location: { postal_code: '0-123' } },
      { 'if-match': investment.version },
    )
    expect(refused.statusCode, refused.body).toBe(422)
    expect(refused.json().issues.map((i: Json) => i.field)).toEqual(['location.postal_code'])
    const saved = await call(
      'PATCH',
      `/investments/${investmentId}`,
      { location: { postal_code: '02-495', street: 'ul. Zielona 7' } },
      { 'if-match': investment.version },
    )
    expect(saved.statusCode, saved.body).toBe(200)
    expect(saved.json().location).toMatchObject({ postal_code: '02-495', street: 'ul. Zielona 7' })
  })

  it('offers every investment in the filters and the new-offer form, past the first page of 100, by title', async () => {
    const now = new Date().toISOString()
    await env.ctx.db
      .insertInto('investments')
      .values(
        Array.from({ length: 105 }, (_, i) => ({
          title: `Etap ${i + 1}`,
          slug: `etap-${i + 1}`,
          content: '',
          excerpt: '',
          host_status: 'publish',
          visibility: 'public',
          custom_meta: '{}',
          gallery: '[]',
          documents: '[]',
          created_at: now,
          modified_at: now,
        })),
      )
      .execute()
    // the panel's own function, with its api.js calls made through the service
    const api = {
      get: async (url: string) => {
        const response = await call('GET', url)
        expect(response.statusCode, response.body).toBe(200)
        const headers = new Headers(
          Object.entries(response.headers).map(([name, value]): [string, string] => [name, String(value)]),
        )
        return { body: response.json(), headers }
      },
    }
    const choices = (await loadInvestmentChoices(api, undefined)) as Array<{ id: number; title: string }>
    const stored = await env.ctx.db.selectFrom('investments').select(['id', 'title']).execute()
    expect(stored.length).toBeGreaterThan(105)
    expect(choices.map((choice) => choice.id).sort((a, b) => a - b)).toEqual(
      stored.map((row) => row.id).sort((a, b) => a - b),
    )
    const etaps = choices.filter((choice) => choice.title.startsWith('Etap ')).map((choice) => choice.title)
    expect(etaps.slice(0, 3)).toEqual(['Etap 1', 'Etap 2', 'Etap 3'])
    expect(etaps.at(-1)).toBe('Etap 105')
  })
})
