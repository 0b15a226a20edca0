import { expect, it } from 'vitest'

import { describeEachDatabase } from '../../helpers/test-app.js'

const BASE = '/wp-json/dg/v2'

describeEachDatabase('error shapes for unknown routes and malformed requests', (env) => {
  it('answers an unknown route with 404 rest_no_route in the host shape', async () => {
    const response = await env().app.inject({ method: 'GET', url: `${BASE}/no-such-thing` })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual({ code: 'rest_no_route', message: expect.any(String), data: { status: 404 } })
  })

  it('answers an unparseable JSON body with 400 rest_invalid_json and no stack trace', async () => {
    const response = await env().app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      headers: { 'content-type': 'application/json' },
      payload: '{"login": "a", ',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toMatchObject({ code: 'rest_invalid_json', data: { status: 400 } })
    expect(response.body).not.toMatch(/at .*\.(js|ts):\d+/)
  })

  it('names the missing and the invalid parameters', async () => {
    const { app } = env()
    const missing = await app.inject({ method: 'POST', url: `${BASE}/session`, payload: { login: 'a' } })
    expect(missing.statusCode).toBe(400)
    expect(missing.json()).toMatchObject({
      code: 'rest_missing_callback_param',
      data: { status: 400, params: { password: expect.any(String) } },
    })
    const invalid = await app.inject({ method: 'POST', url: `${BASE}/session`, payload: { login: 'a', password: 5 } })
    expect(invalid.statusCode).toBe(400)
    expect(invalid.json()).toMatchObject({
      code: 'rest_invalid_param',
      data: { params: { password: expect.any(String) } },
    })
    const extra = await app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: 'a', password: 'b', admin: true },
    })
    expect(extra.statusCode).toBe(400)
  })

  it('answers an unsupported body type with 415 in the host shape', async () => {
    const response = await env().app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      headers: { 'content-type': 'application/x-unknown' },
      payload: 'x',
    })
    expect(response.statusCode).toBe(415)
    expect(response.json().code).toBe('rest_unsupported_media_type')
  })

  it('answers a malformed Authorization header with 401, not 500', async () => {
    const response = await env().app.inject({
      method: 'GET',
      url: `${BASE}/status`,
      headers: { authorization: 'Basic !!!' },
    })
    expect(response.statusCode).toBe(401)
    expect(response.json().code).toBe('rest_invalid_authorization')
  })
})
