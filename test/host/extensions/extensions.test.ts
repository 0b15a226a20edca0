/*
 * Extensions a deployment loads with DG_EXTENSIONS: a module that cannot start stops the start
 * with a message naming it and leaves nothing registered (and, for `dg serve`, no database opened
 * and no socket); a loaded extension's meta keys, site options and filters reach the catalog; a
 * filter that fails during a request is logged and skipped, and what leaves the catalog is still
 * held to the exposure rules (no credential-like or technical keys, no objects).
 */
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'

import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../../src/app.js'
import { runCli } from '../../../src/cli/main.js'
import { ConfigError, loadConfig } from '../../../src/config.js'
import { ExtensionLoadError, loadExtensions } from '../../../src/host/extensions/load-extensions.js'
import { HookRegistry } from '../../../src/host/hooks/hooks.js'
import { loggerOptions } from '../../../src/host/http/logging.js'
import { MetaRegistry } from '../../../src/host/meta/meta-registry.js'
import { setOption } from '../../../src/host/options/options.js'
import { basicAuth, createTestUser, grantProLicense } from '../../helpers/factories.js'
import { openDatabase } from '../../../src/host/db/database.js'
import { getOption } from '../../../src/host/options/options.js'
import { openTestDatabase, TEST_DIALECTS } from '../../helpers/databases.js'
import { startTestApp, type TestEnv } from '../../helpers/test-app.js'
import { FIXED_PUBLISHED_CODES, seedFixedCatalog } from '../../helpers/fixed-catalog.js'

const FIXTURES = 'test/host/fixtures/extensions'
const EXAMPLE = 'examples/extensions/website-fields/index.mjs'
const silent = pino({ level: 'silent' })
const site = { env: 'test' as const, siteUrl: 'https://www.example.pl' }

async function load(paths: string[], timeoutMs?: number) {
  const hooks = new HookRegistry()
  const meta = new MetaRegistry()
  const absolute = paths.map((p) => path.resolve(p))
  const result = loadExtensions(absolute, {
    hooks,
    meta,
    log: silent,
    config: site,
    ...(timeoutMs ? { timeoutMs } : {}),
  })
  return { hooks, meta, result }
}

describe('loading extensions', () => {
  it.each([
    ['throws-in-register.mjs', 'failed in register(): the CRM address is not configured'],
    ['no-register.mjs', 'exports no register function'],
    ['unknown-hook.mjs', 'there is no filter dg_frontend_propety_data'],
    ['exposes-secret-meta.mjs', 'meta key crm_api_token looks like a credential'],
    ['bad-setting.mjs', 'site option max_offers: default must be a integer or null'],
    ['missing-file.mjs', 'there is no file'],
  ])(
    'stops at %s with a message naming it, and registers nothing of the extensions before it',
    async (file, reason) => {
      const { hooks, meta, result } = await load([EXAMPLE, `${FIXTURES}/${file}`])
      const error = await result.catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ExtensionLoadError)
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as Error).message).toContain(`Extension ${FIXTURES}/${file} (DG_EXTENSIONS)`)
      expect((error as Error).message).toContain(reason)
      // the example registered fine before, yet nothing of it reached the service
      expect(hooks.hasFilter('dg_frontend_property_data')).toBe(false)
      expect(hooks.hasFilter('dg_extension_settings_fields')).toBe(false)
      expect(meta.list('dg_property')).toEqual([])
    },
  )

  it('stops at a module that does not parse, naming it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-ext-parse-'))
    try {
      const broken = path.join(dir, 'broken.mjs')
      fs.writeFileSync(broken, 'export function register( {\n')
      const { result } = await load([broken])
      await expect(result).rejects.toThrow(`Extension ${broken} (DG_EXTENSIONS) cannot be loaded: `)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('gives up on a register() that never finishes', async () => {
    const { result } = await load([`${FIXTURES}/never-registers.mjs`], 200)
    await expect(result).rejects.toThrow(
      /never-registers\.mjs \(DG_EXTENSIONS\) failed in register\(\): register\(\) did not finish/,
    )
  })

  it('registers the example: meta keys with their types, options and filters, owned by the extension', async () => {
    const { hooks, meta, result } = await load([EXAMPLE])
    const [loaded] = await result
    expect(loaded).toEqual({
      name: EXAMPLE,
      filters: ['dg_extension_settings_fields', 'dg_frontend_property_data'],
      actions: [],
      meta: [
        { postType: 'dg_property', key: 'exposure' },
        { postType: 'dg_property', key: 'plot_area' },
        { postType: 'dg_investment', key: 'energy_class' },
        { postType: 'dg_investment', key: 'completion_quarter' },
        { postType: 'dg_property', key: 'crm_id' },
      ],
      settings: ['promo_banner', 'show_price_per_m2', 'crm_sync_hour'],
    })
    expect(meta.restKeys('dg_property')).toEqual(['exposure', 'plot_area'])
    expect(meta.get('dg_property', 'crm_id')).toMatchObject({ type: 'string', showInRest: false })
    expect(meta.get('dg_property', 'plot_area')).toMatchObject({ type: 'number', showInRest: true })
    const offer = await hooks.applyFilters('dg_frontend_property_data', { rooms: '3' }, 1)
    expect(offer).toEqual({ rooms: '3', rooms_label: '3 pokoje' })
  })

  it('refuses registrations after the start', async () => {
    const { result } = await load([`${FIXTURES}/late-registration.mjs`])
    await result
    const late = (await import(path.resolve(`${FIXTURES}/late-registration.mjs`))) as { later: () => void }
    expect(() => late.later()).toThrow(/registered after the start/)
  })

  it('reads DG_EXTENSIONS as paths relative to the working folder, and refuses one named twice', () => {
    const config = loadConfig({ DG_EXTENSIONS: `${EXAMPLE}, /opt/site/ext.mjs` }, '/srv/dg')
    expect(config.extensions).toEqual([path.resolve('/srv/dg', EXAMPLE), '/opt/site/ext.mjs'])
    expect(loadConfig({}).extensions).toEqual([])
    expect(() => loadConfig({ DG_EXTENSIONS: './a.mjs,a.mjs' }, '/srv')).toThrow(/names \/srv\/a\.mjs twice/)
  })
})

