/*
 * The operations endpoints as an operator or a load balancer meets them: /healthz answers without
 * the database, /readyz names each failing check (database, migrations, publication storage,
 * shutting down), and /metrics is closed to anonymous callers and catalog readers, open to an
 * administrator or the configured bearer token, and counts requests by route pattern (never the
 * raw URL), webhook outcomes by code, import and publication outcomes, and the last publication.
 */
import fs from 'node:fs'
import path from 'node:path'

import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { executeOfferImport } from '../../../src/imports/execution/execute-offer-import.js'
import { updatePublicationSettings } from '../../../src/publication/settings/publication-settings.js'
import { rotateWebhookSecret } from '../../../src/webhook/webhook-secret.js'
import { createTestUser, grantProLicense, type TestUser } from '../../helpers/factories.js'
import { seedFixedCatalog } from '../../helpers/fixed-catalog.js'
import { previewImportFile, writeImportFile } from '../../helpers/imports.js'
import { describeEachDatabase, startTestApp, type TestEnv } from '../../helpers/test-app.js'
import { deliver } from '../../helpers/webhook.js'

const METRICS_TOKEN = 'metrics-token-0123456789-abcdefghijklmnop'

type Readiness = { status: string; failing: string[]; checks: Record<string, { ok: boolean; detail?: string }> }

