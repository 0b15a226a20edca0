import { expect, it } from 'vitest'

import { runCli } from '../../../src/cli/main.js'
import { openDatabase } from '../../../src/host/db/database.js'
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
      capabilities: [
        'manage_options',
        'dg_read_catalog',
        'dg_read_all',
        'dg_read_administration',
        'dg_edit_catalog',
        'dg_import',
        'dg_publish',
      ],
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

  const signIn = async (login: string, password: string) => {
    const response = await env().app.inject({ method: 'POST', url: `${BASE}/session`, payload: { login, password } })
    expect(response.statusCode).toBe(200)
    return { cookie: sessionCookie(response.headers['set-cookie']), nonce: response.json().nonce as string }
  }
  const sessionAnswers = async (session: { cookie: string }) =>
    (await env().app.inject({ method: 'GET', url: `${BASE}/session`, headers: { cookie: session.cookie } })).statusCode

  it('ends every session of the account when dg user set-password changes its password, and says so', async () => {
    const { app, ctx, config, database } = env()
    await grantProLicense(ctx)
    const user = await createTestUser(ctx, 'administrator')
    const first = await signIn(user.login, user.loginPassword)
    const second = await signIn(user.login, user.loginPassword)
    let stdout = ''
    const code = await runCli(['user', 'set-password', '--login', user.login, '--password', 'brand-new-password-1'], {
      config,
      io: { stdout: (t) => void (stdout += t), stderr: () => undefined },
      openDatabase: () => openDatabase(database.connection),
    })
    expect(code).toBe(0)
    expect(stdout).toContain('Panel sessions ended: 2')
    expect(stdout).toContain('Application passwords are kept')
    expect(await sessionAnswers(first)).toBe(401)
    expect(await sessionAnswers(second)).toBe(401)
    // the application password is another credential: it stays until revoked
    const api = await app.inject({
      method: 'GET',
      url: `${BASE}/status`,
      headers: { authorization: user.authorization },
    })
    expect(api.statusCode).toBe(200)
    await signIn(user.login, 'brand-new-password-1')
  })

  it('ends the account’s sessions when an administrator sets its password, the caller’s own kept', async () => {
    const { app, ctx } = env()
    const admin = await createTestUser(ctx, 'administrator')
    const user = await createTestUser(ctx, 'administrator')
    const userSession = await signIn(user.login, user.loginPassword)
    const set = await app.inject({
      method: 'PUT',
      url: `${BASE}/users/${user.id}/password`,
      headers: { authorization: admin.authorization },
      payload: {},
    })
    expect(set.statusCode).toBe(200)
    expect(set.headers['cache-control']).toBe('no-store')
    expect(set.json()).toMatchObject({ sessions_ended: 1, application_passwords_kept: 1, user: { id: user.id } })
    const generated = set.json().password as string
    expect(generated.length).toBeGreaterThanOrEqual(12)
    expect(await sessionAnswers(userSession)).toBe(401)

    // an administrator setting its own password from the panel stays signed in there
    const here = await signIn(admin.login, admin.loginPassword)
    const elsewhere = await signIn(admin.login, admin.loginPassword)
    const own = await app.inject({
      method: 'PUT',
      url: `${BASE}/users/${admin.id}/password`,
      headers: { cookie: here.cookie, 'x-wp-nonce': here.nonce },
      payload: { password: 'admin-new-password-2' },
    })
    expect(own.json()).toMatchObject({ sessions_ended: 1, password: null })
    expect(await sessionAnswers(here)).toBe(200)
    expect(await sessionAnswers(elsewhere)).toBe(401)
  })

  it('lets a user change its own password with the current one, ending its other sessions', async () => {
    const { app, ctx } = env()
    const user = await createTestUser(ctx, 'dg_catalog_reader')
    const here = await signIn(user.login, user.loginPassword)
    const elsewhere = await signIn(user.login, user.loginPassword)
    const change = (current: string) =>
      app.inject({
        method: 'PUT',
        url: `${BASE}/session/password`,
        headers: { cookie: here.cookie, 'x-wp-nonce': here.nonce },
        payload: { current_password: current, password: 'reader-new-password-3' },
      })
    const wrong = await change('not-the-current-one')
    expect(wrong.statusCode).toBe(403)
    expect(wrong.json().code).toBe('incorrect_password')
    expect(await sessionAnswers(elsewhere)).toBe(200)
    const changed = await change(user.loginPassword)
    expect(changed.statusCode).toBe(200)
    expect(changed.json()).toEqual({ sessions_ended: 1 })
    expect(await sessionAnswers(here)).toBe(200)
    expect(await sessionAnswers(elsewhere)).toBe(401)
    const anonymous = await app.inject({ method: 'PUT', url: `${BASE}/session/password`, payload: { bogus: 1 } })
    expect(anonymous.statusCode).toBe(401)
  })
})
