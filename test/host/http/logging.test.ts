import { Writable } from 'node:stream'

import { pino } from 'pino'
import { afterAll, beforeAll, expect, it } from 'vitest'

import { loggerOptions } from '../../../src/host/http/logging.js'
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
}
