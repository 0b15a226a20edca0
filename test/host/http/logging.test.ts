import { Writable } from 'node:stream'

import { pino } from 'pino'
import { afterAll, beforeAll, expect, it } from 'vitest'

import { loggerOptions, maskUrl } from '../../../src/host/http/logging.js'
import { rotateWebhookSecret } from '../../../src/webhook/webhook-secret.js'
import { TEST_DIALECTS } from '../../helpers/databases.js'
import { basicAuth, createTestUser, grantProLicense } from '../../helpers/factories.js'
import { multipart } from '../../helpers/multipart.js'
import { startTestApp, type TestEnv } from '../../helpers/test-app.js'

const lines: string[] = []
const sink = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    lines.push(chunk.toString())
    callback()
  },
})

for (const dialect of TEST_DIALECTS) {
  let env: TestEnv
  beforeAll(async () => {
    env = await startTestApp(dialect, { logger: pino(loggerOptions('trace'), sink) })
  })
  afterAll(async () => {
    await env.app.close()
    await env.database.cleanup()
  })

  it(`never writes credentials, nonces, cookies or secrets to the log [${dialect}]`, async () => {
    const { app, ctx } = env
    await grantProLicense(ctx)
    const admin = await createTestUser(ctx, 'administrator')
    const secret = (await rotateWebhookSecret(ctx, { type: 'cli' })).secret
    const authorization = basicAuth(admin.login, admin.appPassword)
    await app.inject({ method: 'GET', url: '/wp-json/dg/v2/status', headers: { authorization } })
    await app.inject({
      method: 'GET',
      url: '/wp-json/dg/v2/status',
      headers: { authorization: basicAuth(admin.login, 'wrong-password-value-123') },
    })
    const login = await app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/session',
      payload: { login: admin.login, password: admin.loginPassword },
    })
    const cookie = String(login.headers['set-cookie']).split(';')[0] ?? ''
    const nonce = login.json().nonce as string
    await app.inject({ method: 'GET', url: '/wp-json/dg/v2/status', headers: { cookie, 'x-wp-nonce': nonce } })
    await app.inject({
      method: 'GET',
      url: `/wp-json/dg/v1/generate?date=2026-11-20&key=${secret}`,
      headers: { 'x-dg-webhook-key': secret },
    })
    await app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/session',
      payload: { login: admin.login, password: 'typo-password-456' },
    })
    // at trace, @fastify/multipart logs the headers of every upload (busboyOptions.headers)
    const upload = multipart({ mode: 'patch', mapping: '{}' }, { name: 'a.csv', content: 'a;b\n1;2\n' })
    await app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/imports/offer',
      headers: { ...upload.headers, authorization, cookie, 'x-wp-nonce': nonce },
      payload: upload.payload,
    })

    const log = lines.join('')
    expect(log).toContain('request completed')
    expect(log).toContain('busboyOptions')
    for (const value of [
      admin.appPassword,
      authorization,
      admin.loginPassword,
      'wrong-password-value-123',
      'typo-password-456',
      cookie.split('=')[1] ?? '',
      nonce,
      secret,
      ctx.authKey,
    ]) {
      expect(value.length).toBeGreaterThan(8)
      expect(log).not.toContain(value)
    }
  })

  it(`masks every secret-looking query parameter, however its name is encoded [${dialect}]`, async () => {
    const { app, ctx } = env
    await grantProLicense(ctx)
    const secret = (await rotateWebhookSecret(ctx, { type: 'cli' })).secret
    const names = [
      'key',
      '%6bey',
      'k%65y',
      '%6B%65%79',
      'KEY',
      'k%2565y',
      'key%5B%5D',
      'api_key',
      'api%5fkey',
      'apiKey',
      'x-api-key',
      'access_token',
      'access%5Ftoken',
      'token',
      'secret',
      'client_secret',
      'password',
      'pass%77ord',
      'signature',
      '_wpnonce',
      'auth_token',
      'hmac',
      'jwt',
      'bearer',
      'otp',
      'pin',
      'key[a]',
      'key%5Ba%5D',
      'x[api_key]',
    ]
    const sent: string[] = []
    const request = async (path: string, enabled: boolean) => {
      for (const [index, name] of names.entries()) {
        // the webhook secret itself where the service reads it, distinct values elsewhere
        const value = index < 4 ? secret : `sekret-${enabled ? 'on' : 'off'}-${index}-${'x'.repeat(12)}`
        sent.push(value)
        await app.inject({ method: 'GET', url: `${path}?date=2026-11-20&${name}=${value}` })
        // behind another separator or a second question mark, too
        await app.inject({ method: 'GET', url: `${path}?date=2026-11-20;${name}=${value}&page=1` })
        await app.inject({ method: 'GET', url: `${path}?date=2026-11-20?${name}=${value}` })
      }
    }
    lines.length = 0
    await request('/wp-json/dg/v1/generate', false)
    await request('/wp-json/dg/v2/catalog/properties', false)
    const enabled = await app.inject({
      method: 'PUT',
      url: '/wp-json/dg/v2/legacy-generate/settings',
      headers: { authorization: (await createTestUser(ctx, 'administrator')).authorization },
      payload: { enabled: true },
    })
    expect(enabled.statusCode).toBe(200)
    await request('/wp-json/dg/v1/generate', true)
    const log = lines.join('')
    expect(log).toContain('/wp-json/dg/v1/generate?date=2026-11-20&%6bey=***')
    expect(log).toContain('date=2026-11-20;k%65y=***&page=1')
    for (const value of sent) expect(log).not.toContain(value)
  })

  it(`masks a secret in a path segment or without a name [${dialect}]`, async () => {
    const { app, ctx } = env
    const secret = (await rotateWebhookSecret(ctx, { type: 'cli' })).secret
    const other = `sekret-path-${'y'.repeat(12)}`
    lines.length = 0
    for (const url of [
      `/wp-json/dg/v1/generate/key=${secret}`,
      `/wp-json/dg/v1/generate/${secret}`,
      `/wp-json/dg/v2/catalog;key=${secret}`,
      `/wp-json/dg/v2/catalog;api_key=${other}`,
      `/wp-json/dg/v2/key%3D${secret}`,
      `/wp-json/dg/v2/k%65y%3D${other}`,
      `/dane-gov/${secret}.csv`,
      `/dane-gov/%64gwh_${secret.slice(5)}.csv`,
      `/wp-json/dg/v1/generate?${secret}`,
      `/wp-json/dg/v1/generate?=${secret}`,
      `/wp-json/dg/v1/generate?date=2026-11-20#key=${secret}`,
    ]) {
      const response = await app.inject({ method: 'GET', url })
      expect(response.statusCode).toBeLessThan(500)
    }
    const log = lines.join('')
    expect(log).toContain('/wp-json/dg/v2/catalog;key=***')
    expect(log).toContain('/wp-json/dg/v1/generate?***')
    // an ordinary path is left as it was
    expect(maskUrl('/dane-gov/dataset.xml?x=1')).toBe('/dane-gov/dataset.xml?x=1')
    for (const value of [secret, secret.slice(5), other]) expect(log).not.toContain(value)
  })
}

it('masks a password reset’s link, token and passwords wherever a logged object carries them', () => {
  const out: string[] = []
  const log = pino(
    loggerOptions('info'),
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        out.push(chunk.toString())
        callback()
      },
    }),
  )
  const link = 'https://ceny.example.pl/dg-admin/#/nowe-haslo?token=Zr3setT0kenNeverLogged'
  log.info(
    {
      mail: { link, reset_link: link },
      body: { token: 'Zr3setT0kenNeverLogged', new_password: 'n0wE-hasl0', current_password: 'stAre-hasl0' },
    },
    'reset',
  )
  const written = out.join('')
  expect(written).toContain('"link":"***"')
  for (const secret of ['Zr3setT0kenNeverLogged', 'n0wE-hasl0', 'stAre-hasl0']) expect(written).not.toContain(secret)
})
