/*
 * GET {base_url}/dashboard on both databases: today's duty per dataset (pending, failed with its
 * issues, published), the next run, the catalog's counts and gaps, recent imports, the webhook's
 * activity counted across instances, licence and mode; rights.
 */
import { beforeAll, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { setUpDemo } from '../../src/demo/demo-setup.js'
import { setLicense } from '../../src/licensing/license.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { deliver } from '../helpers/webhook.js'

const BASE = '/wp-json/dg/v2'

describeEachDatabase('operators’ dashboard over REST', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let reader: TestUser
  let secret: string
  const dashboard = async () => {
    const response = await env.app.inject({ url: `${BASE}/dashboard`, headers: { authorization: admin.authorization } })
    expect(response.statusCode).toBe(200)
    return response.json()
  }

  beforeAll(async () => {
    env = getEnv()
    env.clock.set('2026-11-20T10:00:00Z')
    secret = (await setUpDemo(env.ctx)).webhook_secret
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
  })

  it('answers a catalog reader 403 and nobody 401', async () => {
    expect(
      (await env.app.inject({ url: `${BASE}/dashboard`, headers: { authorization: reader.authorization } })).statusCode,
    ).toBe(403)
    expect((await env.app.inject({ url: `${BASE}/dashboard` })).statusCode).toBe(401)
  })

  it('says today is still to be published, when the schedule runs next, and what the catalog holds', async () => {
    const body = await dashboard()
    expect(body.today.date).toBe('2026-11-20')
    expect(body.today.status).toBe('pending')
    expect(body.today.datasets).toEqual([
      expect.objectContaining({
        status: 'pending',
        published: null,
        failure: null,
        developer_name: expect.any(String),
      }),
    ])
    // 00:30 in Warsaw (UTC+1 in November) is 23:30 UTC of the day before
    expect(body.schedule).toEqual({
      pattern: '30 0 * * *',
      next_run_at: '2026-11-20T23:30:00.000Z',
      timezone: 'Europe/Warsaw',
    })
    const offers = await env.ctx.db.selectFrom('offers').select(['status']).execute()
    expect(body.catalog.offers_total).toBe(offers.length)
    expect(body.catalog.offers_by_status.available).toBe(offers.filter((o) => o.status === 'available').length)
    expect(body.catalog.investments_total).toBeGreaterThan(0)
    expect(body.license).toMatchObject({ status: 'active', continuity_mode: false })
    expect(body.last_publications).toEqual([])
  })

  it('names an investment whose official location is incomplete', async () => {
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select(['id', 'title'])
      .orderBy('id')
      .executeTakeFirstOrThrow()
    const cleared = await env.app.inject({
      method: 'PUT',
      url: `${BASE}/investments/${investment.id}/location`,
      headers: { authorization: admin.authorization },
      payload: { street: null },
    })
    expect(cleared.statusCode).toBe(200)
    const body = await dashboard()
    expect(body.catalog.investments_without_location).toBeGreaterThanOrEqual(1)
    expect(body.catalog.incomplete_investments).toContainEqual(
      expect.objectContaining({ id: investment.id, title: investment.title, location_missing: true }),
    )
  })

  it('shows a failed day with its issues and corrective messages, then the publication that fixed it', async () => {
    expect(
      (
        await env.app.inject({
          method: 'POST',
          url: `${BASE}/publications`,
          headers: { authorization: admin.authorization },
          payload: { date: '2026-11-20' },
        })
      ).statusCode,
    ).toBe(422)
    let body = await dashboard()
    expect(body.today.status).toBe('failed')
    const failure = body.today.datasets[0].failure
    expect(failure.issues).toContainEqual(
      expect.objectContaining({
        code: 'public_base_url_missing',
        message_pl: expect.any(String),
        message_en: expect.any(String),
      }),
    )

    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    const published = await env.app.inject({
      method: 'POST',
      url: `${BASE}/publications`,
      headers: { authorization: admin.authorization },
      payload: { date: '2026-11-20' },
    })
    expect(published.statusCode).toBe(200)
    body = await dashboard()
    expect(body.today.status).toBe('published')
    expect(body.today.datasets[0]).toMatchObject({
      status: 'published',
      failure: null,
      published: { date: '2026-11-20', csv: { md5: published.json().csv.md5 } },
    })
    expect(body.last_publications.map((p: { status: string }) => p.status)).toEqual(['published', 'failed'])
    expect(body.public_base_url).toBe('https://ceny.example.pl/dane-gov')
  })

  it('lists the executed imports, not the previews nobody executed', async () => {
    const boundary = 'x-dashboard'
    const upload = (name: string, rows: string) =>
      env.app.inject({
        method: 'POST',
        url: `${BASE}/imports/offer`,
        headers: { authorization: admin.authorization, 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload:
          `--${boundary}\r\nContent-Disposition: form-data; name="mode"\r\n\r\npatch\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="mapping"\r\n\r\n{"source_investment_id":"Inwestycja","source_property_id":"ID","prop_type":"Rodzaj","prop_area":"Powierzchnia"}\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: text/csv\r\n\r\nInwestycja;ID;Rodzaj;Powierzchnia\n${rows}\r\n` +
          `--${boundary}--\r\n`,
      })
    const executed = await upload('cennik.csv', 'DASH-IMPORT;1;mieszkanie;50,00')
    expect(executed.statusCode, executed.body).toBe(200)
    const run = await env.app.inject({
      method: 'POST',
      url: `${BASE}/imports/offer`,
      payload: `job_id=${executed.json().id}&confirm_archiving=false`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': 'dashboard-import-1',
        authorization: admin.authorization,
      },
    })
    expect(run.statusCode, run.body).toBe(200)
    // then two previews left as they are: one valid, one refused
    expect((await upload('porzucony.csv', 'DASH-IMPORT;2;mieszkanie;60,00')).statusCode).toBe(200)
    expect([200, 422]).toContain((await upload('bledny.csv', 'DASH-IMPORT;3;zamek;-1')).statusCode)

    const body = await dashboard()
    expect(body.recent_imports[0]).toMatchObject({
      id: executed.json().id,
      type: 'offer',
      status: 'completed',
      file_name: 'cennik.csv',
      operator: admin.login,
    })
    const names = body.recent_imports.map((job: { file_name: string }) => job.file_name)
    expect(names).not.toContain('porzucony.csv')
    expect(names).not.toContain('bledny.csv')
    for (const job of body.recent_imports as { status: string }[])
      expect(['running', 'completed', 'failed', 'stale', 'recovery_required']).toContain(job.status)
  })

  it('counts webhook deliveries accepted, replayed and refused by code, across instances', async () => {
    const body = JSON.stringify({ source_investment_id: 'DASH-1', source_property_id: 'P1', prop_type: 'mieszkanie' })
    const timestamp = Math.floor(env.clock.now().getTime() / 1000)
    expect((await deliver(env.app, { body, key: 'dashboard-event-1', secret, timestamp })).statusCode).toBe(202)
    expect((await deliver(env.app, { body, key: 'dashboard-event-1', secret, timestamp })).statusCode).toBe(200)
    expect(
      (await deliver(env.app, { body, key: 'dashboard-event-2', secret: 'not-the-secret', timestamp })).statusCode,
    ).toBe(401)
    const second = await buildApp({ config: env.config, database: env.database.handle, now: env.clock.now })
    try {
      expect((await deliver(second, { body, key: 'dashboard-event-3', secret: 'wrong', timestamp })).statusCode).toBe(
        401,
      )
    } finally {
      // an instance adds what it counted to the shared table when it stops (and every few seconds)
      await second.close()
    }
    const [today] = (await dashboard()).webhook.days
    expect(today).toEqual({ day: '2026-11-20', accepted: 1, replayed: 1, refused: { invalid_signature: 2 } })
  })

  it('keeps answering in continuity mode, saying so', async () => {
    await setLicense(env.ctx, { plan: 'pro', entitlements: [], validUntil: '2026-01-01', actor: { type: 'system' } })
    try {
      expect(
        (await env.app.inject({ url: `${BASE}/status`, headers: { authorization: admin.authorization } })).statusCode,
      ).toBe(403)
      const body = await dashboard()
      expect(body.license).toMatchObject({ status: 'expired', continuity_mode: true })
      expect(body.today.status).toBe('published')
    } finally {
      await grantProLicense(env.ctx)
    }
  })
})
