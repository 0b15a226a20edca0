/*
 * Users and application passwords administered over REST (the admin panel's Users section), and
 * the sign-in protection of POST /session, on both databases.
 */
import { beforeAll, expect, it } from 'vitest'

import { buildApp } from '../../../src/app.js'
import { closeRefusalWindows } from '../../../src/host/audit/audit.js'
import { LOGIN_THROTTLE } from '../../../src/host/auth/login-throttle.js'
import { basicAuth, createTestUser, grantProLicense, type TestUser } from '../../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

const BASE = '/wp-json/dg/v2'

type Admin = TestUser & { loginPassword: string }

function cookieValue(setCookie: string | string[] | undefined, name: string): string | undefined {
  const header = Array.isArray(setCookie) ? setCookie.join('\n') : (setCookie ?? '')
  return new RegExp(`${name}=([^;]+)`).exec(header)?.[1]
}

describeEachDatabase('users and application passwords over REST', (getEnv) => {
  let env: TestEnv
  let admin: Admin
  let reader: Admin

  const asAdmin = { authorization: '' }
  const usersCount = async () =>
    Number(
      (
        await env.ctx.db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    )
  const audit = (action: string) =>
    env.ctx.db
      .selectFrom('audit_log')
      .select(['actor_name', 'object_id', 'outcome', 'details'])
      .where('action', '=', action)
      .orderBy('id')
      .execute()

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    asAdmin.authorization = admin.authorization
  })

  it('answers a catalog reader 403 and an anonymous caller 401 on every users endpoint', async () => {
    const calls: Array<[string, string, object?]> = [
      ['GET', '/users'],
      ['POST', '/users', { login: 'x', email: 'x@example.test', role: 'administrator' }],
      ['GET', `/users/${admin.id}`],
      ['PATCH', `/users/${reader.id}`, { role: 'administrator' }],
      ['GET', `/users/${reader.id}/application-passwords`],
      ['POST', `/users/${reader.id}/application-passwords`, { name: 'x' }],
      ['DELETE', `/users/${reader.id}/application-passwords/${reader.appPasswordUuid}`],
    ]
    for (const [method, url, payload] of calls) {
      const asReader = await env.app.inject({
        method: method as 'GET',
        url: `${BASE}${url}`,
        headers: { authorization: reader.authorization },
        ...(payload ? { payload } : {}),
      })
      expect(asReader.statusCode, `${method} ${url}`).toBe(403)
      const anonymous = await env.app.inject({
        method: method as 'GET',
        url: `${BASE}${url}`,
        ...(payload ? { payload } : {}),
      })
      expect(anonymous.statusCode, `${method} ${url}`).toBe(401)
    }
    // the reader is still a reader and its password still works
    const me = await env.app.inject({ url: `${BASE}/catalog`, headers: { authorization: reader.authorization } })
    expect(me.statusCode).toBe(200)
  })

  it('lists users with their role, state and application passwords', async () => {
    const response = await env.app.inject({ url: `${BASE}/users`, headers: asAdmin })
    expect(response.statusCode).toBe(200)
    const listed = response.json().items.find((u: { id: number }) => u.id === reader.id)
    expect(listed).toMatchObject({
      login: reader.login,
      role: 'dg_catalog_reader',
      role_label: 'API read-only',
      capabilities: ['dg_read_catalog'],
      disabled: false,
      disabled_at: null,
      application_passwords: 1,
    })
    expect(JSON.stringify(response.json())).not.toContain('password_hash')
  })

  it('creates a user with a generated login password shown once, which then logs in', async () => {
    const response = await env.app.inject({
      method: 'POST',
      url: `${BASE}/users`,
      headers: asAdmin,
      payload: { login: 'operator.anna', email: 'Anna@Example.test', role: 'administrator', display_name: 'Anna' },
    })
    expect(response.statusCode).toBe(201)
    expect(response.headers['cache-control']).toBe('no-store')
    const { user, password } = response.json()
    expect(user).toMatchObject({
      login: 'operator.anna',
      email: 'anna@example.test',
      display_name: 'Anna',
      disabled: false,
    })
    expect(password).toMatch(/^[A-Za-z0-9]{20}$/)
    const login = await env.app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: 'operator.anna', password },
    })
    expect(login.statusCode).toBe(200)
    const entry = (await audit('user.create')).find((e) => e.object_id === String(user.id))
    expect(entry).toMatchObject({ actor_name: admin.login, outcome: 'success' })
    expect(entry?.details).not.toContain(password)
  })

  it('refuses bad input with 422 and one issue per field, writing nothing', async () => {
    const before = await usersCount()
    const response = await env.app.inject({
      method: 'POST',
      url: `${BASE}/users`,
      headers: { ...asAdmin, 'accept-language': 'en' },
      payload: { login: 'bad login!', email: 'not-an-address', role: 'superuser', password: 'short' },
    })
    expect(response.statusCode).toBe(422)
    const body = response.json()
    expect(body.error).toBe('invalid_user')
    expect(body.issues.map((i: { field: string; code: string }) => [i.field, i.code])).toEqual([
      ['login', 'invalid_login'],
      ['email', 'invalid_email'],
      ['role', 'invalid_role'],
      ['password', 'weak_password'],
    ])
    for (const issue of body.issues) {
      expect(issue.message_pl).toMatch(/\S/)
      expect(issue.message).toBe(issue.message_en)
    }
    const taken = await env.app.inject({
      method: 'POST',
      url: `${BASE}/users`,
      headers: asAdmin,
      payload: { login: reader.login, email: reader.email.toUpperCase(), role: 'dg_catalog_reader' },
    })
    expect(taken.statusCode).toBe(422)
    expect(taken.json().issues.map((i: { code: string }) => i.code)).toEqual(['login_taken', 'email_taken'])
    expect(taken.json().issues[0].message).toBe('Ten login jest już zajęty.')
    const missing = await env.app.inject({
      method: 'POST',
      url: `${BASE}/users`,
      headers: asAdmin,
      payload: { login: 'x' },
    })
    expect(missing.statusCode).toBe(400)
    // U+0000, which PostgreSQL cannot hold, is refused before the database
    const nul = await env.app.inject({
      method: 'POST',
      url: `${BASE}/users`,
      headers: asAdmin,
      payload: { login: 'nul', email: 'a\u0000@example.test', role: 'administrator' },
    })
    expect(nul.statusCode).toBe(400)
    expect(nul.json().code).toBe('rest_invalid_param')
    expect(await usersCount()).toBe(before)
  })

  it('changes a role: the reader becomes an administrator and back, each change audited', async () => {
    const other = await createTestUser(env.ctx, 'dg_catalog_reader')
    const promote = await env.app.inject({
      method: 'PATCH',
      url: `${BASE}/users/${other.id}`,
      headers: asAdmin,
      payload: { role: 'administrator' },
    })
    expect(promote.statusCode).toBe(200)
    expect(promote.json()).toMatchObject({
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
    const now = await env.app.inject({ url: `${BASE}/users`, headers: { authorization: other.authorization } })
    expect(now.statusCode).toBe(200)

    const bad = await env.app.inject({
      method: 'PATCH',
      url: `${BASE}/users/${other.id}`,
      headers: asAdmin,
      payload: { role: 'root', email: 'nope' },
    })
    expect(bad.statusCode).toBe(422)
    expect(bad.json().issues.map((i: { field: string }) => i.field)).toEqual(['role', 'email'])

    const demote = await env.app.inject({
      method: 'PATCH',
      url: `${BASE}/users/${other.id}`,
      headers: asAdmin,
      payload: { role: 'dg_catalog_reader' },
    })
    expect(demote.json().role).toBe('dg_catalog_reader')
    const after = await env.app.inject({ url: `${BASE}/users`, headers: { authorization: other.authorization } })
    expect(after.statusCode).toBe(403)
    const changes = (await audit('user.role')).filter((e) => e.object_id === String(other.id))
    expect(changes.map((e) => JSON.parse(e.details ?? '{}'))).toEqual([
      { login: other.login, from: 'dg_catalog_reader', to: 'administrator' },
      { login: other.login, from: 'administrator', to: 'dg_catalog_reader' },
    ])
    const missing = await env.app.inject({
      method: 'PATCH',
      url: `${BASE}/users/999999`,
      headers: asAdmin,
      payload: {},
    })
    expect(missing.statusCode).toBe(404)
  })

  it('disables an account: its session ends, its application password and login are refused; enabling restores them', async () => {
    const user = await createTestUser(env.ctx, 'administrator')
    const login = await env.app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: user.login, password: user.loginPassword },
    })
    const cookie = `dg_session=${cookieValue(login.headers['set-cookie'], 'dg_session')}`
    const nonce = login.json().nonce
    expect((await env.app.inject({ url: `${BASE}/users`, headers: { cookie, 'x-wp-nonce': nonce } })).statusCode).toBe(
      200,
    )

    const disable = await env.app.inject({
      method: 'PATCH',
      url: `${BASE}/users/${user.id}`,
      headers: asAdmin,
      payload: { disabled: true },
    })
    expect(disable.statusCode).toBe(200)
    expect(disable.json()).toMatchObject({ disabled: true, disabled_at: expect.any(String) })

    expect((await env.app.inject({ url: `${BASE}/users`, headers: { cookie, 'x-wp-nonce': nonce } })).statusCode).toBe(
      401,
    )
    expect((await env.app.inject({ url: `${BASE}/session`, headers: { cookie } })).statusCode).toBe(401)
    const api = await env.app.inject({ url: `${BASE}/users`, headers: { authorization: user.authorization } })
    expect(api.statusCode).toBe(403)
    expect(api.json().code).toBe('account_disabled')
    const again = await env.app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: user.login, password: user.loginPassword },
    })
    expect(again.statusCode).toBe(403)
    expect(again.json().code).toBe('account_disabled')
    // a wrong password is told apart from nothing: still 401
    const wrong = await env.app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login: user.login, password: 'not-the-password' },
    })
    expect(wrong.statusCode).toBe(401)

    const enable = await env.app.inject({
      method: 'PATCH',
      url: `${BASE}/users/${user.id}`,
      headers: asAdmin,
      payload: { disabled: false },
    })
    expect(enable.json().disabled).toBe(false)
    expect(
      (await env.app.inject({ url: `${BASE}/users`, headers: { authorization: user.authorization } })).statusCode,
    ).toBe(200)
    expect((await audit('user.disable')).some((e) => e.object_id === String(user.id))).toBe(true)
    expect((await audit('user.enable')).some((e) => e.object_id === String(user.id))).toBe(true)
  })

  it('creates an application password shown once, records its use, revokes it, and refuses it afterwards', async () => {
    const created = await env.app.inject({
      method: 'POST',
      url: `${BASE}/users/${reader.id}/application-passwords`,
      headers: asAdmin,
      payload: { name: 'strona WWW' },
    })
    expect(created.statusCode).toBe(201)
    expect(created.headers['cache-control']).toBe('no-store')
    const { uuid, password, user } = created.json()
    expect(user).toBe(reader.login)
    expect(password).toMatch(/^([A-Za-z0-9]{4} ){5}[A-Za-z0-9]{4}$/)

    const used = await env.app.inject({
      url: `${BASE}/catalog`,
      headers: { authorization: basicAuth(reader.login, password) },
      remoteAddress: '203.0.113.7',
    })
    expect(used.statusCode).toBe(200)
    const listed = await env.app.inject({ url: `${BASE}/users/${reader.id}/application-passwords`, headers: asAdmin })
    const item = listed.json().items.find((i: { uuid: string }) => i.uuid === uuid)
    expect(item).toEqual({
      uuid,
      name: 'strona WWW',
      created_at: expect.any(String),
      last_used_at: env.clock.now().toISOString(),
      last_ip: '203.0.113.7',
    })
    expect(listed.body).not.toContain(password.replace(/ /g, ''))

    const revoked = await env.app.inject({
      method: 'DELETE',
      url: `${BASE}/users/${reader.id}/application-passwords/${uuid}`,
      headers: asAdmin,
    })
    expect(revoked.statusCode).toBe(200)
    expect(revoked.json()).toEqual({ user: reader.login, uuid, revoked: true })
    const refused = await env.app.inject({
      url: `${BASE}/catalog`,
      headers: { authorization: basicAuth(reader.login, password) },
    })
    expect(refused.statusCode).toBe(401)
    const twice = await env.app.inject({
      method: 'DELETE',
      url: `${BASE}/users/${reader.id}/application-passwords/${uuid}`,
      headers: asAdmin,
    })
    expect(twice.statusCode).toBe(404)
    // the reader's other password is untouched
    expect(
      (await env.app.inject({ url: `${BASE}/catalog`, headers: { authorization: reader.authorization } })).statusCode,
    ).toBe(200)
    expect((await audit('app_password.revoke')).at(-1)).toMatchObject({ actor_name: admin.login, outcome: 'success' })
  })

  it('refuses an application password without a name or with a taken one, writing nothing', async () => {
    const count = async () =>
      (await env.app.inject({ url: `${BASE}/users/${reader.id}/application-passwords`, headers: asAdmin })).json().items
        .length
    const before = await count()
    for (const [name, code] of [
      ['   ', 'invalid_name'],
      ['tests', 'name_taken'],
    ]) {
      const response = await env.app.inject({
        method: 'POST',
        url: `${BASE}/users/${reader.id}/application-passwords`,
        headers: asAdmin,
        payload: { name },
      })
      expect(response.statusCode).toBe(422)
      expect(response.json()).toMatchObject({
        error: 'invalid_application_password',
        issues: [{ field: 'name', code }],
      })
    }
    const unknown = await env.app.inject({
      method: 'POST',
      url: `${BASE}/users/999999/application-passwords`,
      headers: asAdmin,
      payload: { name: 'x' },
    })
    expect(unknown.statusCode).toBe(404)
    expect(await count()).toBe(before)
  })

  it('keeps one active administrator and refuses to disable one’s own account', async () => {
    const own = await env.app.inject({
      method: 'PATCH',
      url: `${BASE}/users/${admin.id}`,
      headers: asAdmin,
      payload: { disabled: true },
    })
    expect(own.statusCode).toBe(409)
    expect(own.json().error).toBe('own_account')
    // every other administrator is demoted; then the last one cannot be
    const users = (await env.app.inject({ url: `${BASE}/users`, headers: asAdmin })).json().items as Array<{
      id: number
      role: string
      disabled: boolean
    }>
    for (const user of users.filter((u) => u.role === 'administrator' && u.id !== admin.id && !u.disabled)) {
      const demoted = await env.app.inject({
        method: 'PATCH',
        url: `${BASE}/users/${user.id}`,
        headers: asAdmin,
        payload: { role: 'dg_catalog_reader' },
      })
      expect(demoted.statusCode).toBe(200)
    }
    const last = await env.app.inject({
      method: 'PATCH',
      url: `${BASE}/users/${admin.id}`,
      headers: asAdmin,
      payload: { role: 'dg_catalog_reader' },
    })
    expect(last.statusCode).toBe(409)
    expect(last.json().error).toBe('last_administrator')
    const still = await env.app.inject({ url: `${BASE}/users/${admin.id}`, headers: asAdmin })
    expect(still.json().role).toBe('administrator')
  })
})

