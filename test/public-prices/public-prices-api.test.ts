/*
 * The public price endpoint as a website (and its visitors' browsers) meets it: off until an
 * administrator enables it, then the units on offer with the prices in force today, cached by
 * browsers and revalidated with the ETag, readable from the allowed origins only, limited per
 * address; and every price change written through the editor shows at the next revalidation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { openDatabase } from '../../src/host/db/database.js'
import type { DeveloperRow } from '../../src/host/db/schema.js'
import { readDailyOffers } from '../../src/publication/daily-file/collect-daily-input.js'
import type { DailyCsvOffer } from '../../src/publication/daily-file/daily-csv.js'
import {
  getPublicationSettings,
  updatePublicationSettings,
} from '../../src/publication/settings/publication-settings.js'

import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'
const SITE = 'https://www.nad-warta.pl'

type Json = Record<string, unknown>

const UNIT_KEYS = [
  'id',
  'designation',
  'kind',
  'area_m2',
  'rooms',
  'floor',
  'status',
  'price_m2',
  'price_total',
  'price_combined',
  'parts',
  'other_payments',
  'history',
].sort()

function setUp(getEnv: () => TestEnv) {
  const state = {} as {
    env: TestEnv
    admin: TestUser
    investmentId: number
    offers: Record<string, Json>
  }
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: unknown, headers = {}) =>
    state.env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as Json }),
      headers: { authorization: state.admin.authorization, ...headers },
    })
  const prices = (id = state.investmentId, headers: Record<string, string> = {}) =>
    state.env.app.inject({ method: 'GET', url: `${API}/public/investments/${id}/prices`, headers })

  /** What today's official file lists of the investment (its investments have no developer entity: the primary dataset's). */
  async function fileOffers(investmentId: number): Promise<DailyCsvOffer[]> {
    const listed: DailyCsvOffer[] = []
    for await (const offers of readDailyOffers(state.env.ctx, {
      day: '2026-11-20',
      developer: { id: 0 } as DeveloperRow,
      includeUnassigned: true,
      statuses: (await getPublicationSettings(state.env.ctx)).published_statuses,
      inconsistent: [],
      untyped: [],
    }))
      listed.push(...offers.filter((offer) => offer.investment.id === investmentId))
    return listed
  }
  const fileCodes = async (investmentId: number) => (await fileOffers(investmentId)).map((offer) => offer.code).sort()

  async function createInvestment(fields: Json = {}): Promise<number> {
    const created = await call('POST', '/investments', {
      title: 'Osiedle Nad Wartą',
      location: { city: 'Poznań', street: 'ul. Nadbrzeżna', building_no: '5' },
      ...fields,
    })
    expect(created.statusCode, created.body).toBe(201)
    return created.json().id as number
  }

  async function createFlat(investmentId: number, prop_no: string, fields: Json = {}): Promise<Json> {
    const created = await call('POST', '/offers', {
      investment_id: investmentId,
      prop_no,
      prop_type: 'mieszkanie',
      property_status: 'available',
      prop_area: '54.3',
      prop_rooms: 3,
      prop_floor: 1,
      price_m2: '12000.00',
      price_m2_from: '2026-11-01',
      price_total: '651600.00',
      price_total_from: '2026-11-01',
      ...fields,
    })
    expect(created.statusCode, created.body).toBe(201)
    return created.json()
  }

  beforeAll(async () => {
    state.env = getEnv()
    state.admin = await createTestUser(state.env.ctx, 'administrator')
    state.investmentId = await createInvestment()
    state.offers = {
      available: await createFlat(state.investmentId, 'A/1.01', {
        components: [
          { kind: 'parking_space', designation: 'P-12', price: '40000.00', price_from: '2026-11-01' },
          {
            group: 'other_payment',
            kind_label: 'Inne świadczenie',
            description: 'Opłata rezerwacyjna',
            price: '5000.00',
            price_from: '2026-11-01',
          },
        ],
      }),
      reserved: await createFlat(state.investmentId, 'A/1.02', { property_status: 'reserved' }),
      sold: await createFlat(state.investmentId, 'A/1.03', { property_status: 'sold' }),
      draft: await createFlat(state.investmentId, 'A/1.04', { host_status: 'draft' }),
      archived: await createFlat(state.investmentId, 'A/1.05'),
    }
    const archived = await call(
      'POST',
      `/offers/${state.offers.archived?.id as number}/archive`,
      { reason: 'Wycofana' },
      { 'if-match': state.offers.archived?.version as string },
    )
    expect(archived.statusCode, archived.body).toBe(200)
  })
  return { state, call, prices, createInvestment, createFlat, fileOffers, fileCodes }
}

