import { sql } from 'kysely'
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { setOption } from '../../src/host/options/options.js'
import { setLicense } from '../../src/licensing/license.js'
import { basicAuth, createTestUser, grantProLicense } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const BASE = '/wp-json/dg/v2'
const OFFER_KEYS = [
  'id',
  'title',
  'code',
  'offer_kind',
  'property_type',
  'is_standalone_part',
  'offer_type_label',
  'url',
  'status',
  'status_label',
  'area',
  'area_label',
  'rooms',
  'floor',
  'building',
  'price',
  'price_cents',
  'price_m2',
  'price_m2_cents',
  'price_date',
  'price_m2_date',
  'variant',
  'variant_label',
  'variant_components',
  'image',
  'gallery',
  'investment_id',
]

describeEachDatabase(
  'catalog read API',
  (getEnv) => {
    let env: TestEnv
    let auth: string
    const get = (url: string, headers: Record<string, string> = {}) =>
      env.app.inject({ method: 'GET', url: `${BASE}${url}`, headers: { authorization: auth, ...headers } })

    beforeAll(async () => {
      env = getEnv()
      const demo = await setUpDemo(env.ctx)
      auth = basicAuth('website', demo.reader.application_password)
    })

    async function publishedOfferIds(): Promise<number[]> {
      const rows = await env.ctx.db
        .selectFrom('offers')
        .innerJoin('investments', 'investments.id', 'offers.investment_id')
        .select('offers.id')
        .where('offers.host_status', '=', 'publish')
        .where('investments.host_status', '=', 'publish')
        .execute()
      return rows.map((r) => r.id).sort((a, b) => a - b)
    }

    async function hiddenOfferIds(): Promise<number[]> {
      const published = new Set(await publishedOfferIds())
      const all = await env.ctx.db.selectFrom('offers').select('id').execute()
      return all.map((r) => r.id).filter((id) => !published.has(id))
    }

    it('refuses missing or wrong credentials with 401, a login session with 401 and a user without the capability with 403 dg_catalog_forbidden', async () => {
      expect((await env.app.inject({ url: `${BASE}/catalog` })).statusCode).toBe(401)
      const wrong = await env.app.inject({
        url: `${BASE}/catalog`,
        headers: { authorization: basicAuth('website', 'x'.repeat(24)) },
      })
      expect(wrong.statusCode).toBe(401)
      const admin = await createTestUser(env.ctx, 'administrator')
      const login = await env.app.inject({
        method: 'POST',
        url: `${BASE}/session`,
        payload: { login: admin.login, password: admin.loginPassword },
      })
      const cookie = String(login.headers['set-cookie']).split(';')[0] ?? ''
      const viaSession = await env.app.inject({
        url: `${BASE}/catalog`,
        headers: { cookie, 'x-wp-nonce': login.json().nonce },
      })
      expect(viaSession.statusCode).toBe(401)
      expect(
        (await env.app.inject({ url: `${BASE}/catalog`, headers: { authorization: admin.authorization } })).statusCode,
      ).toBe(200)

      const outsider = await createTestUser(env.ctx, 'dg_catalog_reader')
      await env.ctx.db.updateTable('users').set({ role: 'subscriber' }).where('id', '=', outsider.id).execute()
      const refused = await env.app.inject({
        url: `${BASE}/catalog/properties`,
        headers: { authorization: outsider.authorization },
      })
      expect(refused.statusCode).toBe(403)
      expect(refused.json()).toEqual({
        code: 'dg_catalog_forbidden',
        message: expect.any(String),
        data: { status: 403 },
      })
    })

    it('answers 403 pro_feature_required without the api_webhooks entitlement', async () => {
      await setLicense(env.ctx, { plan: 'pro', entitlements: ['bulk_import'], actor: { type: 'system' } })
      const response = await get('/catalog/properties')
      expect(response.statusCode).toBe(403)
      expect(response.json()).toEqual({ error: 'pro_feature_required', feature: 'api_webhooks' })
      await grantProLicense(env.ctx)
    })

    it('honours a licence changed by hand in SQL on the very next request', async () => {
      expect((await get('/catalog')).statusCode).toBe(200)
      const { value } = await env.ctx.db
        .selectFrom('options')
        .select('value')
        .where('name', '=', 'dg_license')
        .executeTakeFirstOrThrow()
      await env.ctx.db
        .updateTable('options')
        .set({ value: JSON.stringify({ ...(JSON.parse(value) as object), suspended: true }) })
        .where('name', '=', 'dg_license')
        .execute()
      const refused = await get('/catalog')
      expect(refused.statusCode).toBe(403)
      expect(refused.json()).toEqual({ error: 'pro_feature_required', feature: 'api_webhooks' })
      await grantProLicense(env.ctx)
      expect((await get('/catalog')).statusCode).toBe(200)
    })

    it('returns the discovery object', async () => {
      const response = await get('/catalog')
      expect(response.statusCode).toBe(200)
      const body = response.json()
      expect(body).toMatchObject({
        api_version: '2.1',
        plugin_version: '2.1.0',
        contract: { id: expect.any(String), valid_until: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) },
        extension_options: {},
      })
      expect(body.resources.properties).toMatch(/\/wp-json\/dg\/v2\/catalog\/properties$/)
      expect(body.resources.investments).toMatch(/\/wp-json\/dg\/v2\/catalog\/investments$/)
    })

    it('counts a filter again after a write, whichever page or order is asked next', async () => {
      // pages of one filter share its total within a catalog revision; a write must end that
      const first = await get('/catalog/properties?per_page=2&page=1&status=available&orderby=title&order=ASC')
      const total = Number(first.headers['x-wp-total'])
      expect(total).toBeGreaterThan(2)
      const shown = first.json()[0] as { id: number }
      await env.ctx.db.updateTable('offers').set({ status: 'sold' }).where('id', '=', shown.id).execute()
      const second = await get('/catalog/properties?per_page=2&page=2&status=available&orderby=price&order=DESC')
      expect(second.headers['x-wp-total']).toBe(String(total - 1))
      await env.ctx.db.updateTable('offers').set({ status: 'available' }).where('id', '=', shown.id).execute()
      const third = await get('/catalog/properties?per_page=2&page=1&status=available&orderby=area')
      expect(third.headers['x-wp-total']).toBe(String(total))
    })

    it('counts a price filter again after a price change, while the other totals stay right through it', async () => {
      // totals of filters without a price are kept across price changes (the listing revision)
      const byStatus = '/catalog/properties?per_page=2&status=available&orderby=title&order=ASC'
      const byPrice = '/catalog/properties?per_page=100&price_min=1'
      const statusTotal = Number((await get(byStatus)).headers['x-wp-total'])
      const priced = await get(byPrice)
      const pricedTotal = Number(priced.headers['x-wp-total'])
      const offer = (priced.json() as Array<{ id: number }>)[0] as { id: number }
      const before = await env.ctx.db
        .selectFrom('offers')
        .select('price_total_cents')
        .where('id', '=', offer.id)
        .executeTakeFirstOrThrow()
      await env.ctx.db.updateTable('offers').set({ price_total_cents: 0 }).where('id', '=', offer.id).execute()
      const repriced = await get(byPrice)
      expect(repriced.headers['x-wp-total']).toBe(String(pricedTotal - 1))
      expect((repriced.json() as Array<{ id: number }>).map((o) => o.id)).not.toContain(offer.id)
      expect((await get(byStatus)).headers['x-wp-total']).toBe(String(statusTotal))
      await env.ctx.db
        .updateTable('offers')
        .set({ price_total_cents: before.price_total_cents })
        .where('id', '=', offer.id)
        .execute()
      expect((await get(byPrice)).headers['x-wp-total']).toBe(String(pricedTotal))
    })

    it('shows a page ordered by title or area with its offers as they are now, and reorders it at the next write', async () => {
      // which offers such a page holds is kept under the listing revision (catalog-service.ts
      // pageAtRevision); prices are read every time, and a write to a watched column reorders
      type Listed = { id: number; title: string; price_cents: number; area: string }
      const byTitle = '/catalog/properties?per_page=3&status=available&orderby=title&order=ASC'
      const byArea = '/catalog/properties?per_page=3&orderby=area&order=DESC'
      const ids = (response: { json(): unknown }) => (response.json() as Listed[]).map((o) => o.id)
      const first = await get(byTitle)
      const [a, b, c] = first.json() as Listed[]
      expect(c).toBeDefined()
      const saved = await env.ctx.db
        .selectFrom('offers')
        .select(['id', 'title', 'area', 'price_total_cents', 'host_status'])
        .where('id', 'in', [a!.id, b!.id, c!.id])
        .execute()
      try {
        // a price change: the same offers, the new price, a new ETag
        await env.ctx.db.updateTable('offers').set({ price_total_cents: 12_345_600 }).where('id', '=', b!.id).execute()
        const repriced = await get(byTitle)
        expect(ids(repriced)).toEqual([a!.id, b!.id, c!.id])
        expect((repriced.json() as Listed[])[1]?.price_cents).toBe(12_345_600)
        expect(repriced.headers.etag).not.toBe(first.headers.etag)
        // a title change: the third comes first
        await env.ctx.db.updateTable('offers').set({ title: '  A pierwsza' }).where('id', '=', c!.id).execute()
        expect(ids(await get(byTitle))).toEqual([c!.id, a!.id, b!.id])
        // an area change: the largest comes first when ordered by area
        await get(byArea)
        await env.ctx.db.updateTable('offers').set({ area: '9999.50' }).where('id', '=', a!.id).execute()
        expect(ids(await get(byArea))[0]).toBe(a!.id)
        // unpublished: gone from the page at once
        await env.ctx.db.updateTable('offers').set({ host_status: 'draft' }).where('id', '=', c!.id).execute()
        expect(ids(await get(byTitle))).not.toContain(c!.id)
        expect(ids(await get(byArea))).not.toContain(c!.id)
      } finally {
        for (const row of saved) {
          const { id, ...columns } = row
          await env.ctx.db.updateTable('offers').set(columns).where('id', '=', id).execute()
        }
      }
      expect(ids(await get(byTitle))).toEqual([a!.id, b!.id, c!.id])
    })

    it('follows prices at once in a search ordered by price, and a title change into or out of the search', async () => {
      // the offers a search matches are kept under the listing revision (listing-cache.ts
      // narrowedFilters); the price range, the order by price and the total are read each time
      const search = '/catalog/properties?search=zzq&price_min=1&price_max=2000000000&orderby=price&order=DESC'
      const listed = async () => {
        const response = await get(search)
        expect(response.statusCode).toBe(200)
        return {
          total: response.headers['x-wp-total'],
          ids: (response.json() as Array<{ id: number }>).map((o) => o.id),
        }
      }
      expect(await listed()).toEqual({ total: '0', ids: [] })
      const [a, b] = (await get('/catalog/properties?per_page=2&orderby=title&order=ASC')).json() as Array<{
        id: number
      }>
      const saved = await env.ctx.db
        .selectFrom('offers')
        .select(['id', 'title', 'price_total_cents'])
        .where('id', 'in', [a!.id, b!.id])
        .execute()
      const set = (id: number, values: { title?: string; price_total_cents?: number | null }) =>
        env.ctx.db.updateTable('offers').set(values).where('id', '=', id).execute()
      try {
        await set(a!.id, { title: 'Lokal zzq 1', price_total_cents: 50_000_000 })
        expect(await listed()).toEqual({ total: '1', ids: [a!.id] })
        // in the search, out of the price range
        await set(b!.id, { title: 'Lokal ZZQ 2', price_total_cents: 0 })
        expect(await listed()).toEqual({ total: '1', ids: [a!.id] })
        // prices alone: one comes into the range, the order follows them, one leaves
        await set(b!.id, { price_total_cents: 60_000_000 })
        expect(await listed()).toEqual({ total: '2', ids: [b!.id, a!.id] })
        await set(a!.id, { price_total_cents: 0 })
        expect(await listed()).toEqual({ total: '1', ids: [b!.id] })
        await set(a!.id, { price_total_cents: 70_000_000 })
        expect(await listed()).toEqual({ total: '2', ids: [a!.id, b!.id] })
        // a title out of the search
        await set(a!.id, { title: 'Lokal 1' })
        expect(await listed()).toEqual({ total: '1', ids: [b!.id] })
      } finally {
        for (const { id, ...values } of saved) await set(id, values)
      }
      expect(await listed()).toEqual({ total: '0', ids: [] })
    })

    it('lists every published offer, and only those, across pages with the paging headers', async () => {
      const expected = await publishedOfferIds()
      const seen: number[] = []
      let page = 1
      for (;;) {
        const response = await get(`/catalog/properties?per_page=5&page=${page}&orderby=title&order=ASC`)
        expect(response.statusCode).toBe(200)
        expect(response.headers['x-wp-total']).toBe(String(expected.length))
        expect(response.headers['x-wp-totalpages']).toBe(String(Math.ceil(expected.length / 5)))
        expect(response.headers['cache-control']).toBe('private, must-revalidate')
        expect(response.headers.etag).toMatch(/^"[^"]+"$/)
        expect(response.headers['last-modified']).toMatch(/GMT$/)
        const link = String(response.headers.link ?? '')
        if (page > 1) {
          const prev = /<([^>]+)>; rel="prev"/.exec(link)?.[1]
          expect(new URL(prev ?? 'http://x').searchParams.get('page')).toBe(String(page - 1))
        }
        seen.push(...response.json().map((o: { id: number }) => o.id))
        if (!link.includes('rel="next"')) break
        page++
      }
      expect(seen.sort((a, b) => a - b)).toEqual(expected)
      expect(expected.length).toBeGreaterThan(10)
      const past = await get(`/catalog/properties?per_page=5&page=${page + 1}`)
      expect(past.statusCode).toBe(400)
      expect(past.json().code).toBe('rest_post_invalid_page_number')
    })

    it('never shows an unpublished offer or an offer of an unpublished investment, in details, history or related', async () => {
      const hidden = await hiddenOfferIds()
      expect(hidden.length).toBeGreaterThan(0)
      const draftInvestment = await env.ctx.db
        .selectFrom('investments')
        .select('id')
        .where('host_status', '!=', 'publish')
        .executeTakeFirstOrThrow()
      const now = new Date().toISOString()
      const inDraft = await env.ctx.db
        .insertInto('offers')
        .values({
          investment_id: draftInvestment.id,
          source_property_id: 'hidden-1',
          offer_kind: 'property',
          property_type: 'mieszkanie',
          code: 'H1',
          title: 'Ukryte H1',
          status: 'available',
          host_status: 'publish',
          custom_meta: '{}',
          gallery: '[]',
          created_at: now,
          modified_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      for (const id of [...hidden, inDraft.id]) {
        for (const path of [
          `/catalog/properties/${id}`,
          `/catalog/properties/${id}/price-history`,
          `/catalog/properties/${id}/related`,
        ]) {
          const response = await get(path)
          expect(response.statusCode, path).toBe(404)
          expect(response.json().code).toBe('dg_property_not_found')
        }
      }
      const list = await get('/catalog/properties?per_page=100')
      const listed = list.json().map((o: { id: number }) => o.id)
      for (const id of [...hidden, inDraft.id]) expect(listed).not.toContain(id)
      expect((await get(`/catalog/investments/${draftInvestment.id}`)).statusCode).toBe(404)
      const investments = (await get('/catalog/investments')).json().map((i: { id: number }) => i.id)
      expect(investments).not.toContain(draftInvestment.id)
      const searched = (await get('/catalog/investments?search=tarasy')).json()
      expect(searched.map((i: { title: string }) => i.title)).toEqual(['Zielone Tarasy'])
      const published = await publishedOfferIds()
      const related = await get(`/catalog/properties/${published[0]}/related?per_page=100`)
      for (const id of [...hidden, inDraft.id])
        expect(related.json().map((o: { id: number }) => o.id)).not.toContain(id)
    })

    it('counts in X-WP-Total exactly the offers it lists, whether or not an unpublished investment holds published offers', async () => {
      // the count skips the join to investments while no unpublished investment holds a published
      // offer; both ways it must agree with the listed offers
      const draftInvestment = await env.ctx.db
        .selectFrom('investments')
        .select('id')
        .where('host_status', '!=', 'publish')
        .executeTakeFirstOrThrow()
      const filters = [
        '',
        'status=available',
        'rooms=2',
        'price_min=1&price_max=2000000000',
        'area_min=30.00',
        'search=a',
      ]
      async function expectTotalsToMatchLists(state: string) {
        for (const filter of filters) {
          const response = await get(`/catalog/properties?per_page=100&${filter}`)
          expect(response.statusCode, `${state}: ${filter}`).toBe(200)
          expect(response.headers['x-wp-total'], `${state}: ${filter}`).toBe(String(response.json().length))
        }
      }
      const now = new Date().toISOString()
      const offer = {
        investment_id: draftInvestment.id,
        offer_kind: 'property',
        property_type: 'mieszkanie',
        status: 'available',
        host_status: 'publish',
        rooms: 2,
        area: '55.00',
        price_total_cents: 50_000_000,
        custom_meta: '{}',
        gallery: '[]',
        created_at: now,
        modified_at: now,
      }
      await env.ctx.db
        .insertInto('offers')
        .values([
          { ...offer, source_property_id: 'hidden-count-1', code: 'HC1', title: 'Ukryte HC1 a' },
          { ...offer, source_property_id: 'hidden-count-2', code: 'HC2', title: 'Ukryte HC2 a' },
        ])
        .execute()
      await expectTotalsToMatchLists('an unpublished investment with published offers')
      const all = await get('/catalog/properties?per_page=100')
      expect(all.headers['x-wp-total']).toBe(String((await publishedOfferIds()).length))
      await env.ctx.db
        .updateTable('offers')
        .set({ host_status: 'draft' })
        .where('investment_id', 'in', (eb) =>
          eb.selectFrom('investments').select('id').where('host_status', '!=', 'publish'),
        )
        .execute()
      await expectTotalsToMatchLists('no unpublished investment with published offers')
      const after = await get('/catalog/properties?per_page=100')
      expect(after.headers['x-wp-total']).toBe(String((await publishedOfferIds()).length))
      expect(Number(after.headers['x-wp-total'])).toBe(Number(all.headers['x-wp-total']))
    })

    it('returns the complete offer object with Polish presentation values', async () => {
      const list = (await get('/catalog/properties?per_page=100')).json()
      for (const offer of list) {
        for (const key of OFFER_KEYS) expect(offer, key).toHaveProperty(key)
        expect(Number.isInteger(offer.price_cents)).toBe(true)
        expect(Number.isInteger(offer.price_m2_cents)).toBe(true)
        if (offer.price_cents > 0) expect(offer.price).toMatch(/^\d{1,3}( \d{3})*,\d{2} zł$/)
        expect(offer.is_standalone_part).toBe(offer.offer_kind === 'standalone_part')
        expect(JSON.stringify(offer)).not.toMatch(/"X"/)
      }
      const priced = list.find((o: { price_cents: number; area: string }) => o.price_cents > 100_000_000 && o.area)
      const row = await env.ctx.db
        .selectFrom('offers')
        .selectAll()
        .where('id', '=', priced.id)
        .executeTakeFirstOrThrow()
      expect(priced.price_cents).toBe(row.price_total_cents)
      expect(priced.area_label).toBe(`${row.area?.replace('.', ',')} m²`)
    })

    it('returns the offer detail with components, contact without buyer data, media and the price object', async () => {
      const withComponents = await env.ctx.db
        .selectFrom('offer_components')
        .select('offer_id')
        .executeTakeFirstOrThrow()
      const response = await get(`/catalog/properties/${withComponents.offer_id}`)
      expect(response.statusCode).toBe(200)
      expect(response.headers.etag).toBeDefined()
      const detail = response.json()
      expect(Object.keys(detail)).toEqual(expect.arrayContaining(['offer', 'components', 'contact', 'media', 'price']))
      expect(detail.components.length).toBeGreaterThan(0)
      expect(Object.keys(detail.components[0]).sort()).toEqual([
        'date',
        'description',
        'group',
        'legal_title',
        'price',
        'relation',
        'requirement',
        'variant',
      ])
      expect(Object.keys(detail.contact).sort()).toEqual(['developer_name', 'email', 'phone', 'sales_office_address'])
      expect(detail.price).toEqual({
        cents: detail.offer.price_cents,
        formatted: detail.offer.price,
        valid_from: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      })
      expect(detail.offer.variant_components.length).toBe(detail.components.length)
      expect(Array.isArray(detail.media.gallery)).toBe(true)
    })

    it('returns the price history with null cents for a first and a withdrawn price and never "X"', async () => {
      const offerId = (await publishedOfferIds())[0] as number
      const now = new Date().toISOString()
      await env.ctx.db
        .insertInto('price_history')
        .values({
          offer_id: offerId,
          price_type: 'm2',
          record_type: 'withdrawal',
          before_cents: 1_500_000,
          after_cents: null,
          valid_from: '2026-11-01',
          recorded_at: now,
          reason: 'wycofanie',
          correction: 0,
        })
        .execute()
      const response = await get(`/catalog/properties/${offerId}/price-history`)
      expect(response.statusCode).toBe(200)
      const body = response.json()
      expect(body.property_id).toBe(offerId)
      const first = body.items.find((i: { record_type: string }) => i.record_type === 'first')
      expect(first.before).toEqual({ cents: null, formatted: '' })
      expect(first.after.cents).toEqual(expect.any(Number))
      const withdrawal = body.items.find((i: { record_type: string }) => i.record_type === 'withdrawal')
      expect(withdrawal).toMatchObject({
        after: { cents: null, formatted: '' },
        before: { cents: 1_500_000, formatted: '15 000,00 zł' },
        correction: false,
        reason: 'wycofanie',
      })
      expect(response.body).not.toMatch(/"X"/)
    })

    it('flags a price announced for a later day in the history as announced until its day, while the offer shows the price in force', async () => {
      const part = await env.ctx.db
        .selectFrom('offers')
        .select(['id', 'price_total_cents', 'price_total_from'])
        .where('offer_kind', '=', 'standalone_part')
        .where('host_status', '=', 'publish')
        .orderBy('id')
        .executeTakeFirstOrThrow()
      const admin = await createTestUser(env.ctx, 'administrator')
      const announced = await env.app.inject({
        method: 'PATCH',
        url: `${BASE}/offers/${part.id}`,
        headers: { authorization: admin.authorization, 'if-match': '*' },
        payload: { price_total: '91000.00', price_total_from: '2026-12-06', reason: 'Cennik od grudnia' },
      })
      expect(announced.statusCode, announced.body).toBe(200)
      const items = async () =>
        ((await get(`/catalog/properties/${part.id}/price-history`)).json().items as Array<Record<string, unknown>>)
          .filter((item) => item.price_type === 'total')
          .map((item) => [item.valid_from, item.after, item.announced])
      const before = [part.price_total_from, { cents: part.price_total_cents, formatted: expect.any(String) }, false]
      const coming = ['2026-12-06', { cents: 9_100_000, formatted: '91 000,00 zł' }]
      expect(await items()).toEqual([before, [...coming, true]])
      const detail = (await get(`/catalog/properties/${part.id}`)).json()
      expect(detail.price).toMatchObject({ cents: part.price_total_cents, valid_from: part.price_total_from })

      // the day before it is still announced; on its day the same record is a plain one, without a write
      env.clock.set('2026-12-05T22:59:00Z')
      expect(await items()).toEqual([before, [...coming, true]])
      env.clock.set('2026-12-05T23:00:00Z')
      expect(await items()).toEqual([before, [...coming, false]])
      expect((await get(`/catalog/properties/${part.id}`)).json().price).toMatchObject({
        cents: 9_100_000,
        valid_from: '2026-12-06',
      })
      env.clock.set('2026-11-20T10:00:00Z')
    })

    it('filters and orders offers by every parameter', async () => {
      const all = (await get('/catalog/properties?per_page=100')).json()
      const check = async (query: string, predicate: (o: Record<string, any>) => boolean) => {
        const response = await get(`/catalog/properties?per_page=100&${query}`)
        expect(response.statusCode, query).toBe(200)
        const ids = response
          .json()
          .map((o: { id: number }) => o.id)
          .sort()
        const expected = all
          .filter(predicate)
          .map((o: Record<string, any>) => o.id)
          .sort()
        expect(ids, query).toEqual(expected)
        expect(expected.length, `${query} should match something`).toBeGreaterThan(0)
      }
      const investmentId = all[0]?.investment_id as number
      await check(`investment=${investmentId}`, (o) => o.investment_id === investmentId)
      await check('status=reserved', (o) => o.status === 'reserved')
      await check('offer_kind=standalone_part', (o) => o.offer_kind === 'standalone_part')
      await check('type=dom', (o) => o.property_type === 'dom')
      await check('rooms=3', (o) => o.rooms === '3')
      await check('floor=-1', (o) => o.floor === '-1')
      await check('area_min=50&area_max=70,5', (o) => o.area !== '' && Number(o.area) >= 50 && Number(o.area) <= 70.5)
      await check(
        'price_min=80000000&price_max=120000000',
        (o) => o.price_cents >= 80_000_000 && o.price_cents <= 120_000_000,
      )
      await check('search=a%2F1', (o) => /a\/1/i.test(o.code) || /a\/1/i.test(o.title))
      const future = await get('/catalog/properties?modified_after=2999-01-01T00:00:00Z')
      expect(future.json()).toEqual([])
      expect(future.headers['x-wp-total']).toBe('0')

      const byPrice = (await get('/catalog/properties?per_page=100&orderby=price&order=ASC')).json()
      const prices = byPrice.map((o: { price_cents: number }) => o.price_cents).filter((c: number) => c > 0)
      expect(prices).toEqual([...prices].sort((a, b) => a - b))
      const byArea = (await get('/catalog/properties?per_page=100&orderby=area&order=DESC')).json()
      const areas = byArea
        .map((o: { area: string }) => o.area)
        .filter(Boolean)
        .map(Number)
      expect(areas).toEqual([...areas].sort((a, b) => b - a))
      const byTitle = (await get('/catalog/properties?per_page=100&orderby=title&order=asc')).json()
      expect(byTitle.length).toBe(all.length)
    })

    it('refuses bad parameter values with 400 rest_invalid_param naming the parameter', async () => {
      for (const [query, param] of [
        ['per_page=0', 'per_page'],
        ['per_page=101', 'per_page'],
        ['page=0', 'page'],
        ['page=abc', 'page'],
        ['rooms=-1', 'rooms'],
        ['floor=1.5', 'floor'],
        ['area_min=abc', 'area_min'],
        ['area_max=1.234', 'area_max'],
        ['price_min=12.50', 'price_min'],
        ['modified_after=yesterday', 'modified_after'],
        ['orderby=random', 'orderby'],
        ['order=UP', 'order'],
        ['status=free', 'status'],
        ['offer_kind=castle', 'offer_kind'],
        ['investment=0', 'investment'],
      ]) {
        const response = await get(`/catalog/properties?${query}`)
        expect(response.statusCode, query).toBe(400)
        expect(response.json().code, query).toBe('rest_invalid_param')
        expect(Object.keys(response.json().data.params), query).toContain(param)
      }
      expect((await get('/catalog/properties/abc')).statusCode).toBe(400)
      expect((await get('/catalog/investments?per_page=500')).statusCode).toBe(400)
    })

    it('names the allowed values of an enumerated parameter in data.params and in the message', async () => {
      const orderby = await get('/catalog/properties?orderby=foo')
      expect(orderby.statusCode).toBe(400)
      expect(orderby.json()).toMatchObject({
        code: 'rest_invalid_param',
        data: { status: 400, params: { orderby: 'orderby must be one of modified, title, price, area.' } },
      })
      expect(orderby.json().message).toContain('orderby must be one of modified, title, price, area')
      const status = (await get('/catalog/properties?status=free')).json()
      expect(status.data.params.status).toBe('status must be one of available, reserved, sold, unavailable, archived.')
      const order = (await get('/catalog/properties?order=UP')).json()
      expect(order.data.params.order).toBe('order must be one of ASC, DESC, asc, desc.')
      // a parameter that is not enumerated keeps Ajv's own reason
      const perPage = (await get('/catalog/properties?per_page=0')).json()
      expect(perPage.data.params.per_page).toBe('per_page must be >= 1.')
    })

    it('projects _fields with dotted paths, a listed parent keeping its children, before the ETag', async () => {
      const id = (await publishedOfferIds())[0] as number
      const full = await get(`/catalog/properties/${id}`)
      const projected = await get(`/catalog/properties/${id}?_fields=offer.price_cents,offer.title,contact`)
      expect(projected.json()).toEqual({
        offer: { price_cents: full.json().offer.price_cents, title: full.json().offer.title },
        contact: full.json().contact,
      })
      expect(projected.headers.etag).not.toBe(full.headers.etag)
      const list = await get('/catalog/properties?per_page=3&_fields=id,price_cents,unknown_field')
      for (const item of list.json()) expect(Object.keys(item).sort()).toEqual(['id', 'price_cents'])
      const investments = await get('/catalog/investments?_fields=id,title,location.city')
      for (const item of investments.json()) expect(Object.keys(item.location)).toEqual(['city'])
      const history = await get(`/catalog/properties/${id}/price-history?_fields=items.after.cents`)
      for (const item of history.json().items) expect(item).toEqual({ after: { cents: item.after.cents } })
    })

    it('answers 304 to matching If-None-Match (strong, weak, lists, *) and If-Modified-Since, and ignores IMS when INM is present', async () => {
      const url = '/catalog/properties?per_page=3'
      const first = await get(url)
      const etag = String(first.headers.etag)
      const lastModified = String(first.headers['last-modified'])
      for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
        const response = await get(url, { 'if-none-match': inm })
        expect(response.statusCode, inm).toBe(304)
        expect(response.body).toBe('')
        expect(response.headers.etag).toBe(etag)
        expect(response.headers['last-modified']).toBe(lastModified)
      }
      expect((await get(url, { 'if-none-match': '"other"' })).statusCode).toBe(200)
      expect((await get(url, { 'if-modified-since': lastModified })).statusCode).toBe(304)
      expect((await get(url, { 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' })).statusCode).toBe(200)
      expect((await get(url, { 'if-none-match': '"other"', 'if-modified-since': lastModified })).statusCode).toBe(200)
      const detailUrl = `/catalog/properties/${(await publishedOfferIds())[0]}`
      const detail = await get(detailUrl)
      expect((await get(detailUrl, { 'if-none-match': String(detail.headers.etag) })).statusCode).toBe(304)
    })

    it('changes the answer and its ETag after any write to the catalog', async () => {
      const id = (await publishedOfferIds())[1] as number
      const url = `/catalog/properties?per_page=100`
      const before = await get(url)
      const detailBefore = await get(`/catalog/properties/${id}`)
      await env.ctx.db.updateTable('offers').set({ price_total_cents: 123_456_789 }).where('id', '=', id).execute()
      const after = await get(url, { 'if-none-match': String(before.headers.etag) })
      expect(after.statusCode).toBe(200)
      expect(after.json().find((o: { id: number }) => o.id === id).price).toBe('1 234 567,89 zł')
      const detailAfter = await get(`/catalog/properties/${id}`, { 'if-none-match': String(detailBefore.headers.etag) })
      expect(detailAfter.statusCode).toBe(200)
      expect(detailAfter.json().price).toMatchObject({ cents: 123_456_789, formatted: '1 234 567,89 zł' })
      const component = await env.ctx.db
        .selectFrom('offer_components')
        .select(['id', 'offer_id'])
        .executeTakeFirstOrThrow()
      const withComponent = await get(`/catalog/properties/${component.offer_id}`)
      await env.ctx.db
        .updateTable('offer_components')
        .set({ price_cents: 7_700_000 })
        .where('id', '=', component.id)
        .execute()
      expect(
        (
          await get(`/catalog/properties/${component.offer_id}`, {
            'if-none-match': String(withComponent.headers.etag),
          })
        ).statusCode,
      ).toBe(200)
    })

    it('never opens CORS, not even to a preflight', async () => {
      const preflight = await env.app.inject({
        method: 'OPTIONS',
        url: `${BASE}/catalog/properties`,
        headers: {
          origin: 'https://evil.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      })
      const simple = await get('/catalog/properties', { origin: 'https://evil.example' })
      for (const response of [preflight, simple]) {
        for (const header of Object.keys(response.headers))
          expect(header.toLowerCase().startsWith('access-control-')).toBe(false)
      }
    })

    it('exposes only allowed custom meta and extension options, and applies the extension hooks', async () => {
      const offerId = (await publishedOfferIds())[2] as number
      await env.ctx.db
        .updateTable('offers')
        .set({
          custom_meta: JSON.stringify({
            energy_class: 'A',
            balcony_area: 6.5,
            features: ['taras', 'ogródek'],
            crm_note: 'internal',
            api_token: 'tok-123',
            _wp_old_slug: 'x',
            _esticrm_id: '77',
            nested: { a: 1 },
            huge: 'y'.repeat(5000),
          }),
        })
        .where('id', '=', offerId)
        .execute()
      env.ctx.meta.register('dg_property', 'energy_class', { showInRest: true })
      env.ctx.meta.register('dg_property', 'crm_note', { showInRest: false })
      env.hooks.addFilter('dg_rest_business_meta_keys', (keys) => [
        ...keys,
        'balcony_area',
        'features',
        'api_token',
        '_wp_old_slug',
        '_esticrm_id',
        'nested',
        'huge',
      ])
      env.hooks.addFilter('dg_extension_settings_fields', (fields) => ({
        ...fields,
        show_prices: { type: 'boolean', label: 'Show prices', default: true, expose_in_catalog: true },
        headline: {
          type: 'string',
          label: 'Headline',
          default: '',
          sanitizer: (v) => String(v).trim().slice(0, 20),
          expose_in_catalog: true,
        },
        internal_limit: { type: 'integer', label: 'Internal', default: 5, expose_in_catalog: false },
        smtp_password: { type: 'string', label: 'SMTP', default: 'hunter2', expose_in_catalog: true },
      }))
      await setOption(env.ctx, 'dg_ext_headline', '   Nowe mieszkania w sprzedaży na Woli  ')
      const remove = env.hooks.addFilter('dg_frontend_property_data', (data, id) => ({
        ...data,
        badge: id === offerId ? 'promocja' : '',
      }))
      const seen: number[] = []
      const removeAction = env.hooks.addAction('dg_after_property_details', (id) => void seen.push(id))

      const detail = (await get(`/catalog/properties/${offerId}`)).json()
      expect(detail.custom_meta).toEqual({ energy_class: 'A', balcony_area: 6.5, features: ['taras', 'ogródek'] })
      expect(detail.offer.badge).toBe('promocja')
      expect(seen).toEqual([offerId])
      const discovery = (await get('/catalog')).json()
      expect(discovery.extension_options).toEqual({ show_prices: true, headline: 'Nowe mieszkania w sp' })
      remove()
      removeAction()
    })
  },
  { env: { DG_CATALOG_RATE_LIMIT: '100000' } },
)

describeEachDatabase(
  'catalog rate limit',
  (getEnv, dialect) => {
    it('allows the configured number per user–IP pair per minute, then 429 with Retry-After and RateLimit headers', async () => {
      const { app, ctx, clock } = getEnv()
      clock.set('2026-11-20T10:00:05Z')
      await grantProLicense(ctx)
      const reader = await createTestUser(ctx, 'dg_catalog_reader')
      const call = (ip: string, headers: Record<string, string> = {}) =>
        app.inject({
          url: `${BASE}/catalog`,
          remoteAddress: ip,
          headers: { authorization: reader.authorization, ...headers },
        })
      for (let i = 0; i < 5; i++) {
        const ok = await call('198.51.100.1')
        expect(ok.statusCode).toBe(200)
        expect(ok.headers['ratelimit-policy']).toBe('"catalog";q=5;w=60')
        expect(ok.headers.ratelimit).toBe(`"catalog";r=${4 - i};t=55`)
      }
      const limited = await call('198.51.100.1')
      expect(limited.statusCode).toBe(429)
      expect(limited.headers['retry-after']).toBe('55')
      expect(limited.headers['ratelimit']).toBe('"catalog";r=0;t=55')
      expect(limited.json().code).toBe('rest_too_many_requests')
      // X-Forwarded-For from an untrusted peer does not open a new bucket
      expect((await call('198.51.100.1', { 'x-forwarded-for': '203.0.113.50' })).statusCode).toBe(429)
      expect((await call('198.51.100.2')).statusCode).toBe(200)
      clock.advance(60_000)
      expect((await call('198.51.100.1')).statusCode).toBe(200)
    })

    // SQLite counts in memory; nothing can fail to confirm
    it.skipIf(dialect === 'sqlite')('answers 503 when the counter cannot be confirmed', async () => {
      const { app, ctx } = getEnv()
      const reader = await createTestUser(ctx, 'dg_catalog_reader')
      await sql`ALTER TABLE rate_limit_counters RENAME TO rate_limit_counters_off`.execute(ctx.db)
      try {
        const response = await app.inject({ url: `${BASE}/catalog`, headers: { authorization: reader.authorization } })
        expect(response.statusCode).toBe(503)
        expect(response.json().code).toBe('rate_limit_unavailable')
      } finally {
        await sql`ALTER TABLE rate_limit_counters_off RENAME TO rate_limit_counters`.execute(ctx.db)
      }
    })
  },
  { env: { DG_CATALOG_RATE_LIMIT: '5' } },
)