describeEachDatabase('sign-in protection', (getEnv) => {
  let env: TestEnv
  let admin: Admin

  const signIn = (login: string, password: string, options: { ip?: string; cookie?: string } = {}) =>
    env.app.inject({
      method: 'POST',
      url: `${BASE}/session`,
      payload: { login, password },
      remoteAddress: options.ip ?? '198.51.100.10',
      ...(options.cookie ? { headers: { cookie: options.cookie } } : {}),
    })

  beforeAll(async () => {
    env = getEnv()
    admin = await createTestUser(env.ctx, 'administrator')
  })

  /** Refused sign-ins audited so far, by cause (refusals are counted per address and window). */
  const refusalCounts = async (): Promise<Record<string, number>> => {
    env.clock.advance(15 * 60_000)
    await closeRefusalWindows(env.ctx)
    const rows = await env.ctx.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'session.login')
      .where('outcome', '=', 'refused')
      .execute()
    const counts: Record<string, number> = {}
    for (const row of rows) {
      const details = JSON.parse(row.details ?? '{}') as { reason: string; count: number }
      counts[details.reason] = (counts[details.reason] ?? 0) + details.count
    }
    return counts
  }

  it('slows an account down after repeated failures with 429, Retry-After and a stable code, even for the right password', async () => {
    const before = await refusalCounts()
    for (let i = 0; i < LOGIN_THROTTLE.accountFreeFailures; i++)
      expect((await signIn(admin.login, `wrong-${i}`)).statusCode).toBe(401)
    const throttled = await signIn(admin.login, admin.loginPassword)
    expect(throttled.statusCode).toBe(429)
    expect(throttled.headers['retry-after']).toBe('2')
    expect(throttled.json()).toMatchObject({
      code: 'too_many_login_attempts',
      data: { status: 429, retry_after: 2, scope: 'account' },
    })
    // from another address too
    expect((await signIn(admin.login, admin.loginPassword, { ip: '198.51.100.99' })).statusCode).toBe(429)

    env.clock.advance(2000)
    expect((await signIn(admin.login, 'wrong-again')).statusCode).toBe(401)
    const longer = await signIn(admin.login, admin.loginPassword)
    expect(longer.statusCode).toBe(429)
    expect(longer.headers['retry-after']).toBe('4')

    env.clock.advance(4000)
    const ok = await signIn(admin.login, admin.loginPassword)
    expect(ok.statusCode).toBe(200)
    // a success starts the account over: the next mistake is a plain 401
    expect((await signIn(admin.login, 'wrong-after-success')).statusCode).toBe(401)
    expect((await signIn(admin.login, admin.loginPassword)).statusCode).toBe(200)

    const after = await refusalCounts()
    expect((after.throttled ?? 0) - (before.throttled ?? 0)).toBe(3)
    expect((after.wrong_password ?? 0) - (before.wrong_password ?? 0)).toBe(7)
    const logged = await env.ctx.db.selectFrom('audit_log').select('details').execute()
    expect(JSON.stringify(logged)).not.toContain(admin.loginPassword)
  })

  it('slows an unknown login down exactly like a known one (the answer does not tell which exists)', async () => {
    for (let i = 0; i < LOGIN_THROTTLE.accountFreeFailures; i++)
      expect((await signIn('nobody-here', `wrong-${i}`, { ip: '198.51.100.20' })).statusCode).toBe(401)
    const throttled = await signIn('nobody-here', 'x', { ip: '198.51.100.20' })
    expect(throttled.statusCode).toBe(429)
    expect(throttled.json().data.scope).toBe('account')
  })

  it('never keeps the owner out: a browser that signed in before is not slowed down by failures elsewhere', async () => {
    const owner = await createTestUser(env.ctx, 'administrator')
    const first = await signIn(owner.login, owner.loginPassword, { ip: '192.0.2.1' })
    expect(first.statusCode).toBe(200)
    const known = cookieValue(first.headers['set-cookie'], 'dg_known_browser')
    expect(known).toBeDefined()
    expect(String(first.headers['set-cookie'])).toMatch(/dg_known_browser=[^;]+;.*HttpOnly/)
    // an attacker elsewhere keeps failing on the owner's account
    for (let i = 0; i < LOGIN_THROTTLE.accountFreeFailures + 3; i++)
      await signIn(owner.login, `guess-${i}`, { ip: '192.0.2.66' })
    expect((await signIn(owner.login, owner.loginPassword, { ip: '192.0.2.67' })).statusCode).toBe(429)
    // the owner's own browser still signs in
    const own = await signIn(owner.login, owner.loginPassword, { ip: '192.0.2.1', cookie: `dg_known_browser=${known}` })
    expect(own.statusCode).toBe(200)
    // a forged or another account's cookie is no exemption
    const forged = await signIn(owner.login, owner.loginPassword, {
      ip: '192.0.2.1',
      cookie: `dg_known_browser=${known?.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}`,
    })
    expect(forged.statusCode).toBe(429)
  })

  it('checks at most the free number of passwords however many wrong guesses arrive at once, on two instances', async () => {
    const user = await createTestUser(env.ctx, 'administrator')
    const before = await refusalCounts()
    const second = await buildApp({ config: env.config, database: env.database.handle, now: env.clock.now })
    try {
      const guesses = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 === 0 ? env.app : second).inject({
            method: 'POST',
            url: `${BASE}/session`,
            payload: { login: user.login, password: `parallel-guess-${i}` },
            remoteAddress: `198.51.100.${100 + (i % 20)}`,
          }),
        ),
      )
      const statuses = guesses.map((g) => g.statusCode)
      expect(statuses.filter((s) => s === 401).length).toBe(LOGIN_THROTTLE.accountFreeFailures)
      expect(statuses.filter((s) => s === 429).length).toBe(40 - LOGIN_THROTTLE.accountFreeFailures)
      for (const refused of guesses.filter((g) => g.statusCode === 429)) {
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0)
        expect(refused.json()).toMatchObject({ code: 'too_many_login_attempts', data: { scope: 'account' } })
      }
      // a password was checked for the 401s only: each is audited as a wrong password
      const after = await refusalCounts()
      expect((after.wrong_password ?? 0) - (before.wrong_password ?? 0)).toBe(LOGIN_THROTTLE.accountFreeFailures)
      const stored = await env.ctx.db
        .selectFrom('login_throttle')
        .select('failures')
        .where('bucket', '=', `account:${user.login.toLowerCase()}`)
        .executeTakeFirstOrThrow()
      expect(Number(stored.failures)).toBe(LOGIN_THROTTLE.accountFreeFailures)
    } finally {
      await second.close()
    }
  })

  it('does not tell that a login and an e-mail belong to one account: they are counted apart', async () => {
    const user = await createTestUser(env.ctx, 'administrator')
    const ip = '198.51.100.60'
    for (let i = 0; i < LOGIN_THROTTLE.accountFreeFailures; i++)
      expect((await signIn(user.login, `wrong-${i}`, { ip })).statusCode).toBe(401)
    expect((await signIn(user.login, 'wrong-again', { ip })).statusCode).toBe(429)
    // the account's e-mail answers as any other name that has not failed yet
    const byEmail = await signIn(user.email, 'wrong-by-email', { ip })
    expect(byEmail.statusCode).toBe(401)
    expect(byEmail.json().code).toBe('incorrect_password')
  })

  it('lets a known browser sign in from an address slowed down by others (also behind a proxy that is not trusted)', async () => {
    const owner = await createTestUser(env.ctx, 'administrator')
    const shared = '203.0.113.80'
    const first = await signIn(owner.login, owner.loginPassword, { ip: shared })
    const known = cookieValue(first.headers['set-cookie'], 'dg_known_browser')
    for (let i = 0; i < LOGIN_THROTTLE.addressFreeFailures; i++) await signIn(`other-${i}`, 'guess', { ip: shared })
    const newBrowser = await signIn(owner.login, owner.loginPassword, { ip: shared })
    expect(newBrowser.statusCode).toBe(429)
    expect(newBrowser.json().data.scope).toBe('address')
    const own = await signIn(owner.login, owner.loginPassword, { ip: shared, cookie: `dg_known_browser=${known}` })
    expect(own.statusCode).toBe(200)
    // the cookie names its account: it exempts nobody else's sign-in
    const other = await createTestUser(env.ctx, 'administrator')
    const borrowed = await signIn(other.login, other.loginPassword, { ip: shared, cookie: `dg_known_browser=${known}` })
    expect(borrowed.statusCode).toBe(429)
  })

  it('slows a client address down across accounts, and no other address', async () => {
    const ip = '203.0.113.50'
    for (let i = 0; i < LOGIN_THROTTLE.addressFreeFailures; i++)
      expect((await signIn(`spray-${i}`, 'password', { ip })).statusCode).toBe(401)
    const throttled = await signIn('spray-new', 'password', { ip })
    expect(throttled.statusCode).toBe(429)
    expect(throttled.json().data.scope).toBe('address')
    const other = await createTestUser(env.ctx, 'administrator')
    expect((await signIn(other.login, other.loginPassword, { ip })).statusCode).toBe(429)
    expect((await signIn(other.login, other.loginPassword, { ip: '203.0.113.51' })).statusCode).toBe(200)
  })

  it('caps the delay at 15 minutes and forgets an hour without failures: no permanent lock-out', async () => {
    const user = await createTestUser(env.ctx, 'administrator')
    const ip = '198.51.100.30'
    const delays: number[] = []
    for (let i = 0; i < 40 && delays.at(-1) !== LOGIN_THROTTLE.maxDelaySeconds; i++) {
      const response = await signIn(user.login, `wrong-${i}`, { ip })
      if (response.statusCode === 429) {
        delays.push(Number(response.headers['retry-after']))
        env.clock.advance(Number(response.headers['retry-after']) * 1000)
      }
    }
    expect(delays).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 512, 900])
    // at the cap it stays at the cap, never longer
    expect((await signIn(user.login, 'wrong-at-cap', { ip })).statusCode).toBe(401)
    expect(Number((await signIn(user.login, user.loginPassword, { ip })).headers['retry-after'])).toBe(900)
    env.clock.advance(LOGIN_THROTTLE.maxDelaySeconds * 1000)
    expect((await signIn(user.login, user.loginPassword, { ip })).statusCode).toBe(200)
  })

  it('shares the counts between instances through the database', async () => {
    const user = await createTestUser(env.ctx, 'administrator')
    const second = await buildApp({ config: env.config, database: env.database.handle, now: env.clock.now })
    try {
      for (let i = 0; i < LOGIN_THROTTLE.accountFreeFailures; i++)
        await signIn(user.login, `wrong-${i}`, { ip: '198.51.100.40' })
      const elsewhere = await second.inject({
        method: 'POST',
        url: `${BASE}/session`,
        payload: { login: user.login, password: user.loginPassword },
        remoteAddress: '198.51.100.41',
      })
      expect(elsewhere.statusCode).toBe(429)
    } finally {
      await second.close()
    }
  })
})
