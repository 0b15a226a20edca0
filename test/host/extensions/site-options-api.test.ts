/*
 * Site options over REST (GET {base_url}/site-options, PUT {base_url}/site-options/{name}) on both
 * databases: rendered from the extension's definitions, saved through the type check and the
 * sanitizer, seen in /catalog's extension_options, refused with a field issue, rights.
 */
import { beforeAll, expect, it } from 'vitest'

import { createTestUser, grantProLicense, type TestUser } from '../../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

const BASE = '/wp-json/dg/v2'

describeEachDatabase('site options over REST', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let reader: TestUser
  const put = (name: string, value: unknown, authorization = admin.authorization) =>
    env.app.inject({
      method: 'PUT',
      url: `${BASE}/site-options/${name}`,
      headers: { authorization },
      payload: { value },
    })
  const catalogOptions = async () =>
    (await env.app.inject({ url: `${BASE}/catalog`, headers: { authorization: reader.authorization } })).json()
      .extension_options

  beforeAll(async () => {
    env = getEnv()
    env.hooks.addFilter('dg_extension_settings_fields', (fields) => ({
      ...fields,
      promo_banner: {
        type: 'string',
        label: 'Baner promocji',
        description: 'Tekst nad listą ofert',
        default: '',
        expose_in_catalog: true,
        sanitizer: (value: unknown) => (typeof value === 'string' ? value.trim().slice(0, 20) : ''),
      },
      sync_hour: { type: 'integer', label: 'Godzina synchronizacji', default: 3, expose_in_catalog: false },
    }))
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
  })

  it('lists each option from its definition with its default until a value is stored', async () => {
    const response = await env.app.inject({
      url: `${BASE}/site-options`,
      headers: { authorization: admin.authorization },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().items).toEqual([
      {
        name: 'promo_banner',
        type: 'string',
        label: 'Baner promocji',
        description: 'Tekst nad listą ofert',
        default: '',
        value: '',
        stored: false,
        expose_in_catalog: true,
      },
      {
        name: 'sync_hour',
        type: 'integer',
        label: 'Godzina synchronizacji',
        description: '',
        default: 3,
        value: 3,
        stored: false,
        expose_in_catalog: false,
      },
    ])
  })

  it('saves a value through the sanitizer, and /catalog exposes it', async () => {
    const saved = await put('promo_banner', '   Rabat 5% na mieszkania w grudniu  ')
    expect(saved.statusCode).toBe(200)
    expect(saved.json()).toMatchObject({ name: 'promo_banner', value: 'Rabat 5% na mieszkan', stored: true })
    expect((await catalogOptions()).promo_banner).toBe('Rabat 5% na mieszkan')
    expect((await put('sync_hour', 5)).json()).toMatchObject({ value: 5, stored: true })
    expect(await catalogOptions()).not.toHaveProperty('sync_hour')
    const audited = await env.ctx.db
      .selectFrom('audit_log')
      .select(['actor_name', 'object_id'])
      .where('action', '=', 'site_option.set')
      .execute()
    expect(audited).toEqual([
      { actor_name: admin.login, object_id: 'promo_banner' },
      { actor_name: admin.login, object_id: 'sync_hour' },
    ])
  })

  it('refuses a value of another type with 422 and the option’s issue, keeping the stored value', async () => {
    const wrong = await put('sync_hour', 'pół do trzeciej')
    expect(wrong.statusCode).toBe(422)
    expect(wrong.json()).toMatchObject({
      error: 'invalid_site_option_value',
      issues: [{ field: 'sync_hour', code: 'invalid_value', message: expect.stringContaining('liczba całkowita') }],
    })
    const unknown = await put('no_such_option', 'x')
    expect(unknown.statusCode).toBe(404)
    expect(unknown.json().code).toBe('unknown_site_option')
    const nested = await put('promo_banner', { text: 'x' })
    expect(nested.statusCode).toBe(400)
    const list = (
      await env.app.inject({ url: `${BASE}/site-options`, headers: { authorization: admin.authorization } })
    ).json()
    expect(list.items.find((o: { name: string }) => o.name === 'sync_hour').value).toBe(5)
  })

  it('answers a catalog reader 403', async () => {
    expect((await put('promo_banner', 'x', reader.authorization)).statusCode).toBe(403)
    expect(
      (await env.app.inject({ url: `${BASE}/site-options`, headers: { authorization: reader.authorization } }))
        .statusCode,
    ).toBe(403)
  })
})