/** The value of one sample line of the Prometheus text, or undefined when the line is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describeEachDatabase('healthz and readyz', (getEnv) => {
  let env: TestEnv
  beforeAll(() => {
    env = getEnv()
  })

  const readyz = async () => {
    const response = await env.app.inject({ method: 'GET', url: '/readyz' })
    return { status: response.statusCode, body: response.json<Readiness>() }
  }

  it('answers 200 with every check when the service is ready', async () => {
    expect((await env.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' })
    expect(await readyz()).toEqual({
      status: 200,
      body: {
        status: 'ready',
        failing: [],
        checks: {
          database: { ok: true },
          migrations: { ok: true },
          publication_storage: { ok: true },
          shutting_down: { ok: true },
        },
      },
    })
    // the probe leaves nothing behind in the served folder
    expect(fs.readdirSync(path.join(env.config.dataDir, 'publication'))).toEqual([])
  })

  it('names a migration the database has not applied', async () => {
    const { rows } = await sql<{ name: string }>`select max(name) as name from dg_migration`.execute(env.ctx.db)
    const last = rows[0]?.name as string
    await sql`delete from dg_migration where name = ${last}`.execute(env.ctx.db)
    try {
      const { status, body } = await readyz()
      expect(status).toBe(503)
      expect(body.failing).toEqual(['migrations'])
      expect(body.checks.migrations).toEqual({ ok: false, detail: `pending: ${last}` })
    } finally {
      await sql`insert into dg_migration (name, timestamp) values (${last}, ${new Date().toISOString()})`.execute(
        env.ctx.db,
      )
    }
    expect((await readyz()).status).toBe(200)
  })

  it('names the publication storage when the folder cannot be written', async () => {
    const folder = path.join(env.config.dataDir, 'publication')
    fs.rmSync(folder, { recursive: true, force: true })
    // a file where the folder should be: not writable for anybody, root included
    fs.writeFileSync(folder, 'not a folder')
    try {
      const { status, body } = await readyz()
      expect(status).toBe(503)
      expect(body.failing).toEqual(['publication_storage'])
      expect(body.checks.publication_storage).toEqual({ ok: false, detail: 'the publication folder is not writable' })
    } finally {
      fs.rmSync(folder)
    }
    expect((await readyz()).status).toBe(200)
  })

  it('answers 503 shutting_down from the moment the shutdown begins, while healthz stays 200', async () => {
    const other = await startTestApp(env.dialect)
    const app = other.app
    try {
      app.lifecycle.beginShutdown()
      const response = await app.inject({ method: 'GET', url: '/readyz' })
      expect(response.statusCode).toBe(503)
      expect(response.json<Readiness>().failing).toEqual(['shutting_down'])
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200)
    } finally {
      await app.close()
      await other.database.cleanup()
    }
  })
})

describe('healthz and readyz without a database [sqlite]', () => {
  it('keeps healthz at 200 and names the database in readyz when it is gone', async () => {
    const env = await startTestApp('sqlite')
    try {
      await env.database.handle.destroy()
      expect((await env.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200)
      const response = await env.app.inject({ method: 'GET', url: '/readyz' })
      expect(response.statusCode).toBe(503)
      const body = response.json<Readiness>()
      expect(body.failing).toEqual(['database', 'migrations'])
      expect(body.checks.database).toEqual({ ok: false, detail: 'the database does not answer' })
    } finally {
      await env.app.close()
      await env.database.cleanup().catch(() => undefined)
    }
  })
})

describe('operations endpoints in production [sqlite]', () => {
  let env: TestEnv
  beforeAll(async () => {
    env = await startTestApp('sqlite', { env: { DG_ENV: 'production', DG_TRUSTED_PROXIES: '127.0.0.1' } })
  })
  afterAll(async () => {
    await env.app.close()
    await env.database.cleanup()
  })

  it('refuses plain http like every route, and answers through the TLS proxy', async () => {
    for (const url of ['/healthz', '/readyz', '/metrics']) {
      const plain = await env.app.inject({ method: 'GET', url })
      expect(plain.statusCode, url).toBe(403)
      expect(plain.json<{ code: string }>().code).toBe('rest_https_required')
    }
    const proxied = await env.app.inject({
      method: 'GET',
      url: '/readyz',
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-proto': 'https' },
    })
    expect(proxied.statusCode).toBe(200)
  })
})

describeEachDatabase(
  'metrics',
  (getEnv) => {
    let env: TestEnv
    let admin: TestUser
    let reader: TestUser
    let offerId: number

    const scrape = async (authorization: string) => {
      const response = await env.app.inject({ method: 'GET', url: '/metrics', headers: { authorization } })
      expect(response.statusCode, response.body).toBe(200)
      return response.body
    }

    beforeAll(async () => {
      env = getEnv()
      env.clock.set('2026-11-20T00:30:00Z')
      const ids = await seedFixedCatalog(env.ctx)
      offerId = ids.get('A/1') as number
      await grantProLicense(env.ctx)
      admin = await createTestUser(env.ctx, 'administrator')
      reader = await createTestUser(env.ctx, 'dg_catalog_reader')
      await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    })

    it('is closed to anonymous callers, catalog readers and wrong tokens', async () => {
      const anonymous = await env.app.inject({ method: 'GET', url: '/metrics' })
      expect(anonymous.statusCode).toBe(401)
      const asReader = await env.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: reader.authorization },
      })
      expect(asReader.statusCode).toBe(403)
      for (const token of [`${METRICS_TOKEN}x`, METRICS_TOKEN.slice(0, -1), 'short']) {
        const wrong = await env.app.inject({
          method: 'GET',
          url: '/metrics',
          headers: { authorization: `Bearer ${token}` },
        })
        expect(wrong.statusCode).toBe(401)
        expect(wrong.headers['www-authenticate']).toBe('Bearer realm="dg-metrics"')
        expect(wrong.body).not.toContain('dg_http_request_duration_seconds')
      }
    })

    it('answers an administrator and the bearer token in the Prometheus text format', async () => {
      const response = await env.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization: admin.authorization },
      })
      expect(response.statusCode).toBe(200)
      expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8')
      expect(response.body).toContain('# TYPE dg_http_request_duration_seconds histogram')
      expect(await scrape(`Bearer ${METRICS_TOKEN}`)).toContain('# TYPE dg_webhook_deliveries_total counter')
    })

    it('counts requests by route pattern and status, never by the raw URL', async () => {
      const route = '/wp-json/dg/v2/catalog/properties/:id'
      const series = (status: number) =>
        `dg_http_request_duration_seconds_count{method="GET",route="${route}",status_code="${status}"}`
      const before = sample(await scrape(admin.authorization), series(200)) ?? 0
      for (let i = 0; i < 3; i++) {
        const response = await env.app.inject({
          method: 'GET',
          url: `/wp-json/dg/v2/catalog/properties/${offerId}?_fields=id&probe=secret-value`,
          headers: { authorization: reader.authorization },
        })
        expect(response.statusCode).toBe(200)
      }
      const missing = await env.app.inject({ method: 'GET', url: '/no/such/secret-path' })
      expect(missing.statusCode).toBe(404)

      const text = await scrape(admin.authorization)
      expect(sample(text, series(200))).toBe(before + 3)
      expect(
        sample(text, 'dg_http_request_duration_seconds_count{method="GET",route="unmatched",status_code="404"}'),
      ).toBeGreaterThanOrEqual(1)
      expect(text).not.toContain(`/catalog/properties/${offerId}`)
      expect(text).not.toContain('secret-value')
      expect(text).not.toContain('secret-path')
      // a scrape is counted too, under its own route
      expect(text).toContain('route="/metrics",status_code="200"')
    })

    it('counts webhook deliveries by outcome code', async () => {
      const { secret } = await rotateWebhookSecret(env.ctx, { type: 'system' })
      const timestamp = Math.floor(env.clock.now().getTime() / 1000)
      const body = JSON.stringify({ source_investment_id: 'INV-M', source_property_id: 'M-1', prop_type: 'mieszkanie' })
      const accepted = await deliver(env.app, { body, key: 'metrics-event-1', secret, timestamp })
      expect(accepted.statusCode).toBe(202)
      const replayed = await deliver(env.app, { body, key: 'metrics-event-1', secret, timestamp })
      expect(replayed.statusCode).toBe(200)
      const refused = await deliver(env.app, { body, key: 'metrics-event-2', secret: 'not-the-secret', timestamp })
      expect(refused.statusCode).toBe(401)
      const code = refused.json<{ error: string }>().error

      const text = await scrape(admin.authorization)
      expect(sample(text, 'dg_webhook_deliveries_total{code="executed"}')).toBe(1)
      expect(sample(text, 'dg_webhook_deliveries_total{code="replayed"}')).toBe(1)
      expect(sample(text, `dg_webhook_deliveries_total{code="${code}"}`)).toBe(1)
    })

    it('records import previews and executions with their outcomes', async () => {
      const file = writeImportFile(env.config.dataDir, 'metrics', 'Inwestycja;ID;Rodzaj\nINV-M;M-2;mieszkanie\n')
      const preview = await previewImportFile(env.ctx, file, {
        source_investment_id: 'Inwestycja',
        source_property_id: 'ID',
        prop_type: 'Rodzaj',
      })
      await expect(
        executeOfferImport(env.ctx, {
          actor: { type: 'cli' },
          jobId: 'no-such-job-0000000000000000000000',
          idempotencyKey: 'metrics-import-1',
          confirmArchiving: false,
        }),
      ).rejects.toMatchObject({ error: 'import_not_found' })
      const outcome = preview.preview.valid ? 'previewed' : 'invalid'

      const text = await scrape(admin.authorization)
      expect(sample(text, `dg_import_duration_seconds_count{step="preview",outcome="${outcome}"}`)).toBe(1)
      expect(sample(text, 'dg_import_duration_seconds_count{step="execute",outcome="import_not_found"}')).toBe(1)
    })

    it('records publications by trigger and outcome, and the time of the last successful one', async () => {
      const before = await scrape(admin.authorization)
      expect(sample(before, 'dg_last_successful_publication_timestamp_seconds')).toBe(0)

      const published = await env.app.inject({
        method: 'POST',
        url: '/wp-json/dg/v2/publications',
        headers: { authorization: admin.authorization, 'content-type': 'application/json' },
        payload: { date: '2026-11-20' },
      })
      expect(published.statusCode, published.body).toBe(200)
      const refused = await env.app.inject({
        method: 'POST',
        url: '/wp-json/dg/v2/publications',
        headers: { authorization: admin.authorization, 'content-type': 'application/json' },
        payload: { date: '2026-02-30' },
      })
      expect(refused.statusCode).toBe(400)

      const text = await scrape(admin.authorization)
      expect(sample(text, 'dg_publication_duration_seconds_count{trigger="api",outcome="published"}')).toBe(1)
      expect(sample(text, 'dg_publication_duration_seconds_count{trigger="api",outcome="invalid_date"}')).toBe(1)
      const finishedAt = published.json<{ published_at: string }>().published_at
      expect(sample(text, 'dg_last_successful_publication_timestamp_seconds')).toBe(Date.parse(finishedAt) / 1000)
      // no lock outlives the publication
      expect(text).not.toMatch(/^dg_lock_held\{name="publication"\} 1$/m)
    })
  },
  { env: { DG_METRICS_TOKEN: METRICS_TOKEN } },
)
