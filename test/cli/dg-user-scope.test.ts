/*
 * `dg user scope`: limits a user to some developer entities and investments and clears the limit,
 * refusing what the users API refuses (an administrator, unknown ids) with nothing written.
 */
import { beforeAll, expect, it } from 'vitest'

import { runCli } from '../../src/cli/main.js'
import { openDatabase } from '../../src/host/db/database.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { API, type ScopedCatalog, seedScopedCatalog } from '../helpers/scoped-catalog.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

async function dg(env: TestEnv, ...argv: string[]) {
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

describeEachDatabase('dg user scope', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let sales: TestUser
  let catalog: ScopedCatalog
  const investmentsOf = async (user: TestUser) =>
    (await env.app.inject({ method: 'GET', url: `${API}/investments`, headers: { authorization: user.authorization } }))
      .json()
      .map((i: { id: number }) => i.id)
      .sort()

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    sales = await createTestUser(env.ctx, 'dg_operator')
    catalog = await seedScopedCatalog(env, admin, 'dg-user-scope')
  })

  it('limits a user to a developer entity and an investment, then clears the limit', async () => {
    const set = await dg(
      env,
      'user',
      'scope',
      sales.login,
      '--developers',
      String(catalog.dev2),
      '--investments',
      String(catalog.a),
      '--json',
    )
    expect(set.code, set.stderr).toBe(0)
    expect(JSON.parse(set.stdout)).toMatchObject({
      user: sales.login,
      scope: { developers: [catalog.dev2], investments: [catalog.a] },
      changed: true,
    })
    expect(await investmentsOf(sales)).toEqual([catalog.a, catalog.c].sort())
    const audit = await env.ctx.db
      .selectFrom('audit_log')
      .select(['actor_type'])
      .where('action', '=', 'user.scope')
      .execute()
    expect(audit).toEqual([{ actor_type: 'cli' }])

    const cleared = await dg(env, 'user', 'scope', sales.login, '--clear')
    expect(cleared.code).toBe(0)
    expect(cleared.stdout).toContain('the whole catalog')
    expect(await investmentsOf(sales)).toHaveLength(3)
  })

  it('refuses an administrator, an unknown id and a malformed list, writing nothing', async () => {
    const onAdmin = await dg(env, 'user', 'scope', admin.login, '--developers', String(catalog.dev1))
    expect(onAdmin.code).not.toBe(0)
    expect(onAdmin.stderr).toContain('invalid_user')
    const unknown = await dg(env, 'user', 'scope', sales.login, '--investments', '999999')
    expect(unknown.code).not.toBe(0)
    expect(unknown.stderr).toMatch(/invalid_user|unknown_investment/)
    const malformed = await dg(env, 'user', 'scope', sales.login, '--investments', 'A,B')
    expect(malformed.code).not.toBe(0)
    expect(malformed.stderr).toContain('invalid_option')
    expect(await env.ctx.db.selectFrom('user_scopes').selectAll().execute()).toEqual([])
  })
})