describe('dg serve with a broken extension', () => {
  let dir: string
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-ext-'))
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('exits with the extension named, before it creates a database or listens', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const address = probe.address() as net.AddressInfo
        probe.close(() => resolve(address.port))
      })
    })
    let stderr = ''
    const code = await runCli(['serve'], {
      config: loadConfig({
        DG_ENV: 'test',
        DG_LOG_LEVEL: 'silent',
        DG_DATA_DIR: dir,
        PORT: String(port),
        DG_EXTENSIONS: `${EXAMPLE},${FIXTURES}/throws-in-register.mjs`,
      }),
      io: { stdout: () => undefined, stderr: (t) => void (stderr += t) },
    })
    expect(code).toBe(2)
    expect(stderr).toContain('Error (extension_failed)')
    expect(stderr).toContain(`Extension ${FIXTURES}/throws-in-register.mjs (DG_EXTENSIONS) failed in register()`)
    expect(fs.readdirSync(dir)).toEqual([])
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => {
        socket.destroy()
        resolve(false)
      })
      socket.once('error', () => resolve(true))
    })
    expect(refused).toBe(true)
  })

  it('buildApp refuses the same way, and does not open the database it was given', async () => {
    const config = loadConfig({ DG_ENV: 'test', DG_DATA_DIR: dir, DG_EXTENSIONS: `${FIXTURES}/unknown-hook.mjs` })
    await expect(buildApp({ config, logger: silent })).rejects.toThrow(ExtensionLoadError)
    expect(fs.readdirSync(dir)).toEqual([])
  })
})

