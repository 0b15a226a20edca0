/*
 * A whole company leaves one deployment and arrives in another of either database kind: the demo
 * company with a publication, a price change, a second user and an application password is
 * exported, imported into a fresh database of each kind (SQLite → PostgreSQL and back), and the
 * imported copy answers as the original did — the catalog, the price history, the published files
 * byte for byte, the sign-in and the application passwords. An export that was tampered with, or a
 * target that is not fresh, is refused with nothing changed.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { afterAll, beforeAll, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import {
  APPEND_ONLY_TABLES,
  exportData,
  type ExportManifest,
  importData,
  TRIGGER_MAINTAINED_TABLES,
} from '../../src/backup/portable-export.js'
import { loadConfig } from '../../src/config.js'
import { type KnownDemoCredentials, setUpDemo } from '../../src/demo/demo-setup.js'
import { migrateToLatest } from '../../src/host/db/migrate.js'
import { HostError } from '../../src/host/errors.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { openTestDatabase, TEST_DIALECTS, type TestDatabase, type TestDialect } from '../helpers/databases.js'
import { basicAuth, createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv, TestClock } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'

interface Opened {
  database: TestDatabase
  app?: FastifyInstance
}

/** A fresh database of `dialect`, migrated as `dg migrate` leaves it. */
async function freshDatabase(dialect: TestDialect, opened: Opened[]): Promise<TestDatabase> {
  const database = await openTestDatabase(dialect)
  opened.push({ database })
  await migrateToLatest(database.handle.db, dialect)
  return database
}

const storeOf = (database: TestDatabase) => ({
  db: database.handle.db,
  caps: database.handle.caps,
  dataDir: database.dataDir,
})

async function refusal(promise: Promise<unknown>): Promise<HostError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(HostError)
  return error as HostError
}

