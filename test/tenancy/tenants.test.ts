import { afterAll, beforeAll, expect, it } from 'vitest'

import { ENTITLEMENTS, setLicense } from '../../src/licensing/license.js'
import type { CreatedTenant } from '../../src/tenancy/tenant-service.js'
import { authorization, startPlatform, type TestPlatform } from '../helpers/platform.js'
import { describeEachDatabase } from '../helpers/test-app.js'

describeEachDatabase('companies on one platform', (getEnv) => {
  let platform: TestPlatform
  let alfa: CreatedTenant
  let beta: CreatedTenant

  beforeAll(async () => {
    // the deployment's licence is handed to each company it creates
    await setLicense(getEnv().ctx, { plan: 'pro', entitlements: [...ENTITLEMENTS], actor: { type: 'cli' } })
    platform = await startPlatform(getEnv())
    alfa = await platform.createTenant('alfa', 'Alfa Sp. z o.o.')
    beta = await platform.createTenant('beta', 'Beta SA', { hosts: ['ceny.beta.example'] })
  })
  afterAll(async () => platform?.close())

  it('prints a base_url that answers the contract with the new administrator’s application password', async () => {
    expect(alfa.base_url).toBe(`${platform.origin}/t/alfa/wp-json/dg/v2`)
    const answer = await fetch(`${alfa.base_url}/catalog/properties?per_page=5`, {
      headers: { authorization: authorization(alfa) },
    })
    expect(answer.status, await answer.clone().text()).toBe(200)
    expect(answer.headers.get('x-wp-total')).toBe('0')
  })

  it('gives each company a webhook key of its own, read by its administrator', async () => {
    const read = async (tenant: CreatedTenant) => {
      // by its /t/ path: beta's base_url names its own host name
      const answer = await fetch(`${platform.origin}/t/${tenant.slug}/wp-json/dg/v2/webhook-secret`, {
        headers: { authorization: authorization(tenant) },
      })
      expect(answer.status).toBe(200)
      return ((await answer.json()) as { secret: string }).secret
    }
    const [a, b] = [await read(alfa), await read(beta)]
    expect(a).toMatch(/^dgwh_/)
    expect(a).not.toBe(b)
  })

  it('refuses one company’s credentials at another’s address', async () => {
    const answer = await fetch(`${alfa.base_url}/catalog/properties`, {
      headers: { authorization: authorization(beta) },
    })
    expect(answer.status).toBe(401)
    const first = await platform.fetch('/wp-json/dg/v2/catalog/properties', {
      headers: { authorization: authorization(alfa) },
    })
    expect(first.status).toBe(401)
  })

  it('routes a company’s own host name without the prefix', async () => {
    const answer = await platform.fetch('/wp-json/dg/v2/users', {
      host: 'ceny.beta.example',
      headers: { authorization: authorization(beta) },
    })
    expect(answer.status, await answer.clone().text()).toBe(200)
    const { items } = (await answer.json()) as { items: Array<{ login: string; email: string }> }
    expect(items.map((user) => user.email)).toEqual(['admin@beta.invalid'])
  })

  it('lets a company with its own host name sign in to its panel at its /t/ path too, and from nowhere else', async () => {
    const signIn = (origin: string) =>
      fetch(`${platform.origin}/t/beta/wp-json/dg/v2/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ login: 'admin', password: beta.admin.password }),
      })
    const answer = await signIn(platform.origin)
    expect(answer.status, await answer.clone().text()).toBe(200)
    expect(answer.headers.get('set-cookie')).toContain('Path=/t/beta')
    expect((await signIn('https://evil.example')).status).toBe(403)
  })

  it('keeps the company’s prefix in redirects and points its panel at its own API', async () => {
    const redirect = await fetch(`${platform.origin}/t/alfa/dg-admin`, { redirect: 'manual' })
    expect(redirect.status).toBe(301)
    expect(redirect.headers.get('location')).toBe('/t/alfa/dg-admin/')
    const panel = await (await fetch(`${platform.origin}/t/alfa/dg-admin/`)).text()
    expect(panel).toContain('content="../wp-json/dg/v2"')
  })

  it('gives a company’s administrator no platform operations: they exist on the first company only', async () => {
    const answer = await fetch(`${alfa.base_url}/platform/tenants`, { headers: { authorization: authorization(alfa) } })
    expect(answer.status).toBe(404)
    expect(((await answer.json()) as { code: string }).code).toBe('rest_no_route')
  })

  it('answers 404 tenant_not_found for an unknown company', async () => {
    const answer = await fetch(`${platform.origin}/t/gamma/wp-json/dg/v2/catalog/properties`)
    expect(answer.status).toBe(404)
    expect(((await answer.json()) as { code: string }).code).toBe('tenant_not_found')
  })

  it('suspends a company: 403 tenant_suspended on its API, resumed it answers again', async () => {
    const { suspendTenant, resumeTenant } = await import('../../src/tenancy/tenant-service.js')
    await suspendTenant(platform.platform, 'alfa', { type: 'cli' })
    const suspended = await fetch(`${alfa.base_url}/catalog/properties`, {
      headers: { authorization: authorization(alfa) },
    })
    expect(suspended.status).toBe(403)
    expect(((await suspended.json()) as { code: string }).code).toBe('tenant_suspended')
    await resumeTenant(platform.platform, 'alfa', { type: 'cli' })
    const resumed = await fetch(`${alfa.base_url}/catalog/properties`, {
      headers: { authorization: authorization(alfa) },
    })
    expect(resumed.status).toBe(200)
  })

  it('leaves the first company where it was', async () => {
    const answer = await platform.fetch('/wp-json/dg/v2/')
    expect(answer.status).toBeLessThan(500)
    const list = await getEnv().app.inject({ method: 'GET', url: '/wp-json/dg/v2/platform/tenants' })
    expect(list.statusCode).toBe(401)
  })
})

describeEachDatabase(
  'limits per company',
  (getEnv) => {
    let platform: TestPlatform
    let alfa: CreatedTenant
    let beta: CreatedTenant

    beforeAll(async () => {
      await setLicense(getEnv().ctx, { plan: 'pro', entitlements: [...ENTITLEMENTS], actor: { type: 'cli' } })
      platform = await startPlatform(getEnv())
      alfa = await platform.createTenant('alfa')
      beta = await platform.createTenant('beta')
    })
    afterAll(async () => platform?.close())

    it('keeps one company’s catalog answering while another, with the same login and address, is over its limit', async () => {
      const list = (tenant: CreatedTenant) =>
        fetch(`${tenant.base_url}/catalog/properties`, { headers: { authorization: authorization(tenant) } })
      const statuses: number[] = []
      for (let i = 0; i < 5; i++) statuses.push((await list(alfa)).status)
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200])
      expect(statuses.slice(3)).toEqual([429, 429])
      expect((await list(beta)).status).toBe(200)
    })
  },
  { env: { DG_CATALOG_RATE_LIMIT: '3' } },
)
