import fs from 'node:fs/promises'
import https from 'node:https'
import path from 'node:path'

import { afterAll, beforeAll, expect, it } from 'vitest'

import { runCli } from '../../../src/cli/main.js'
import { setUpDemo } from '../../../src/demo/demo-setup.js'
import { openDatabase } from '../../../src/host/db/database.js'
import { setLicense } from '../../../src/licensing/license.js'
import { checkDelivery } from '../../../src/publication/delivery/delivery-check.js'
import { MD5_NAME, publicationStore } from '../../../src/publication/publication-store.js'
import { updatePublicationSettings } from '../../../src/publication/settings/publication-settings.js'
import { createTestUser, grantProLicense, type TestUser } from '../../helpers/factories.js'
import { startFakePortal } from '../../helpers/portal/fake-portal.js'
import { type HttpsTestServer, serveOverHttps } from '../../helpers/servers/https-server.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

const portal = await startFakePortal()
afterAll(() => portal.close())

/** A request over real https to the app's port (the test process trusts the test certificate). */
function overHttps(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; json: () => any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const request = https.request(
      url,
      { method, headers: { ...headers, ...(payload ? { 'content-type': 'application/json' } : {}) } },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8')
          resolve({ status: response.statusCode ?? 0, json: () => JSON.parse(text) })
        })
      },
    )
    request.on('error', reject)
    request.end(payload)
  })
}

