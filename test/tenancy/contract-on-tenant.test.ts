/*
 * The contract at a company's address: the same flows through the first company (no prefix), a
 * company reached by its path (/t/alfa) and one reached by its own host name give the same status
 * codes and body shapes, and every absolute address they answer names the company's own root.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'

import { EMBED_SCRIPT_NAME } from '../../src/embed/embed-routes.js'
import { ENTITLEMENTS, setLicense } from '../../src/licensing/license.js'
import { sign } from '../../src/webhook/verify-signature.js'
import { createTestUser } from '../helpers/factories.js'
import { authorization, startPlatform, type TestPlatform } from '../helpers/platform.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import {
  API,
  type Answer,
  call,
  type Company,
  IMPORT_MAPPING,
  importCsv,
  multipartText,
  PRICE_FROM,
  PUBLICATION_DATE,
  seedCompany,
  sentinelsFor,
} from './company-kit.js'

const BETA_HOST = 'ceny.beta.example'
/** Any address of this service, on any port, or of the company's own host name (the documentation's examples name localhost). */
const ANY_ADDRESS = new RegExp(
  `https?://(?:127\\.0\\.0\\.1:\\d+|${BETA_HOST.replace(/\./g, '\\.')})[^\\s"'<>;,)\\\\]*`,
  'g',
)
/** The first company's configured address (DG_PANEL_URL unset: its listening address). */
const CONFIGURED_BASE = 'http://127.0.0.1:8080'

/** The structure of a JSON value: keys and value types, arrays by their first element. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])]
  if (value === null) return null
  if (typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, item]) => [key, shape(item)]),
    )
  return typeof value
}

interface Step {
  name: string
  status: number
  shape: unknown
}

/** Where a company's addresses start, as a client of that company writes them. */
function rootOf(platform: TestPlatform, company: Company): string {
  if (company.host) return `http://${company.host}`
  return `${platform.origin}${company.prefix}`
}

