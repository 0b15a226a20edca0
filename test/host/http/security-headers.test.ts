/*
 * What every answer carries (nosniff; no-store unless the route has its own cache policy; HSTS in
 * production), authentication before the body's validation on every documented operation, and
 * the refusals of a login from another site, on both databases.
 */
import type { FastifyInstance } from 'fastify'
import { expect, it } from 'vitest'

import { createTestUser, grantProLicense } from '../../helpers/factories.js'
import { describeEachDatabase } from '../../helpers/test-app.js'

const V2 = '/wp-json/dg/v2'

interface Operation {
  security?: unknown[]
  requestBody?: unknown
}
type Paths = Record<string, Record<string, Operation>>

/** Every documented operation with its path parameters filled in. */
async function operations(app: FastifyInstance) {
  const document = (await app.inject({ method: 'GET', url: `${V2}/openapi.json` })).json() as { paths: Paths }
  const list: Array<{ method: string; url: string; template: string; operation: Operation }> = []
  for (const [template, item] of Object.entries(document.paths))
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'put', 'post', 'patch', 'delete'].includes(method)) continue
      const url = template.replace(/\{[^}]+\}/g, (name) => (name === '{file}' || name === '{name}' ? 'x.csv' : '1'))
      list.push({ method: method.toUpperCase(), url, template, operation })
    }
  return list
}

describeEachDatabase('headers of every answer, authentication before validation, login from the panel only', (env) => {
  it('answers every operation, to an administrator and to anybody, with nosniff and a cache policy', async () => {
    const { app, ctx } = env()
    await grantProLicense(ctx)
    const admin = await createTestUser(ctx, 'administrator')
    const all = await operations(app)
    expect(all.length).toBeGreaterThan(60)
    for (const { method, url, template } of all)
      for (const headers of [{ authorization: admin.authorization }, {}]) {
        const response = await app.inject({ method: method as 'GET', url, headers })
        const where = `${method} ${template} → ${response.statusCode}`
        expect(response.headers['x-content-type-options'], where).toBe('nosniff')
        const policy = response.headers['cache-control']
        expect(policy, where).toBeDefined()
        if (/^\/wp-json\/dg\/v2\/catalog(\/|$)/.test(template) && response.statusCode === 200 && method === 'GET')
          expect(policy, where).toBe('private, must-revalidate')
        // the website component's script is public and static: cached by anybody, never personal
        else if (template.startsWith('/wp-json/dg/v2/embed/')) expect(policy, where).toMatch(/^public, max-age=\d+/)
        else if (!template.startsWith('/dane-gov/') && !template.startsWith('/dg-media/'))
          expect(policy, where).toBe('no-store')
      }
    // the personal answers the probe named
    const login = await app.inject({
      method: 'POST',
      url: `${V2}/session`,
      payload: { login: admin.login, password: admin.loginPassword },
    })
    expect(login.headers['cache-control']).toBe('no-store')
    const cookie = String(login.headers['set-cookie']).split(';')[0] ?? ''
    const session = await app.inject({ method: 'GET', url: `${V2}/session`, headers: { cookie } })
    expect(session.statusCode).toBe(200)
    expect(session.headers['cache-control']).toBe('no-store')
    expect(session.headers['strict-transport-security']).toBeUndefined()
  })

  it('authenticates before validating the body: anonymous callers get 401, never the schema', async () => {
    const { app } = env()
    const open = new Set(['/session', '/webhooks/properties', '/generate'])
    let checked = 0
    for (const { method, url, template, operation } of await operations(app)) {
      if (!operation.requestBody || !operation.security?.length || [...open].some((p) => template.endsWith(p))) continue
      const response = await app.inject({
        method: method as 'POST',
        url,
        headers: { 'content-type': 'application/json' },
        payload: '{"not_a_field": [1, 2, 3]}',
      })
      expect(response.statusCode, `${method} ${template}: ${response.body}`).toBe(401)
      expect(response.body).not.toMatch(/not_a_field|parameter/)
      checked++
    }
    expect(checked).toBeGreaterThan(20)
  })

  it('refuses a login from another site or with a form body, before anything is checked', async () => {
    const { app, ctx } = env()
    const user = await createTestUser(ctx, 'administrator')
    const payload = { login: user.login, password: user.loginPassword }
    const post = (headers: Record<string, string>, body: unknown = payload) =>
      app.inject({ method: 'POST', url: `${V2}/session`, headers, payload: body as string })
    const crossSite: Array<Record<string, string>> = [
      { origin: 'https://attacker.example' },
      { origin: 'null' },
      { origin: 'http://localhost:80.attacker.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'http://localhost:80', 'sec-fetch-site': 'cross-site' },
    ]
    for (const headers of crossSite) {
      const refused = await post(headers)
      expect(refused.statusCode, JSON.stringify(headers)).toBe(403)
      expect(refused.json().code).toBe('rest_cross_origin_login')
      expect(refused.headers['set-cookie']).toBeUndefined()
    }
    const form = await post(
      { 'content-type': 'application/x-www-form-urlencoded' },
      `login=${user.login}&password=${user.loginPassword}`,
    )
    expect(form.statusCode).toBe(415)
    expect(form.json().code).toBe('rest_unsupported_media_type')
    const text = await post({ 'content-type': 'text/plain' }, JSON.stringify(payload))
    expect(text.statusCode).toBe(415)
    // the panel's own page (same origin, as a browser sends it) and a client without a page sign in
    const panel = await post({ origin: 'http://localhost:80', 'sec-fetch-site': 'same-origin' })
    expect(panel.statusCode).toBe(200)
    expect((await post({})).statusCode).toBe(200)
  })
})

describeEachDatabase(
  'HSTS in production',
  (env) => {
    it('sends Strict-Transport-Security on every answer over HTTPS, refusals included', async () => {
      const { app, ctx } = env()
      await grantProLicense(ctx)
      const admin = await createTestUser(ctx, 'administrator')
      const viaProxy = { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' }
      for (const [url, headers] of [
        [`${V2}/status`, { ...viaProxy, authorization: admin.authorization }],
        [`${V2}/status`, viaProxy],
        ['/healthz', viaProxy],
        ['/wp-json/dg/v2/no-such-route', viaProxy],
        // the router's own refusals (a broken escape, a segment over its length limit): no hook runs
        ['/wp-json/dg/v2/x%z', viaProxy],
        [`/dane-gov/${'x'.repeat(2000)}.csv`, viaProxy],
      ] as const) {
        const response = await app.inject({ method: 'GET', url, remoteAddress: '10.1.2.3', headers })
        expect(response.headers['strict-transport-security'], url).toBe('max-age=31536000')
        expect(response.headers['x-content-type-options'], url).toBe('nosniff')
        expect(response.headers['cache-control'], url).toBeDefined()
      }
    })
  },
  { env: { DG_ENV: 'production', DG_TRUSTED_PROXIES: '10.0.0.0/8' } },
)
