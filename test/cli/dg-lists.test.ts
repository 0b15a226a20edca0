/*
 * `dg investment list` and `dg developer list`: the ids the production checklist asks for, as a
 * small table and with --json.
 */
import { expect, it } from 'vitest'

import { runCli } from '../../src/cli/main.js'
import { createInvestment } from '../../src/editor/investment-editor-service.js'
import { openDatabase } from '../../src/host/db/database.js'
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

describeEachDatabase('dg investment list and dg developer list', (getEnv) => {
  it('says there is nothing yet', async () => {
    const env = getEnv()
    expect(await dg(env, 'investment', 'list')).toMatchObject({ code: 0, stdout: 'No investments.\n' })
    expect((await dg(env, 'developer', 'list')).stdout).toMatch(/^No developers/)
    expect(JSON.parse((await dg(env, 'investment', 'list', '--json')).stdout)).toEqual({ items: [] })
    expect(JSON.parse((await dg(env, 'developer', 'list', '--json')).stdout)).toEqual({ items: [] })
  })

  it('lists each with its id, name and state, as a table and as JSON', async () => {
    const env = getEnv()
    const created = await dg(
      env,
      'developer',
      'set',
      '--name',
      'Złota Łąka Deweloper Sp. z o.o.',
      '--legal-form',
      'spółka z ograniczoną odpowiedzialnością',
      '--krs',
      '0000123456',
      '--nip',
      '5252345675',
      '--regon',
      '146789017',
      '--json',
    )
    expect(created.code, created.stderr).toBe(0)
    const developerId = (JSON.parse(created.stdout) as { id: number }).id
    const actor = { type: 'cli' } as const
    const located = await createInvestment(env.ctx, actor, {
      title: 'Osiedle Słoneczne',
      source_id: 'SLON-2',
      developer_id: developerId,
      location: {
        voivodeship: 'mazowieckie',
        powiat: 'Warszawa',
        gmina: 'Warszawa',
        city: 'Warszawa',
        street: 'Prosta',
        building_no: '1',
        postal_code: '00-001',
      },
    })
    const bare = await createInvestment(env.ctx, actor, { title: 'Bez adresu', host_status: 'draft' })

    const table = await dg(env, 'investment', 'list')
    expect(table.code).toBe(0)
    const lines = table.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^ID\s+SOURCE ID\s+NAME\s+STATUS\s+DEVELOPER\s+LOCATION\s+OFFERS$/)
    // ordered by name, as the editor lists them
    expect(lines[1]).toMatch(
      new RegExp(`^${bare.id}\\s+-\\s+Bez adresu\\s+draft\\s+-\\s+7 of 7 missing\\s+0/0 published$`),
    )
    expect(lines[2]).toMatch(
      new RegExp(
        `^${located.id}\\s+SLON-2\\s+Osiedle Słoneczne\\s+publish\\s+${developerId}\\s+complete\\s+0/0 published$`,
      ),
    )
    // the columns line up
    expect(lines[1]?.indexOf('draft')).toBe(lines[0]?.indexOf('STATUS'))

    const json = JSON.parse((await dg(env, 'investment', 'list', '--json')).stdout) as { items: any[] }
    expect(json.items).toEqual([
      expect.objectContaining({ id: bare.id, title: 'Bez adresu', host_status: 'draft', location_complete: false }),
      expect.objectContaining({
        id: located.id,
        source_id: 'SLON-2',
        host_status: 'publish',
        location_complete: true,
        city: 'Warszawa',
        offers_count: 0,
      }),
    ])

    const developers = await dg(env, 'developer', 'list')
    expect(developers.stdout).toMatch(/^ID\s+NAME\s+NIP\s+REGON\s+LEGAL FORM\n/)
    expect(developers.stdout).toMatch(
      new RegExp(`\\n${developerId}\\s+Złota Łąka Deweloper Sp\\. z o\\.o\\.\\s+5252345675`),
    )
    const listed = JSON.parse((await dg(env, 'developer', 'list', '--json')).stdout) as { items: any[] }
    expect(listed.items).toEqual([
      expect.objectContaining({ id: developerId, name: 'Złota Łąka Deweloper Sp. z o.o.', nip: '5252345675' }),
    ])
  })
})
