/*
 * `dg data export --out DIR` and `dg data import --from DIR`: the operator's commands around the
 * portable export. The export prints counts and never a secret; the import migrates the fresh
 * database of its deployment first and fills it, and a second import into it is refused with the
 * stable code.
 */
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'

import { afterAll, beforeAll, expect, it } from 'vitest'

import { runCli } from '../../src/cli/main.js'
import { type AppConfig, loadConfig } from '../../src/config.js'
import { setUpDemo } from '../../src/demo/demo-setup.js'
import { openDatabase } from '../../src/host/db/database.js'
import { openTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

async function cli(argv: string[], config: AppConfig, database: TestDatabase) {
  let stdout = ''
  let stderr = ''
  const code = await runCli(argv, {
    config,
    // a connection of its own, closed by the command
    openDatabase: () => openDatabase(database.connection),
    io: { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) },
  })
  return { code, stdout, stderr }
}

describeEachDatabase('dg data export and dg data import', (getEnv) => {
  let env: TestEnv
  let scratch: string
  let target: TestDatabase
  let webhookSecret: string

  beforeAll(async () => {
    env = getEnv()
    webhookSecret = (await setUpDemo(env.ctx)).webhook_secret
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'dg-data-export-'))
  })
  afterAll(async () => {
    await target?.cleanup()
    if (scratch) await fs.rm(scratch, { recursive: true, force: true })
  })

  it('exports with a summary of counts, without printing any secret', async () => {
    const out = path.join(scratch, 'export')
    const text = await cli(['data', 'export', '--out', out], env.config, env.database)
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/^Exported \d+ tables \(\d+ rows\) and \d+ file\(s\) to /)
    expect(text.stdout).toContain('store it like a backup')

    const again = await cli(
      ['data', 'export', '--out', path.join(scratch, 'export-json'), '--json'],
      env.config,
      env.database,
    )
    expect(again.code, again.stderr).toBe(0)
    const summary = JSON.parse(again.stdout) as {
      tables: number
      rows: number
      files: number
      latest_migration: string
    }
    expect(summary.tables).toBeGreaterThan(20)
    expect(summary.rows).toBeGreaterThan(50)
    expect(summary.latest_migration).toMatch(/^\d{4}-/)
    const authKey = await env.ctx.db
      .selectFrom('options')
      .select('value')
      .where('name', '=', 'dg_auth_key')
      .executeTakeFirstOrThrow()
    for (const output of [text.stdout, text.stderr, again.stdout, again.stderr]) {
      expect(output).not.toContain(authKey.value)
      expect(output).not.toContain(webhookSecret)
    }
  })

  it('imports into a fresh database it migrates, and refuses a second import into it', async () => {
    target = await openTestDatabase(env.dialect)
    const config = loadConfig({ DG_ENV: 'test', DG_LOG_LEVEL: 'silent', DG_DATA_DIR: target.dataDir })
    const imported = await cli(['data', 'import', '--from', path.join(scratch, 'export'), '--json'], config, target)
    expect(imported.code, imported.stderr).toBe(0)
    const summary = JSON.parse(imported.stdout) as { rows: number; files: number; database: string }
    expect(summary.database).toBe(env.dialect)
    const offers = await target.handle.db
      .selectFrom('offers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    const original = await env.ctx.db
      .selectFrom('offers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(offers.n)).toBe(Number(original.n))

    const second = await cli(['data', 'import', '--from', path.join(scratch, 'export'), '--json'], config, target)
    expect(second.code).not.toBe(0)
    expect((JSON.parse(second.stderr) as { error: { code: string } }).error.code).toBe('import_target_not_empty')
  })
})
