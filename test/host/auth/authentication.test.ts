import { expect, it } from 'vitest'

import { buildApp } from '../../../src/app.js'
import { formatAppPassword } from '../../../src/host/auth/app-passwords.js'
import { LOGIN_THROTTLE } from '../../../src/host/auth/login-throttle.js'
import { revokeAppPassword } from '../../../src/host/auth/app-passwords.js'
import { setLicense } from '../../../src/licensing/license.js'
import { basicAuth, createTestUser, grantProLicense } from '../../helpers/factories.js'
import { describeEachDatabase } from '../../helpers/test-app.js'

const STATUS = '/wp-json/dg/v2/status'

describeEachDatabase('application passwords and GET /status', (env) => {
  it('answers 200 with every status field to an administrator with an application password', async () => {
    const { app, ctx } = env()
    await grantProLicense(ctx)
    const admin = await createTestUser(ctx, 'administrator')
    const response = await app.inject({ method: 'GET', url: STATUS, headers: { authorization: admin.authorization } })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(Object.keys(body).sort()).toEqual([
      'alerts',
      'continuity_mode',
      'contract_id',
      'datasets',
      'last_publication',
      'last_publication_failure',
      'license_status',
      'missed_days',
      'offers_without_type',
      'public_dataset_id',
      'version',
    ])
    expect(body).toMatchObject({
      version: '2.1.0',
      license_status: 'active',
      continuity_mode: false,
      last_publication: {},
      offers_without_type: 0,
      missed_days: [],
    })
    expect(body.contract_id).toMatch(/\S/)
    // 36 characters in UUID form, as the portal recommends
    expect(body.public_dataset_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    const again = await app.inject({ method: 'GET', url: STATUS, headers: { authorization: admin.authorization } })
    expect(again.json().public_dataset_id).toBe(body.public_dataset_id)
  })

  it('refuses a catalog reader with 403 rest_forbidden', async () => {
    const { app, ctx } = env()
    await grantProLicense(ctx)
    const reader = await createTestUser(ctx, 'dg_catalog_reader')
    const response = await app.inject({ method: 'GET', url: STATUS, headers: { authorization: reader.authorization } })
    expect(response.statusCode).toBe(403)
    expect(response.json()).toEqual({ code: 'rest_forbidden', message: expect.any(String), data: { status: 403 } })
  })

  it('answers 401 without credentials, with a wrong password and for an unknown user', async () => {
    const { app, ctx } = env()
    const admin = await createTestUser(ctx, 'administrator')
    const none = await app.inject({ method: 'GET', url: STATUS })
    expect(none.statusCode).toBe(401)
    expect(none.headers['www-authenticate']).toMatch(/^Basic/)
    const wrong = await app.inject({
      method: 'GET',
      url: STATUS,
      headers: { authorization: basicAuth(admin.login, 'A'.repeat(24)) },
    })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.json().code).toBe('incorrect_password')
    const loginPassword = await app.inject({
      method: 'GET',
      url: STATUS,
      headers: { authorization: basicAuth(admin.login, admin.loginPassword) },
    })
    expect(loginPassword.statusCode).toBe(401)
    const unknown = await app.inject({
      method: 'GET',
      url: STATUS,
      headers: { authorization: basicAuth('nobody', admin.appPassword) },
    })
    expect(unknown.statusCode).toBe(401)
    // one answer whatever was wrong: an unknown name is not told from a wrong password
    expect(unknown.json()).toEqual(wrong.json())
    expect(unknown.headers['www-authenticate']).toBe(wrong.headers['www-authenticate'])
    const unknownEmail = await app.inject({
      method: 'GET',
      url: STATUS,
      headers: { authorization: basicAuth('nobody@example.test', 'A'.repeat(24)) },
    })
    expect(unknownEmail.json()).toEqual(wrong.json())
    const knownEmail = await app.inject({
      method: 'GET',
      url: STATUS,
      headers: { authorization: basicAuth(admin.email, 'short') },
    })
    expect(knownEmail.json()).toEqual(wrong.json())
    const garbage = await app.inject({ method: 'GET', url: STATUS, headers: { authorization: 'Bearer abc' } })
    expect(garbage.statusCode).toBe(401)
  })

  it('throttles failed Basic sign-ins per name and per address like the panel, counting before the check', async () => {
    const { app, ctx } = env()
    await grantProLicense(ctx)
    const admin = await createTestUser(ctx, 'administrator')
    const basic = (name: string, password: string, ip: string) =>
      app.inject({
        method: 'GET',
        url: STATUS,
        headers: { authorization: basicAuth(name, password) },
        remoteAddress: ip,
      })
    // parallel guesses on one name: the free ones are checked, the others refused without a check
    const guesses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => basic(admin.login, `guess${i}`.padEnd(24, 'x'), `192.0.2.${10 + (i % 10)}`)),
    )
    const statuses = guesses.map((g) => g.statusCode)
    expect(statuses.filter((s) => s === 401).length).toBe(LOGIN_THROTTLE.accountFreeFailures)
    expect(statuses.filter((s) => s === 429).length).toBe(40 - LOGIN_THROTTLE.accountFreeFailures)
    const refused = guesses.find((g) => g.statusCode === 429)
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0)
    expect(refused?.json()).toMatchObject({ code: 'too_many_login_attempts', data: { scope: 'account' } })
    // even the right password waits now: the name is slowed down for every address
    expect((await basic(admin.login, admin.appPassword, '192.0.2.99')).statusCode).toBe(429)

    // enumeration from one address: every name, known or not, counts on the address
    const ip = '198.51.100.77'
    const answers: number[] = []
    for (let i = 0; i < LOGIN_THROTTLE.addressFreeFailures + 5; i++)
      answers.push((await basic(`someone-${i}`, 'A'.repeat(24), ip)).statusCode)
    expect(answers.slice(0, LOGIN_THROTTLE.addressFreeFailures).every((s) => s === 401)).toBe(true)
    expect(answers.slice(LOGIN_THROTTLE.addressFreeFailures).every((s) => s === 429)).toBe(true)
    const reader = await createTestUser(ctx, 'dg_catalog_reader')
    const throttled = await basic(reader.login, reader.appPassword, ip)
    expect(throttled.statusCode).toBe(429)
    expect(throttled.json().data.scope).toBe('address')
    // a password verified before (kept by this instance) is not a new sign-in attempt
    expect((await basic(reader.login, reader.appPassword, '198.51.100.78')).statusCode).toBe(403)
    expect((await basic(reader.login, reader.appPassword, ip)).statusCode).toBe(403)
  })

  it('never refuses the website’s server for failures of others on its login, even on a fresh instance', async () => {
    const { app, ctx, config, database, clock } = env()
    await grantProLicense(ctx)
    const reader = await createTestUser(ctx, 'dg_catalog_reader')
    const server = '192.0.2.200'
    const call = (target: typeof app, password: string, ip: string) =>
      target.inject({
        method: 'GET',
        url: STATUS,
        headers: { authorization: basicAuth(reader.login, password) },
        remoteAddress: ip,
      })
    expect((await call(app, reader.appPassword, server)).statusCode).toBe(403)
    for (let i = 0; i < LOGIN_THROTTLE.accountFreeFailures + 2; i++)
      await call(app, `attack${i}`.padEnd(24, 'z'), `198.51.100.${150 + i}`)
    // another instance (or this one restarted) has not verified the password yet
    const fresh = await buildApp({ config, database: database.handle, now: clock.now })
    try {
      expect((await call(fresh, reader.appPassword, '198.51.100.199')).statusCode).toBe(429)
      expect((await call(fresh, reader.appPassword, server)).statusCode).toBe(403)
    } finally {
      await fresh.close()
    }
  })

  it('accepts the password with the spaces it is shown with, and the e-mail as user name', async () => {
    const { app, ctx } = env()
    await grantProLicense(ctx)
    const admin = await createTestUser(ctx, 'administrator')
    const spaced = formatAppPassword(admin.appPassword)
    expect(spaced).toMatch(/^(\S{4} ){5}\S{4}$/)
    const response = await app.inject({
      method: 'GET',
      url: STATUS,
      headers: { authorization: basicAuth(admin.email, spaced) },
    })
    expect(response.statusCode).toBe(200)
  })

  it('stores only a keyed hash, keeps several per user and revokes one without touching the others', async () => {
    const { app, ctx } = env()
    await grantProLicense(ctx)
    const admin = await createTestUser(ctx, 'administrator')
    const { createAppPassword } = await import('../../../src/host/auth/app-passwords.js')
    const second = await createAppPassword(ctx, { login: admin.login, name: 'website', actor: { type: 'system' } })
    const rows = await ctx.db.selectFrom('app_passwords').selectAll().where('user_id', '=', admin.id).execute()
    expect(rows).toHaveLength(2)
    for (const row of rows) {
      expect(row.password_hash).not.toContain(admin.appPassword)
      expect(row.password_hash).not.toContain(second.password)
      expect(row.password_hash).toMatch(/^hmac-sha256\$/)
    }
    await revokeAppPassword(ctx, { login: admin.login, uuid: admin.appPasswordUuid, actor: { type: 'system' } })
    const revoked = await app.inject({ method: 'GET', url: STATUS, headers: { authorization: admin.authorization } })
    expect(revoked.statusCode).toBe(401)
    const other = await app.inject({
      method: 'GET',
      url: STATUS,
      headers: { authorization: basicAuth(admin.login, second.password) },
    })
    expect(other.statusCode).toBe(200)
  })

  it('refuses a password that has just worked once it is revoked, its account disabled or changed in SQL', async () => {
    // each instance keeps the checks it verified; every change below must end them at once
    const { app, ctx } = env()
    await grantProLicense(ctx)
    const status = (authorization: string) => app.inject({ method: 'GET', url: STATUS, headers: { authorization } })
    const revoked = await createTestUser(ctx, 'administrator')
    expect((await status(revoked.authorization)).statusCode).toBe(200)
    expect((await status(revoked.authorization)).statusCode).toBe(200)
    await revokeAppPassword(ctx, { login: revoked.login, uuid: revoked.appPasswordUuid, actor: { type: 'system' } })
    expect((await status(revoked.authorization)).statusCode).toBe(401)

    const disabled = await createTestUser(ctx, 'administrator')
    expect((await status(disabled.authorization)).statusCode).toBe(200)
    await ctx.db
      .updateTable('users')
      .set({ disabled_at: new Date().toISOString() })
      .where('id', '=', disabled.id)
      .execute()
    const refused = await status(disabled.authorization)
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toMatchObject({ code: 'account_disabled' })

    const demoted = await createTestUser(ctx, 'administrator')
    expect((await status(demoted.authorization)).statusCode).toBe(200)
    await ctx.db.updateTable('users').set({ role: 'dg_catalog_reader' }).where('id', '=', demoted.id).execute()
    expect((await status(demoted.authorization)).statusCode).toBe(403)

    const deleted = await createTestUser(ctx, 'administrator')
    expect((await status(deleted.authorization)).statusCode).toBe(200)
    await ctx.db.deleteFrom('app_passwords').where('user_id', '=', deleted.id).execute()
    expect((await status(deleted.authorization)).statusCode).toBe(401)

    const renamed = await createTestUser(ctx, 'administrator')
    expect((await status(renamed.authorization)).statusCode).toBe(200)
    await ctx.db
      .updateTable('users')
      .set({ login: `${renamed.login}-new` })
      .where('id', '=', renamed.id)
      .execute()
    expect((await status(renamed.authorization)).statusCode).toBe(401)
  })

  it("keeps a verified check across a last-use record, which changes nobody's access", async () => {
    const { app, ctx } = env()
    await grantProLicense(ctx)
    const admin = await createTestUser(ctx, 'administrator')
    const revision = async () =>
      Number((await ctx.db.selectFrom('credentials_state').select('revision').executeTakeFirstOrThrow()).revision)
    const before = await revision()
    expect(
      (await app.inject({ method: 'GET', url: STATUS, headers: { authorization: admin.authorization } })).statusCode,
    ).toBe(200)
    const used = await ctx.db
      .selectFrom('app_passwords')
      .select('last_used_at')
      .where('user_id', '=', admin.id)
      .executeTakeFirstOrThrow()
    expect(used.last_used_at).not.toBeNull()
    expect(await revision()).toBe(before)
  })

  it('records the last use at most once a day', async () => {
    const { app, ctx, clock } = env()
    await grantProLicense(ctx)
    const admin = await createTestUser(ctx, 'administrator')
    const lastUsed = async () =>
      (
        await ctx.db
          .selectFrom('app_passwords')
          .select('last_used_at')
          .where('uuid', '=', admin.appPasswordUuid)
          .executeTakeFirstOrThrow()
      ).last_used_at
    expect(await lastUsed()).toBeNull()
    await app.inject({ method: 'GET', url: STATUS, headers: { authorization: admin.authorization } })
    const first = await lastUsed()
    expect(first).toBe(clock.now().toISOString())
    clock.advance(3600_000)
    await app.inject({ method: 'GET', url: STATUS, headers: { authorization: admin.authorization } })
    expect(await lastUsed()).toBe(first)
    clock.advance(24 * 3600_000)
    await app.inject({ method: 'GET', url: STATUS, headers: { authorization: admin.authorization } })
    expect(await lastUsed()).toBe(clock.now().toISOString())
  })

  it('answers 403 pro_feature_required without an active licence granting api_webhooks', async () => {
    const { app, ctx, clock } = env()
    clock.set('2026-11-20T21:00:00Z')
    const admin = await createTestUser(ctx, 'administrator')
    await setLicense(ctx, { plan: 'pro', entitlements: ['bulk_import'], actor: { type: 'system' } })
    const missing = await app.inject({ method: 'GET', url: STATUS, headers: { authorization: admin.authorization } })
    expect(missing.statusCode).toBe(403)
    expect(missing.json()).toEqual({ error: 'pro_feature_required', feature: 'api_webhooks' })

    await setLicense(ctx, {
      plan: 'pro',
      entitlements: ['api_webhooks'],
      validUntil: '2026-11-20',
      actor: { type: 'system' },
    })
    expect(
      (await app.inject({ method: 'GET', url: STATUS, headers: { authorization: admin.authorization } })).statusCode,
    ).toBe(200)
    // 23:00 UTC on the 20th is already the 21st in Warsaw: the licence has ended
    clock.set('2026-11-20T23:00:00Z')
    const expired = await app.inject({ method: 'GET', url: STATUS, headers: { authorization: admin.authorization } })
    expect(expired.statusCode).toBe(403)
    expect(expired.json().error).toBe('pro_feature_required')
    await grantProLicense(ctx)
  })
})
