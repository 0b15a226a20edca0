/*
 * `dg source …` on both databases: a source added with its token read from a file (never
 * printed), run against the local https server (applied), a price typo held and listed with
 * --held, then applied from the command line once; a private address literal refused as over
 * REST unless --private-hosts names it.
 */
import fs from 'node:fs'
import path from 'node:path'

import { afterAll, beforeAll, expect, it } from 'vitest'

import { runCli } from '../../src/cli/main.js'
import { openDatabase } from '../../src/host/db/database.js'
import { grantProLicense } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { type SourceFileServer, startSourceFileServer } from './source-file-server.js'

const HEADER = 'Inwestycja;ID lokalu;Rodzaj;Status;Powierzchnia;Cena;Cena od'
const MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID lokalu',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  price_total: 'Cena',
  price_total_from: 'Cena od',
}
const file = (price: (i: number) => number) =>
  `${HEADER}\n${[1, 2, 3, 4].map((i) => `INV-C;${i};mieszkanie;wolne;40;${price(i)};2026-05-01`).join('\n')}\n`

async function dg(env: TestEnv, ...argv: string[]) {
  let stdout = ''
  let stderr = ''
  const code = await runCli(argv, {
    config: env.config,
    io: { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t) },
    openDatabase: () => openDatabase(env.database.connection),
  })
  return { code, stdout, stderr, json: () => JSON.parse(stdout) as Record<string, any> }
}

describeEachDatabase('dg source', (getEnv) => {
  let env: TestEnv
  let server: SourceFileServer
  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    server = await startSourceFileServer()
  })
  afterAll(async () => {
    await server.close()
  })

  it('adds, runs, lists held runs and applies one, never printing the token', async () => {
    server.content = file((i) => 400_000 + i)
    const headers = path.join(env.database.dataDir, 'naglowki.json')
    fs.writeFileSync(headers, JSON.stringify({ 'X-Api-Key': 'klucz-z-pliku-77' }))
    const added = await dg(
      env,
      'source',
      'add',
      '--name',
      'Eksport CRM',
      '--url',
      `${server.origin}/prices.csv`,
      '--mapping',
      JSON.stringify(MAPPING),
      '--headers-file',
      headers,
      '--private-hosts',
      `127.0.0.1:${server.port}`,
      '--json',
    )
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).not.toContain('klucz-z-pliku-77')
    const id = String(added.json().id)
    const first = await dg(env, 'source', 'run', id)
    expect(first.stdout).toContain('applied')
    expect(server.requests.at(-1)?.headers['x-api-key']).toBe('klucz-z-pliku-77')

    server.content = file((i) => (400_000 + i) * (i === 2 ? 10 : 1))
    const held = await dg(env, 'source', 'run', id, '--json')
    expect(held.json()).toMatchObject({ outcome: 'held', guards: [{ guard: 'price_change' }] })
    const listed = await dg(env, 'source', 'runs', '--held')
    expect(listed.stdout).toContain(`run ${held.json().id} (source ${id}): held`)
    const applied = await dg(env, 'source', 'apply', String(held.json().id), '--json')
    expect(applied.json()).toMatchObject({ outcome: 'applied', decided_by: { name: 'cli' } })
    const again = await dg(env, 'source', 'reject', String(held.json().id))
    expect(again.code).not.toBe(0)
    const price = await env.ctx.db
      .selectFrom('offers')
      .select('price_total_cents')
      .where('source_property_id', '=', '2')
      .executeTakeFirstOrThrow()
    expect(Number(price.price_total_cents)).toBe(4_000_020 * 100)
  })

  it('refuses a private address literal as the API does, adding nothing, unless --private-hosts names it', async () => {
    const count = async () =>
      Number(
        (
          await env.ctx.db
            .selectFrom('sources')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await count()
    const add = (...more: string[]) =>
      dg(
        env,
        'source',
        'add',
        '--name',
        'CRM',
        '--url',
        'https://0x7f.1/ceny.csv',
        '--mapping',
        JSON.stringify(MAPPING),
        ...more,
      )
    const refused = await add()
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toContain(
      'Error (source_address_not_public): 127.0.0.1 to adres pętli zwrotnej (ten sam serwer). Źródło pobiera się tylko z adresów publicznych.',
    )
    expect(await count()).toBe(before)
    const allowed = await add('--private-hosts', '127.0.0.1', '--json')
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(allowed.json().url).toBe('https://127.0.0.1/ceny.csv')
    expect(await count()).toBe(before + 1)
  })
})
