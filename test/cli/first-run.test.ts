/*
 * The first commands a newcomer runs: a command run where there is no database says where it
 * looked instead of creating an empty one; `dg serve` on a database without an administrator says
 * how to create one; `dg import --help` explains the mapping; and the package's `dg` bin is the
 * CLI the build makes, so that `npx dg` runs it from the checkout.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { firstAdministratorHint, runCli } from '../../src/cli/main.js'
import { loadConfig } from '../../src/config.js'
import { createUser } from '../../src/host/users/users.js'
import { CANONICAL_FIELDS } from '../../src/offers/canonical-fields.js'
import { describeEachDatabase } from '../helpers/test-app.js'

const ROOT = path.resolve(import.meta.dirname, '../..')

async function dg(env: Record<string, string>, ...argv: string[]) {
  let stdout = ''
  let stderr = ''
  const code = await runCli(argv, {
    config: loadConfig({ DG_ENV: 'test', DG_LOG_LEVEL: 'silent', ...env }),
    io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
  })
  return { code, stdout, stderr }
}

describe('dg where there is no database', () => {
  let dir: string
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-first-run-'))
  })
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('refuses with exit code 2, naming the folder it looked in and DG_DATA_DIR, and creates nothing', async () => {
    const data = path.join(dir, 'missing')
    const listed = await dg({ DG_DATA_DIR: data }, 'user', 'list')
    expect(listed.code).toBe(2)
    expect(listed.stdout).toBe('')
    expect(listed.stderr).toContain('Error (database_missing)')
    expect(listed.stderr).toContain(`There is no database in ${data} `)
    expect(listed.stderr).toMatch(/DG_DATA_DIR=/)
    expect(listed.stderr).toMatch(/DATABASE_URL=postgres/)
    expect(listed.stderr).toContain('run dg migrate or dg serve')
    expect(fs.existsSync(path.join(data, 'dg.sqlite'))).toBe(false)

    const json = await dg(
      { DG_DATA_DIR: data },
      'user',
      'create',
      '--login',
      'a',
      '--email',
      'a@x.test',
      '--role',
      'administrator',
      '--json',
    )
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stderr).error).toMatchObject({
      code: 'database_missing',
      message: expect.stringContaining(data),
    })
    expect(fs.existsSync(data)).toBe(false)
  })

  it('is relative to the working folder when DG_DATA_DIR is unset, and says so with the absolute path', async () => {
    const cwd = process.cwd()
    process.chdir(dir)
    try {
      const shown = await dg({}, 'license', 'show')
      expect(shown.code).toBe(2)
      expect(shown.stderr).toContain(`There is no database in ${path.join(fs.realpathSync(dir), 'data')} `)
    } finally {
      process.chdir(cwd)
    }
  })

  it('lets migrate create the database, after which the other commands work', async () => {
    const data = path.join(dir, 'new')
    const migrated = await dg({ DG_DATA_DIR: data }, 'migrate', '--json')
    expect(migrated.code).toBe(0)
    expect(fs.existsSync(path.join(data, 'dg.sqlite'))).toBe(true)
    const listed = await dg({ DG_DATA_DIR: data }, 'user', 'list')
    expect(listed).toMatchObject({ code: 0, stdout: 'No users.\n' })
  })

  it('reports a PostgreSQL server it cannot reach by its address, without the password', async () => {
    const url = 'postgres://postgres:s3cret@127.0.0.1:1/test'
    for (const argv of [['user', 'list'], ['migrate']]) {
      const failed = await dg({ DATABASE_URL: url, DG_DATA_DIR: path.join(dir, 'unused') }, ...argv)
      expect(failed.code).toBe(1)
      expect(failed.stderr).toContain(
        'Error (database_unavailable): Cannot use the PostgreSQL database at postgres://postgres:***@127.0.0.1:1/test',
      )
      expect(failed.stderr).toContain('ECONNREFUSED')
      expect(failed.stderr).toContain('Check DATABASE_URL')
      expect(failed.stderr).not.toContain('s3cret')
    }
  })
})

describeEachDatabase('the first administrator hint', (getEnv) => {
  it('is given while there is no administrator, and no longer once there is one', async () => {
    const { ctx } = getEnv()
    const hint = await firstAdministratorHint(ctx, 'http://127.0.0.1:8080/wp-json/dg/v2')
    expect(hint).toContain('npm run dg -- user create --login admin --email you@example.com --role administrator')
    expect(hint).toContain('http://127.0.0.1:8080/dg-admin/')
    await createUser(ctx, {
      login: 'reader',
      email: 'r@example.test',
      role: 'dg_catalog_reader',
      actor: { type: 'cli' },
    })
    expect(await firstAdministratorHint(ctx, 'http://127.0.0.1:8080/wp-json/dg/v2')).toContain('user create')
    await createUser(ctx, { login: 'boss', email: 'b@example.test', role: 'administrator', actor: { type: 'cli' } })
    expect(await firstAdministratorHint(ctx, 'http://127.0.0.1:8080/wp-json/dg/v2')).toBe('')
  })
})

describe('dg serve on a new data folder', () => {
  let child: ChildProcess | undefined
  let dir: string
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-serve-'))
  })
  afterAll(async () => {
    if (child?.pid && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve))
      process.kill(-child.pid, 'SIGTERM')
      await exited
    }
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('creates the database and says in its start-up output how to create the first administrator', async () => {
    const started = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DG_DATA_DIR: dir, DG_ENV: 'test', DG_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    child = started
    const output = await new Promise<string>((resolve, reject) => {
      let text = ''
      const onData = (chunk: Buffer) => {
        text += chunk.toString('utf8')
        if (/--name cli/.test(text)) resolve(text)
      }
      started.stdout?.on('data', onData)
      started.stderr?.on('data', onData)
      started.once('exit', (code) => reject(new Error(`dg serve exited with ${code}:\n${text}`)))
    })
    expect(output).toMatch(/Service listening at http:\/\/127\.0\.0\.1:\d+\/wp-json\/dg\/v2\n/)
    expect(output).toContain('There is no administrator yet')
    expect(output).toContain('npm run dg -- user create --login admin --email you@example.com --role administrator')
    expect(output).not.toMatch(/"level":(50|60)/)
    expect(fs.existsSync(path.join(dir, 'dg.sqlite'))).toBe(true)
  }, 60_000)
})

describe('dg import --help', () => {
  it('lists every canonical field with its meaning and shows a mapping.json that names only canonical fields', async () => {
    const help = await dg({ DG_DATA_DIR: path.join(os.tmpdir(), 'dg-help-unused') }, 'import', '--help')
    expect(help.code).toBe(0)
    for (const field of CANONICAL_FIELDS) expect(help.stdout).toMatch(new RegExp(`^  ${field} +\\S.*$`, 'm'))
    const example = help.stdout.slice(help.stdout.indexOf('Example mapping.json:\n') + 'Example mapping.json:\n'.length)
    const mapping = JSON.parse(example.slice(0, example.indexOf('\n  }') + 4)) as Record<string, string>
    expect(Object.keys(mapping)).toEqual(expect.arrayContaining(['source_investment_id', 'source_property_id']))
    for (const field of Object.keys(mapping)) expect(CANONICAL_FIELDS).toContain(field)
  })
})

describe('the dg bin', () => {
  it('is the CLI the build writes from src/cli/main.ts, built by prepare, which is quick when dist/ is current', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>
      scripts: Record<string, string>
    }
    expect(pkg.bin).toEqual({ dg: './dist/cli/main.js' })
    expect(pkg.scripts.dg).toBe('node dist/cli/main.js')
    // npx links the checkout into its cache and runs prepare first, which must build dist/ (maybe
    // through a script); `npm run build` is build mode, a second's check when dist/ is current
    expect(pkg.scripts.build).toBe('tsc -b tsconfig.build.json')
    const prepareScript = /^node (\S+)$/.exec(pkg.scripts.prepare ?? '')?.[1]
    const prepare = prepareScript ? fs.readFileSync(path.join(ROOT, prepareScript), 'utf8') : pkg.scripts.prepare
    expect(prepare).toMatch(/tsc\b[\s\S]*tsconfig\.build\.json/)
    const build = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      compilerOptions: { rootDir: string; outDir: string; tsBuildInfoFile: string }
    }
    // the build's record goes with its output, so that removing dist/ rebuilds everything
    expect(build.compilerOptions).toMatchObject({
      rootDir: 'src',
      outDir: 'dist',
      tsBuildInfoFile: 'dist/tsconfig.build.tsbuildinfo',
    })
    expect(fs.readFileSync(path.join(ROOT, 'src/cli/main.ts'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true)
  })
})
