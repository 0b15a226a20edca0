/*
 * The component script's route: the current version immutable and public (any origin, no cookie,
 * nosniff kept, the global no-store not applied), 304 on its ETag, other versions and `latest`
 * redirected to it, and the script within its size budget once compressed. SQLite only: the route
 * never touches the database (the browser suite runs on both).
 */
import fs from 'node:fs'
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { EMBED_SCRIPT_FILE } from '../../src/embed/embed-routes.js'
import { SERVICE_VERSION } from '../../src/version.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'

const BASE = '/wp-json/dg/v2'
const CURRENT = `${BASE}/embed/${SERVICE_VERSION}/dg-prices.js`

describe('the website component script', () => {
  let env: TestEnv
  beforeAll(async () => {
    env = await startTestApp('sqlite')
  })
  afterAll(async () => {
    await env.app.close()
    await env.database.cleanup()
  })

  it('serves the current version as an immutable public script any origin may load, without cookies', async () => {
    const answer = await env.app.inject({
      method: 'GET',
      url: CURRENT,
      // as a developer's page loads it in a browser signed in to the panel: another site, with the session cookie
      headers: {
        origin: 'https://deweloper.example',
        cookie: 'dg_session=whatever',
        'sec-fetch-site': 'cross-site',
        'sec-fetch-dest': 'script',
      },
    })
    expect(answer.statusCode).toBe(200)
    expect(answer.headers['content-type']).toBe('text/javascript; charset=utf-8')
    expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(answer.headers['access-control-allow-origin']).toBe('*')
    expect(answer.headers['cross-origin-resource-policy']).toBe('cross-origin')
    expect(answer.headers['x-content-type-options']).toBe('nosniff')
    expect(answer.headers['set-cookie']).toBeUndefined()
    expect(answer.headers.etag).toMatch(/^"[\w-]+"$/)
    expect(answer.body).toBe(fs.readFileSync(EMBED_SCRIPT_FILE, 'utf8'))
    expect(answer.body).toContain("customElements.define('dg-offer-table'")

    const again = await env.app.inject({
      method: 'GET',
      url: CURRENT,
      headers: { 'if-none-match': answer.headers.etag as string },
    })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
    expect(again.headers['cache-control']).toBe('public, max-age=31536000, immutable')

    const head = await env.app.inject({ method: 'HEAD', url: CURRENT })
    expect(head.statusCode).toBe(200)
    expect(head.headers['cache-control']).toBe('public, max-age=31536000, immutable')
  })

  it('answers the script compressed with brotli or gzip as the client accepts, each with its own ETag', async () => {
    const source = fs.readFileSync(EMBED_SCRIPT_FILE)
    const br = await env.app.inject({
      method: 'GET',
      url: CURRENT,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    })
    expect(br.headers['content-encoding']).toBe('br')
    expect(br.headers.vary).toBe('Accept-Encoding')
    expect(brotliDecompressSync(br.rawPayload).equals(source)).toBe(true)
    const gz = await env.app.inject({ method: 'GET', url: CURRENT, headers: { 'accept-encoding': 'gzip' } })
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gz.rawPayload).equals(source)).toBe(true)
    expect(gz.rawPayload.length).toBeLessThan(source.length / 2)
    const refused = await env.app.inject({
      method: 'GET',
      url: CURRENT,
      headers: { 'accept-encoding': 'br;q=0, gzip;q=0' },
    })
    expect(refused.headers['content-encoding']).toBeUndefined()
    expect(refused.rawPayload.equals(source)).toBe(true)
    expect(new Set([br.headers.etag, gz.headers.etag, refused.headers.etag]).size).toBe(3)
    const revalidated = await env.app.inject({
      method: 'GET',
      url: CURRENT,
      headers: { 'accept-encoding': 'gzip', 'if-none-match': gz.headers.etag as string },
    })
    expect(revalidated.statusCode).toBe(304)
    expect(revalidated.headers['content-encoding']).toBeUndefined()
  })

  it('sends latest and any other version to the current one, with a short cache', async () => {
    for (const version of ['latest', '2.0.0', '9.9.9']) {
      const answer = await env.app.inject({ method: 'GET', url: `${BASE}/embed/${version}/dg-prices.js` })
      expect(answer.statusCode, version).toBe(302)
      expect(answer.headers.location).toBe(CURRENT)
      expect(answer.headers['cache-control']).toBe('public, max-age=300')
      expect(answer.headers['access-control-allow-origin']).toBe('*')
    }
    const other = await env.app.inject({ method: 'GET', url: `${BASE}/embed/${SERVICE_VERSION}/other.js` })
    expect(other.statusCode).toBe(404)
    expect(other.headers['cache-control']).toBe('no-store')
  })

  it('stays within the size budget of 25 kB once compressed, as docs/integration/website-component.md says', () => {
    const source = fs.readFileSync(EMBED_SCRIPT_FILE)
    const gzipped = gzipSync(source, { level: 9 }).length
    expect(gzipped).toBeLessThanOrEqual(25 * 1024)
    const docs = fs.readFileSync(new URL('../../docs/integration/website-component.md', import.meta.url), 'utf8')
    // the figure the docs state is the script's real size, to the tenth of a kilobyte
    expect(docs).toContain(`${(gzipped / 1024).toFixed(1)} kB`)
  })
})