describeEachDatabase('portable export of a whole company', (getEnv, dialect) => {
  let env: TestEnv
  let demo: KnownDemoCredentials
  let admin: TestUser
  let websiteUser: TestUser & { loginPassword: string }
  let changedOfferId: number
  let csvFileName: string
  /** The published CSV's name in the data folder (its MD5). */
  let csvStored: string
  let workDir: string
  let exportDir: string
  const opened: Opened[] = []

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, headers = {}) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
      headers: { authorization: admin.authorization, ...headers },
    })

  beforeAll(async () => {
    env = getEnv()
    demo = await setUpDemo(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    websiteUser = await createTestUser(env.ctx, 'dg_catalog_reader')
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })

    const flat = await env.ctx.db
      .selectFrom('offers')
      .select(['id', 'area', 'price_total_cents'])
      .where('property_type', '=', 'mieszkanie')
      .where('status', '=', 'available')
      .where('price_total_cents', 'is not', null)
      .where('area', 'is not', null)
      .orderBy('id')
      .executeTakeFirstOrThrow()
    changedOfferId = flat.id
    const read = await call('GET', `/offers/${flat.id}`)
    expect(read.statusCode, read.body).toBe(200)
    const total = (Number(flat.price_total_cents) + 1_500_000) / 100
    const changed = await call(
      'PATCH',
      `/offers/${flat.id}`,
      {
        price_total: total.toFixed(2),
        price_m2: (total / Number(flat.area)).toFixed(2),
        price_total_from: '2026-11-20',
        price_m2_from: '2026-11-20',
        reason: 'Nowy cennik',
      },
      { 'if-match': read.headers.etag as string },
    )
    expect(changed.statusCode, changed.body).toBe(200)

    const published = await call('POST', '/publications', { date: '2026-11-20' })
    expect(published.statusCode, published.body).toBe(200)
    csvFileName = published.json().csv.file_name as string
    const served = await env.app.inject({ url: `/dane-gov/${csvFileName}` })
    expect(served.statusCode).toBe(200)
    csvStored = `${createHash('md5').update(served.rawPayload).digest('hex')}.csv`

    // a table of more rows than one read batch, keyed by two columns
    const counters = Array.from({ length: 4500 }, (_, i) => ({
      bucket: `catalog:10.0.${Math.floor(i / 250)}.${i % 250}`,
      window_start: 1_795_000_000 + (i % 7),
      hits: i % 97,
    }))
    for (let at = 0; at < counters.length; at += 500)
      await env.ctx.db
        .insertInto('rate_limit_counters')
        .values(counters.slice(at, at + 500))
        .execute()

    workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'dg-portable-'))
    exportDir = path.join(workDir, 'export')
    const summary = await exportData(storeOf(env.database), exportDir)
    expect(summary.rows).toBeGreaterThan(50)
    expect(summary.files).toBeGreaterThan(2)
  })

  afterAll(async () => {
    for (const { database, app } of opened.reverse()) {
      await app?.close()
      await database.cleanup()
    }
    if (workDir) await fs.rm(workDir, { recursive: true, force: true })
  })

  it('writes a manifest with every table but the migration bookkeeping, the files, and no partial folder', async () => {
    const manifest = JSON.parse(await fs.readFile(path.join(exportDir, 'manifest.json'), 'utf8')) as ExportManifest
    expect(manifest).toMatchObject({ format: 'dg-offers-export', format_version: 1, database: dialect })
    expect(manifest.latest_migration).toMatch(/^\d{4}-/)
    const tables = manifest.tables.map((table) => table.name)
    expect(tables).toEqual(expect.arrayContaining(['users', 'app_passwords', 'options', 'offers', 'price_history']))
    expect(tables).not.toContain('dg_migration')
    expect(tables).not.toContain('dg_migration_lock')
    // every row, also of a table read in several batches
    for (const table of manifest.tables) {
      const { rows } = await sql<{ n: number | string }>`SELECT count(*) AS n FROM ${sql.table(table.name)}`.execute(
        env.ctx.db,
      )
      expect(table.rows, table.name).toBe(Number(rows[0]?.n))
    }
    expect(manifest.tables.find((table) => table.name === 'rate_limit_counters')?.rows).toBeGreaterThanOrEqual(4500)
    const history = manifest.tables.find((table) => table.name === 'price_history')
    const lines = (await fs.readFile(path.join(exportDir, 'tables', 'price_history.jsonl'), 'utf8')).trim().split('\n')
    expect(lines).toHaveLength(history?.rows ?? -1)
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ offer_id: expect.any(Number), valid_from: expect.any(String) })
    const paths = manifest.files.map((file) => file.path)
    expect(paths).toContain('publication/current')
    expect(paths.some((file) => file.endsWith(csvStored))).toBe(true)
    expect(paths.some((file) => file.startsWith('dg.sqlite') || file.startsWith('.service'))).toBe(false)
    expect((await fs.readdir(workDir)).filter((name) => name.includes('.partial-'))).toEqual([])
    // the folder holds secrets: its owner's only
    expect((await fs.stat(exportDir)).mode & 0o077).toBe(0)
  })

  for (const target of TEST_DIALECTS) {
    it(`imports into a fresh ${target} database: the copy answers as the original, byte for byte`, async () => {
      const database = await freshDatabase(target, opened)
      const summary = await importData(storeOf(database), exportDir)
      expect(summary.database).toBe(target)

      // read back table by table, the copy is the export: every row, id and revision
      const again = path.join(workDir, `again-${target}`)
      await exportData(storeOf(database), again)
      const first = JSON.parse(await fs.readFile(path.join(exportDir, 'manifest.json'), 'utf8')) as ExportManifest
      const second = JSON.parse(await fs.readFile(path.join(again, 'manifest.json'), 'utf8')) as ExportManifest
      const digests = (manifest: ExportManifest) =>
        Object.fromEntries(manifest.tables.map((table) => [table.name, [table.rows, table.sha256]]))
      expect(digests(second)).toEqual(digests(first))
      expect(second.files).toEqual(first.files)

      const config = loadConfig({ DG_ENV: 'test', DG_LOG_LEVEL: 'silent', DG_DATA_DIR: database.dataDir })
      const app = await buildApp({ config, database: database.handle, now: new TestClock().now })
      opened[opened.length - 1] = { database, app }
      await app.ready()

      const reader = basicAuth(demo.reader.login, demo.reader.application_password)
      for (const url of [
        '/catalog/investments',
        '/catalog/properties?per_page=100&orderby=title&order=ASC',
        `/catalog/properties/${changedOfferId}`,
        `/catalog/properties/${changedOfferId}/price-history`,
      ]) {
        const original = await env.app.inject({ url: `${API}${url}`, headers: { authorization: reader } })
        const copy = await app.inject({ url: `${API}${url}`, headers: { authorization: reader } })
        expect(copy.statusCode, `${url}: ${copy.body}`).toBe(200)
        expect(copy.json(), url).toEqual(original.json())
        expect(copy.headers.etag, url).toBe(original.headers.etag)
      }
      const history = await app.inject({
        url: `${API}/catalog/properties/${changedOfferId}/price-history`,
        headers: { authorization: reader },
      })
      expect((history.json() as { items: { reason: string }[] }).items.map((item) => item.reason)).toContain(
        'Nowy cennik',
      )

      for (const file of ['dataset.xml', 'dataset.md5', csvFileName]) {
        const original = await env.app.inject({ url: `/dane-gov/${file}` })
        const copy = await app.inject({ url: `/dane-gov/${file}` })
        expect(original.statusCode, file).toBe(200)
        expect(copy.statusCode, file).toBe(200)
        expect(copy.rawPayload.equals(original.rawPayload), file).toBe(true)
      }

      const signIn = await app.inject({
        method: 'POST',
        url: `${API}/session`,
        payload: { login: websiteUser.login, password: websiteUser.loginPassword },
      })
      expect(signIn.statusCode, signIn.body).toBe(200)
      const wrong = await app.inject({
        method: 'POST',
        url: `${API}/session`,
        payload: { login: websiteUser.login, password: `${websiteUser.loginPassword}x` },
      })
      expect(wrong.statusCode).toBe(401)
      // application passwords are keyed hashes: they work only because the key came along
      const status = await app.inject({ url: `${API}/status`, headers: { authorization: admin.authorization } })
      expect(status.statusCode, status.body).toBe(200)
      const asWebsiteUser = await app.inject({
        url: `${API}/catalog/investments`,
        headers: { authorization: websiteUser.authorization },
      })
      expect(asWebsiteUser.statusCode, asWebsiteUser.body).toBe(200)

      // a new offer gets a new id, past the imported ones
      const investment = (
        await env.ctx.db.selectFrom('investments').select('id').orderBy('id').executeTakeFirstOrThrow()
      ).id
      const created = await app.inject({
        method: 'POST',
        url: `${API}/offers`,
        headers: { authorization: admin.authorization },
        payload: {
          investment_id: investment,
          prop_no: 'PX/1',
          prop_type: 'mieszkanie',
          property_status: 'available',
          prop_area: '50.00',
          price_m2: '10000.00',
          price_m2_from: '2026-11-20',
          price_total: '500000.00',
          price_total_from: '2026-11-20',
        },
      })
      expect(created.statusCode, created.body).toBe(201)
      const maxId = await env.ctx.db
        .selectFrom('offers')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirstOrThrow()
      expect(created.json().id).toBeGreaterThan(Number(maxId.id))

      // and the copy, now a company's database, refuses a second import
      const again2 = await refusal(importData(storeOf(database), exportDir))
      expect(again2.code).toBe('import_target_not_empty')
    })
  }

  it('refuses a tampered export and changes nothing', async () => {
    const tampered = path.join(workDir, 'tampered')
    await fs.cp(exportDir, tampered, { recursive: true })
    const manifest = JSON.parse(await fs.readFile(path.join(tampered, 'manifest.json'), 'utf8')) as ExportManifest
    const published = manifest.files.find((file) => file.path.endsWith(csvStored))
    if (!published) throw new Error('the export lacks the published CSV')
    await fs.appendFile(path.join(tampered, 'files', published.path), '1;2;3\n')

    const database = await freshDatabase(dialect, opened)
    const error = await refusal(importData(storeOf(database), tampered))
    expect(error.code).toBe('export_corrupt')
    expect(error.message).toContain(published.path)
    const users = await database.handle.db.selectFrom('users').select('id').execute()
    expect(users).toEqual([])
    expect((await fs.readdir(database.dataDir)).filter((name) => !name.startsWith('dg.sqlite'))).toEqual([])

    // a row changed in a table file is refused the same way
    await fs.cp(exportDir, path.join(workDir, 'tampered-rows'), { recursive: true })
    const usersFile = path.join(workDir, 'tampered-rows', 'tables', 'users.jsonl')
    await fs.writeFile(usersFile, (await fs.readFile(usersFile, 'utf8')).replace('"administrator"', '"dg_operator"'))
    expect((await refusal(importData(storeOf(database), path.join(workDir, 'tampered-rows')))).code).toBe(
      'export_corrupt',
    )

    // rows that break the target's constraints, with checksums to match: the transaction rolls back whole
    const broken = path.join(workDir, 'broken-rows')
    await fs.cp(exportDir, broken, { recursive: true })
    const offersFile = path.join(broken, 'tables', 'offers.jsonl')
    const offers = (await fs.readFile(offersFile, 'utf8')).trim().split('\n')
    const last = JSON.parse(offers[offers.length - 1] ?? '{}') as Record<string, unknown>
    offers[offers.length - 1] = JSON.stringify({ ...last, code: null })
    await fs.writeFile(offersFile, `${offers.join('\n')}\n`)
    const brokenManifest = JSON.parse(await fs.readFile(path.join(broken, 'manifest.json'), 'utf8')) as ExportManifest
    const content = await fs.readFile(offersFile)
    for (const table of brokenManifest.tables)
      if (table.name === 'offers') {
        table.sha256 = createHash('sha256').update(content).digest('hex')
        table.bytes = content.length
      }
    await fs.writeFile(path.join(broken, 'manifest.json'), JSON.stringify(brokenManifest))
    const rolledBack = await refusal(importData(storeOf(database), broken))
    expect(rolledBack.code).toBe('import_rows_refused')
    expect(rolledBack.message).toContain('offers')
    expect(await database.handle.db.selectFrom('users').select('id').execute()).toEqual([])
    expect(await database.handle.db.selectFrom('investments').select('id').execute()).toEqual([])
    expect((await fs.readdir(database.dataDir)).filter((name) => !name.startsWith('dg.sqlite'))).toEqual([])
  })

  it('refuses a target that holds a company, a folder that is no export and an export newer than the service', async () => {
    const error = await refusal(importData(storeOf(env.database), exportDir))
    expect(error.code).toBe('import_target_not_empty')
    expect(error.message).toMatch(/users|offers/)

    const database = await freshDatabase(dialect, opened)
    const notExport = path.join(workDir, 'not-an-export')
    await fs.mkdir(notExport)
    expect((await refusal(importData(storeOf(database), notExport))).code).toBe('export_invalid')

    const newer = path.join(workDir, 'newer')
    await fs.cp(exportDir, newer, { recursive: true })
    const manifest = JSON.parse(await fs.readFile(path.join(newer, 'manifest.json'), 'utf8')) as ExportManifest
    await fs.writeFile(
      path.join(newer, 'manifest.json'),
      JSON.stringify({ ...manifest, latest_migration: '9999-from-a-later-release' }),
    )
    const refused = await refusal(importData(storeOf(database), newer))
    expect(refused.code).toBe('export_newer_than_service')
    expect(await database.handle.db.selectFrom('options').select('name').execute()).toEqual([])
  })

  it('exports while a write is under way, without waiting for it and without its uncommitted rows', async () => {
    let finish!: () => void
    const held = new Promise<void>((resolve) => (finish = resolve))
    let started!: () => void
    const writing = new Promise<void>((resolve) => (started = resolve))
    const write = env.ctx.db.transaction().execute(async (trx) => {
      await trx.insertInto('options').values({ name: 'portable_export_probe', value: '"x"', autoload: 0 }).execute()
      started()
      await held
    })
    await writing
    try {
      const during = path.join(workDir, 'during-a-write')
      await exportData(storeOf(env.database), during)
      const options = await fs.readFile(path.join(during, 'tables', 'options.jsonl'), 'utf8')
      expect(options).toContain('"dg_auth_key"')
      expect(options).not.toContain('portable_export_probe')
    } finally {
      finish()
      await write
    }
  })

  it('knows every append-only table and every table that triggers rewrite, as the schema declares them', async () => {
    const triggers =
      dialect === 'sqlite'
        ? (
            await sql<{ table: string; body: string }>`
              SELECT tbl_name AS "table", sql AS body FROM sqlite_master WHERE type = 'trigger'`.execute(env.ctx.db)
          ).rows
        : (
            await sql<{ table: string; body: string }>`
              SELECT c.relname AS "table", p.prosrc AS body FROM pg_trigger t
              JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid
              WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal`.execute(env.ctx.db)
          ).rows
    const appendOnly = new Set(triggers.filter((t) => t.body.includes('append-only')).map((t) => t.table))
    expect([...appendOnly].sort()).toEqual([...APPEND_ONLY_TABLES].sort())
    const rewritten = new Set(
      triggers.flatMap((t) => [...t.body.matchAll(/UPDATE\s+"?(\w+)"?\s+SET/gi)].map((match) => match[1])),
    )
    expect(rewritten.size).toBeGreaterThan(0)
    expect([...rewritten].sort()).toEqual([...TRIGGER_MAINTAINED_TABLES].sort())
  })

  it('refuses to write the export into the data folder or over a folder that holds something', async () => {
    const inside = await refusal(exportData(storeOf(env.database), path.join(env.database.dataDir, 'export')))
    expect(inside.code).toBe('export_target_invalid')
    const taken = await refusal(exportData(storeOf(env.database), exportDir))
    expect(taken.code).toBe('export_target_exists')
  })
})
