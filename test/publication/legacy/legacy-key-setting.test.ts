/*
 * The legacy `key` query-parameter switch over REST (GET/PUT {base_url}/legacy-generate/settings)
 * and the list of developer entities (GET {base_url}/developers), on both databases.
 */
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../../src/demo/demo-setup.js'
import { updatePublicationSettings } from '../../../src/publication/settings/publication-settings.js'
import { createTestUser, type TestUser } from '../../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

const BASE = '/wp-json/dg/v2'
const SETTINGS = `${BASE}/legacy-generate/settings`
const GENERATE = '/wp-json/dg/v1/generate'

describeEachDatabase('legacy key switch and developer list over REST', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let reader: TestUser
  let secret: string
  const put = (enabled: unknown, authorization = admin.authorization) =>
    env.app.inject({ method: 'PUT', url: SETTINGS, headers: { authorization }, payload: { enabled } })
  const withKeyParam = (date: string) => {
    env.clock.set(`${date}T10:00:00Z`)
    return env.app.inject({ url: `${GENERATE}?date=${date}&key=${encodeURIComponent(secret)}` })
  }

  beforeAll(async () => {
    env = getEnv()
    secret = (await setUpDemo(env.ctx)).webhook_secret
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
  })

  it('is off by default, with the deprecation and sunset dates to show', async () => {
    const response = await env.app.inject({ url: SETTINGS, headers: { authorization: admin.authorization } })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      enabled: false,
      source: 'environment',
      environment_default: false,
      deprecated_since: '2026-01-01T00:00:00.000Z',
      sunset: '2027-06-30T23:59:59.000Z',
      removed_in: '3.0.0',
      warning: '299 - "The key query parameter is deprecated and removed in 3.0.0; send X-DG-Webhook-Key"',
    })
    expect((await withKeyParam('2026-11-20')).statusCode).toBe(401)
  })

  it('turned on, legacy generate accepts the key parameter with its deprecation headers; off refuses it again', async () => {
    const on = await put(true)
    expect(on.statusCode).toBe(200)
    expect(on.json()).toMatchObject({ enabled: true, source: 'setting' })
    const accepted = await withKeyParam('2026-11-20')
    expect(accepted.statusCode).toBe(200)
    expect(accepted.headers.deprecation).toBe('@1767225600')
    expect(accepted.headers.sunset).toBe('Wed, 30 Jun 2027 23:59:59 GMT')

    expect((await put(false)).json()).toMatchObject({ enabled: false, source: 'setting' })
    const refused = await withKeyParam('2026-11-21')
    expect(refused.statusCode).toBe(401)
    expect(refused.json().error).toBe('invalid_auth')

    expect((await put(null)).json()).toMatchObject({ enabled: false, source: 'environment' })
    const changes = await env.ctx.db
      .selectFrom('audit_log')
      .select(['actor_name', 'details'])
      .where('action', '=', 'legacy_generate.key_param_setting')
      .orderBy('id')
      .execute()
    expect(changes.map((c) => [c.actor_name, JSON.parse(c.details ?? '{}').to])).toEqual([
      [admin.login, true],
      [admin.login, false],
      [admin.login, false],
    ])
  })

  it('refuses a catalog reader (403) and a value that is not true, false or null (400), changing nothing', async () => {
    expect((await put(true, reader.authorization)).statusCode).toBe(403)
    expect((await env.app.inject({ url: SETTINGS, headers: { authorization: reader.authorization } })).statusCode).toBe(
      403,
    )
    const bad = await put('yes')
    expect(bad.statusCode).toBe(400)
    expect(bad.json().code).toBe('rest_invalid_param')
    const state = await env.app.inject({ url: SETTINGS, headers: { authorization: admin.authorization } })
    expect(state.json().enabled).toBe(false)
  })

  it('lists the developer entities', async () => {
    const response = await env.app.inject({
      url: `${BASE}/developers`,
      headers: { authorization: admin.authorization },
    })
    expect(response.statusCode).toBe(200)
    const { items } = response.json()
    expect(items.length).toBeGreaterThan(0)
    expect(items[0]).toMatchObject({ id: expect.any(Number), name: expect.any(String), nip: expect.any(String) })
    expect(
      (await env.app.inject({ url: `${BASE}/developers`, headers: { authorization: reader.authorization } }))
        .statusCode,
    ).toBe(403)
  })
})
