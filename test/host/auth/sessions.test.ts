import { expect, it } from 'vitest'

import { createTestUser, grantProLicense } from '../../helpers/factories.js'
import { describeEachDatabase } from '../../helpers/test-app.js'

const BASE = '/wp-json/dg/v2'

function sessionCookie(setCookie: string | string[] | undefined): string {
  const header = Array.isArray(setCookie) ? setCookie.join('; ') : (setCookie ?? '')
  const match = /dg_session=([^;]+)/.exec(header)
  if (!match?.[1]) throw new Error(`no session cookie in ${header}`)
  return `dg_session=${match[1]}`
}

describeEachDatabase('admin-panel login session with REST nonce', (env) => {
  it('sets a Secure, HttpOnly, SameSite cookie and returns a nonce that authenticates session requests', async () => {
    const { app, ctx } = env()
    await grantProLicense(ctx)
    const admin = await createTestUser(ctx, 'administrator')
    const login = await app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: admin.login, password: admin.loginPassword },
    })
    expect(login.statusCode).toBe(200)
    const setCookie = String(login.headers['set-cookie'])
    expect(setCookie).toMatch(/HttpOnly/i)
    expect(setCookie).toMatch(/Secure/i)
    expect(setCookie).toMatch(/SameSite=Strict/i)
    const { nonce, user } = login.json()
    expect(user).toMatchObject({
      login: admin.login,
      role: 'administrator',
      capabilities: ['manage_options', 'dg_read_catalog'],
    })
    const cookie = sessionCookie(login.headers['set-cookie'])

    const withNonce = await app.inject({
      method: 'GET',
      url: `${BASE}/status`,
      headers: { cookie, 'x-wp-nonce': nonce },
    })
    expect(withNonce.statusCode).toBe(200)

    const withoutNonce = await app.inject({ method: 'GET', url: `${BASE}/status`, headers: { cookie } })
    expect(withoutNonce.statusCode).toBe(401)

    const badNonce = await app.inject({
      method: 'GET',
      url: `${BASE}/status`,
      headers: { cookie, 'x-wp-nonce': 'forged0000000000000000' },
    })
    expect(badNonce.statusCode).toBe(403)
    expect(badNonce.json().code).toBe('rest_cookie_invalid_nonce')
  })

  it('refuses a wrong password with 401 and does not say whether the login exists', async () => {
    const { app, ctx } = env()
    const admin = await createTestUser(ctx, 'administrator')
    const wrong = await app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: admin.login, password: 'not-the-password' },
    })
    const unknown = await app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: 'ghost', password: 'not-the-password' },
    })
    expect(wrong.statusCode).toBe(401)
    expect(unknown.statusCode).toBe(401)
    expect(wrong.json()).toEqual(unknown.json())
    expect(wrong.headers['set-cookie']).toBeUndefined()
  })

  it('does not accept a nonce of another session, expires nonces and ends the session on logout', async () => {
    const { app, ctx, clock } = env()
    await grantProLicense(ctx)
    const admin = await createTestUser(ctx, 'administrator')
    const first = await app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: admin.login, password: admin.loginPassword },
    })
    const second = await app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: admin.login, password: admin.loginPassword },
    })
    const cookieA = sessionCookie(first.headers['set-cookie'])
    const nonceB = second.json().nonce as string
    const crossed = await app.inject({
      method: 'GET',
      url: `${BASE}/status`,
      headers: { cookie: cookieA, 'x-wp-nonce': nonceB },
    })
    expect(crossed.statusCode).toBe(403)

    // GET /session hands out a fresh nonce for the cookie
    const refreshed = await app.inject({ method: 'GET', url: `${BASE}/session`, headers: { cookie: cookieA } })
    expect(refreshed.statusCode).toBe(200)
    const nonceA = refreshed.json().nonce as string

    clock.advance(ctx.config.sessionTtlSeconds * 1000 + 1000)
    const expired = await app.inject({
      method: 'GET',
      url: `${BASE}/status`,
      headers: { cookie: cookieA, 'x-wp-nonce': nonceA },
    })
    expect(expired.statusCode).toBe(401)

    const third = await app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: admin.login, password: admin.loginPassword },
    })
    const cookieC = sessionCookie(third.headers['set-cookie'])
    const nonceC = third.json().nonce as string
    const logout = await app.inject({
      method: 'DELETE',
      url: `${BASE}/session`,
      headers: { cookie: cookieC, 'x-wp-nonce': nonceC },
    })
    expect(logout.statusCode).toBe(204)
    const after = await app.inject({
      method: 'GET',
      url: `${BASE}/status`,
      headers: { cookie: cookieC, 'x-wp-nonce': nonceC },
    })
    expect(after.statusCode).toBe(401)
  })

  it('gives a catalog reader session no access to administrative endpoints', async () => {
    const { app, ctx } = env()
    await grantProLicense(ctx)
    const reader = await createTestUser(ctx, 'dg_catalog_reader')
    const login = await app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: reader.login, password: reader.loginPassword },
    })
    const response = await app.inject({
      method: 'GET',
      url: `${BASE}/status`,
      headers: { cookie: sessionCookie(login.headers['set-cookie']), 'x-wp-nonce': login.json().nonce },
    })
    expect(response.statusCode).toBe(403)
  })
})
