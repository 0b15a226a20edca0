/*
 * The interactive API documentation: Swagger UI, shipped in the swagger-ui-dist package and served
 * by the service itself (no CDN), renders {base_url}/openapi.json. Every operation the document
 * lists has a summary, a description and an example, so the page answers "what does this do and
 * what does a call look like" for each one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startTestApp, type TestEnv } from '../../helpers/test-app.js'

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

/*
 * Operations still owed a description or an example, with what each lacks. The list only shrinks:
 * an operation not on it must be complete, and an entry that is no longer true fails too.
 */
const STILL_LACKING = new Set([
  'GET /healthz: description, example',
  'GET /readyz: description, example',
  'GET /metrics: example',
  'GET /dane-gov/{file}: description, example',
  'GET /dane-gov/{dataset}/{file}: description, example',
  'GET /dg-media/{file}: description, example',
  'GET /wp-json/dg/v2/session: description, example',
  'POST /wp-json/dg/v2/session: example',
  'DELETE /wp-json/dg/v2/session: description, example',
  'GET /wp-json/dg/v2/users: description, example',
  'POST /wp-json/dg/v2/users: description, example',
  'GET /wp-json/dg/v2/users/{id}: description, example',
  'PATCH /wp-json/dg/v2/users/{id}: example',
  'GET /wp-json/dg/v2/users/{id}/application-passwords: description, example',
  'POST /wp-json/dg/v2/users/{id}/application-passwords: description, example',
  'DELETE /wp-json/dg/v2/users/{id}/application-passwords/{uuid}: description, example',
  'GET /wp-json/dg/v2/audit: description, example',
  'GET /wp-json/dg/v2/audit/actions: description, example',
  'GET /wp-json/dg/v2/site-options: description, example',
  'PUT /wp-json/dg/v2/site-options/{name}: description, example',
  'GET /wp-json/dg/v2/status: description, example',
  'GET /wp-json/dg/v2/catalog: description, example',
  'GET /wp-json/dg/v2/catalog/investments: description, example',
  'GET /wp-json/dg/v2/catalog/investments/{id}: description, example',
  'GET /wp-json/dg/v2/catalog/properties: description, example',
  'GET /wp-json/dg/v2/catalog/properties/{id}: description, example',
  'GET /wp-json/dg/v2/catalog/properties/{id}/price-history: description, example',
  'GET /wp-json/dg/v2/catalog/properties/{id}/related: description, example',
  'POST /wp-json/dg/v2/imports/offer: example',
  'GET /wp-json/dg/v2/imports/{id}: description, example',
  'POST /wp-json/dg/v2/webhooks/properties: example',
  'GET /wp-json/dg/v2/webhook-secret: example',
  'POST /wp-json/dg/v2/webhook-secret/rotate: example',
  'GET /wp-json/dg/v2/publications: description, example',
  'POST /wp-json/dg/v2/publications: description, example',
  'GET /wp-json/dg/v2/publications/{id}: description, example',
  'GET /wp-json/dg/v2/dashboard: example',
  'POST /wp-json/dg/v2/imports/report: example',
  'POST /wp-json/dg/v2/publications/preflight: description, example',
  'GET /wp-json/dg/v2/publication/settings: description, example',
  'PUT /wp-json/dg/v2/publication/settings: description, example',
  'GET /wp-json/dg/v2/developers: description, example',
  'POST /wp-json/dg/v2/developers: description, example',
  'GET /wp-json/dg/v2/developers/{id}: description, example',
  'PUT /wp-json/dg/v2/developers/{id}: description, example',
  'GET /wp-json/dg/v2/investments/{id}/location: description, example',
  'PUT /wp-json/dg/v2/investments/{id}/location: description, example',
  'GET /wp-json/dg/v2/legacy-generate/settings: description, example',
  'PUT /wp-json/dg/v2/legacy-generate/settings: description, example',
  'GET /wp-json/dg/v2/offers/{id}/media: description, example',
  'POST /wp-json/dg/v2/offers/{id}/media: example',
  'GET /wp-json/dg/v2/investments/{id}/media: description, example',
  'POST /wp-json/dg/v2/investments/{id}/media: example',
  'GET /wp-json/dg/v2/media/{id}: description, example',
  'PATCH /wp-json/dg/v2/media/{id}: description, example',
  'DELETE /wp-json/dg/v2/media/{id}: description, example',
  'GET /wp-json/dg/v2/custom-fields: description, example',
  'GET /wp-json/dg/v2/investments: description, example',
  'POST /wp-json/dg/v2/investments: description, example',
  'GET /wp-json/dg/v2/investments/{id}: description, example',
  'PATCH /wp-json/dg/v2/investments/{id}: description, example',
  'DELETE /wp-json/dg/v2/investments/{id}: description, example',
  'GET /wp-json/dg/v2/offers: description, example',
  'POST /wp-json/dg/v2/offers: description, example',
  'GET /wp-json/dg/v2/offers/{id}: description, example',
  'PATCH /wp-json/dg/v2/offers/{id}: description, example',
  'POST /wp-json/dg/v2/offers/{id}/archive: description, example',
  'POST /wp-json/dg/v2/offers/{id}/restore: description, example',
  'GET /wp-json/dg/v2/offers/{id}/price-history: description, example',
  'POST /wp-json/dg/v2/offers/{id}/components: description, example',
  'PATCH /wp-json/dg/v2/offers/{id}/components/{component_id}: description, example',
  'DELETE /wp-json/dg/v2/offers/{id}/components/{component_id}: description, example',
  'GET /wp-json/dg/v1/generate: example',
  'POST /wp-json/dg/v1/generate: example',
])