for (const dialect of TEST_DIALECTS) {
  describe(`catalog with loaded extensions [${dialect}]`, () => {
    const lines: string[] = []
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString())
        callback()
      },
    })
    let env: TestEnv
    let authorization: string
    let offerIds: number[]
    let misbehaving: { state: { throwFor: number; garbageFor: number } }
    const get = (url: string, headers: Record<string, string> = {}) =>
      env.app.inject({ method: 'GET', url: `/wp-json/dg/v2${url}`, headers: { authorization, ...headers } })

    beforeAll(async () => {
      env = await startTestApp(dialect, {
        env: { DG_EXTENSIONS: `${EXAMPLE},${FIXTURES}/misbehaving.mjs`, DG_CATALOG_RATE_LIMIT: '100000' },
        logger: pino(loggerOptions('info'), sink),
      })
      misbehaving = (await import(path.resolve(`${FIXTURES}/misbehaving.mjs`))) as typeof misbehaving
      await grantProLicense(env.ctx)
      const reader = await createTestUser(env.ctx, 'dg_catalog_reader')
      authorization = basicAuth(reader.login, reader.appPassword)
      const ids = await seedFixedCatalog(env.ctx)
      offerIds = FIXED_PUBLISHED_CODES.map((code) => ids.get(code) as number)
      const rows = await env.ctx.db
        .selectFrom('offers')
        .select(['id', 'investment_id'])
        .where('id', '=', offerIds[0] as number)
        .execute()
      await env.ctx.db
        .updateTable('offers')
        .set({ custom_meta: JSON.stringify({ exposure: 'S-W', plot_area: 310.5, crm_id: 'CRM-77', _wp_old: 'x' }) })
        .where('id', '=', offerIds[0] as number)
        .execute()
      await env.ctx.db
        .updateTable('investments')
        .set({ custom_meta: JSON.stringify({ energy_class: 'A', completion_quarter: '2027-Q2', secret_key: 's' }) })
        .where('id', '=', rows[0]?.investment_id as number)
        .execute()
    })
    afterAll(async () => {
      await env.app.close()
      await env.database.cleanup()
    })

    it('exposes the registered meta keys and the site options, with their defaults and sanitizer', async () => {
      const detail = (await get(`/catalog/properties/${offerIds[0]}`)).json()
      // the misbehaving extension's dg_rest_business_meta_keys filter throws: the registered keys remain
      expect(detail.custom_meta).toEqual({ exposure: 'S-W', plot_area: 310.5 })
      const investmentId = detail.offer.investment_id as number
      const investment = (await get(`/catalog/investments/${investmentId}`)).json()
      expect(investment.custom_meta).toEqual({ energy_class: 'A', completion_quarter: '2027-Q2' })

      expect((await get('/catalog')).json().extension_options).toEqual({ promo_banner: '', show_price_per_m2: true })
      await setOption(env.ctx, 'dg_ext_promo_banner', '  Rabat   5%  na   lokale z ogródkiem ')
      await setOption(env.ctx, 'dg_ext_show_price_per_m2', false)
      expect((await get('/catalog')).json().extension_options).toEqual({
        promo_banner: 'Rabat 5% na lokale z ogródkiem',
        show_price_per_m2: false,
      })
    })

    it('adds what the filters add, and never lets out credential-like or technical keys or objects', async () => {
      misbehaving.state.throwFor = 0
      const list = (await get('/catalog/properties?orderby=title&order=ASC&per_page=100')).json()
      expect(list.length).toBeGreaterThan(2)
      for (const offer of list) {
        expect(offer.rooms_label).toMatch(/^(\d+ pok(ój|oje|oi))?$/)
        expect(offer.badge).toBe('nowość')
        expect(offer.checked).toBe(true)
        expect(Object.keys(offer)).not.toContain('api_token')
        expect(Object.keys(offer)).not.toContain('_wp_internal_note')
        expect(Object.keys(offer)).not.toContain('nested')
      }
    })

    it('logs a filter that throws and answers with the offer as the other filters left it', async () => {
      const [throwing, garbage] = offerIds as [number, number]
      misbehaving.state.throwFor = throwing
      misbehaving.state.garbageFor = garbage
      lines.length = 0
      const response = await get(`/catalog/properties/${throwing}`)
      expect(response.statusCode).toBe(200)
      const offer = response.json().offer
      expect(offer.title).toEqual(expect.any(String))
      expect(offer.badge).toBe('nowość')
      expect(offer.checked).toBeUndefined()
      expect(response.body).not.toContain('hunter2')
      expect(response.body).not.toContain('crm_password')
      expect(response.body).not.toContain('tok-should-never-leave')
      expect(response.body).not.toContain('_wp_internal_note')

      const garbageOffer = (await get(`/catalog/properties/${garbage}`)).json().offer
      expect(garbageOffer.id).toBe(garbage)
      expect(garbageOffer.checked).toBe(true)

      const failures = lines.map((line) => JSON.parse(line)).filter((l) => l.msg?.startsWith('extension filter failed'))
      expect(failures).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            level: 50,
            hook: 'dg_frontend_property_data',
            extension: `${FIXTURES}/misbehaving.mjs`,
            entryId: throwing,
            err: expect.objectContaining({ message: 'CRM lookup failed' }),
          }),
          expect.objectContaining({
            hook: 'dg_frontend_property_data',
            entryId: garbage,
            err: expect.objectContaining({ message: 'returned string, not an object' }),
          }),
          expect.objectContaining({ hook: 'dg_rest_business_meta_keys', extension: `${FIXTURES}/misbehaving.mjs` }),
        ]),
      )
      expect(lines.join('')).not.toContain('hunter2')
    })

    it('does not keep an answer made while a filter failed: the extension is asked again', async () => {
      const [throwing] = offerIds as [number]
      misbehaving.state.throwFor = throwing
      const failed = await get(`/catalog/properties/${throwing}`)
      expect(failed.json().offer.checked).toBeUndefined()
      misbehaving.state.throwFor = 0
      const recovered = await get(`/catalog/properties/${throwing}`, { 'if-none-match': String(failed.headers.etag) })
      expect(recovered.statusCode).toBe(200)
      expect(recovered.json().offer.checked).toBe(true)
      const again = await get(`/catalog/properties/${throwing}`, { 'if-none-match': String(recovered.headers.etag) })
      expect(again.statusCode).toBe(304)
    })
  })
}