describeEachDatabase('public price endpoint', (getEnv) => {
  const { state, call, prices, createInvestment, createFlat, fileOffers, fileCodes } = setUp(getEnv)

  describe('settings', () => {
    it('is off by default: the endpoint answers 404 public_prices_unavailable and the settings say so', async () => {
      const answer = await prices()
      expect(answer.statusCode).toBe(404)
      expect(answer.json()).toEqual({ error: 'public_prices_unavailable' })
      const settings = await call('GET', `/investments/${state.investmentId}/public-prices`)
      expect(settings.statusCode, settings.body).toBe(200)
      expect(settings.json()).toEqual({
        investment_id: state.investmentId,
        enabled: false,
        allowed_origins: [],
        endpoint_url: `http://localhost:80${API}/public/investments/${state.investmentId}/prices`,
        script_url: `http://localhost:80${API}/embed/2.1.0/dg-prices.js`,
        snippet: expect.stringContaining(`<dg-offer-table investment="${state.investmentId}"></dg-offer-table>`),
      })
    })

    it('refuses a bad origin with 422 and a stable code, changing nothing; other users get 401/403', async () => {
      for (const [origin, index] of [
        ['https://www.nad-warta.pl/ceny', 1],
        ['http://www.nad-warta.pl', 1],
        ['*', 1],
        ['ftp://x.pl', 1],
        ['https://www.nad-warta.pl?x=1', 1],
      ] as const) {
        const refused = await call('PUT', `/investments/${state.investmentId}/public-prices`, {
          enabled: true,
          allowed_origins: [SITE, origin],
        })
        expect(refused.statusCode, origin).toBe(422)
        expect(refused.json()).toMatchObject({ code: 'public_prices_origin_invalid', data: { status: 422, index } })
      }
      const tooMany = await call('PUT', `/investments/${state.investmentId}/public-prices`, {
        allowed_origins: Array.from({ length: 21 }, (_, i) => `https://s${i}.example.pl`),
      })
      expect(tooMany.json()).toMatchObject({ code: 'public_prices_too_many_origins' })
      expect((await call('GET', `/investments/${state.investmentId}/public-prices`)).json()).toMatchObject({
        enabled: false,
        allowed_origins: [],
      })
      expect((await prices()).statusCode).toBe(404)
      const anonymous = await state.env.app.inject({
        method: 'PUT',
        url: `${API}/investments/${state.investmentId}/public-prices`,
        payload: { enabled: true },
      })
      expect(anonymous.statusCode).toBe(401)
      const reader = await createTestUser(state.env.ctx, 'dg_catalog_reader')
      const asReader = await state.env.app.inject({
        method: 'PUT',
        url: `${API}/investments/${state.investmentId}/public-prices`,
        payload: { enabled: true },
        headers: { authorization: reader.authorization },
      })
      expect(asReader.statusCode).toBe(403)
      expect((await call('GET', '/investments/999999/public-prices')).statusCode).toBe(404)
    })

    it('enables the endpoint with normalized origins, audited with the values before and after', async () => {
      const enabled = await call('PUT', `/investments/${state.investmentId}/public-prices`, {
        enabled: true,
        allowed_origins: [`${SITE}/`, 'HTTP://LOCALHOST:8080', SITE],
      })
      expect(enabled.statusCode, enabled.body).toBe(200)
      expect(enabled.json()).toMatchObject({ enabled: true, allowed_origins: [SITE, 'http://localhost:8080'] })
      const audit = await state.env.ctx.db
        .selectFrom('audit_log')
        .select(['action', 'object_id', 'details', 'actor_name'])
        .where('action', '=', 'public_prices.update')
        .execute()
      expect(audit).toHaveLength(1)
      expect(audit[0]?.object_id).toBe(String(state.investmentId))
      expect(JSON.parse(audit[0]?.details ?? '{}')).toEqual({
        before: { enabled: false, allowed_origins: [] },
        after: { enabled: true, allowed_origins: [SITE, 'http://localhost:8080'] },
      })
    })

    it('keeps both of two changes sent at once, each audited with the values it replaced', async () => {
      const other = await createInvestment()
      const [switched, listed] = await Promise.all([
        call('PUT', `/investments/${other}/public-prices`, { enabled: true }),
        call('PUT', `/investments/${other}/public-prices`, { allowed_origins: [SITE] }),
      ])
      expect([switched.statusCode, listed.statusCode]).toEqual([200, 200])
      const settings = await call('GET', `/investments/${other}/public-prices`)
      expect(settings.json()).toMatchObject({ enabled: true, allowed_origins: [SITE] })
      const audits = (
        await state.env.ctx.db
          .selectFrom('audit_log')
          .select('details')
          .where('action', '=', 'public_prices.update')
          .where('object_id', '=', String(other))
          .orderBy('id')
          .execute()
      ).map((row) => JSON.parse(row.details ?? '{}') as { before: unknown; after: unknown })
      expect(audits).toHaveLength(2)
      // the second change starts from what the first one left
      expect(audits[1]?.before).toEqual(audits[0]?.after)
    })
  })

  describe('answers', () => {
    it('lists only the published units on offer, with prices in force, parts, other payments and history', async () => {
      const answer = await prices()
      expect(answer.statusCode, answer.body).toBe(200)
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(answer.headers['set-cookie']).toBeUndefined()
      const body = answer.json()
      expect(body).toMatchObject({
        investment: { id: state.investmentId, title: 'Osiedle Nad Wartą', city: 'Poznań', address: 'ul. Nadbrzeżna 5' },
        day: '2026-11-20',
        currency: 'PLN',
      })
      expect((body.units as Json[]).map((unit) => unit.designation)).toEqual(['A/1.01', 'A/1.02'])
      const [available, reserved] = body.units as Json[]
      expect(Object.keys(available as Json).sort()).toEqual(UNIT_KEYS)
      expect(available).toEqual({
        id: state.offers.available?.id,
        designation: 'A/1.01',
        kind: 'flat',
        area_m2: '54.30',
        rooms: 3,
        floor: 1,
        status: 'available',
        price_m2: { amount: '12000.00', valid_from: '2026-11-01' },
        price_total: { amount: '651600.00', valid_from: '2026-11-01' },
        price_combined: { amount: '691600.00', valid_from: '2026-11-01' },
        parts: [
          {
            kind: 'parking_space',
            label: 'Miejsce postojowe',
            designation: 'P-12',
            price: { amount: '40000.00', valid_from: '2026-11-01' },
            history: [{ valid_from: '2026-11-01', amount: '40000.00' }],
          },
        ],
        other_payments: [{ description: 'Opłata rezerwacyjna', amount: '5000.00', valid_from: '2026-11-01' }],
        history: [{ valid_from: '2026-11-01', price_m2: '12000.00', price_total: '651600.00' }],
      })
      expect(reserved).toMatchObject({ status: 'reserved', price_combined: null, parts: [] })
    })

    it('is cached publicly and revalidated: ETag, Cache-Control public, 304 for a current copy, nosniff kept', async () => {
      const first = await prices()
      expect(first.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=300')
      expect(first.headers['x-content-type-options']).toBe('nosniff')
      const etag = first.headers.etag as string
      expect(etag).toMatch(/^"[\w-]{32}"$/)
      const again = await prices(state.investmentId, { 'if-none-match': etag })
      expect(again.statusCode).toBe(304)
      expect(again.body).toBe('')
      expect(again.headers.etag).toBe(etag)
      expect(again.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=300')
      expect((await prices(state.investmentId, { 'if-none-match': '"other"' })).statusCode).toBe(200)
      const head = await state.env.app.inject({
        method: 'HEAD',
        url: `${API}/public/investments/${state.investmentId}/prices`,
      })
      expect(head.statusCode).toBe(200)
      expect(head.headers.etag).toBe(etag)
    })

    it('lets only the allowed origins read it (echoed, Vary: Origin), answering their preflight', async () => {
      const allowed = await prices(state.investmentId, { origin: SITE })
      expect(allowed.headers['access-control-allow-origin']).toBe(SITE)
      expect(allowed.headers.vary).toBe('Origin')
      expect(allowed.headers['access-control-allow-credentials']).toBeUndefined()
      const other = await prices(state.investmentId, { origin: 'https://evil.example.com' })
      expect(other.statusCode).toBe(200)
      expect(other.headers['access-control-allow-origin']).toBeUndefined()

      const preflight = (origin: string) =>
        state.env.app.inject({
          method: 'OPTIONS',
          url: `${API}/public/investments/${state.investmentId}/prices`,
          headers: {
            origin,
            'access-control-request-method': 'GET',
            'access-control-request-headers': 'if-none-match',
          },
        })
      const ok = await preflight(SITE)
      expect(ok.statusCode).toBe(204)
      expect(ok.headers).toMatchObject({
        'access-control-allow-origin': SITE,
        'access-control-allow-methods': 'GET, HEAD',
        'access-control-allow-headers': 'If-None-Match',
        'access-control-max-age': '600',
      })
      const refused = await preflight('https://evil.example.com')
      expect(refused.statusCode).toBe(204)
      expect(refused.headers['access-control-allow-origin']).toBeUndefined()
      expect(refused.headers['access-control-allow-methods']).toBeUndefined()
    })

    it('answers a private investment as the official file lists it; never a draft, private or unknown one', async () => {
      // visibility private: its units are in the official file, so the website shows them too (art. 19a)
      const hidden = await createInvestment({ title: 'Widoczność prywatna', visibility: 'private' })
      await createFlat(hidden, `W/${hidden}`)
      await call('PUT', `/investments/${hidden}/public-prices`, { enabled: true, allowed_origins: [SITE] })
      const shown = await prices(hidden, { origin: SITE })
      expect(shown.statusCode, shown.body).toBe(200)
      expect((shown.json().units as Json[]).map((unit) => unit.designation)).toEqual([`W/${hidden}`])
      expect(await fileCodes(hidden)).toEqual([`W/${hidden}`])

      const draft = await createInvestment({ title: 'Szkic', host_status: 'draft' })
      const unpublished = await createInvestment({ title: 'Prywatna', host_status: 'private' })
      for (const id of [draft, unpublished]) {
        await createFlat(id, `X/${id}`)
        const enabled = await call('PUT', `/investments/${id}/public-prices`, {
          enabled: true,
          allowed_origins: [SITE],
        })
        expect(enabled.statusCode).toBe(200)
        const answer = await prices(id, { origin: SITE })
        expect(answer.statusCode).toBe(404)
        expect(answer.json()).toEqual({ error: 'public_prices_unavailable' })
        expect(answer.body).not.toContain(`X/${id}`)
      }
      expect((await prices(987654)).json()).toEqual({ error: 'public_prices_unavailable' })
      const disabled = await call('PUT', `/investments/${state.investmentId}/public-prices`, { enabled: false })
      expect(disabled.json()).toMatchObject({ enabled: false, allowed_origins: [SITE, 'http://localhost:8080'] })
      expect((await prices()).statusCode).toBe(404)
      await call('PUT', `/investments/${state.investmentId}/public-prices`, { enabled: true })
      expect((await prices()).statusCode).toBe(200)
    })

    it('never shows an announced price before its day; a price changed through the editor shows at once', async () => {
      const flat = state.offers.available as Json
      const before = await prices()
      const announced = await call(
        'PATCH',
        `/offers/${flat.id as number}`,
        {
          price_m2: '12500.00',
          price_m2_from: '2026-11-25',
          price_total: '678750.00',
          price_total_from: '2026-11-25',
          reason: 'Nowy cennik',
        },
        { 'if-match': flat.version as string },
      )
      expect(announced.statusCode, announced.body).toBe(200)
      const afterAnnouncement = await prices(state.investmentId, { 'if-none-match': before.headers.etag as string })
      expect(afterAnnouncement.statusCode).toBe(200)
      expect(afterAnnouncement.body).not.toContain('678750.00')
      expect(afterAnnouncement.body).not.toContain('2026-11-25')
      const unit = () => (afterAnnouncement.json().units as Json[]).find((u) => u.id === flat.id) as Json
      expect(unit().price_total).toEqual({ amount: '651600.00', valid_from: '2026-11-01' })

      const changed = await call(
        'PATCH',
        `/offers/${flat.id as number}`,
        { price_m2: '11800.00', price_m2_from: '2026-11-20', price_total: '640740.00', price_total_from: '2026-11-20' },
        { 'if-match': announced.json().version as string },
      )
      expect(changed.statusCode, changed.body).toBe(200)
      const revalidated = await prices(state.investmentId, {
        'if-none-match': afterAnnouncement.headers.etag as string,
      })
      expect(revalidated.statusCode).toBe(200)
      const now = (revalidated.json().units as Json[]).find((u) => u.id === flat.id) as Json
      expect(now.price_total).toEqual({ amount: '640740.00', valid_from: '2026-11-20' })
      expect(now.history).toEqual([
        { valid_from: '2026-11-20', price_m2: '11800.00', price_total: '640740.00' },
        { valid_from: '2026-11-01', price_m2: '12000.00', price_total: '651600.00' },
      ])

      // the announced day comes: the same cache shows it without any write
      state.env.clock.set('2026-11-25T08:00:00Z')
      const onTheDay = await prices(state.investmentId, { 'if-none-match': revalidated.headers.etag as string })
      expect(onTheDay.statusCode).toBe(200)
      expect(onTheDay.json().day).toBe('2026-11-25')
      const later = (onTheDay.json().units as Json[]).find((u) => u.id === flat.id) as Json
      expect(later.price_total).toEqual({ amount: '678750.00', valid_from: '2026-11-25' })
      expect((later.history as Json[])[0]).toEqual({
        valid_from: '2026-11-25',
        price_m2: '12500.00',
        price_total: '678750.00',
      })
      state.env.clock.set('2026-11-20T10:00:00Z')
    })

    it('lists the parts sold on their own exactly as the official file does, with the same prices and dates', async () => {
      const investment = await createInvestment({ title: 'Garaże i komórki' })
      const standalone = (prop_no: string, prop_type: string, property_status: string, fields: Json = {}) =>
        call('POST', '/offers', {
          investment_id: investment,
          prop_no,
          prop_type,
          property_status,
          price_total: '45000.00',
          price_total_from: '2026-11-02',
          ...fields,
        })
      for (const created of [
        await standalone('MP 5', 'parking_space', 'available', { prop_floor: -1 }),
        await standalone('KL 7', 'storage_room', 'reserved', { prop_area: '4.5', price_total: '24000.00' }),
        await standalone('G 1', 'garage', 'sold'),
        await standalone('MP 6', 'parking_space', 'available', { host_status: 'draft' }),
      ])
        expect(created.statusCode, created.body).toBe(201)
      await createFlat(investment, 'B/1.01', {
        components: [
          { kind: 'parking_space', designation: 'MP 12', price: '40000.00', price_from: '2026-11-01' },
          { kind: 'parking_space', designation: 'MP 13', price: '41000.00', price_from: '2026-11-01' },
          { kind: 'storage_room', designation: 'KL 3', price: '18000.00', price_from: '2026-11-01' },
        ],
      })
      await call('PUT', `/investments/${investment}/public-prices`, { enabled: true })
      const units = (await prices(investment)).json().units as Json[]
      const file = await fileOffers(investment)
      expect(units.map((unit) => unit.designation)).toEqual(['B/1.01', 'KL 7', 'MP 5'])
      expect(units.map((unit) => unit.designation).sort()).toEqual(await fileCodes(investment))
      const money = (cents: number | null) => (cents === null ? null : (cents / 100).toFixed(2))
      for (const offer of file) {
        const unit = units.find((u) => u.id === offer.id) as Json
        const price = (cents: number | null, from: string | null) =>
          cents === null ? null : { amount: money(cents), valid_from: from }
        expect(unit, offer.code).toMatchObject({
          designation: offer.code,
          price_total: price(offer.priceTotalCents, offer.priceTotalFrom),
          // the file writes a standalone part's total only (46 or 50): no m², no column 42
          price_m2: offer.offerKind === 'property' ? price(offer.priceM2Cents, offer.priceM2From) : null,
          price_combined:
            offer.offerKind === 'property' ? price(offer.priceCombinedCents, offer.priceCombinedFrom) : null,
        })
        expect((unit.parts as Json[]).map((part) => [part.designation, part.price])).toEqual(
          offer.components.map((c) => [c.designation, price(c.priceCents, c.priceFrom)]),
        )
      }
      expect(units.find((unit) => unit.designation === 'MP 5')).toMatchObject({
        kind: 'parking_space',
        status: 'available',
        floor: -1,
        history: [{ valid_from: '2026-11-02', price_m2: null, price_total: '45000.00' }],
      })
      expect(units.find((unit) => unit.designation === 'KL 7')).toMatchObject({
        kind: 'storage_room',
        status: 'reserved',
        area_m2: '4.50',
        price_total: { amount: '24000.00', valid_from: '2026-11-02' },
      })
      expect(units.find((unit) => unit.designation === 'B/1.01')).toMatchObject({
        price_combined: { amount: '750600.00', valid_from: '2026-11-01' },
      })
    })

    it('follows the publication’s statuses as the file does: a reserved unit leaves both when the file leaves it out', async () => {
      const settings = () => getPublicationSettings(state.env.ctx)
      const designations = async () =>
        ((await prices()).json().units as Json[]).map((unit) => unit.designation as string).sort()
      const before = await prices()
      expect(await designations()).toEqual(['A/1.01', 'A/1.02'])
      expect(await fileCodes(state.investmentId)).toEqual(['A/1.01', 'A/1.02'])

      await updatePublicationSettings(state.env.ctx, { published_statuses: ['available'] }, { type: 'cli' })
      // the settings are read with the request: the cached answer is not served any more
      const availableOnly = await prices(state.investmentId, { 'if-none-match': before.headers.etag as string })
      expect(availableOnly.statusCode).toBe(200)
      expect((availableOnly.json().units as Json[]).map((unit) => unit.designation)).toEqual(['A/1.01'])
      expect(await fileCodes(state.investmentId)).toEqual(['A/1.01'])

      // a sold unit the file is set to list is no longer on offer: not on the website
      await updatePublicationSettings(
        state.env.ctx,
        { published_statuses: ['available', 'reserved', 'sold'] },
        { type: 'cli' },
      )
      expect(await fileCodes(state.investmentId)).toEqual(['A/1.01', 'A/1.02', 'A/1.03'])
      expect(await designations()).toEqual(['A/1.01', 'A/1.02'])

      await updatePublicationSettings(state.env.ctx, { published_statuses: ['available', 'reserved'] }, { type: 'cli' })
      expect((await settings()).published_statuses).toEqual(['available', 'reserved'])
      expect(await designations()).toEqual(['A/1.01', 'A/1.02'])
    })

    it('lists each price change of a part sold with the unit with its date, an announced one only from its day', async () => {
      const flat = await createFlat(state.investmentId, 'A/1.06', {
        components: [{ kind: 'storage_room', designation: 'KL 9', price: '15000.00', price_from: '2026-11-01' }],
      })
      const read = async () => (await call('GET', `/offers/${flat.id as number}`)).json() as Json
      const componentId = ((await read()).components as Json[])[0]?.id as number
      const changePart = async (price: string, price_from: string) => {
        const current = await read()
        const changed = await call(
          'PATCH',
          `/offers/${flat.id as number}/components/${componentId}`,
          { price, price_from, reason: 'Nowy cennik komórek' },
          { 'if-match': current.version as string },
        )
        expect(changed.statusCode, changed.body).toBe(200)
      }
      await changePart('16000.00', '2026-11-10')
      await changePart('17000.00', '2026-12-01')
      const part = async () => {
        const unit = ((await prices()).json().units as Json[]).find((u) => u.id === flat.id) as Json
        return (unit.parts as Json[])[0] as Json
      }
      expect(await part()).toMatchObject({
        designation: 'KL 9',
        price: { amount: '16000.00', valid_from: '2026-11-10' },
        history: [
          { valid_from: '2026-11-10', amount: '16000.00' },
          { valid_from: '2026-11-01', amount: '15000.00' },
        ],
      })
      state.env.clock.set('2026-12-01T08:00:00Z')
      expect((await part()).history).toEqual([
        { valid_from: '2026-12-01', amount: '17000.00' },
        { valid_from: '2026-11-10', amount: '16000.00' },
        { valid_from: '2026-11-01', amount: '15000.00' },
      ])
      state.env.clock.set('2026-11-20T10:00:00Z')
    })
  })
})

describeEachDatabase(
  'public price endpoint: rate limit per client address',
  (getEnv) => {
    const { state, call, prices } = setUp(getEnv)

    it('answers 429 rest_rate_limited with Retry-After past the limit, per forwarded address of a trusted proxy', async () => {
      const enabled = await call('PUT', `/investments/${state.investmentId}/public-prices`, { enabled: true })
      expect(enabled.statusCode).toBe(200)
      const from = (address: string) => prices(state.investmentId, { 'x-forwarded-for': address })
      for (let i = 0; i < 3; i++) expect((await from('203.0.113.7')).statusCode).toBe(200)
      const limited = await from('203.0.113.7')
      expect(limited.statusCode).toBe(429)
      expect(limited.json()).toMatchObject({ error: 'rest_rate_limited' })
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60)
      // another address behind the same proxy has its own count
      expect((await from('198.51.100.20')).statusCode).toBe(200)
      // the count follows the window
      state.env.clock.advance(61_000)
      expect((await from('203.0.113.7')).statusCode).toBe(200)
    })
  },
  { env: { DG_PUBLIC_PRICES_RATE_LIMIT: '3', DG_TRUSTED_PROXIES: '127.0.0.1' } },
)

describeEachDatabase(
  'public price endpoint: forwarded addresses from an untrusted peer',
  (getEnv) => {
    const { state, call, prices } = setUp(getEnv)

    it('counts the peer’s own address, whatever X-Forwarded-For it sends', async () => {
      await call('PUT', `/investments/${state.investmentId}/public-prices`, { enabled: true })
      for (let i = 0; i < 3; i++)
        expect((await prices(state.investmentId, { 'x-forwarded-for': `192.0.2.${i}` })).statusCode).toBe(200)
      expect((await prices(state.investmentId, { 'x-forwarded-for': '192.0.2.99' })).statusCode).toBe(429)
    })
  },
  { env: { DG_PUBLIC_PRICES_RATE_LIMIT: '3' } },
)

describeEachDatabase('public price endpoint: settings changed on another instance', (getEnv) => {
  const { state, prices } = setUp(getEnv)
  let other: Awaited<ReturnType<typeof buildApp>>
  let otherDatabase: ReturnType<typeof openDatabase> | undefined

  beforeAll(async () => {
    // a second instance on the same database (on SQLite, another connection to the file)
    const env = getEnv()
    otherDatabase = openDatabase(env.database.connection)
    other = await buildApp({ config: env.config, database: otherDatabase, now: env.clock.now })
    await other.ready()
  })
  afterAll(async () => {
    await other?.close()
    await otherDatabase?.destroy()
  })

  it('answers, then refuses, on the very next request after the other instance turned the prices on, then off', async () => {
    expect((await prices()).statusCode).toBe(404)
    const put = (enabled: boolean) =>
      other.inject({
        method: 'PUT',
        url: `${API}/investments/${state.investmentId}/public-prices`,
        payload: { enabled, allowed_origins: [SITE] },
        headers: { authorization: state.admin.authorization },
      })
    expect((await put(true)).statusCode).toBe(200)
    const on = await prices(state.investmentId, { origin: SITE })
    expect(on.statusCode).toBe(200)
    expect(on.headers['access-control-allow-origin']).toBe(SITE)
    expect((await put(false)).statusCode).toBe(200)
    const off = await prices(state.investmentId, { 'if-none-match': on.headers.etag as string })
    expect(off.statusCode).toBe(404)
    expect(off.json()).toEqual({ error: 'public_prices_unavailable' })
  })
})
