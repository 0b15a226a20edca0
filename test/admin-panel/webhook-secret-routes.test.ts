import { Writable } from 'node:stream'

import { Validator } from '@seriousme/openapi-schema-validator'
import { pino } from 'pino'
import { beforeAll, expect, it } from 'vitest'

import { loggerOptions } from '../../src/host/http/logging.js'
import { getWebhookSecret, rotateWebhookSecret } from '../../src/webhook/webhook-secret.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { deliver } from '../helpers/webhook.js'

const BASE = '/wp-json/dg/v2'
const SECRET_URL = `${BASE}/webhook-secret`
const ROTATE_URL = `${BASE}/webhook-secret/rotate`

const logLines: string[] = []
const logSink = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    logLines.push(chunk.toString())
    callback()
  },
})
/** Every secret any test saw; none of them may appear in a log line. */
const secretsSeen = new Set<string>()

function cookieOf(setCookie: string | string[] | undefined): string {
  const match = /dg_session=([^;]+)/.exec(Array.isArray(setCookie) ? setCookie.join('; ') : (setCookie ?? ''))
  if (!match?.[1]) throw new Error('no session cookie')
  return `dg_session=${match[1]}`
}

describeEachDatabase(
  'webhook key over REST (admin panel)',
  (getEnv) => {
    let env: TestEnv
    let admin: TestUser & { loginPassword: string }
    let reader: TestUser & { loginPassword: string }
    let panel: { cookie: string; 'x-wp-nonce': string }

    const audit = (action: string) =>
      env.ctx.db
        .selectFrom('audit_log')
        .select(['actor_type', 'actor_name', 'object_id', 'details'])
        .where('action', '=', action)
        .orderBy('id')
        .execute()

    const delivery = (secret: string, key: string, price: string) =>
      deliver(env.app, {
        body: JSON.stringify({
          source_investment_id: 'WS-1',
          source_property_id: 'P1',
          prop_type: 'mieszkanie',
          prop_area: '50.00',
          price_m2: (Number(price) / 50).toFixed(2),
          price_m2_from: '2026-11-01',
          price_total: price,
          price_total_from: '2026-11-01',
        }),
        key,
        secret,
        timestamp: Math.floor(env.clock.now().getTime() / 1000),
      })

    beforeAll(async () => {
      env = getEnv()
      admin = await createTestUser(env.ctx, 'administrator')
      reader = await createTestUser(env.ctx, 'dg_catalog_reader')
      const login = await env.app.inject({
        method: 'POST',
        url: `${BASE}/session`,
        payload: { login: admin.login, password: admin.loginPassword },
      })
      expect(login.statusCode).toBe(200)
      panel = { cookie: cookieOf(login.headers['set-cookie']), 'x-wp-nonce': login.json().nonce }
    })

    it('answers 404 webhook_secret_missing before the first secret exists', async () => {
      const response = await env.app.inject({ url: SECRET_URL, headers: panel })
      expect(response.statusCode).toBe(404)
      expect(response.json().code).toBe('webhook_secret_missing')
    })

    it('shows the key to an administrator (panel session or application password), never cached, audited', async () => {
      const stored = await rotateWebhookSecret(env.ctx, { type: 'cli' })
      secretsSeen.add(stored.secret)

      const viaPanel = await env.app.inject({ url: SECRET_URL, headers: panel })
      expect(viaPanel.statusCode).toBe(200)
      expect(viaPanel.headers['cache-control']).toBe('no-store')
      expect(viaPanel.json()).toEqual({ secret: stored.secret, created_at: stored.created_at })

      const viaAppPassword = await env.app.inject({ url: SECRET_URL, headers: { authorization: admin.authorization } })
      expect(viaAppPassword.statusCode).toBe(200)
      expect(viaAppPassword.json().secret).toBe(stored.secret)

      const views = await audit('webhook_secret.view')
      expect(views).toHaveLength(2)
      expect(views[0]).toMatchObject({ actor_type: 'user', actor_name: admin.login, object_id: 'dg_webhook_secret' })
      expect(JSON.stringify(views)).not.toContain(stored.secret)
    })

    it('refuses a catalog reader with 403 and an anonymous caller with 401, and rotates nothing for them', async () => {
      const before = await getWebhookSecret(env.ctx)
      const readerLogin = await env.app.inject({
        method: 'POST',
        url: `${BASE}/session`,
        payload: { login: reader.login, password: reader.loginPassword },
      })
      const readerPanel = {
        cookie: cookieOf(readerLogin.headers['set-cookie']),
        'x-wp-nonce': readerLogin.json().nonce,
      }

      for (const headers of [{ authorization: reader.authorization }, readerPanel]) {
        const show = await env.app.inject({ url: SECRET_URL, headers })
        expect(show.statusCode).toBe(403)
        expect(show.json().code).toBe('rest_forbidden')
        expect(show.body).not.toContain(before!.secret)
        const rotate = await env.app.inject({ method: 'POST', url: ROTATE_URL, headers })
        expect(rotate.statusCode).toBe(403)
      }
      // no credentials, the session cookie without its nonce (what a cross-site form would send), or
      // the nonce of a session whose cookie the browser dropped
      for (const headers of [{}, { cookie: panel.cookie }, { 'x-wp-nonce': panel['x-wp-nonce'] }]) {
        const show = await env.app.inject({ url: SECRET_URL, headers })
        expect(show.statusCode).toBe(401)
        expect(show.body).not.toContain(before!.secret)
        // a Basic challenge only for API clients: a browser would open its own login dialog over the panel
        if (Object.keys(headers).length === 0) expect(show.headers['www-authenticate']).toMatch(/^Basic /)
        else expect(show.headers['www-authenticate']).toBeUndefined()
        expect((await env.app.inject({ method: 'POST', url: ROTATE_URL, headers })).statusCode).toBe(401)
      }
      const forged = await env.app.inject({
        method: 'POST',
        url: ROTATE_URL,
        headers: { cookie: panel.cookie, 'x-wp-nonce': 'forged0000000000000000' },
      })
      expect(forged.statusCode).toBe(403)
      expect(forged.json().code).toBe('rest_cookie_invalid_nonce')
      expect(await getWebhookSecret(env.ctx)).toEqual(before)
    })

    it('rotates at once: the old key stops verifying webhooks and the new one verifies, audited like the CLI', async () => {
      await grantProLicense(env.ctx)
      const old = (await env.app.inject({ url: SECRET_URL, headers: panel })).json().secret as string
      expect((await delivery(old, 'ws-event-0001', '500000.00')).statusCode).toBe(202)

      const rotated = await env.app.inject({ method: 'POST', url: ROTATE_URL, headers: panel })
      expect(rotated.statusCode).toBe(200)
      expect(rotated.headers['cache-control']).toBe('no-store')
      const fresh = rotated.json().secret as string
      secretsSeen.add(fresh)
      expect(fresh).toMatch(/^dgwh_[A-Za-z0-9_-]{20,}$/)
      expect(fresh).not.toBe(old)
      expect(rotated.json().created_at).toBe(env.clock.now().toISOString())

      const stale = await delivery(old, 'ws-event-0002', '510000.00')
      expect(stale.statusCode).toBe(401)
      expect(stale.json().error).toBe('invalid_signature')
      expect((await delivery(fresh, 'ws-event-0002', '510000.00')).statusCode).toBe(202)
      expect((await env.app.inject({ url: SECRET_URL, headers: panel })).json().secret).toBe(fresh)

      const byApi = await env.app.inject({
        method: 'POST',
        url: ROTATE_URL,
        headers: { authorization: admin.authorization },
      })
      expect(byApi.statusCode).toBe(200)
      secretsSeen.add(byApi.json().secret)
      expect((await delivery(fresh, 'ws-event-0003', '520000.00')).statusCode).toBe(401)

      const rotations = await audit('webhook_secret.rotate')
      expect(rotations.map((r) => [r.actor_type, r.actor_name, r.object_id])).toEqual([
        ['cli', 'cli', 'dg_webhook_secret'],
        ['user', admin.login, 'dg_webhook_secret'],
        ['user', admin.login, 'dg_webhook_secret'],
      ])
      expect(JSON.stringify(rotations)).not.toContain(fresh)
    })

    it('is described in the OpenAPI document with its schema and security', async () => {
      const document = (await env.app.inject({ url: `${BASE}/openapi.json` })).json()
      expect((await new Validator().validate(document)).valid).toBe(true)
      const show = document.paths[SECRET_URL].get
      expect(Object.keys(show.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '404']))
      expect(show.responses['200'].content['application/json'].schema.required).toEqual(['secret', 'created_at'])
      expect(show.security).toEqual([{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }])
      expect(Object.keys(document.paths[ROTATE_URL].post.responses)).toEqual(
        expect.arrayContaining(['200', '401', '403']),
      )
    })

    it('never writes a webhook secret to the log', () => {
      expect(secretsSeen.size).toBeGreaterThanOrEqual(3)
      expect(logLines.length).toBeGreaterThan(10)
      const log = logLines.join('')
      expect(log).toContain('/webhook-secret/rotate')
      for (const secret of secretsSeen) expect(log).not.toContain(secret)
    })
  },
  { logger: pino(loggerOptions('trace'), logSink) },
)
