import { expect, it } from 'vitest'

import { runCli } from '../../src/cli/main.js'
import { openDatabase } from '../../src/host/db/database.js'
import { basicAuth } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

async function dg(
  env: TestEnv,
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string; json: () => Record<string, any> }> {
  let stdout = ''
  let stderr = ''
  const connection = env.database.connection
  const code = await runCli(argv, {
    config: env.config,
    io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
    openDatabase: () => openDatabase(connection),
  })
  return { code, stdout, stderr, json: () => JSON.parse(stdout) }
}

describeEachDatabase('dg command line', (getEnv) => {
  it('creates users and application passwords that work over HTTP, lists and revokes them', async () => {
    const env = getEnv()
    const admin = await dg(
      env,
      'user',
      'create',
      '--login',
      'ops',
      '--email',
      'ops@example.test',
      '--role',
      'administrator',
      '--json',
    )
    expect(admin.code).toBe(0)
    expect(admin.json()).toMatchObject({
      id: expect.any(Number),
      user: 'ops',
      role: 'administrator',
      password: expect.any(String),
    })

    const license = await dg(
      env,
      'license',
      'set',
      '--plan',
      'pro',
      '--entitlements',
      'api_webhooks,bulk_import,publishing_gov',
      '--json',
    )
    expect(license.json()).toMatchObject({
      status: 'active',
      continuity_mode: false,
      entitlements: ['api_webhooks', 'bulk_import', 'publishing_gov'],
    })

    const created = await dg(env, 'app-password', 'create', '--user', 'ops', '--name', 'monitoring', '--json')
    expect(created.code).toBe(0)
    const appPassword = created.json()
    expect(appPassword).toMatchObject({
      user: 'ops',
      name: 'monitoring',
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      password: expect.stringMatching(/^[A-Za-z0-9]{24}$/),
    })

    const status = await env.app.inject({
      method: 'GET',
      url: '/wp-json/dg/v2/status',
      headers: { authorization: basicAuth('ops', appPassword.password) },
    })
    expect(status.statusCode).toBe(200)

    const list = await dg(env, 'app-password', 'list', '--user', 'ops', '--json')
    expect(list.json().items).toEqual([
      expect.objectContaining({ uuid: appPassword.uuid, name: 'monitoring', last_used_at: expect.any(String) }),
    ])
    expect(list.stdout).not.toContain(appPassword.password)

    const revoke = await dg(env, 'app-password', 'revoke', '--user', 'ops', '--uuid', appPassword.uuid, '--json')
    expect(revoke.json()).toEqual({ user: 'ops', uuid: appPassword.uuid, revoked: true })
    const after = await env.app.inject({
      method: 'GET',
      url: '/wp-json/dg/v2/status',
      headers: { authorization: basicAuth('ops', appPassword.password) },
    })
    expect(after.statusCode).toBe(401)

    const reader = await dg(
      env,
      'user',
      'create',
      '--login',
      'site',
      '--email',
      'site@example.test',
      '--role',
      'dg_catalog_reader',
      '--password',
      'a-long-password-1',
      '--json',
    )
    expect(reader.json()).toMatchObject({ user: 'site', role: 'dg_catalog_reader' })
    expect(reader.json()).not.toHaveProperty('password')
  })

  it('rotates and shows the webhook secret', async () => {
    const env = getEnv()
    const first = (await dg(env, 'webhook-secret', 'rotate', '--json')).json()
    const shown = (await dg(env, 'webhook-secret', 'show', '--json')).json()
    expect(shown.secret).toBe(first.secret)
    const second = (await dg(env, 'webhook-secret', 'rotate', '--json')).json()
    expect(second.secret).not.toBe(first.secret)
    expect((await dg(env, 'webhook-secret', 'show', '--json')).json().secret).toBe(second.secret)
  })

  it('shows the licence and reports continuity mode after it ends', async () => {
    const env = getEnv()
    const set = await dg(
      env,
      'license',
      'set',
      '--plan',
      'pro',
      '--entitlements',
      'api_webhooks',
      '--valid-until',
      '2020-01-31',
      '--json',
    )
    expect(set.json()).toMatchObject({ status: 'expired', continuity_mode: true })
    const shown = await dg(env, 'license', 'show')
    expect(shown.stdout).toMatch(/Continuity mode/)
    await dg(env, 'license', 'set', '--plan', 'pro', '--entitlements', 'api_webhooks,bulk_import,publishing_gov')
  })

  it('fails with a clear error and a non-zero exit on bad input', async () => {
    const env = getEnv()
    const badRole = await dg(
      env,
      'user',
      'create',
      '--login',
      'x',
      '--email',
      'x@example.test',
      '--role',
      'editor',
      '--json',
    )
    expect(badRole.code).toBe(1)
    expect(badRole.stdout).toBe('')
    expect(JSON.parse(badRole.stderr)).toMatchObject({ error: { code: 'invalid_role' } })

    const duplicate = await dg(
      env,
      'user',
      'create',
      '--login',
      'ops',
      '--email',
      'other@example.test',
      '--role',
      'administrator',
    )
    expect(duplicate.code).toBe(1)
    expect(duplicate.stderr).toMatch(/existing_user_login/)

    const missing = await dg(env, 'app-password', 'create', '--user', 'ops')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/--name/)

    const unknownOption = await dg(env, 'license', 'show', '--colour')
    expect(unknownOption.code).toBe(2)

    const unknownCommand = await dg(env, 'frobnicate', '--json')
    expect(unknownCommand.code).toBe(2)

    const noUser = await dg(env, 'app-password', 'list', '--user', 'ghost', '--json')
    expect(noUser.code).toBe(1)
    expect(JSON.parse(noUser.stderr).error.code).toBe('invalid_username')

    const badEntitlement = await dg(env, 'license', 'set', '--plan', 'pro', '--entitlements', 'everything')
    expect(badEntitlement.code).toBe(1)
    expect(badEntitlement.stderr).toMatch(/invalid_license_entitlement/)

    const badDate = await dg(
      env,
      'license',
      'set',
      '--plan',
      'pro',
      '--entitlements',
      'api_webhooks',
      '--valid-until',
      '2026-02-30',
    )
    expect(badDate.code).toBe(1)
  })

  it('prepares the demo: administrator password, reader application password, webhook secret, licence and catalog', async () => {
    const env = getEnv()
    const first = await dg(env, 'demo', 'seed', '--json')
    expect(first.code).toBe(0)
    const demo = first.json()
    expect(demo).toMatchObject({
      url: expect.stringContaining('/wp-json/dg/v2'),
      admin: { login: 'admin', password: expect.any(String) },
      reader: { login: 'website', application_password: expect.stringMatching(/^[A-Za-z0-9]{24}$/) },
      webhook_secret: expect.any(String),
      license: { status: 'active' },
      catalog: { created: true },
    })
    const asReader = await env.app.inject({
      method: 'GET',
      url: '/wp-json/dg/v2/status',
      headers: { authorization: basicAuth('website', demo.reader.application_password) },
    })
    expect(asReader.statusCode).toBe(403)
    const login = await env.app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/session',
      payload: { login: 'admin', password: demo.admin.password },
    })
    expect(login.statusCode).toBe(200)

    // a second run keeps the credentials it printed, as long as they still work
    const again = (await dg(env, 'demo', 'seed', '--json')).json()
    expect(again).toMatchObject({
      catalog: { created: false },
      admin: { password: demo.admin.password, state: 'kept' },
      reader: { application_password: demo.reader.application_password, state: 'kept' },
      webhook_secret: demo.webhook_secret,
    })
    expect(demo).toMatchObject({ admin: { state: 'created' }, reader: { state: 'created' } })
    const stillReader = await env.app.inject({
      method: 'GET',
      url: '/wp-json/dg/v2/catalog',
      headers: { authorization: basicAuth('website', demo.reader.application_password) },
    })
    expect(stillReader.statusCode).toBe(200)

    // the operator changes the administrator's password: a re-run replaces nothing (the website
    // keeps its application password) and prints no password it did not make
    const changed = (await dg(env, 'user', 'set-password', '--login', 'admin', '--json')).json()
    const rerun = await dg(env, 'demo', 'seed')
    expect(rerun.code).toBe(0)
    expect(rerun.stdout).toMatch(/Administrator login:\s+admin \(exists; .*left as it is\)/)
    expect(rerun.stdout).not.toContain(changed.password)
    expect(rerun.stdout).not.toContain(demo.admin.password)
    const afterRerun = (await dg(env, 'demo', 'seed', '--json')).json()
    expect(afterRerun).toMatchObject({
      admin: { password: null, state: 'unchanged' },
      reader: { application_password: demo.reader.application_password, state: 'kept' },
    })
    const website = await env.app.inject({
      method: 'GET',
      url: '/wp-json/dg/v2/catalog',
      headers: { authorization: basicAuth('website', demo.reader.application_password) },
    })
    expect(website.statusCode).toBe(200)
    const operator = await env.app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/session',
      payload: { login: 'admin', password: changed.password },
    })
    expect(operator.statusCode).toBe(200)
    expect((await dg(env, 'app-password', 'list', '--user', 'website', '--json')).json().items).toHaveLength(1)

    // a revoked application password is not replaced by a re-run either: a new one is made and shown as new
    await dg(env, 'app-password', 'revoke', '--user', 'website', '--uuid', demo.reader.uuid)
    const renewed = await dg(env, 'demo', 'seed', '--json')
    expect(renewed.json()).toMatchObject({
      admin: { password: null, state: 'unchanged' },
      reader: { application_password: expect.stringMatching(/^[A-Za-z0-9]{24}$/), state: 'created' },
    })
    expect(renewed.json().reader.application_password).not.toBe(demo.reader.application_password)
    const newReader = await env.app.inject({
      method: 'GET',
      url: '/wp-json/dg/v2/catalog',
      headers: { authorization: basicAuth('website', renewed.json().reader.application_password) },
    })
    expect(newReader.statusCode).toBe(200)
  })
})
