/*
 * `dg tenant …` and `dg --tenant SLUG …`: the platform's operations from the command line, with
 * the JSON a provisioning script reads, and every other command run for one company.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import pg from 'pg'
import { afterAll, expect, it } from 'vitest'

import { runCli } from '../../src/cli/main.js'
import { openDatabase } from '../../src/host/db/database.js'
import { ENTITLEMENTS, setLicense } from '../../src/licensing/license.js'
import { PG_TEST_URL } from '../helpers/databases.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

async function dg(env: TestEnv, ...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = ''
  let stderr = ''
  const connection = env.database.connection
  const code = await runCli(argv, {
    config: env.config,
    io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
    openDatabase: () => openDatabase(connection),
  })
  return { code, stdout, stderr }
}

interface Created {
  slug: string
  base_url: string
  admin: { login: string; password: string; application_password: string }
}

describeEachDatabase('dg tenant', (getEnv, dialect) => {
  const exportsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-tenant-export-'))
  afterAll(async () => {
    fs.rmSync(exportsDir, { recursive: true, force: true })
    const schema = getEnv().database.connection.pgSchema
    if (dialect === 'postgres' && PG_TEST_URL && schema) {
      const client = new pg.Client({ connectionString: PG_TEST_URL })
      await client.connect()
      const { rows } = await client.query<{ nspname: string }>(
        'select nspname from pg_namespace where nspname like $1',
        [`${schema}\\_\\_%`],
      )
      for (const { nspname } of rows) await client.query(`drop schema if exists "${nspname}" cascade`)
      await client.end()
    }
  })

  it('creates a company and prints its base_url and its administrator’s passwords as JSON', async () => {
    const env = getEnv()
    await setLicense(env.ctx, { plan: 'pro', entitlements: [...ENTITLEMENTS], actor: { type: 'cli' } })
    const created = await dg(env, 'tenant', 'create', '--slug', 'alfa', '--name', 'Alfa Sp. z o.o.', '--json')
    expect(created.code, created.stderr).toBe(0)
    const tenant = JSON.parse(created.stdout) as Created
    expect(tenant).toMatchObject({ slug: 'alfa', status: 'active', admin: { login: 'admin' } })
    expect(tenant.base_url).toBe(`http://127.0.0.1:${env.config.port}/t/alfa/wp-json/dg/v2`)
    expect(tenant.admin.password.length).toBeGreaterThanOrEqual(12)
    expect(tenant.admin.application_password).toMatch(/^[A-Za-z0-9]{24}$/)
    // the company got the deployment's licence
    const licence = await dg(env, '--tenant', 'alfa', 'license', 'show', '--json')
    expect(JSON.parse(licence.stdout)).toMatchObject({ status: 'active' })
  })

  it('refuses a taken or malformed slug with a stable code, creating nothing', async () => {
    const env = getEnv()
    const again = await dg(env, 'tenant', 'create', '--slug', 'alfa', '--name', 'X', '--json')
    expect(again.code).toBe(1)
    expect(JSON.parse(again.stderr)).toMatchObject({ error: { code: 'tenant_exists' } })
    const wrong = await dg(env, 'tenant', 'create', '--slug', 'Alfa Beta', '--name', 'X', '--json')
    expect(JSON.parse(wrong.stderr)).toMatchObject({ error: { code: 'invalid_tenant_slug' } })
    const listed = JSON.parse((await dg(env, 'tenant', 'list', '--json')).stdout) as { items: Created[] }
    expect(listed.items.map((item) => item.slug)).toEqual(['alfa'])
  })

  it('runs any command for one company with --tenant, never touching the first company', async () => {
    const env = getEnv()
    const made = await dg(
      env,
      '--tenant',
      'alfa',
      'user',
      'create',
      '--login',
      'ola',
      '--email',
      'ola@alfa.pl',
      '--role',
      'dg_operator',
      '--json',
    )
    expect(made.code, made.stderr).toBe(0)
    const alfaUsers = JSON.parse((await dg(env, '--tenant=alfa', 'user', 'list', '--json')).stdout) as {
      items: Array<{ user: string }>
    }
    expect(alfaUsers.items.map((user) => user.user).sort()).toEqual(['admin', 'ola'])
    const firstUsers = JSON.parse((await dg(env, 'user', 'list', '--json')).stdout) as {
      items: Array<{ user: string }>
    }
    expect(firstUsers.items.map((user) => user.user)).not.toContain('ola')
    const unknown = await dg(env, '--tenant', 'nobody', 'user', 'list', '--json')
    expect(unknown.code).toBe(2)
  })

  // the backup of the embedded database (PostgreSQL is dumped with pg_dump, per schema)
  it.skipIf(dialect !== 'sqlite')(
    'keeps each company out of the others’ backups: the first company’s skips tenants/, --tenant backs up one company',
    async () => {
      const env = getEnv()
      const first = path.join(exportsDir, 'backup-first')
      const firstBackup = await dg(env, 'backup', '--to', first, '--json')
      expect(firstBackup.code, firstBackup.stderr).toBe(0)
      const firstManifest = JSON.parse(fs.readFileSync(path.join(first, 'manifest.json'), 'utf8')) as {
        files: Array<{ path: string }>
      }
      expect(firstManifest.files.filter((file) => file.path.startsWith('tenants/'))).toEqual([])
      const alfa = path.join(exportsDir, 'backup-alfa')
      const alfaBackup = await dg(env, '--tenant', 'alfa', 'backup', '--to', alfa, '--json')
      expect(alfaBackup.code, alfaBackup.stderr).toBe(0)
      expect(fs.existsSync(path.join(alfa, 'dg.sqlite'))).toBe(true)
    },
  )

  it('suspends and resumes, shows the health, and deletes only after an export and a confirmation', async () => {
    const env = getEnv()
    expect(JSON.parse((await dg(env, 'tenant', 'suspend', '--slug', 'alfa', '--json')).stdout)).toMatchObject({
      status: 'suspended',
    })
    expect(JSON.parse((await dg(env, 'tenant', 'resume', '--slug', 'alfa', '--json')).stdout)).toMatchObject({
      status: 'active',
    })
    const shown = JSON.parse((await dg(env, 'tenant', 'show', '--slug', 'alfa', '--json')).stdout) as {
      health: { users: number }
    }
    expect(shown.health.users).toBe(2)
    const early = await dg(env, 'tenant', 'delete', '--slug', 'alfa', '--confirm', 'alfa', '--json')
    expect(JSON.parse(early.stderr)).toMatchObject({ error: { code: 'tenant_not_exported' } })
    const out = path.join(exportsDir, 'alfa')
    const exported = await dg(env, 'tenant', 'export', '--slug', 'alfa', '--out', out, '--json')
    expect(exported.code, exported.stderr).toBe(0)
    expect(fs.existsSync(path.join(out, 'manifest.json'))).toBe(true)
    const unconfirmed = await dg(env, 'tenant', 'delete', '--slug', 'alfa', '--confirm', 'beta', '--json')
    expect(JSON.parse(unconfirmed.stderr)).toMatchObject({ error: { code: 'tenant_delete_unconfirmed' } })
    expect((await dg(env, 'tenant', 'delete', '--slug', 'alfa', '--confirm', 'alfa', '--json')).code).toBe(0)
    expect(JSON.parse((await dg(env, 'tenant', 'list', '--json')).stdout)).toEqual({ items: [] })
    expect(fs.existsSync(path.join(env.config.dataDir, 'tenants', 'alfa'))).toBe(false)
    // its slug is in addresses the portal may still harvest: never given again
    const reused = await dg(env, 'tenant', 'create', '--slug', 'alfa', '--name', 'Nowa Alfa', '--json')
    expect(JSON.parse(reused.stderr)).toMatchObject({ error: { code: 'tenant_exists' } })

    // the export brings the company back under its own slug, and becomes another company too
    const back = await dg(env, 'tenant', 'import', '--slug', 'alfa', '--name', 'Alfa', '--from', out, '--json')
    expect(back.code, back.stderr).toBe(0)
    expect(JSON.parse(back.stdout)).toMatchObject({ slug: 'alfa', status: 'active' })
    const imported = await dg(env, 'tenant', 'import', '--slug', 'alfa-2', '--name', 'Alfa', '--from', out, '--json')
    expect(imported.code, imported.stderr).toBe(0)
    const users = JSON.parse((await dg(env, '--tenant', 'alfa-2', 'user', 'list', '--json')).stdout) as {
      items: Array<{ user: string }>
    }
    expect(users.items.map((user) => user.user).sort()).toEqual(['admin', 'ola'])
  })
})
