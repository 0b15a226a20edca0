/*
 * Two things a newcomer meets before production: offers that arrived without a type are
 * served by the catalog but left out of the daily file — and every report says so, naming them —
 * and an http:// public address is a local trial outside production (valid, not production
 * allowed, explained), refused with DG_ENV=production.
 */
import { parse } from 'csv-parse/sync'
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { PluginError } from '../../src/host/errors.js'
import { setOption } from '../../src/host/options/options.js'
import { OFFICIAL_COLUMN_INDEX } from '../../src/publication/daily-file/official-columns.js'
import { preparePublication } from '../../src/publication/publishing/prepare-publication.js'
import { publicationStore } from '../../src/publication/publication-store.js'
import {
  getPublicationSettings,
  PUBLICATION_SETTINGS_OPTION,
  updatePublicationSettings,
} from '../../src/publication/settings/publication-settings.js'
import { validateHarvesterXml } from '../../src/publication/daily-file/validate-xml.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'

describeEachDatabase('offers without a type and a trial http:// address', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let reader: TestUser
  let untyped: { id: number; code: string }

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
      headers: { authorization: admin.authorization, ...headers },
    })

  beforeAll(async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    // an offer as an earlier import left it when it was sent without prop_type: stored unqualified
    const listed = await env.ctx.db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .select(['offers.id', 'offers.code'])
      .where('offers.property_type', '=', 'mieszkanie')
      .where('offers.status', '=', 'available')
      .where('offers.host_status', '=', 'publish')
      .where('investments.host_status', '=', 'publish')
      .orderBy('offers.id')
      .execute()
    // a designation no other offer shares (two investments may both have an A/0.01), so the file can be searched for it
    const offer = listed.find((o) => listed.filter((other) => other.code === o.code).length === 1)
    if (!offer) throw new Error('the demo catalog has no flat with a unique designation')
    await env.ctx.db.updateTable('offers').set({ property_type: '' }).where('id', '=', offer.id).execute()
    untyped = offer
  })

  it('serves an offer without a type with an empty property_type', async () => {
    const response = await env.app.inject({
      method: 'GET',
      url: `${API}/catalog/properties/${untyped.id}`,
      headers: { authorization: reader.authorization },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().offer).toMatchObject({ id: untyped.id, property_type: '', code: untyped.code })
  })

  it('leaves it out of the daily file and names it in the preflight, the outcome and /status', async () => {
    const preflight = await call('POST', '/publications/preflight', { date: '2026-11-20' })
    expect(preflight.statusCode).toBe(200)
    const report = preflight.json()
    expect(report.valid).toBe(true)
    const warning = report.warnings.find((w: { code: string }) => w.code === 'offer_type_missing')
    expect(warning).toMatchObject({
      details: { count: 1, offers: [{ id: untyped.id, code: untyped.code }] },
    })
    expect(warning.message).toBe(warning.message_pl)
    expect(warning.message).toContain(untyped.code)
    // the operator's words for the field, never its code
    expect(warning.message).toContain('„Rodzaj (mieszkanie albo dom)”')
    expect(warning.message).not.toMatch(/prop_type/)
    expect(warning.message_en).toMatch(/1 offer without a type is left out/)

    const published = await call('POST', '/publications', { date: '2026-11-20' })
    expect(published.statusCode).toBe(200)
    const outcome = published.json()
    expect(outcome.offers_without_type).toBe(1)
    expect(outcome.warnings.map((w: { code: string }) => w.code)).toContain('offer_type_missing')

    const manifest = await publicationStore(env.ctx).currentManifest()
    const day = manifest?.days.find((d) => d.date === '2026-11-20')
    const csv = await import('node:fs/promises').then((fs) =>
      fs.readFile(publicationStore(env.ctx).csvPath(day?.md5 ?? '')),
    )
    const rows = parse(csv, { delimiter: ';', from_line: 2 }) as string[][]
    expect(rows.length).toBe(outcome.record_count)
    expect(rows.map((r) => r[OFFICIAL_COLUMN_INDEX.property_code])).not.toContain(untyped.code)

    const status = await call('GET', '/status')
    expect(status.json()).toMatchObject({ offers_without_type: 1, last_publication: { offers_without_type: 1 } })
  })

  it('accepts an http:// address outside production: valid, not production allowed, and says why', async () => {
    // the next day: the 20th's resource keeps the https address it was published with
    env.clock.set('2026-11-21T10:00:00Z')
    // files were published at the https address: the change applies to new files only, once confirmed
    const unconfirmed = await call('PUT', '/publication/settings', {
      public_base_url: 'http://127.0.0.1:8080/dane-gov',
    })
    expect(unconfirmed.statusCode).toBe(409)
    expect(unconfirmed.json()).toMatchObject({
      error: 'confirmation_required',
      current_public_base_url: 'https://ceny.example.pl/dane-gov',
      issues: [{ field: 'public_base_url', code: 'confirmation_required' }],
    })
    expect(unconfirmed.json().issues[0].message).toMatch(/zachowuje swoje adresy/)
    const saved = await call('PUT', '/publication/settings', {
      public_base_url: 'http://127.0.0.1:8080/dane-gov',
      confirm_url_change: true,
    })
    expect(saved.statusCode).toBe(200)
    const preflight = await call('POST', '/publications/preflight', { date: '2026-11-21' }, { 'accept-language': 'en' })
    expect(preflight.statusCode).toBe(200)
    const report = preflight.json()
    expect(report).toMatchObject({ valid: true, production_allowed: false, issues: [] })
    const trial = report.warnings.find((w: { code: string }) => w.code === 'public_url_http_trial')
    expect(trial.message).toBe(trial.message_en)
    expect(trial.message).toMatch(/only fetches over https:\/\/ on port 443/)

    const published = await call('POST', '/publications', { date: '2026-11-21' })
    expect(published.statusCode).toBe(200)
    expect(published.json().xml.url).toBe('http://127.0.0.1:8080/dane-gov/dataset.xml')
    const store = publicationStore(env.ctx)
    const version = await store.currentVersion()
    const xml = await import('node:fs/promises').then((fs) =>
      fs.readFile(`${store.versionDir(version ?? '')}/dataset.xml`, 'utf8'),
    )
    expect(xml).toContain('<url>http://127.0.0.1:8080/dane-gov/ceny-ofertowe-')
    expect(xml).toContain('<url>https://ceny.example.pl/dane-gov/ceny-ofertowe-')
    expect(await validateHarvesterXml(xml.replaceAll('<url>http://', '<url>https://'))).toEqual({
      valid: true,
      errors: [],
    })
  })
})

describeEachDatabase(
  'an http:// public address in production',
  (getEnv) => {
    it('is refused when saved, and blocks a publication when one was stored before', async () => {
      const env = getEnv()
      await setUpDemo(env.ctx)
      const refused = await updatePublicationSettings(
        env.ctx,
        { public_base_url: 'http://ceny.example.pl/dane-gov' },
        { type: 'cli' },
      ).catch((error: unknown) => error)
      expect(refused).toBeInstanceOf(PluginError)
      expect((refused as PluginError).extra.issues).toEqual([expect.objectContaining({ code: 'https_required' })])
      expect((await getPublicationSettings(env.ctx)).public_base_url).toBeNull()

      // stored by a trial before DG_ENV was set to production
      await setOption(env.ctx, PUBLICATION_SETTINGS_OPTION, { public_base_url: 'http://ceny.example.pl/dane-gov' })
      const prepared = await preparePublication(env.ctx, '2026-11-20')
      expect(prepared.issues.map((i) => i.code)).toContain('public_base_url_not_https')
    })
  },
  { env: { DG_ENV: 'production' } },
)
