import { Writable } from 'node:stream'

import { type Logger, pino } from 'pino'
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../../src/demo/demo-setup.js'
import { loggerOptions } from '../../../src/host/http/logging.js'
import { releaseLock, tryAcquireLock } from '../../../src/host/locks.js'
import { setLicense } from '../../../src/licensing/license.js'
import { PUBLICATION_LOCK } from '../../../src/publication/publishing/publish.js'
import { updatePublicationSettings } from '../../../src/publication/settings/publication-settings.js'
import { getWebhookSecret } from '../../../src/webhook/webhook-secret.js'
import { grantProLicense } from '../../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

const GENERATE = '/wp-json/dg/v1/generate'
const WARNING = '299 - "The key query parameter is deprecated and removed in 3.0.0; send X-DG-Webhook-Key"'

function captureLogs(): { logger: Logger; text: () => string } {
  const lines: string[] = []
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(chunk.toString())
      callback()
    },
  })
  return { logger: pino(loggerOptions('trace'), sink), text: () => lines.join('') }
}

async function prepare(env: TestEnv): Promise<string> {
  await setUpDemo(env.ctx)
  await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
  const stored = await getWebhookSecret(env.ctx)
  if (!stored) throw new Error('no webhook secret')
  return stored.secret
}

const defaultLogs = captureLogs()

describeEachDatabase(
  'legacy generate',
  (getEnv) => {
    let env: TestEnv
    let secret: string

    beforeAll(async () => {
      env = getEnv()
      secret = await prepare(env)
    })

    it('publishes the date with the X-DG-Webhook-Key header, by GET and by POST, through the pipeline', async () => {
      const response = await env.app.inject({
        url: `${GENERATE}?date=2026-11-20`,
        headers: { 'x-dg-webhook-key': secret },
      })
      expect(response.statusCode).toBe(200)
      expect(response.json()).toMatchObject({ status: 'published', date: '2026-11-20', trigger: 'legacy_generate' })
      expect(response.headers.deprecation).toBeUndefined()
      expect(response.headers.warning).toBeUndefined()
      const served = await env.app.inject({ url: `/dane-gov/${response.json().csv.file_name}` })
      expect(served.statusCode).toBe(200)

      // the next day; a legacy client posting an empty JSON body is not refused by a body parser
      env.clock.set('2026-11-21T10:00:00Z')
      const posted = await env.app.inject({
        method: 'POST',
        url: `${GENERATE}?date=2026-11-21`,
        headers: { 'x-dg-webhook-key': secret, 'content-type': 'application/json' },
      })
      expect(posted.statusCode).toBe(200)
      expect(posted.json()).toMatchObject({ date: '2026-11-21', xml: { resources: 2 } })
      const record = await env.ctx.db
        .selectFrom('publications')
        .selectAll()
        .where('publication_date', '=', '2026-11-21')
        .executeTakeFirstOrThrow()
      expect(record).toMatchObject({ trigger: 'legacy_generate', actor_name: 'webhook', status: 'published' })
    })

    it('answers 401 invalid_auth for a missing or wrong key', async () => {
      for (const headers of [{}, { 'x-dg-webhook-key': `${secret}x` }, { 'x-dg-webhook-key': '' }]) {
        const response = await env.app.inject({ url: `${GENERATE}?date=2026-11-20`, headers })
        expect(response.statusCode).toBe(401)
        expect(response.json().error).toBe('invalid_auth')
      }
    })

    it('refuses the key query parameter by default, even beside a valid header', async () => {
      for (const headers of [{}, { 'x-dg-webhook-key': secret }]) {
        const response = await env.app.inject({
          url: `${GENERATE}?date=2026-11-20&key=${encodeURIComponent(secret)}`,
          headers,
        })
        expect(response.statusCode).toBe(401)
        expect(response.json()).toMatchObject({ error: 'invalid_auth', message: expect.stringContaining('disabled') })
        expect(response.headers.deprecation).toBeUndefined()
      }
      const audited = await env.ctx.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'legacy_generate.key_param')
        .execute()
      expect(audited).toEqual([])
    })

    it('answers 400 for a missing or impossible date', async () => {
      for (const query of ['', '?date=2026-02-30', '?date=20261120', '?date=2026-13-01']) {
        const response = await env.app.inject({ url: `${GENERATE}${query}`, headers: { 'x-dg-webhook-key': secret } })
        expect(response.statusCode).toBe(400)
        expect(response.json().error).toBe('invalid_date')
      }
    })

    it('answers 403 pro_feature_required without the api_webhooks entitlement', async () => {
      await setLicense(env.ctx, {
        plan: 'pro',
        entitlements: ['bulk_import', 'publishing_gov'],
        validUntil: null,
        actor: { type: 'system' },
      })
      try {
        const response = await env.app.inject({
          url: `${GENERATE}?date=2026-11-20`,
          headers: { 'x-dg-webhook-key': secret },
        })
        expect(response.statusCode).toBe(403)
        expect(response.json()).toEqual({ error: 'pro_feature_required', feature: 'api_webhooks' })
      } finally {
        await grantProLicense(env.ctx)
      }
    })

    it('answers 409 while another publication runs, and never publishes on HEAD', async () => {
      env.clock.set('2026-11-22T10:00:00Z')
      const lock = await tryAcquireLock(env.ctx, PUBLICATION_LOCK, 'test-holder', 60_000)
      expect(lock.acquired).toBe(true)
      try {
        const response = await env.app.inject({
          url: `${GENERATE}?date=2026-11-22`,
          headers: { 'x-dg-webhook-key': secret },
        })
        expect(response.statusCode).toBe(409)
        expect(response.json().error).toBe('publication_in_progress')
      } finally {
        await releaseLock(env.ctx.db, PUBLICATION_LOCK, 'test-holder')
      }
      const head = await env.app.inject({
        method: 'HEAD',
        url: `${GENERATE}?date=2026-11-22`,
        headers: { 'x-dg-webhook-key': secret },
      })
      expect(head.statusCode).toBe(404)
      const published = await env.ctx.db
        .selectFrom('publications')
        .select('id')
        .where('publication_date', '=', '2026-11-22')
        .where('status', '=', 'published')
        .execute()
      expect(published).toEqual([])
    })

    it('never writes the webhook key to the log', () => {
      const log = defaultLogs.text()
      expect(log).toContain('request completed')
      expect(log).toContain('key=***')
      expect(log).not.toContain(secret)
    })
  },
  { logger: defaultLogs.logger },
)

