/*
 * `dg backup` while the service serves and writes, then `dg restore` into a fresh data folder: a
 * service started on the restored folder answers the catalog and serves the published files
 * exactly as they were at the backup. A backup whose file or database was changed is refused
 * before anything is written, and so is a restore while a service holds the data folder. With
 * PostgreSQL, the commands handle the files and explain pg_dump.
 */
import fs from 'node:fs'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { runCli } from '../../src/cli/main.js'
import { type AppConfig, loadConfig } from '../../src/config.js'
import { markServiceRunning } from '../../src/host/service-marker.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { PG_TEST_URL } from '../helpers/databases.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { seedFixedCatalog } from '../helpers/fixed-catalog.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'

const TODAY = '2026-11-20'

async function cli(argv: string[], config: AppConfig) {
  let stdout = ''
  let stderr = ''
  const code = await runCli([...argv, '--json'], {
    config,
    io: { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) },
  })
  return {
    code,
    json: () => JSON.parse(stdout) as Record<string, unknown>,
    error: () => (JSON.parse(stderr) as { error: { code: string; message: string } }).error,
  }
}

const servedFiles = ['/dane-gov/dataset.xml', '/dane-gov/dataset.md5']

describe('dg backup and dg restore [sqlite]', () => {
  let env: TestEnv
  let reader: TestUser
  let origin: string
  let scratch: string
  let backupDir: string
  /** What the service answered right before the backup. */
  let before: { catalog: string; files: Record<string, Buffer> }

  const catalogOf = async (base: string) => {
    const response = await fetch(`${base}/wp-json/dg/v2/catalog/properties?per_page=100&orderby=title&order=ASC`, {
      headers: { authorization: reader.authorization },
    })
    expect(response.status).toBe(200)
    return response.text()
  }
  const filesOf = async (base: string, csvPath: string) => {
    const files: Record<string, Buffer> = {}
    for (const file of [...servedFiles, csvPath]) {
      const response = await fetch(`${base}${file}`)
      expect(response.status, file).toBe(200)
      files[file] = Buffer.from(await response.arrayBuffer())
    }
    return files
  }
  let csvPath: string

  beforeAll(async () => {
    // the readers below ask as fast as they are answered while the backup runs: not the limit's test
    env = await startTestApp('sqlite', { env: { DG_CATALOG_RATE_LIMIT: '1000000' } })
    env.clock.set(`${TODAY}T00:30:00Z`)
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-backup-'))
    backupDir = path.join(scratch, 'backup')
    await seedFixedCatalog(env.ctx)
    await grantProLicense(env.ctx)
    const admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    await env.app.listen({ port: 0, host: '127.0.0.1' })
    origin = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`
    const published = await fetch(`${origin}/wp-json/dg/v2/publications`, {
      method: 'POST',
      headers: { authorization: admin.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ date: TODAY }),
    })
    expect(published.status, await published.clone().text()).toBe(200)
    csvPath = new URL(((await published.json()) as { csv: { url: string } }).csv.url).pathname
    before = { catalog: await catalogOf(origin), files: await filesOf(origin, csvPath) }
  })

  afterAll(async () => {
    await env.app.close()
    await env.database.cleanup()
    fs.rmSync(scratch, { recursive: true, force: true })
  })

  it('backs up while the service answers requests, then the service changes a price', async () => {
    let serving = true
    let answered = 0
    const readers = (async () => {
      while (serving) {
        await catalogOf(origin)
        answered++
      }
    })()
    const result = await cli(['backup', '--to', backupDir], env.config)
    serving = false
    await readers
    expect(result.code).toBe(0)
    expect(answered).toBeGreaterThan(0)
    expect(result.json()).toMatchObject({ to: backupDir, database: 'sqlite' })
    const manifest = JSON.parse(fs.readFileSync(path.join(backupDir, 'manifest.json'), 'utf8')) as {
      database: { kind: string; sha256: string }
      files: Array<{ path: string }>
    }
    expect(manifest.database).toMatchObject({ kind: 'sqlite', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) })
    expect(manifest.files.map((f) => f.path)).toContain('publication/current')
    // nothing of the running service's own bookkeeping is in the backup
    expect(manifest.files.some((f) => f.path.startsWith('.service') || f.path.startsWith('dg.sqlite'))).toBe(false)

    // after the backup the catalog changes: the restore must bring back the state of the backup
    await env.ctx.db.updateTable('offers').set({ price_total_cents: 123_456_00 }).execute()
    expect(await catalogOf(origin)).not.toBe(before.catalog)

    // the target of a backup is never overwritten
    const again = await cli(['backup', '--to', backupDir], env.config)
    expect(again.code).toBe(1)
    expect(again.error().code).toBe('backup_target_exists')
  })

  it('restores into a fresh folder: the catalog and the published files come back identical', async () => {
    const restoredDir = path.join(scratch, 'restored', 'data')
    const config = loadConfig({ DG_ENV: 'test', DG_LOG_LEVEL: 'silent', DG_DATA_DIR: restoredDir })
    const result = await cli(['restore', '--from', backupDir], config)
    expect(result.code).toBe(0)
    expect(result.json()).toMatchObject({ data_dir: restoredDir, database: 'sqlite', previous: null })
    // no staging folder is left beside it
    expect(fs.readdirSync(path.dirname(restoredDir))).toEqual(['data'])

    const restored = await buildApp({ config, now: env.clock.now })
    try {
      await restored.listen({ port: 0, host: '127.0.0.1' })
      const base = `http://127.0.0.1:${(restored.server.address() as AddressInfo).port}`
      expect(await catalogOf(base)).toBe(before.catalog)
      const files = await filesOf(base, csvPath)
      for (const file of Object.keys(before.files))
        expect(files[file]?.equals(before.files[file] as Buffer), file).toBe(true)
    } finally {
      await restored.close()
    }
  })

  it('refuses to restore over a folder that is not empty, or while a service holds it', async () => {
    const target = path.join(scratch, 'occupied')
    fs.mkdirSync(target)
    fs.writeFileSync(path.join(target, 'keep.txt'), 'keep')
    const config = loadConfig({ DG_ENV: 'test', DG_LOG_LEVEL: 'silent', DG_DATA_DIR: target })
    const notEmpty = await cli(['restore', '--from', backupDir], config)
    expect(notEmpty.code).toBe(1)
    expect(notEmpty.error().code).toBe('data_dir_not_empty')

    const unmark = await markServiceRunning(target)
    try {
      const running = await cli(['restore', '--from', backupDir, '--replace'], config)
      expect(running.code).toBe(1)
      expect(running.error().code).toBe('service_running')
    } finally {
      await unmark()
    }
    expect(fs.readFileSync(path.join(target, 'keep.txt'), 'utf8')).toBe('keep')

    // with --replace and no service the old folder is kept beside the restored one
    const replaced = await cli(['restore', '--from', backupDir, '--replace'], config)
    expect(replaced.code).toBe(0)
    const previous = replaced.json().previous as string
    expect(fs.readFileSync(path.join(previous, 'keep.txt'), 'utf8')).toBe('keep')
    expect(fs.existsSync(path.join(target, 'dg.sqlite'))).toBe(true)
  })

  it('refuses a tampered backup before writing anything', async () => {
    const tampered = path.join(scratch, 'tampered')
    fs.cpSync(backupDir, tampered, { recursive: true })
    const csv = fs
      .readdirSync(path.join(tampered, 'files', 'publication', 'files'))
      .map((name) => path.join(tampered, 'files', 'publication', 'files', name))[0] as string
    const bytes = fs.readFileSync(csv)
    bytes[bytes.length - 5] = bytes[bytes.length - 5] === 0x31 ? 0x32 : 0x31
    fs.writeFileSync(csv, bytes)
    fs.writeFileSync(path.join(tampered, 'files', 'extra.txt'), 'slipped in')

    const target = path.join(scratch, 'never-written')
    const config = loadConfig({ DG_ENV: 'test', DG_LOG_LEVEL: 'silent', DG_DATA_DIR: target })
    const result = await cli(['restore', '--from', tampered], config)
    expect(result.code).toBe(1)
    expect(result.error().code).toBe('backup_corrupt')
    expect(result.error().message).toContain(`changed: ${path.relative(tampered, csv)}`)
    expect(result.error().message).toContain('not in the manifest: files/extra.txt')
    expect(fs.existsSync(target)).toBe(false)
    expect(fs.readdirSync(scratch).filter((name) => name.startsWith('never-written'))).toEqual([])
  })

  it('refuses a database that fails PRAGMA integrity_check even when its checksum was forged', async () => {
    const forged = path.join(scratch, 'forged')
    fs.cpSync(backupDir, forged, { recursive: true })
    const database = path.join(forged, 'dg.sqlite')
    const bytes = fs.readFileSync(database)
    // the second page (the first b-tree page after the schema) overwritten with noise
    const pageSize = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16)
    bytes.fill(0x5a, pageSize, pageSize * 2)
    fs.writeFileSync(database, bytes)
    const manifestFile = path.join(forged, 'manifest.json')
    const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as { database: { sha256: string } }
    const { createHash } = await import('node:crypto')
    manifest.database.sha256 = createHash('sha256').update(bytes).digest('hex')
    fs.writeFileSync(manifestFile, JSON.stringify(manifest))

    const target = path.join(scratch, 'not-restored')
    const config = loadConfig({ DG_ENV: 'test', DG_LOG_LEVEL: 'silent', DG_DATA_DIR: target })
    const result = await cli(['restore', '--from', forged], config)
    expect(result.code).toBe(1)
    expect(result.error().code).toBe('backup_corrupt')
    expect(result.error().message).toMatch(/integrity_check|malformed/)
    expect(fs.existsSync(target)).toBe(false)
  })
})

describe.skipIf(!PG_TEST_URL)('dg backup with PostgreSQL [postgres]', () => {
  it('backs up the files only and explains pg_dump', async () => {
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-backup-pg-'))
    try {
      const dataDir = path.join(scratch, 'data')
      fs.mkdirSync(path.join(dataDir, 'publication', 'files'), { recursive: true })
      fs.writeFileSync(path.join(dataDir, 'publication', 'files', 'day.csv'), 'a;b\n')
      const config = loadConfig({
        DG_ENV: 'test',
        DG_LOG_LEVEL: 'silent',
        DG_DATA_DIR: dataDir,
        DATABASE_URL: 'postgres://dg:secret-password@db.example.internal:5432/dg',
      })
      const result = await cli(['backup', '--to', path.join(scratch, 'backup')], config)
      expect(result.code, JSON.stringify(result.code === 0 ? {} : result.error())).toBe(0)
      const json = result.json()
      expect(json).toMatchObject({ database: 'postgresql', files: 1 })
      expect(json.database_note).toContain('pg_dump --format=custom')
      expect(JSON.stringify(json)).not.toContain('secret-password')
      expect(fs.existsSync(path.join(scratch, 'backup', 'dg.sqlite'))).toBe(false)
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true })
    }
  })
})
