import fs from 'node:fs'
import path from 'node:path'
import { Writable } from 'node:stream'

import ExcelJS from 'exceljs'
import { expect, it } from 'vitest'

import type { TerminalStream } from '../../src/cli/cli-context.js'
import { runCli } from '../../src/cli/main.js'
import { openDatabase } from '../../src/host/db/database.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

async function dg(env: TestEnv, argv: string[], confirm?: (q: string) => Promise<boolean>, terminal?: TerminalStream) {
  let stdout = ''
  let stderr = ''
  const connection = env.database.connection
  const code = await runCli(argv, {
    config: env.config,
    io: {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void (stderr += t),
      ...(confirm ? { confirm } : {}),
      ...(terminal ? { terminal } : {}),
    },
    openDatabase: () => openDatabase(connection),
  })
  return { code, stdout, stderr }
}

/** A terminal as cli-progress sees one: a TTY with a width, keeping what is drawn on it. */
function fakeTerminal(): { stream: TerminalStream; drawn: () => string } {
  let drawn = ''
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        drawn += chunk.toString('utf8')
        done()
      },
    }),
    { isTTY: true, columns: 100 },
  )
  return { stream, drawn: () => drawn }
}

describeEachDatabase('dg import', (getEnv) => {
  it('shows the preview and executes only with --yes or the operator’s confirmation', async () => {
    const env = getEnv()
    const dir = env.database.dataDir
    const mappingFile = path.join(dir, 'mapping.json')
    fs.writeFileSync(
      mappingFile,
      JSON.stringify({
        source_investment_id: 'inv',
        source_property_id: 'id',
        prop_type: 'typ',
        price_total: 'cena',
        price_total_from: 'od',
      }),
    )
    const file = path.join(dir, 'oferty.csv')
    fs.writeFileSync(file, 'inv;id;typ;cena;od\nCLI;1;mieszkanie;500 000,00;2026-04-01\nCLI;2;dom;900 000;2026-04-01\n')

    const noTerminal = await dg(env, ['import', file, '--mapping', mappingFile])
    expect(noTerminal.code).toBe(1)
    expect(noTerminal.stderr).toMatch(/create 2/)
    expect(noTerminal.stderr).toMatch(/--yes/)
    const count = async () =>
      (await env.ctx.db.selectFrom('offers').select('id').where('code', 'in', ['1', '2']).execute()).length
    expect(await count()).toBe(0)

    const declined = await dg(env, ['import', file, '--mapping', mappingFile], async () => false)
    expect(declined.code).toBe(0)
    expect(await count()).toBe(0)

    const questions: string[] = []
    const accepted = await dg(env, ['import', file, '--mapping', mappingFile], async (q) => {
      questions.push(q)
      return true
    })
    expect(accepted.code).toBe(0)
    expect(questions).toHaveLength(1)
    expect(accepted.stdout).toMatch(/2 created/)
    expect(await count()).toBe(2)

    const snapshotFile = path.join(dir, 'snapshot.csv')
    fs.writeFileSync(snapshotFile, 'inv;id;typ;cena;od\nCLI;1;mieszkanie;500 000,00;2026-04-01\n')
    const snapshot = await dg(env, [
      'import',
      snapshotFile,
      '--mapping',
      mappingFile,
      '--mode',
      'snapshot',
      '--yes',
      '--json',
    ])
    expect(snapshot.code).toBe(0)
    expect(JSON.parse(snapshot.stdout).result).toMatchObject({ archived: 1, processed: 1 })
  })

  it('imports the first sheet of an XLSX, or a named one, with numbers and dates as canonical text', async () => {
    const env = getEnv()
    const dir = env.database.dataDir
    const workbook = new ExcelJS.Workbook()
    workbook.addWorksheet('Opis').addRow(['to nie jest cennik'])
    const sheet = workbook.addWorksheet('Cennik')
    sheet.addRow(['Inwestycja', 'Lokal', 'Rodzaj', 'Powierzchnia', 'Cena m2', 'Cena', 'Od'])
    sheet.addRow(['XL', 'L1', 'mieszkanie', 54.3, 12000, 651600, new Date(Date.UTC(2026, 2, 15))])
    const file = path.join(dir, 'cennik.xlsx')
    await workbook.xlsx.writeFile(file)
    const mappingFile = path.join(dir, 'xlsx-mapping.json')
    fs.writeFileSync(
      mappingFile,
      JSON.stringify({
        source_investment_id: 'Inwestycja',
        source_property_id: 'Lokal',
        prop_type: 'Rodzaj',
        prop_area: 'Powierzchnia',
        price_m2: 'Cena m2',
        price_total: 'Cena',
        price_total_from: 'Od',
      }),
    )
    const wrongSheet = await dg(env, ['import', file, '--mapping', mappingFile, '--yes'])
    expect(wrongSheet.code).toBe(1)
    expect(wrongSheet.stderr).toMatch(/missing_column/)
    const result = await dg(env, ['import', file, '--mapping', mappingFile, '--sheet', 'Cennik', '--yes', '--json'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const offer = await env.ctx.db
      .selectFrom('offers')
      .selectAll()
      .where('source_property_id', '=', 'L1')
      .executeTakeFirstOrThrow()
    expect(offer).toMatchObject({
      area: '54.30',
      price_m2_cents: 1_200_000,
      price_total_cents: 65_160_000,
      price_total_from: '2026-03-15',
    })
  })

  it('draws progress bars with the total, percentage and time left while reading and writing, on a terminal only', async () => {
    const env = getEnv()
    const dir = env.database.dataDir
    const mappingFile = path.join(dir, 'bar-mapping.json')
    fs.writeFileSync(
      mappingFile,
      JSON.stringify({ source_investment_id: 'inv', source_property_id: 'id', prop_type: 'typ', price_total: 'cena' }),
    )
    const rows = Array.from({ length: 3000 }, (_, i) => `BAR;${i + 1};mieszkanie;${400_000 + i}`)
    const file = path.join(dir, 'bar.csv')
    fs.writeFileSync(file, `inv;id;typ;cena\n${rows.join('\n')}\n`)

    const terminal = fakeTerminal()
    const drawn = await dg(env, ['import', file, '--mapping', mappingFile, '--yes'], undefined, terminal.stream)
    expect(drawn.code).toBe(0)
    const bars = terminal.drawn()
    // the total is known from the start (the file's lines counted before it is read)
    expect(bars).toContain(`Reading [${'-'.repeat(24)}]   0% | 0/3000 rows | … left`)
    expect(bars).toContain(`Reading [${'='.repeat(24)}] 100% | 3000/3000 rows | done`)
    expect(bars).toContain(`Writing [${'-'.repeat(24)}]   0% | 0/3000 offers | … left`)
    expect(bars).toContain(`Writing [${'='.repeat(24)}] 100% | 3000/3000 offers | done`)
    // the bar goes to the terminal; stdout keeps the summary alone
    expect(drawn.stdout).not.toMatch(/Reading|Writing/)
    expect(drawn.stdout).toMatch(/3000 created/)

    const updated = rows.map((row) => row.replace(/;(\d+)$/, (_, price: string) => `;${Number(price) + 1}`))
    fs.writeFileSync(file, `inv;id;typ;cena\n${updated.join('\n')}\n`)
    const quiet = fakeTerminal()
    const json = await dg(env, ['import', file, '--mapping', mappingFile, '--yes', '--json'], undefined, quiet.stream)
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout).result).toMatchObject({ updated: 3000 })
    expect(quiet.drawn()).toBe('')
    expect(json.stderr).toBe('')

    fs.writeFileSync(file, `inv;id;typ;cena\n${rows.join('\n')}\n`)
    const noTerminal = await dg(env, ['import', file, '--mapping', mappingFile, '--yes'])
    expect(noTerminal.code).toBe(0)
    for (const drawing of ['%', '[=', '\u001b']) expect(noTerminal.stderr).not.toContain(drawing)
  })

  it('refuses a text file named .xlsx with the code unsupported_format', async () => {
    const env = getEnv()
    const dir = env.database.dataDir
    const mappingFile = path.join(dir, 'renamed-mapping.json')
    fs.writeFileSync(mappingFile, JSON.stringify({ source_investment_id: 'inv', source_property_id: 'id' }))
    const file = path.join(dir, 'renamed.xlsx')
    fs.writeFileSync(file, 'inv;id\nX;1\n')
    const refused = await dg(env, ['import', file, '--mapping', mappingFile, '--yes', '--json'])
    expect(refused.code).toBe(1)
    expect(JSON.parse(refused.stderr).error).toMatchObject({
      code: 'unsupported_format',
      message: expect.stringContaining('unsupported_format'),
    })
  })
})
