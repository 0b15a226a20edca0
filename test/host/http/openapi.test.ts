import { Validator } from '@seriousme/openapi-schema-validator'
import { expect, it } from 'vitest'

import { CANONICAL_FIELDS } from '../../../src/offers/canonical-fields.js'
import { createTestUser, grantProLicense } from '../../helpers/factories.js'
import { multipart } from '../../helpers/multipart.js'
import { describeEachDatabase } from '../../helpers/test-app.js'

describeEachDatabase('OpenAPI description', (env) => {
  it('is served at {base_url}/openapi.json as a valid OpenAPI 3.1 document generated from the routes', async () => {
    const response = await env().app.inject({ method: 'GET', url: '/wp-json/dg/v2/openapi.json' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toMatch(/application\/json/)
    const document = response.json()
    expect(document.openapi).toBe('3.1.0')
    const result = await new Validator().validate(document)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/wp-json/dg/v2/status', '/wp-json/dg/v2/session']),
    )
    const status = document.paths['/wp-json/dg/v2/status'].get
    expect(Object.keys(status.responses)).toEqual(expect.arrayContaining(['200', '401', '403']))
    expect(document.components.securitySchemes.applicationPassword).toMatchObject({ type: 'http', scheme: 'basic' })
  })

  it('names the address it was fetched from as its server', async () => {
    const direct = await env().app.inject({
      method: 'GET',
      url: '/wp-json/dg/v2/openapi.json',
      headers: { host: 'ceny.example.pl:8080' },
    })
    expect(direct.json().servers).toEqual([{ url: 'http://ceny.example.pl:8080', description: expect.any(String) }])
    const mangled = await env().app.inject({
      method: 'GET',
      url: '/wp-json/dg/v2/openapi.json',
      headers: { host: 'bad host/<x>' },
    })
    expect(mangled.json().servers[0].url).toBe(`http://${env().config.host}:${env().config.port}`)
  })

  it('describes the request bodies and the webhook headers the routes read themselves', async () => {
    const document = (await env().app.inject({ method: 'GET', url: '/wp-json/dg/v2/openapi.json' })).json()
    const offer = document.paths['/wp-json/dg/v2/imports/offer'].post
    const preview = offer.requestBody.content['multipart/form-data'].schema
    expect(preview.required).toEqual(['file', 'mapping'])
    expect(preview.properties.file).toMatchObject({ type: 'string', format: 'binary' })
    expect(preview.properties.mode).toMatchObject({ type: 'string', enum: ['patch', 'snapshot'] })
    expect(preview.properties.mapping).toMatchObject({ type: 'string', contentMediaType: 'application/json' })
    expect(preview.properties.sheet).toMatchObject({ type: 'string' })
    const execute = offer.requestBody.content['application/x-www-form-urlencoded'].schema
    expect(execute.required).toEqual(['job_id'])
    expect(Object.keys(execute.properties)).toEqual(['job_id', 'confirm_archiving'])
    expect(offer.parameters).toContainEqual(
      expect.objectContaining({
        in: 'header',
        name: 'idempotency-key',
        schema: expect.objectContaining({ pattern: '^[A-Za-z0-9._:-]{8,128}$' }),
      }),
    )
    expect(offer.responses['200'].content['application/json'].schema.anyOf).toHaveLength(2)
    expect(document.components.schemas.OfferImportPreview.required).toEqual(
      expect.arrayContaining(['valid', 'mode', 'operations', 'errors', 'counts', 'archive_scope']),
    )
    expect(document.components.schemas.ImportResult.required).toEqual([
      'status',
      'processed',
      'created',
      'updated',
      'archived',
      'run_id',
    ])

    const report = document.paths['/wp-json/dg/v2/imports/report'].post.requestBody.content
    expect(report['multipart/form-data'].schema.required).toEqual(['file'])
    expect(report['application/x-www-form-urlencoded'].schema.required).toEqual(['job_id', 'confirm', 'date'])
    expect(document.components.schemas.ReportImportPreview.required).toEqual(
      expect.arrayContaining(['valid', 'csv_path', 'row_count', 'warning', 'errors']),
    )

    const webhook = document.paths['/wp-json/dg/v2/webhooks/properties'].post
    const payload = webhook.requestBody.content['application/json'].schema
    expect(webhook.requestBody.required).toBe(true)
    expect(Object.keys(webhook.requestBody.content)).toEqual(['application/json'])
    expect(Object.keys(payload.properties)).toEqual([...CANONICAL_FIELDS])
    expect(payload).toMatchObject({
      required: ['source_investment_id', 'source_property_id'],
      additionalProperties: false,
    })
    expect(payload.properties.price_total).toEqual({ type: ['string', 'number', 'boolean', 'null'] })
    const headers = Object.fromEntries(
      webhook.parameters.map((p: { name: string; required: boolean; schema: { pattern: string } }) => [
        p.name,
        [p.required, p.schema.pattern],
      ]),
    )
    expect(headers).toEqual({
      'x-dg-timestamp': [true, '^\\d{10}$'],
      'x-dg-nonce': [true, '^[A-Za-z0-9._:-]{16,128}$'],
      'idempotency-key': [true, '^[A-Za-z0-9._:-]{8,128}$'],
      'x-dg-signature': [true, '^[0-9a-f]{64}$'],
    })
  })

  it('keeps answering the multipart and form requests it only documents', async () => {
    // documenting a body must not make Fastify validate it: a multipart preview without a file
    // is still the handler's 400 invalid_upload, a form without job_id its 400 invalid_job_id
    const user = await createTestUser(env().ctx, 'administrator')
    await grantProLicense(env().ctx)
    const body = multipart({ mode: 'patch' })
    const preview = await env().app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/imports/offer',
      payload: body.payload,
      headers: { ...body.headers, authorization: user.authorization },
    })
    expect(preview.statusCode).toBe(400)
    expect(preview.json().error).toBe('invalid_upload')
    const form = await env().app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/imports/offer',
      payload: 'confirm_archiving=true',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: user.authorization },
    })
    expect(form.statusCode).toBe(400)
    expect(form.json().error).toBe('invalid_job_id')
    const webhook = await env().app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/webhooks/properties',
      payload: '{}',
      headers: { 'content-type': 'application/json' },
    })
    expect(webhook.statusCode).toBe(401)
    expect(webhook.json().error).toBe('invalid_auth')
  })
})