const enabledLogs = captureLogs()

describeEachDatabase(
  'legacy generate with DG_LEGACY_KEY_PARAM=on',
  (getEnv) => {
    let env: TestEnv
    let secret: string

    beforeAll(async () => {
      env = getEnv()
      secret = await prepare(env)
    })

    it('accepts the key query parameter with Deprecation, Sunset and Warning headers and an audit entry', async () => {
      const response = await env.app.inject({ url: `${GENERATE}?date=2026-11-20&key=${encodeURIComponent(secret)}` })
      expect(response.statusCode).toBe(200)
      expect(response.json()).toMatchObject({ status: 'published', date: '2026-11-20', trigger: 'legacy_generate' })
      expect(response.headers.deprecation).toBe('@1767225600')
      expect(response.headers.sunset).toBe('Wed, 30 Jun 2027 23:59:59 GMT')
      expect(response.headers.warning).toBe(WARNING)
      const audited = await env.ctx.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'legacy_generate.key_param')
        .execute()
      expect(audited).toHaveLength(1)
      expect(audited[0]).toMatchObject({ actor_type: 'webhook', object_id: '2026-11-20', outcome: 'success' })
      expect(audited[0]?.details).not.toContain(secret)
    })

    it('sends the deprecation headers on refusals too, and none when the header carries the key', async () => {
      const wrong = await env.app.inject({ url: `${GENERATE}?date=2026-11-20&key=wrong-key-value-123` })
      expect(wrong.statusCode).toBe(401)
      expect(wrong.json().error).toBe('invalid_auth')
      expect(wrong.headers.deprecation).toBe('@1767225600')
      expect(wrong.headers.warning).toBe(WARNING)

      await setLicense(env.ctx, { plan: 'pro', entitlements: [], validUntil: null, actor: { type: 'system' } })
      try {
        const refused = await env.app.inject({ url: `${GENERATE}?date=2026-11-20&key=${encodeURIComponent(secret)}` })
        expect(refused.statusCode).toBe(403)
        expect(refused.headers.sunset).toBe('Wed, 30 Jun 2027 23:59:59 GMT')
      } finally {
        await grantProLicense(env.ctx)
      }

      env.clock.set('2026-11-21T10:00:00Z')
      const viaHeader = await env.app.inject({
        url: `${GENERATE}?date=2026-11-21`,
        headers: { 'x-dg-webhook-key': secret },
      })
      expect(viaHeader.statusCode).toBe(200)
      expect(viaHeader.headers.deprecation).toBeUndefined()
    })

    it('never writes the webhook key from the query parameter to the log', () => {
      const log = enabledLogs.text()
      expect(log).toContain('legacy generate called with the key query parameter')
      expect(log).toContain('key=***')
      expect(log).not.toContain(secret)
      expect(log).not.toContain('wrong-key-value-123')
    })
  },
  { env: { DG_LEGACY_KEY_PARAM: 'on' }, logger: enabledLogs.logger },
)