for (const dialect of TEST_DIALECTS) {
  describe(`dg site-options with the example extension [${dialect}]`, () => {
    let database: Awaited<ReturnType<typeof openTestDatabase>>
    const dg = async (...argv: string[]) => {
      let stdout = ''
      let stderr = ''
      const code = await runCli([...argv, '--json'], {
        config: loadConfig({
          DG_ENV: 'test',
          DG_LOG_LEVEL: 'silent',
          DG_DATA_DIR: database.dataDir,
          DG_EXTENSIONS: EXAMPLE,
        }),
        io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
        openDatabase: () => openDatabase(database.connection),
      })
      return {
        code,
        json: stdout ? JSON.parse(stdout) : undefined,
        error: stderr ? JSON.parse(stderr).error : undefined,
      }
    }
    beforeAll(async () => {
      database = await openTestDatabase(dialect)
    })
    afterAll(async () => {
      await database.cleanup()
    })

    it('lists the options with their defaults, then sets them by their type and sanitizer', async () => {
      const listed = await dg('site-options')
      expect(listed.code).toBe(0)
      expect(listed.json).toEqual([
        expect.objectContaining({
          name: 'promo_banner',
          type: 'string',
          value: '',
          stored: false,
          expose_in_catalog: true,
        }),
        expect.objectContaining({ name: 'show_price_per_m2', type: 'boolean', value: true, stored: false }),
        expect.objectContaining({ name: 'crm_sync_hour', type: 'integer', value: 3, expose_in_catalog: false }),
      ])

      const banner = await dg('site-option', 'set', 'promo_banner', '  Rabat   5%  na lokale z ogródkiem ')
      expect(banner).toMatchObject({
        code: 0,
        json: { name: 'promo_banner', value: 'Rabat 5% na lokale z ogródkiem', stored: true },
      })
      expect((await dg('site-option', 'set', 'show_price_per_m2', 'nie')).json).toMatchObject({ value: false })
      expect((await dg('site-option', 'set', 'crm_sync_hour', '22')).json).toMatchObject({ value: 22 })

      const wrongType = await dg('site-option', 'set', 'crm_sync_hour', 'o trzeciej')
      expect(wrongType).toMatchObject({ code: 1, error: { code: 'invalid_site_option_value' } })
      const unknown = await dg('site-option', 'set', 'headline', 'x')
      expect(unknown).toMatchObject({ code: 1, error: { code: 'unknown_site_option' } })
      expect(unknown.error.message).toContain('promo_banner, show_price_per_m2, crm_sync_hour')

      const check = openDatabase(database.connection)
      try {
        const ctx = { db: check.db }
        expect(await getOption(ctx, 'dg_ext_promo_banner')).toBe('Rabat 5% na lokale z ogródkiem')
        expect(await getOption(ctx, 'dg_ext_crm_sync_hour')).toBe(22)
        const audited = await check.db
          .selectFrom('audit_log')
          .select(['action', 'object_id', 'details'])
          .where('action', '=', 'site_option.set')
          .orderBy('id')
          .execute()
        expect(audited.map((a) => a.object_id)).toEqual(['promo_banner', 'show_price_per_m2', 'crm_sync_hour'])
        expect(JSON.stringify(audited)).not.toContain('Rabat')
      } finally {
        await check.destroy()
      }
    })
  })
}
