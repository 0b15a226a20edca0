import { Validator } from '@seriousme/openapi-schema-validator'
import { expect, it } from 'vitest'

import { describeEachDatabase } from '../helpers/test-app.js'

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
})
