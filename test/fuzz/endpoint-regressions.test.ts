/*
 * Every endpoint, beyond the random cases of endpoints.test.ts: the regressions that suite found,
 * each kept as a fixed request, and raw HTTP the injector cannot send (oversized headers, broken
 * request lines and framing). Every answer is the one expected, never a 5xx, and at the end the
 * captured log (level trace) holds no secret and Object.prototype is untouched.
 */
import net from 'node:net'

import type { LightMyRequestResponse } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'

import { TEST_DIALECTS } from '../helpers/databases.js'
import { basicAuth } from '../helpers/factories.js'
import type { TestEnv } from '../helpers/test-app.js'
import { changes, countCase, fingerprint } from './fuzz-harness.js'
import { type FuzzedApp, logHoldsNoSecret, startFuzzedApp, V2 } from './fuzzed-app.js'

type Json = Record<string, unknown>

for (const dialect of TEST_DIALECTS) {
  describe(`every endpoint: the fuzzing's regressions and raw HTTP [${dialect}]`, () => {
    const fuzzed = startFuzzedApp(dialect, 'endpoint regressions')
    const { ids } = fuzzed
    let env: TestEnv
    let admin: FuzzedApp['admin']
    let reader: string
    beforeAll(() => {
      ;({ env, admin, reader } = fuzzed)
    })

    it('regressions found by this suite: long file names, undecodable paths, no write by a file request, the Host header', async () => {
      const asAdmin = { authorization: admin.authorization }
      // a developer's full legal name made a file name over the router's 100 characters: 414
      await env.ctx.db
        .updateTable('developers')
        .set({
          name: 'Przedsiębiorstwo Budowlano-Handlowe Dom Development Nowy Świat Spółka z ograniczoną odpowiedzialnością',
        })
        .where('id', '=', Number(ids.developer))
        .execute()
      const settings = await env.app.inject({
        method: 'PUT',
        url: `${V2}/publication/settings`,
        headers: asAdmin,
        payload: { public_base_url: 'https://ceny.example.pl/dane-gov', developer_id: Number(ids.developer) },
      })
      expect(settings.statusCode, settings.body).toBe(200)
      const published = await env.app.inject({
        method: 'POST',
        url: `${V2}/publications`,
        headers: asAdmin,
        payload: { date: '2026-11-20' },
      })
      expect(published.statusCode, published.body).toBe(200)
      const fileName = (published.json() as { csv: { file_name: string } }).csv.file_name
      expect(fileName.length).toBeGreaterThan(100)
      const file = await env.app.inject({ method: 'GET', url: `/dane-gov/${fileName}` })
      expect(file.statusCode, file.body.slice(0, 200)).toBe(200)
      expect(file.headers['content-type']).toContain('text/csv')

      // the router's own refusals answer in the API's host shape, not Fastify's
      for (const url of ['/dane-gov/%zz', `${V2}/catalog/properties/${'1'.repeat(1001)}`, '/dane-gov/d1/%E0%A4%A']) {
        const response = await env.app.inject({ method: 'GET', url, headers: { authorization: reader } })
        expect(response.statusCode, url).toBe(400)
        expect(response.json(), url).toMatchObject({ code: 'rest_invalid_url', data: { status: 400 } })
      }

      // a request for another developer entity's files made that dataset's extIdent (and bumped
      // the catalog revision) even when the entity never published
      const other = await env.ctx.db
        .insertInto('developers')
        .values({ name: 'Druga Spółka', created_at: '2026-11-20T10:00:00Z', modified_at: '2026-11-20T10:00:00Z' })
        .returning('id')
        .executeTakeFirstOrThrow()
      const before = await fingerprint(env)
      const response = await env.app.inject({ method: 'GET', url: `/dane-gov/d${other.id}/dataset.xml` })
      expect(response.statusCode).toBe(404)
      expect(changes(before, await fingerprint(env))).toEqual([])

      // a Host header that is no valid authority made the catalog's Link header throw (500), and
      // answers built from one client's Host were cached for every client (discovery resources, Link)
      const list = `${V2}/catalog/properties?per_page=1`
      for (const [index, host] of ['a:99999', 'Ò¦ê·ð¥', 'evil.example'].entries()) {
        // a page size of its own, so that no answer comes from the cache
        const url = `${V2}/catalog/properties?per_page=${index + 2}`
        const response = await env.app.inject({ method: 'GET', url, headers: { authorization: reader, host } })
        expect(response.statusCode, host).toBe(200)
        const discovery = await env.app.inject({
          method: 'GET',
          url: `${V2}/catalog`,
          headers: { authorization: reader, host },
        })
        expect(discovery.statusCode, host).toBe(200)
      }
      // `_fields` walked into Object.prototype: any reader could set a property on every object
      const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).join()
      try {
        const projected = await env.app.inject({
          method: 'GET',
          url: `${V2}/catalog/properties?per_page=1&_fields=id,__proto__.fieldsPolluted,constructor.prototype.fieldsPolluted2`,
          headers: { authorization: reader },
        })
        expect(projected.statusCode, projected.body.slice(0, 200)).toBe(200)
        expect(Object.getOwnPropertyNames(Object.prototype).join()).toBe(prototypeBefore)
        expect(Object.keys((projected.json() as Json[])[0] ?? {})).toEqual(['id'])
      } finally {
        delete (Object.prototype as Json).fieldsPolluted
        delete (Object.prototype as Json).fieldsPolluted2
      }

      // a trusted proxy's X-Forwarded-Proto is believed; a garbage one made the same 500
      const proto = await env.app.inject({
        method: 'GET',
        url: `${V2}/catalog/investments?per_page=7`,
        headers: { authorization: reader, 'x-forwarded-proto': 'ó¹¨ô' },
      })
      expect(proto.statusCode, proto.body.slice(0, 200)).toBe(200)
      // U+0000, which PostgreSQL cannot store or compare, answered 500 there on each of these
      const nul = 'a\u0000b'
      const refusals: Array<[string, Promise<LightMyRequestResponse>, number]> = [
        [
          'developer',
          env.app.inject({
            method: 'PUT',
            url: `${V2}/developers/${ids.developer}`,
            headers: asAdmin,
            payload: { name: nul },
          }),
          422,
        ],
        [
          'location',
          env.app.inject({
            method: 'PUT',
            url: `${V2}/investments/${ids.investment}/location`,
            headers: asAdmin,
            payload: { city: nul },
          }),
          422,
        ],
        [
          'login',
          // from an address of their own: the fuzzed failures before have slowed 127.0.0.1 down (429)
          env.app.inject({
            method: 'POST',
            url: `${V2}/session`,
            payload: { login: nul, password: 'x' },
            remoteAddress: '192.0.2.250',
          }),
          401,
        ],
        [
          'Basic user',
          env.app.inject({
            method: 'GET',
            url: `${V2}/status`,
            headers: { authorization: basicAuth(nul, 'x') },
            remoteAddress: '192.0.2.251',
          }),
          401,
        ],
        [
          'search',
          env.app.inject({
            method: 'GET',
            url: `${V2}/catalog/properties?search=a%00b`,
            headers: { authorization: reader },
          }),
          400,
        ],
        [
          'investment search',
          env.app.inject({
            method: 'GET',
            url: `${V2}/catalog/investments?search=%00`,
            headers: { authorization: reader },
          }),
          400,
        ],
      ]
      // a text starting like a spreadsheet formula was published verbatim in the official CSV
      refusals.push([
        'developer name like a formula',
        env.app.inject({
          method: 'PUT',
          url: `${V2}/developers/${ids.developer}`,
          headers: asAdmin,
          payload: { name: '=HYPERLINK("http://evil.example","x")' },
        }),
        422,
      ])
      for (const [what, pending, status] of refusals) {
        const response = await pending
        expect(response.statusCode, `${what}: ${response.body.slice(0, 200)}`).toBe(status)
      }

      const honest = { authorization: reader, host: 'ceny.example.pl' }
      const page = await env.app.inject({ method: 'GET', url: list, headers: honest })
      expect(String(page.headers.link)).toContain('http://ceny.example.pl/wp-json/dg/v2/catalog/properties?')
      const discovery = await env.app.inject({ method: 'GET', url: `${V2}/catalog`, headers: honest })
      expect(JSON.stringify(discovery.json())).not.toContain('evil.example')
      expect((discovery.json() as { resources: { properties: string } }).resources.properties).toBe(
        'http://ceny.example.pl/wp-json/dg/v2/catalog/properties',
      )
      countCase('regressions')
    })

    it('raw HTTP the injector cannot send: oversized headers, broken request lines and framing get a 4xx, and the server keeps answering', async () => {
      // the app stops listening when it is closed after the suite
      const address = await env.app.listen({ host: '127.0.0.1', port: 0 })
      const port = Number(new URL(address).port)
      const raw = (text: string) =>
        new Promise<string>((resolve) => {
          const socket = net.connect({ host: '127.0.0.1', port })
          let answer = ''
          socket.setTimeout(5000, () => socket.destroy())
          socket.on('data', (chunk) => (answer += chunk.toString('latin1')))
          socket.on('close', () => resolve(answer))
          socket.on('error', () => resolve(answer))
          socket.end(text)
        })
      const auth = `Authorization: ${admin.authorization}\r\n`
      const requests: Array<[string, string]> = [
        [
          'a header block of 100 KB',
          `GET ${V2}/status HTTP/1.1\r\nHost: x\r\n${auth}X-Junk: ${'a'.repeat(100_000)}\r\n\r\n`,
        ],
        ['a URL of 100 KB', `GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
        ['a broken request line', 'GET\r\n\r\n'],
        ['an unknown protocol version', `GET ${V2}/status HTTP/9.9\r\nHost: x\r\n\r\n`],
        ['a header without a colon', `GET ${V2}/status HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n`],
        [
          'both Content-Length and chunked',
          `POST ${V2}/session HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        ],
        [
          'a wrong chunk size',
          `POST ${V2}/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
        ],
        [
          'a body shorter than its Content-Length',
          `POST ${V2}/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"login":"a"}`,
        ],
        ['a NUL in a header', `GET ${V2}/status HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n`],
      ]
      for (const [what, text] of requests) {
        const answer = await raw(text)
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)
        // no answer at all is how Node ends a request it cannot frame (a short body): never a 5xx
        expect(status === 0 || (status >= 400 && status < 500), `${what}: ${answer.slice(0, 200)}`).toBe(true)
        countCase('raw HTTP requests')
      }
      const health = await fetch(`${address}/healthz`)
      expect(health.status).toBe(200)
    })

    logHoldsNoSecret(fuzzed, 'endpoint regressions', dialect, 50)
  })
}