describe('interactive API documentation', () => {
  let env: TestEnv
  beforeAll(async () => {
    env = await startTestApp('sqlite')
  })
  afterAll(async () => {
    await env?.app.close()
    await env?.database.cleanup()
  })

  it('serves Swagger UI at {base_url}/docs from the package, with no asset from another host', async () => {
    const page = await env.app.inject({ method: 'GET', url: '/wp-json/dg/v2/docs/' })
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toMatch(/text\/html/)
    expect(page.body).not.toMatch(/(src|href)="(https?:)?\/\//)
    const bundle = await env.app.inject({ method: 'GET', url: '/wp-json/dg/v2/docs/static/swagger-ui-bundle.js' })
    expect(bundle.statusCode).toBe(200)
    expect(bundle.body.length).toBeGreaterThan(100_000)
    const document = await env.app.inject({
      method: 'GET',
      url: '/wp-json/dg/v2/docs/json',
      headers: { host: 'ceny.example.pl:8080' },
    })
    expect(document.json().servers).toEqual([{ url: 'http://ceny.example.pl:8080', description: expect.any(String) }])
    expect(Object.keys(document.json().paths)).toContain('/wp-json/dg/v2/status')
  })

  it('gives every operation of the OpenAPI document a summary, a description and an example', async () => {
    const document = (await env.app.inject({ method: 'GET', url: '/wp-json/dg/v2/openapi.json' })).json()
    const lacking: string[] = []
    let operations = 0
    for (const [path, item] of Object.entries<Record<string, Record<string, unknown>>>(document.paths)) {
      for (const method of METHODS) {
        const operation = item[method]
        if (!operation) continue
        operations++
        const missing = [
          typeof operation.summary === 'string' && operation.summary.length > 5 ? null : 'summary',
          typeof operation.description === 'string' && operation.description.length > 20 ? null : 'description',
          /"examples?":/.test(JSON.stringify(operation)) ? null : 'example',
        ].filter(Boolean)
        if (missing.length) lacking.push(`${method.toUpperCase()} ${path}: ${missing.join(', ')}`)
      }
    }
    expect(operations).toBeGreaterThan(40)
    expect(lacking.filter((entry) => !STILL_LACKING.has(entry))).toEqual([])
    expect(
      [...STILL_LACKING].filter((entry) => !lacking.includes(entry)),
      'remove from STILL_LACKING',
    ).toEqual([])
  })
})
