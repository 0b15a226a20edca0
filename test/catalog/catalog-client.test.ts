import { beforeAll, expect, it } from 'vitest'

import { CatalogApiError, CatalogClient } from '../../src/catalog/client.js'
import { setUpDemo } from '../../src/demo/demo-setup.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

describeEachDatabase(
  'typed catalog client against a listening server',
  (getEnv) => {
    let env: TestEnv
    let baseUrl: string
    let password: string
    const requests: Array<{ url: string; status: number }> = []
    const recordingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      requests.push({
        url: typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
        status: response.status,
      })
      return response
    }

    beforeAll(async () => {
      env = getEnv()
      password = (await setUpDemo(env.ctx)).reader.application_password
      const address = await env.app.listen({ host: '127.0.0.1', port: 0 })
      baseUrl = `${address}/wp-json/dg/v2`
    })

    it('pages through every offer and answers from its cache on 304', async () => {
      const spaced = password.replace(/(.{4})/g, '$1 ').trim()
      const client = new CatalogClient({
        baseUrl,
        user: 'website',
        password: spaced,
        fetch: recordingFetch,
        sleep: async (ms) => env.clock.advance(ms),
      })
      const first = await client.properties({ per_page: 5 })
      expect(first.items).toHaveLength(5)
      expect(first.fromCache).toBe(false)
      const all: number[] = []
      for await (const offer of client.allProperties({ orderby: 'title', order: 'ASC' })) all.push(offer.id)
      expect(all).toHaveLength(first.total)
      expect(new Set(all).size).toBe(all.length)

      env.clock.advance(60_000)
      requests.length = 0
      const again = await client.properties({ per_page: 5 })
      expect(again.fromCache).toBe(true)
      expect(again.items).toEqual(first.items)
      expect(requests).toEqual([{ url: expect.stringContaining('per_page=5'), status: 304 }])

      const detail = await client.property(first.items[0]!.id)
      expect(detail.offer.id).toBe(first.items[0]!.id)
      const history = await client.priceHistory(first.items[0]!.id)
      expect(history.property_id).toBe(first.items[0]!.id)
      const discovery = await client.discovery()
      expect(discovery.api_version).toBe('2.1')
    })

    it('waits Retry-After on 429 and then succeeds', async () => {
      const waits: number[] = []
      const client = new CatalogClient({
        baseUrl,
        user: 'website',
        password,
        sleep: async (ms) => {
          waits.push(ms)
          env.clock.advance(ms)
        },
      })
      env.clock.set('2026-11-20T12:00:00Z')
      for (let i = 0; i < 3; i++) await client.investments({ page: 1, per_page: 1 + i })
      const page = await client.investments({ per_page: 10 })
      expect(page.items.length).toBeGreaterThan(0)
      expect(waits).toEqual([60_000])
    })

    it('never asks again before Retry-After: a longer wait than it accepts is thrown at once', async () => {
      const waits: number[] = []
      const client = new CatalogClient({
        baseUrl,
        user: 'website',
        password,
        maxRetryAfterSeconds: 5,
        sleep: async (ms) => void waits.push(ms),
      })
      env.clock.set('2026-11-20T13:00:00Z')
      for (let i = 0; i < 3; i++) await client.investments({ page: 1, per_page: 1 + i })
      const error = await client.investments({ per_page: 10 }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(CatalogApiError)
      expect(error).toMatchObject({ status: 429, retryAfterSeconds: 60 })
      expect(waits).toEqual([])
    })

    it('reports errors with their contract code', async () => {
      const client = new CatalogClient({ baseUrl, user: 'website', password })
      env.clock.advance(120_000)
      await expect(client.property(999_999)).rejects.toMatchObject({ status: 404, code: 'dg_property_not_found' })
      const wrong = new CatalogClient({ baseUrl, user: 'website', password: 'x'.repeat(24) })
      const error = await wrong.discovery().catch((e: unknown) => e)
      expect(error).toBeInstanceOf(CatalogApiError)
      expect(error).toMatchObject({ status: 401, code: 'incorrect_password' })
    })
  },
  { env: { DG_CATALOG_RATE_LIMIT: '3' } },
)
