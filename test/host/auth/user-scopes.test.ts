/*
 * Users limited to some developer entities and investments (docs/decisions/roles-and-capabilities.md,
 * "Scope"): set through the users API, then every list leaves out what is outside the scope, every
 * read or write of an object outside it answers 403 rest_forbidden_scope and writes nothing, and
 * inside it everything works as for an unscoped operator.
 */
import { beforeAll, describe, expect, it } from 'vitest'

import { createTestUser, grantProLicense, type TestUser } from '../../helpers/factories.js'
import {
  API,
  executeImport,
  flatRow,
  previewOffers,
  type ScopedCatalog,
  seedScopedCatalog,
} from '../../helpers/scoped-catalog.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

const row = flatRow

describeEachDatabase('users limited to some developer entities and investments', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  /** Limited to investment A of the first developer entity. */
  let salesA: TestUser
  /** Limited to the second developer entity (investment C, and any it gets later). */
  let salesSpv2: TestUser
  let reader: TestUser
  const ids: ScopedCatalog = { dev1: 0, dev2: 0, a: 0, b: 0, c: 0, offerA: 0, offerC: 0 }

  const call = (
    user: TestUser,
    method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      headers: { authorization: user.authorization, ...headers },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    })
  const preview = (user: TestUser, rows: string[]) => previewOffers(env, user, rows)
  const execute = (user: TestUser, jobId: string, key: string) => executeImport(env, user, jobId, key)
  const count = async (table: 'offers' | 'import_jobs' | 'price_history' | 'investments') =>
    Number(
      (
        await env.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
  const priceOf = async (offerId: number) =>
    (
      await env.ctx.db
        .selectFrom('offers')
        .select('price_total_cents')
        .where('id', '=', offerId)
        .executeTakeFirstOrThrow()
    ).price_total_cents
  const expectScopeRefusal = (response: { statusCode: number; json: () => unknown }) => {
    expect(response.statusCode).toBe(403)
    expect((response.json() as { code: string }).code).toBe('rest_forbidden_scope')
  }

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    salesA = await createTestUser(env.ctx, 'dg_operator')
    salesSpv2 = await createTestUser(env.ctx, 'dg_operator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    Object.assign(ids, await seedScopedCatalog(env, admin, 'user-scopes'))
  })

  describe('setting a scope', () => {
    it('refuses a scope on an administrator, unknown ids and an empty scope with 422, writing nothing', async () => {
      const onAdmin = await call(admin, 'PATCH', `/users/${admin.id}`, {
        scope: { developers: [ids.dev1], investments: [] },
      })
      expect(onAdmin.statusCode).toBe(422)
      expect(onAdmin.json().issues.map((i: { code: string }) => i.code)).toEqual(['scope_on_administrator'])

      const unknown = await call(admin, 'PATCH', `/users/${salesA.id}`, {
        scope: { developers: [999999], investments: [ids.a, 888888] },
      })
      expect(unknown.statusCode).toBe(422)
      expect(unknown.json().issues.map((i: { code: string }) => i.code)).toEqual([
        'unknown_developer',
        'unknown_investment',
      ])
      const empty = await call(admin, 'PATCH', `/users/${salesA.id}`, { scope: { developers: [], investments: [] } })
      expect(empty.json().issues.map((i: { code: string }) => i.code)).toEqual(['scope_empty'])
      expect((await call(admin, 'GET', `/users/${salesA.id}`)).json().scope).toBeNull()
      expect(await env.ctx.db.selectFrom('user_scopes').selectAll().execute()).toEqual([])
    })

    it('sets, shows and audits a scope; a new user may be created with one', async () => {
      const set = await call(admin, 'PATCH', `/users/${salesA.id}`, { scope: { developers: [], investments: [ids.a] } })
      expect(set.statusCode).toBe(200)
      expect(set.json().scope).toEqual({ developers: [], investments: [ids.a] })
      const second = await call(admin, 'PATCH', `/users/${salesSpv2.id}`, {
        scope: { developers: [ids.dev2], investments: [] },
      })
      expect(second.json().scope).toEqual({ developers: [ids.dev2], investments: [] })
      expect(
        (await call(admin, 'PATCH', `/users/${reader.id}`, { scope: { developers: [], investments: [ids.a] } }))
          .statusCode,
      ).toBe(200)
      const audit = await env.ctx.db
        .selectFrom('audit_log')
        .select(['action', 'object_id', 'details'])
        .where('action', '=', 'user.scope')
        .where('object_id', '=', String(salesA.id))
        .execute()
      expect(audit).toHaveLength(1)
      expect(JSON.parse(audit[0]?.details ?? '{}')).toMatchObject({
        from: null,
        to: { developers: [], investments: [ids.a] },
      })

      const created = await call(admin, 'POST', '/users', {
        login: 'sprzedaz-spv2',
        email: 'sprzedaz-spv2@example.test',
        role: 'dg_operator',
        scope: { developers: [ids.dev2], investments: [] },
      })
      expect(created.statusCode).toBe(201)
      expect(created.json().user.scope).toEqual({ developers: [ids.dev2], investments: [] })
      // an administrator's answer never carries one, and becoming one drops it
      const promoted = await call(admin, 'PATCH', `/users/${created.json().user.id}`, { role: 'administrator' })
      expect(promoted.json().scope).toBeNull()
    })
  })

  describe('lists', () => {
    it('hold only what is in the scope: investments, offers, developer entities, export, catalog', async () => {
      const investments = await call(salesA, 'GET', '/investments')
      expect(investments.json().map((i: { id: number }) => i.id)).toEqual([ids.a])
      expect(investments.headers['x-wp-total']).toBe('1')
      const offers = await call(salesA, 'GET', '/offers?per_page=100')
      expect(
        offers
          .json()
          .map((o: { prop_no: string }) => o.prop_no)
          .sort(),
      ).toEqual(['A1', 'A2'])
      // the entity of its investment is readable, the other one is not listed
      expect((await call(salesA, 'GET', '/developers')).json().items.map((d: { id: number }) => d.id)).toEqual([
        ids.dev1,
      ])
      expect((await call(salesSpv2, 'GET', '/investments')).json().map((i: { id: number }) => i.id)).toEqual([ids.c])
      expect((await call(salesSpv2, 'GET', '/developers')).json().items.map((d: { id: number }) => d.id)).toEqual([
        ids.dev2,
      ])
      const exported = await call(salesA, 'GET', '/offers/export?format=csv')
      expect(exported.statusCode).toBe(200)
      expect(exported.body).toContain('A1')
      expect(exported.body).not.toContain('C1')
      expect(exported.body).not.toContain('B1')
      // an unscoped operator still sees everything
      const operator = await createTestUser(env.ctx, 'dg_operator')
      expect((await call(operator, 'GET', '/investments')).json()).toHaveLength(3)
      // the dashboard counts its investments only
      const dashboard = (await call(salesA, 'GET', '/dashboard')).json()
      expect(dashboard.catalog).toMatchObject({ investments_total: 1, offers_total: 2 })
      expect(dashboard.sources.sources).toBe(0)
      expect(dashboard.recent_imports).toEqual([])
      expect((await call(operator, 'GET', '/dashboard')).json().catalog.investments_total).toBe(3)

      const catalog = await call(reader, 'GET', '/catalog/properties?per_page=100')
      expect(catalog.statusCode).toBe(200)
      expect(catalog.json().map((o: { id: number }) => o.id)).toContain(ids.offerA)
      expect(catalog.json().map((o: { id: number }) => o.id)).not.toContain(ids.offerC)
      expect((await call(reader, 'GET', '/catalog/investments')).json().map((i: { id: number }) => i.id)).toEqual([
        ids.a,
      ])
      expect((await call(reader, 'GET', `/catalog/properties/${ids.offerA}`)).statusCode).toBe(200)
      expectScopeRefusal(await call(reader, 'GET', `/catalog/properties/${ids.offerC}`))
      expectScopeRefusal(await call(reader, 'GET', `/catalog/investments/${ids.c}`))
    })

    it('hide nothing from a scoped reader of the whole catalog once its scope is removed', async () => {
      expect((await call(admin, 'PATCH', `/users/${reader.id}`, { scope: null })).json().scope).toBeNull()
      const catalog = await call(reader, 'GET', '/catalog/properties?per_page=100')
      expect(catalog.json().map((o: { id: number }) => o.id)).toContain(ids.offerC)
      expect((await call(reader, 'GET', `/catalog/properties/${ids.offerC}`)).statusCode).toBe(200)
    })
  })

  describe('one object outside the scope', () => {
    it('is refused 403 to read and to change, and nothing is written', async () => {
      const before = await priceOf(ids.offerC)
      expectScopeRefusal(await call(salesA, 'GET', `/offers/${ids.offerC}`))
      expectScopeRefusal(await call(salesA, 'GET', `/offers/${ids.offerC}/price-history`))
      expectScopeRefusal(await call(salesA, 'GET', `/investments/${ids.c}`))
      expectScopeRefusal(await call(salesA, 'GET', `/investments/${ids.b}`))
      expectScopeRefusal(await call(salesA, 'GET', `/investments/${ids.c}/public-prices`))
      expectScopeRefusal(
        await call(salesA, 'PATCH', `/offers/${ids.offerC}`, { price_total: 1, version: 'x' }, { 'if-match': '*' }),
      )
      expectScopeRefusal(await call(salesA, 'POST', `/offers/${ids.offerC}/archive`, {}, { 'if-match': '*' }))
      expectScopeRefusal(await call(salesA, 'PUT', `/developers/${ids.dev1}`, { name: 'Zmieniona' }))
      expectScopeRefusal(await call(salesA, 'GET', `/developers/${ids.dev2}`))
      expect(await priceOf(ids.offerC)).toBe(before)
      // the answer says why, in Polish by default and in English on request
      const refused = await call(salesA, 'GET', `/offers/${ids.offerC}`)
      expect(refused.json().message).toMatch(/poza częścią katalogu/)
      const english = await call(salesA, 'GET', `/offers/${ids.offerC}`, undefined, { 'accept-language': 'en' })
      expect(english.json().message).toMatch(/outside the part of the catalog/)
    })

    it('inside the scope works as for any operator', async () => {
      const read = await call(salesA, 'GET', `/offers/${ids.offerA}`)
      expect(read.statusCode).toBe(200)
      const changed = await call(
        salesA,
        'PATCH',
        `/offers/${ids.offerA}`,
        { price_total: '490000.00', price_total_from: '2026-11-20' },
        { 'if-match': read.headers.etag as string },
      )
      expect(changed.statusCode).toBe(200)
      expect(await priceOf(ids.offerA)).toBe(49_000_000)
      // a developer entity of the scope may be changed by its team
      const developer = await call(salesSpv2, 'GET', `/developers/${ids.dev2}`)
      expect(developer.statusCode).toBe(200)
    })

    it('an offer may be created in an investment of the scope only', async () => {
      const inside = await call(salesA, 'POST', '/offers', {
        investment_id: ids.a,
        prop_no: 'A9',
        prop_type: 'mieszkanie',
        property_status: 'available',
        prop_area: '40.00',
        price_total: '400000.00',
      })
      expect(inside.statusCode, inside.body).toBe(201)
      const offers = await count('offers')
      const created = await call(salesA, 'POST', '/offers', {
        investment_id: ids.c,
        prop_no: 'C9',
        prop_type: 'mieszkanie',
        property_status: 'available',
        prop_area: '40.00',
        price_total: '400000.00',
      })
      expectScopeRefusal(created)
      expect(await count('offers')).toBe(offers)
    })

    it('a new investment only inside a developer entity of the scope; one added later is in the scope', async () => {
      const before = await count('investments')
      expectScopeRefusal(await call(salesA, 'POST', '/investments', { title: 'Nowa A', developer_id: ids.dev1 }))
      expectScopeRefusal(
        await call(salesSpv2, 'POST', '/investments', { title: 'Nowa w jedynce', developer_id: ids.dev1 }),
      )
      expectScopeRefusal(await call(salesSpv2, 'POST', '/investments', { title: 'Bez podmiotu' }))
      expect(await count('investments')).toBe(before)
      const created = await call(salesSpv2, 'POST', '/investments', { title: 'Nowa w dwójce', developer_id: ids.dev2 })
      expect(created.statusCode).toBe(201)
      const listed = (await call(salesSpv2, 'GET', '/investments')).json().map((i: { id: number }) => i.id)
      expect(listed).toEqual(expect.arrayContaining([ids.c, created.json().id]))
      expectScopeRefusal(await call(salesA, 'GET', `/investments/${created.json().id}`))
    })
  })

  describe('imports and price changes', () => {
    it('refuse a whole file that names an investment outside the scope, or a new one; nothing is kept', async () => {
      const jobs = await count('import_jobs')
      const history = await count('price_history')
      expectScopeRefusal(await preview(salesA, [row('INV-A', 'A1', '501 000,00'), row('INV-C', 'C1', '1,00')]))
      expectScopeRefusal(await preview(salesA, [row('INV-NEW', 'N1', '300 000,00')]))
      expect(await count('import_jobs')).toBe(jobs)
      expect(await count('price_history')).toBe(history)
    })

    it('accept a file of the scope, and refuse another user’s preview to a scoped user', async () => {
      const own = await preview(salesA, [row('INV-A', 'A2', '515 000,00')])
      expect(own.statusCode).toBe(200)
      expect((await call(salesA, 'GET', `/imports/${own.json().id}`)).statusCode).toBe(200)
      expectScopeRefusal(await call(salesSpv2, 'GET', `/imports/${own.json().id}`))
      expectScopeRefusal(await execute(salesSpv2, own.json().id, 'scopes-other-user-1'))
      const done = await execute(salesA, own.json().id, 'scopes-own-1')
      expect(done.statusCode).toBe(200)

      // a preview made by an unscoped operator that names C cannot be executed by a scoped user
      const wide = await preview(admin, [row('INV-C', 'C1', '531 000,00')])
      expectScopeRefusal(await execute(salesA, wide.json().id, 'scopes-wide-1'))
      expect(
        (
          await env.ctx.db
            .selectFrom('import_jobs')
            .select('status')
            .where('id', '=', wide.json().id)
            .executeTakeFirstOrThrow()
        ).status,
      ).toBe('previewed')
    })

    it('a price change of an investment or offers outside the scope is refused', async () => {
      const body = { percent: '3', rounding: 'grosz', valid_from: '2026-11-20', reason: 'Podwyżka' }
      expectScopeRefusal(await call(salesA, 'POST', '/offers/price-change/preview', { ...body, investment: ids.c }))
      expectScopeRefusal(
        await call(salesA, 'POST', '/offers/price-change/preview', { ...body, offer_ids: [ids.offerA, ids.offerC] }),
      )
      const inside = await call(salesA, 'POST', '/offers/price-change/preview', { ...body, investment: ids.a })
      expect(inside.statusCode).toBe(200)
    })
  })

  describe('what concerns a whole developer entity or the whole catalog', () => {
    it('publication and its preflight need the entity in the scope; a scope of investments cannot publish', async () => {
      expectScopeRefusal(await call(salesA, 'POST', '/publications', { developer_id: ids.dev1 }))
      expectScopeRefusal(await call(salesA, 'POST', '/publications/preflight', { developer_id: ids.dev1 }))
      expectScopeRefusal(await call(salesSpv2, 'POST', '/publications', { developer_id: ids.dev1 }))
      expectScopeRefusal(await call(salesSpv2, 'POST', '/publications/preflight', {}))
      expect(await count('import_jobs')).toBeGreaterThan(0)
      const own = await call(salesSpv2, 'POST', '/publications/preflight', { developer_id: ids.dev2 })
      expect(own.statusCode).not.toBe(403)
      expectScopeRefusal(await call(salesSpv2, 'PUT', '/publication/settings', { schedule: null }))
    })

    it('the event log shows a scoped user its own actions and those on its part of the catalog only', async () => {
      const entries = async (user: TestUser) =>
        (
          (await call(user, 'GET', '/audit?per_page=100')).json() as {
            items: Array<{ actor: { user_id: number | null }; object_type: string | null; object_id: string | null }>
          }
        ).items
      // the scoped user acts once more, so that the log holds an entry of its own
      expect((await preview(salesA, [row('INV-A', 'A9', '512 000,00')])).statusCode).toBe(200)
      const everything = await entries(admin)
      const seen = await entries(salesA)
      const allowed = [`offer:${ids.offerA}`, `investment:${ids.a}`, `developer:${ids.dev1}`]
      expect(seen.some((entry) => entry.actor.user_id === salesA.id)).toBe(true)
      for (const entry of seen)
        expect(
          entry.actor.user_id === salesA.id || allowed.includes(`${entry.object_type}:${entry.object_id}`),
          `${entry.object_type}:${entry.object_id}`,
        ).toBe(true)
      // the administrator's work on users and imports stays out of the scoped user's view
      const others = everything.filter((entry) => entry.actor.user_id === admin.id || entry.object_type === 'user')
      expect(others.length).toBeGreaterThan(0)
      expect(seen.filter((entry) => entry.object_type === 'user')).toEqual([])
      expect(seen.length).toBeLessThan(everything.length)
    })

    it('sources are an unscoped user’s: none listed, none created or read', async () => {
      expect((await call(salesA, 'GET', '/sources')).json()).toEqual({ sources: [] })
      expect((await call(salesA, 'GET', '/source-runs')).json()).toEqual({ runs: [] })
      expectScopeRefusal(
        await call(salesA, 'POST', '/sources', { name: 'CRM', url: 'https://crm.example.test/a.csv', mapping: {} }),
      )
      expectScopeRefusal(await call(salesA, 'POST', '/developers', { name: 'Nowa spółka' }))
    })
  })
})