/** Every absolute address of this service in a text: each must start with the company's root. */
function serviceAddresses(text: string, platform: TestPlatform, company: Company): string[] {
  const hosts = [platform.origin.replace(/^http:\/\//, ''), ...(company.host ? [company.host] : [])]
  const found: string[] = []
  for (const host of hosts) {
    const pattern = new RegExp(`https?://${host.replace(/[.]/g, '\\.')}[^\\s"'<>;,)]*`, 'g')
    for (const match of text.matchAll(pattern)) found.push(match[0])
  }
  return found
}

describeEachDatabase('the contract at a company’s own address', (getEnv) => {
  let env: TestEnv
  let platform: TestPlatform
  const companies: Company[] = []
  const runs = new Map<string, Step[]>()
  /** Every answer text and header per company, for the address check. */
  const seen = new Map<string, string[]>()

  async function flows(company: Company): Promise<Step[]> {
    const steps: Step[] = []
    const texts: string[] = []
    seen.set(company.slug, texts)
    const admin = company.admin.authorization
    const reader = company.users.reader!
    const record = (name: string, answer: Answer, json = true) => {
      texts.push(answer.text, JSON.stringify(Object.fromEntries(answer.headers.entries())))
      steps.push({
        name,
        status: answer.status,
        shape: json ? shape(answer.json()) : answer.headers.get('content-type'),
      })
      return answer
    }
    const at = (path: string, options: Parameters<typeof call>[3] = {}) => call(platform, company, path, options)

    const discovery = record('discovery', await at(`${API}/catalog`, { authorization: reader }))
    const resources = discovery.json<{ resources: Record<string, string> }>().resources
    expect(resources.properties).toBe(`${rootOf(platform, company)}${API}/catalog/properties`)

    const first = record('list page 1', await at(`${API}/catalog/properties?per_page=1`, { authorization: reader }))
    expect(first.headers.get('x-wp-total')).toBe('2')
    expect(first.headers.get('x-wp-totalpages')).toBe('2')
    expect(first.headers.get('link')).toBe(
      `<${rootOf(platform, company)}${API}/catalog/properties?per_page=1&page=2>; rel="next"`,
    )
    const second = record(
      'list page 2',
      await at(`${API}/catalog/properties?per_page=1&page=2`, { authorization: reader }),
    )
    expect(second.headers.get('link')).toBe(
      `<${rootOf(platform, company)}${API}/catalog/properties?per_page=1&page=1>; rel="prev"`,
    )

    const id = company.offerIds[0]!
    const detail = record('detail', await at(`${API}/catalog/properties/${id}`, { authorization: reader }))
    expect(detail.json<{ offer: { code: string; price_cents: number } }>().offer).toMatchObject({
      code: 'A/1',
      price_cents: Number(company.sentinels.price) * 100,
    })
    record('price history', await at(`${API}/catalog/properties/${id}/price-history`, { authorization: reader }))
    record('investment', await at(`${API}/catalog/investments/${company.investmentId}`, { authorization: reader }))

    const file = importCsv(company, [
      { source: 'P-1', code: 'A/1', cents: 50 },
      { source: 'P-3', code: 'A/3', cents: 3 },
    ])
    record(
      'import headers',
      await at(`${API}/imports/offer/headers`, {
        authorization: admin,
        raw: multipartText({}, { name: 'oferty.csv', content: file }),
      }),
    )
    const preview = record(
      'import preview',
      await at(`${API}/imports/offer`, {
        authorization: admin,
        raw: multipartText(
          { mode: 'patch', mapping: JSON.stringify(IMPORT_MAPPING) },
          { name: 'oferty.csv', content: file },
        ),
      }),
    )
    const jobId = preview.json<{ id: string }>().id
    const executed = record(
      'import execute',
      await at(`${API}/imports/offer`, {
        authorization: admin,
        headers: { 'idempotency-key': `contract-import-${company.slug}` },
        raw: { body: `job_id=${jobId}&confirm_archiving=false`, type: 'application/x-www-form-urlencoded' },
      }),
    )
    expect(executed.json<{ result: { created: number; updated: number } }>().result).toMatchObject({
      created: 1,
      updated: 1,
    })

    const body = JSON.stringify({
      source_investment_id: 'INV-WSPOLNE',
      source_property_id: 'P-2',
      price_total: `${company.sentinels.price}.77`,
      price_total_from: PRICE_FROM,
    })
    const timestamp = String(Math.floor(env.clock.now().getTime() / 1000))
    const signed = (secret: string, key: string) => ({
      'x-dg-timestamp': timestamp,
      'x-dg-nonce': `nonce-${key}-0001`,
      'idempotency-key': key,
      'x-dg-signature': sign(secret, { timestamp, nonce: `nonce-${key}-0001`, idempotencyKey: key }, Buffer.from(body)),
    })
    record(
      'webhook',
      await at(`${API}/webhooks/properties`, {
        headers: signed(company.webhookSecret!, `evt-${company.slug}-1`),
        raw: { body, type: 'application/json' },
      }),
    )
    record(
      'webhook wrong signature',
      await at(`${API}/webhooks/properties`, {
        headers: signed('not-the-secret-of-this-company', `evt-${company.slug}-2`),
        raw: { body, type: 'application/json' },
      }),
    )

    const legacy = record(
      'legacy generate',
      await at(`/wp-json/dg/v1/generate?date=${PUBLICATION_DATE}`, {
        headers: { 'x-dg-webhook-key': company.webhookSecret! },
      }),
    )
    expect(legacy.json<{ status: string }>().status).toBe('published')
    record(
      'legacy generate without key',
      await at(`/wp-json/dg/v1/generate?date=${PUBLICATION_DATE}`, { method: 'POST' }),
    )
    const published = record(
      'publication',
      await at(`${API}/publications`, { authorization: admin, body: { date: PUBLICATION_DATE } }),
    )
    const outcome = published.json<{ csv: { url: string }; xml: { url: string } }>()
    const files = `${rootOf(platform, company)}/dane-gov/`
    expect(outcome.xml.url).toBe(`${files}dataset.xml`)
    const xml = record('dataset.xml', await at('/dane-gov/dataset.xml'), false)
    const listed = [...xml.text.matchAll(/<url>([^<]+)<\/url>/g)].map((match) => match[1]!)
    const ownFiles = listed.filter((url) => url.includes('/dane-gov/'))
    expect(ownFiles.length).toBeGreaterThan(0)
    for (const url of ownFiles) {
      expect(url.startsWith(files), url).toBe(true)
      const csv = record('daily csv', await at(url.slice(rootOf(platform, company).length)), false)
      expect(csv.status).toBe(200)
      expect(csv.text).toContain(company.sentinels.price)
    }

    const openapi = record('openapi', await at(`${API}/openapi.json`), false)
    expect(openapi.json<{ servers: Array<{ url: string }> }>().servers[0]!.url).toBe(rootOf(platform, company))

    record('401 anonymous', await at(`${API}/catalog/properties`))
    record('401 wrong password', await at(`${API}/catalog/properties`, { authorization: 'Basic YWRtaW46bm9wZQ==' }))
    record(
      '403 reader writes',
      await at(`${API}/offers`, { authorization: reader, body: { investment_id: company.investmentId } }),
    )
    record('404 offer', await at(`${API}/catalog/properties/999999`, { authorization: reader }))
    record('404 route', await at(`${API}/no-such-route`, { authorization: reader }))
    return steps
  }

  beforeAll(async () => {
    env = getEnv()
    await setLicense(env.ctx, { plan: 'pro', entitlements: [...ENTITLEMENTS], actor: { type: 'cli' } })
    platform = await startPlatform(env)
    const admin = await createTestUser(env.ctx, 'administrator')
    const main: Company = {
      slug: 'main',
      prefix: '',
      sentinels: sentinelsFor(0, 'main'),
      admin: { login: admin.login, password: admin.loginPassword, authorization: admin.authorization },
      users: {},
      offerIds: [],
    }
    const alfaCreated = await platform.createTenant('alfa', 'Alfa Sp. z o.o.')
    const betaCreated = await platform.createTenant('beta', 'Beta SA', { hosts: [BETA_HOST] })
    const tenant = (slug: string, index: number, created: typeof alfaCreated, host?: string): Company => ({
      slug,
      prefix: host ? '' : `/t/${slug}`,
      ...(host ? { host } : {}),
      sentinels: sentinelsFor(index, slug),
      admin: { login: created.admin.login, password: created.admin.password, authorization: authorization(created) },
      users: {},
      offerIds: [],
    })
    companies.push(main, tenant('alfa', 1, alfaCreated), tenant('beta', 2, betaCreated, BETA_HOST))
    for (const company of companies) await seedCompany(platform, company)
    // the first company has no public address of its files until one is set
    const settings = await call(platform, main, `${API}/publication/settings`, {
      method: 'PUT',
      authorization: main.admin.authorization,
      body: { public_base_url: `${platform.origin}/dane-gov` },
    })
    expect(settings.status, settings.text).toBe(200)
    for (const company of companies) runs.set(company.slug, await flows(company))
  }, 120_000)
  afterAll(async () => platform?.close())

  it('answers a company at /t/{slug}/ with the first company’s status codes and shapes', () => {
    expect(runs.get('alfa')).toEqual(runs.get('main'))
  })

  it('answers a company at its own host name with the first company’s status codes and shapes', () => {
    expect(runs.get('beta')).toEqual(runs.get('main'))
  })

  it('answers the expected status codes', () => {
    const statuses = Object.fromEntries(runs.get('main')!.map((step) => [step.name, step.status]))
    expect(statuses).toEqual({
      discovery: 200,
      'list page 1': 200,
      'list page 2': 200,
      detail: 200,
      'price history': 200,
      investment: 200,
      'import headers': 200,
      'import preview': 200,
      'import execute': 200,
      webhook: 202,
      'webhook wrong signature': 401,
      'legacy generate': 200,
      'legacy generate without key': 401,
      publication: 200,
      'dataset.xml': 200,
      'daily csv': 200,
      openapi: 200,
      '401 anonymous': 401,
      '401 wrong password': 401,
      '403 reader writes': 403,
      '404 offer': 404,
      '404 route': 404,
    })
  })

  it('writes its own root into every other page and answer that holds an address', async () => {
    for (const company of companies) {
      const root = rootOf(platform, company)
      const admin = company.admin.authorization
      const pages: Array<[string, Parameters<typeof call>[3]]> = [
        [`${API}/publication/settings`, { authorization: admin }],
        [`${API}/publications`, { authorization: admin }],
        [`${API}/publications/preflight`, { authorization: admin, body: {} }],
        [`${API}/dashboard`, { authorization: admin }],
        [`${API}/status`, { authorization: admin }],
        [`${API}/mail/settings`, { authorization: admin }],
        [`${API}/mail/outbox`, { authorization: admin }],
        [`${API}/catalog/investments`, { authorization: company.users.reader! }],
        [`${API}/public/investments/${company.investmentId}/prices`, {}],
        [`${API}/docs/`, {}],
        [`${API}/docs/json`, {}],
        ['/dg-admin/', {}],
        ['/dane-gov/dataset.md5', {}],
      ]
      const enabled = await call(platform, company, `${API}/investments/${company.investmentId}/public-prices`, {
        method: 'PUT',
        authorization: admin,
        body: { enabled: true },
      })
      expect(enabled.status, enabled.text).toBe(200)
      const texts: string[] = []
      for (const [path, options] of pages) {
        const answer = await call(platform, company, path, options)
        expect(answer.status, `${company.slug} ${path}: ${answer.text.slice(0, 300)}`).toBeLessThan(400)
        texts.push(answer.text, JSON.stringify(Object.fromEntries(answer.headers.entries())))
      }
      // a redirect to the current version of the website component keeps the company's prefix
      const redirect = await call(platform, company, `${API}/embed/latest/${EMBED_SCRIPT_NAME}`, {
        manual: true,
      })
      expect(redirect.status).toBe(302)
      expect(redirect.headers.get('location')).toMatch(new RegExp(`^${company.prefix}${API}/embed/[^/]+/`))
      const addresses = texts.flatMap((text) => [...text.matchAll(ANY_ADDRESS)].map((match) => match[0]))
      expect(addresses.filter((address) => address.startsWith(root)).length, company.slug).toBeGreaterThan(3)
      const elsewhere = addresses.filter((address) => {
        if (company.prefix === '' && !company.host)
          return address.includes('/t/') || !(address.startsWith(root) || address.startsWith(CONFIGURED_BASE))
        return address !== root && !address.startsWith(`${root}/`)
      })
      expect(elsewhere, company.slug).toEqual([])
    }
  })

  it('writes every absolute address of a company with its own root, never the platform’s', () => {
    for (const company of companies) {
      const root = rootOf(platform, company)
      const addresses = seen.get(company.slug)!.flatMap((text) => serviceAddresses(text, platform, company))
      expect(addresses.length, company.slug).toBeGreaterThan(5)
      const elsewhere = addresses.filter(
        (address) => address !== root && !address.startsWith(`${root}/`) && !address.startsWith(`${root}?`),
      )
      expect(elsewhere, company.slug).toEqual([])
      if (company.prefix === '' && !company.host)
        expect(addresses.filter((address) => address.includes('/t/'))).toEqual([])
    }
  })
})