describeEachDatabase(
  'publication preflight',
  (getEnv) => {
    let env: TestEnv
    let admin: TestUser
    let server: HttpsTestServer
    let developerName: string
    const preflight = (body: Record<string, unknown> = {}, authorization = admin.authorization) =>
      env.app.inject({
        method: 'POST',
        url: '/wp-json/dg/v2/publications/preflight',
        payload: body,
        headers: { authorization },
      })
    const codes = (list: Array<{ code: string }>) => list.map((i) => i.code)

    beforeAll(async () => {
      env = getEnv()
      await setUpDemo(env.ctx)
      admin = await createTestUser(env.ctx, 'administrator')
      server = await serveOverHttps(env.app)
      developerName = (await env.ctx.db.selectFrom('developers').select('name').executeTakeFirstOrThrow()).name
    })
    afterAll(async () => {
      await server.close()
    })

    it('answers 422 preflight_failed with the whole report while a blocking issue remains', async () => {
      const response = await preflight({ date: '2026-11-20' })
      expect(response.statusCode).toBe(422)
      const body = response.json()
      expect(body).toMatchObject({
        error: 'preflight_failed',
        date: '2026-11-20',
        valid: false,
        production_allowed: false,
        artifact_status: 'invalid',
        mode: 'production',
        delivery_status: 'not_published',
        delivery_checked_at: null,
        delivery_issues: [],
        portal_status: 'not_checked',
        contract: { id: 'pl-mrit-ceny-mieszkan-58-2025', valid_until: '2027-12-31' },
      })
      expect(body.issues).toEqual([
        expect.objectContaining({
          code: 'public_base_url_missing',
          message_pl: expect.stringContaining('https'),
          message_en: expect.stringContaining('https'),
        }),
      ])
    })

    it('before any publication: valid, production allowed, delivery not_published, portal not checked', async () => {
      await updatePublicationSettings(env.ctx, { public_base_url: `${server.url}/dane-gov` }, { type: 'cli' })
      // without the dataset's <url> (the page with the prices) the file is valid but not for production
      const withoutUrl = (await preflight({ date: '2026-11-20' })).json()
      expect(withoutUrl).toMatchObject({ valid: true, production_allowed: false })
      expect(codes(withoutUrl.warnings)).toContain('dataset_url_missing')
      await env.ctx.db.updateTable('developers').set({ dataset_url: 'https://www.example.pl/ceny' }).execute()
      const response = await preflight({ date: '2026-11-20' })
      expect(response.statusCode).toBe(200)
      const report = response.json()
      expect(report).toMatchObject({
        date: '2026-11-20',
        valid: true,
        production_allowed: true,
        mode: 'production',
        artifact_status: 'ready',
        delivery_status: 'not_published',
        delivery_checked_at: null,
        delivery_issues: [],
        portal_status: 'not_checked',
        issues: [],
      })
      expect(report.record_count).toBeGreaterThan(0)
      expect(report).not.toHaveProperty('portal')
      // the test server's random port is named: the real harvester only fetches from 80/443
      expect(codes(report.warnings)).toContain('public_url_nonstandard_port')
      // a preflight publishes nothing
      expect(await publicationStore(env.ctx).currentManifest()).toBeUndefined()
    })

    it('defaults the date to today in Europe/Warsaw and refuses impossible dates', async () => {
      env.clock.set('2026-11-20T23:30:00Z') // already 21 November in Warsaw
      expect((await preflight({})).json().date).toBe('2026-11-21')
      env.clock.set('2026-11-20T10:00:00Z')
      const impossible = await preflight({ date: '2026-02-30' })
      expect(impossible.statusCode).toBe(400)
      expect(impossible.json().error).toBe('invalid_date')
      expect((await preflight({ verify_portal: 'yes' })).statusCode).toBe(400)
    })

    it('after publishing over https on a real port, the served files pass the delivery check', async () => {
      const published = await overHttps(
        `${server.url}/wp-json/dg/v2/publications`,
        'POST',
        { authorization: admin.authorization },
        { date: '2026-11-20' },
      )
      expect(published.status).toBe(200)
      expect(published.json().xml.url).toBe(`${server.url}/dane-gov/dataset.xml`)

      // the next day: its file would be the next one
      env.clock.set('2026-11-21T10:00:00Z')
      const report = (await preflight({ date: '2026-11-21' })).json()
      expect(report).toMatchObject({ valid: true, delivery_status: 'ok', delivery_issues: [] })
      expect(Date.parse(report.delivery_checked_at)).toBe(env.clock.now().getTime())
    })

    it('reports a served .md5 that does not match the served XML with a stable code, without refusing', async () => {
      const store = publicationStore(env.ctx)
      const manifest = await store.currentManifest()
      const md5File = path.join(store.versionDir(manifest!.version), MD5_NAME)
      const original = await fs.readFile(md5File, 'utf8')
      await fs.writeFile(md5File, '0123456789abcdef0123456789abcdef')
      try {
        const response = await preflight({ date: '2026-11-21' })
        expect(response.statusCode).toBe(200)
        const report = response.json()
        expect(report.valid).toBe(true)
        expect(report.delivery_status).toBe('failed')
        expect(report.delivery_issues).toEqual([
          expect.objectContaining({
            code: 'delivery_md5_mismatch',
            message_pl: expect.any(String),
            message_en: expect.any(String),
            details: expect.objectContaining({ served_md5: '0123456789abcdef0123456789abcdef' }),
          }),
        ])

        await fs.writeFile(md5File, 'not a digest')
        expect(codes((await preflight({ date: '2026-11-21' })).json().delivery_issues)).toEqual([
          'delivery_md5_invalid',
        ])
      } finally {
        await fs.writeFile(md5File, original)
      }
      expect((await preflight({ date: '2026-11-21' })).json().delivery_status).toBe('ok')
    })

    it('reports unreachable public URLs as a delivery failure, never as a server error', async () => {
      await updatePublicationSettings(env.ctx, { public_base_url: 'https://127.0.0.1:1/dane-gov' }, { type: 'cli' })
      try {
        const response = await preflight({ date: '2026-11-21' })
        expect(response.statusCode).toBe(200)
        const report = response.json()
        expect(report.delivery_status).toBe('failed')
        expect(new Set(codes(report.delivery_issues))).toEqual(new Set(['delivery_unreachable']))
        // the closed port is said in words, not as a raw ECONNREFUSED
        expect(report.delivery_issues[0].details.error_code).toBe('network_connection_refused')
        expect(report.delivery_issues[0].message_pl).toContain('Serwer odrzucił połączenie')
      } finally {
        await updatePublicationSettings(env.ctx, { public_base_url: `${server.url}/dane-gov` }, { type: 'cli' })
      }
    })

    it('checks the files still listed at an earlier public address, since a resource keeps its URL', async () => {
      const manifest = (await publicationStore(env.ctx).currentManifest())!
      const earlier = { ...manifest.days[0]!, date: '2026-11-01', url: 'https://127.0.0.1:1/old-address/day.csv' }
      const report = await checkDelivery({
        baseUrl: `${server.url}/dane-gov`,
        manifest: { ...manifest, days: [earlier, ...manifest.days] },
        now: () => env.clock.now(),
      })
      expect(report.status).toBe('failed')
      expect(report.issues).toEqual([
        expect.objectContaining({
          code: 'delivery_unreachable',
          details: expect.objectContaining({ url: earlier.url }),
        }),
      ])
    })

    it('verify_portal finds the dataset by its XML source URL and the resource of the date', async () => {
      env.clock.set('2026-11-20T10:00:00Z') // checked on the day itself: a past day's file is never built again
      portal.set([
        { id: 1001, title: 'Ceny ofertowe mieszkań dewelopera Inny Deweloper S.A. w 2026 r.', resources: [] },
        {
          id: 4711,
          title: `Ceny ofertowe mieszkań dewelopera ${developerName} w 2026 r.`,
          sourceUrl: `${server.url}/dane-gov/dataset.xml`,
          resources: [
            { id: 90001, date: '2026-11-19' },
            { id: 90002, date: '2026-11-20' },
          ],
        },
      ])
      portal.requests.length = 0
      const report = (await preflight({ date: '2026-11-20', verify_portal: true })).json()
      expect(report.portal_status).toBe('ok')
      expect(report.portal).toMatchObject({
        api_url: portal.url,
        api_version: '1.4',
        date: '2026-11-20',
        dataset: { id: '4711', matched_by: 'source_url', source_url: `${server.url}/dane-gov/dataset.xml` },
        resource: { id: '90002', data_date: '2026-11-20' },
        resources_seen: 2,
        latest_data_date: '2026-11-20',
      })
      expect(portal.requests.map((r) => r.path)).toEqual(['/1.4/datasets', '/1.4/datasets/4711/resources'])
      expect(portal.requests.every((r) => r.apiVersion === '1.4' && r.acceptLanguage === 'pl')).toBe(true)
      expect(portal.requests[1]!.query).toMatchObject({ sort: '-data_date', per_page: '100' })
      expect(codes(report.warnings)).not.toContain('portal_missing_resource')
    })

    it('verify_portal falls back to the title when the portal shows no source URL', async () => {
      env.clock.set('2026-11-20T10:00:00Z') // checked on the day itself: a past day's file is never built again
      portal.set([
        {
          id: 5150,
          title: `Ceny ofertowe mieszkań dewelopera ${developerName} w 2026 r.`,
          resources: [{ id: 91000, date: '2026-11-20' }],
        },
      ])
      const report = (await preflight({ date: '2026-11-20', verify_portal: true })).json()
      expect(report.portal_status).toBe('ok')
      expect(report.portal.dataset).toMatchObject({ id: '5150', matched_by: 'title', source_url: null })
    })

    it('verify_portal: a missing day is missing_resource, an unknown dataset dataset_not_found (warnings only)', async () => {
      env.clock.set('2026-11-20T10:00:00Z') // checked on the day itself: a past day's file is never built again
      portal.set([
        {
          id: 4711,
          title: `Ceny ofertowe mieszkań dewelopera ${developerName} w 2026 r.`,
          sourceUrl: `${server.url}/dane-gov/dataset.xml`,
          resources: [{ id: 90001, date: '2026-11-19' }],
        },
      ])
      const missing = await preflight({ date: '2026-11-20', verify_portal: true })
      expect(missing.statusCode).toBe(200)
      expect(missing.json()).toMatchObject({
        valid: true,
        portal_status: 'missing_resource',
        portal: { dataset: { id: '4711' }, resource: null, latest_data_date: '2026-11-19' },
      })
      expect(codes(missing.json().warnings)).toContain('portal_missing_resource')

      portal.set([
        { id: 1001, title: 'Ceny ofertowe mieszkań dewelopera Inny Deweloper S.A. w 2026 r.', resources: [] },
      ])
      const unknown = (await preflight({ date: '2026-11-20', verify_portal: true })).json()
      expect(unknown.portal_status).toBe('dataset_not_found')
      expect(unknown.portal.dataset).toBeNull()
      expect(codes(unknown.warnings)).toContain('portal_dataset_not_found')
    })

    it('verify_portal: a portal that is down, failing or cutting connections is unreachable', async () => {
      env.clock.set('2026-11-20T10:00:00Z') // checked on the day itself: a past day's file is never built again
      portal.set([])
      await portal.down()
      try {
        const down = await preflight({ date: '2026-11-20', verify_portal: true })
        expect(down.statusCode).toBe(200)
        expect(down.json().portal_status).toBe('unreachable')
        expect(down.json().portal.error).toMatch(/network/)
        expect(codes(down.json().warnings)).toContain('portal_unreachable')
      } finally {
        await portal.up()
      }
      try {
        portal.mode = 'error'
        expect((await preflight({ date: '2026-11-20', verify_portal: true })).json()).toMatchObject({
          portal_status: 'unreachable',
          portal: { error: expect.stringContaining('503') },
        })
        portal.mode = 'drop'
        expect((await preflight({ date: '2026-11-20', verify_portal: true })).json().portal_status).toBe('unreachable')
      } finally {
        portal.mode = 'ok'
      }
    })

    it('refuses the day when the stored developer data is invalid: 422 with the field named', async () => {
      env.clock.set('2026-11-21T10:00:00Z')
      const developer = await env.ctx.db.selectFrom('developers').select(['id', 'nip']).executeTakeFirstOrThrow()
      // written past the API's validation, as old or hand-edited data would be
      await env.ctx.db.updateTable('developers').set({ nip: '5251234561' }).where('id', '=', developer.id).execute()
      try {
        const response = await preflight({ date: '2026-11-21' })
        expect(response.statusCode).toBe(422)
        expect(response.json()).toMatchObject({
          error: 'preflight_failed',
          valid: false,
          artifact_status: 'invalid',
          production_allowed: false,
          delivery_status: 'ok',
        })
        expect(response.json().issues).toEqual([
          expect.objectContaining({ code: 'developer_invalid_nip', details: { field: 'nip' } }),
        ])
      } finally {
        await env.ctx.db.updateTable('developers').set({ nip: developer.nip }).where('id', '=', developer.id).execute()
      }
    })

    it('needs manage_options and the publishing_gov entitlement (403 pro_feature_required)', async () => {
      const reader = await createTestUser(env.ctx, 'dg_catalog_reader')
      expect((await preflight({}, reader.authorization)).statusCode).toBe(403)
      expect(
        (await env.app.inject({ method: 'POST', url: '/wp-json/dg/v2/publications/preflight', payload: {} }))
          .statusCode,
      ).toBe(401)
      await grantProLicense(env.ctx, ['api_webhooks', 'bulk_import'])
      try {
        const refused = await preflight({ date: '2026-11-21' })
        expect(refused.statusCode).toBe(403)
        expect(refused.json()).toEqual({ error: 'pro_feature_required', feature: 'publishing_gov' })
      } finally {
        await grantProLicense(env.ctx)
      }
    })

    it('production_allowed needs api_webhooks; the CLI reports continuity mode without a licence', async () => {
      env.clock.set('2026-11-21T10:00:00Z')
      await grantProLicense(env.ctx, ['publishing_gov'])
      const withoutApi = (await preflight({ date: '2026-11-21' })).json()
      expect(withoutApi).toMatchObject({ valid: true, production_allowed: false, mode: 'production' })
      expect(codes(withoutApi.warnings)).toContain('api_webhooks_missing')

      await setLicense(env.ctx, { plan: 'free', entitlements: [], actor: { type: 'system' } })
      try {
        let stdout = ''
        let stderr = ''
        // the CLI runs on the real clock: its default date is today
        const code = await runCli(['publication', 'preflight', '--json'], {
          config: env.config,
          io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
          openDatabase: () => openDatabase(env.database.connection),
        })
        expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
        const report = JSON.parse(stdout)
        expect(report).toMatchObject({
          valid: true,
          production_allowed: false,
          mode: 'continuity',
          delivery_status: 'ok',
        })
        expect(codes(report.warnings)).toContain('license_not_active')
      } finally {
        await grantProLicense(env.ctx)
      }
    })
  },
  { env: { DG_PORTAL_API_URL: portal.url } },
)
