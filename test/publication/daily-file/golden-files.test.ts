/*
 * Golden files of the official publication: the daily CSV and the harvester XML of a small fixed
 * catalog (test/helpers/fixed-catalog.ts), published through publish() on 2026-11-20 with a fixed
 * clock and a fixed dataset extIdent, must equal test/fixtures/golden/* byte for byte, on SQLite
 * and on PostgreSQL alike. The golden files were written once by running the code and then read
 * cell by cell against the ministry's data standard (its XSD is resources/official/).
 *
 * To rewrite them after an intended change: DG_UPDATE_GOLDEN=1 npx vitest run test/publication/daily-file/golden-files.test.ts
 * (then review the diff of the fixtures by hand before committing).
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { parse } from 'csv-parse/sync'
import { beforeAll, expect, it } from 'vitest'

import { OFFICIAL_HEADERS } from '../../../src/publication/daily-file/official-columns.js'
import { publish } from '../../../src/publication/publishing/publish.js'
import type { PublicationOutcome } from '../../../src/publication/publishing/publication-outcome.js'
import { updatePublicationSettings } from '../../../src/publication/settings/publication-settings.js'
import { MD5_NAME, XML_NAME } from '../../../src/publication/publication-store.js'
import { validateHarvesterXml } from '../../../src/publication/daily-file/validate-xml.js'
import { seedFixedCatalog } from '../../helpers/fixed-catalog.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

const GOLDEN_DIR = fileURLToPath(new URL('../../fixtures/golden/', import.meta.url))
const GOLDEN_CSV = path.join(GOLDEN_DIR, 'daily-2026-11-20.csv')
const GOLDEN_XML = path.join(GOLDEN_DIR, 'dataset-2026-11-20.xml')
const UPDATE = process.env.DG_UPDATE_GOLDEN === '1'
const DATE = '2026-11-20'
const CSV_NAME = `ceny-ofertowe-mieszkan-dewelopera-zlota-laka-deweloper-sp-z-o-o-${DATE}.csv`

/** Bytes served per database, so that the two databases are also compared with each other. */
const served = new Map<string, { csv: Buffer; xml: Buffer }>()

const visible = (line: string) => line.replaceAll('\t', '→').replaceAll('\r', '␍')

/**
 * '' when equal; otherwise where the bytes first differ and, line by line, what changed. For the
 * CSV a differing line is compared cell by cell and each cell is named by its official column.
 */
function describeDifference(kind: 'csv' | 'xml', actual: Buffer, expected: Buffer): string {
  if (actual.equals(expected)) return ''
  let offset = 0
  while (offset < actual.length && offset < expected.length && actual[offset] === expected[offset]) offset++
  const out = [
    `${kind.toUpperCase()} differs from the golden file: ${actual.length} bytes served, ${expected.length} expected, first difference at byte ${offset}.`,
  ]
  const a = actual.toString('utf8').split('\n')
  const e = expected.toString('utf8').split('\n')
  let shown = 0
  for (let i = 0; i < Math.max(a.length, e.length) && shown < 20; i++) {
    if (a[i] === e[i]) continue
    shown++
    out.push(`line ${i + 1}:`)
    if (kind === 'csv' && a[i] !== undefined && e[i] !== undefined && i > 0) {
      const cellsA = parse(a[i] as string, { delimiter: ';', relax_column_count: true })[0] as string[] | undefined
      const cellsE = parse(e[i] as string, { delimiter: ';', relax_column_count: true })[0] as string[] | undefined
      if (cellsA && cellsE) {
        if (cellsA.length !== cellsE.length) out.push(`  ${cellsA.length} cells served, ${cellsE.length} expected`)
        for (let c = 0; c < Math.max(cellsA.length, cellsE.length); c++) {
          if (cellsA[c] === cellsE[c]) continue
          out.push(
            `  col ${c + 1} "${(OFFICIAL_HEADERS[c] ?? '?').slice(0, 60)}": expected ${JSON.stringify(cellsE[c])}, served ${JSON.stringify(cellsA[c])}`,
          )
        }
        continue
      }
    }
    out.push(`  - expected ${e[i] === undefined ? '(no line)' : visible(e[i] as string)}`)
    out.push(`  + served   ${a[i] === undefined ? '(no line)' : visible(a[i] as string)}`)
  }
  return out.join('\n')
}

describeEachDatabase('golden files of the official publication', (getEnv) => {
  let env: TestEnv
  let outcome: PublicationOutcome
  const fetchPublic = (name: string) => env.app.inject({ method: 'GET', url: `/dane-gov/${name}` })

  beforeAll(async () => {
    env = getEnv()
    env.clock.set('2026-11-20T00:30:00Z')
    await seedFixedCatalog(env.ctx)
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    outcome = await publish(env.ctx, { date: DATE, trigger: 'cli', actor: { type: 'cli' } })
  })

  it('publishes the fixed catalog under the official file name with one row per offer, extra part and extra room', () => {
    expect(outcome).toMatchObject({
      status: 'published',
      date: DATE,
      record_count: 8,
      csv: { file_name: CSV_NAME, url: `https://ceny.example.pl/dane-gov/${CSV_NAME}` },
      xml: { url: 'https://ceny.example.pl/dane-gov/dataset.xml', resources: 1 },
    })
  })

  it('serves the daily CSV byte for byte equal to test/fixtures/golden/daily-2026-11-20.csv', async () => {
    const response = await fetchPublic(CSV_NAME)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8')
    const csv = response.rawPayload
    served.set(env.dialect, { ...(served.get(env.dialect) ?? { xml: Buffer.alloc(0) }), csv })
    if (UPDATE && env.dialect === 'sqlite') {
      fs.mkdirSync(GOLDEN_DIR, { recursive: true })
      fs.writeFileSync(GOLDEN_CSV, csv)
    }
    const difference = describeDifference('csv', csv, fs.readFileSync(GOLDEN_CSV))
    if (difference) expect.fail(difference)
    expect(response.headers.etag).toBe(`"${createHash('md5').update(csv).digest('hex')}"`)
  })

  it('serves the harvester XML byte for byte equal to test/fixtures/golden/dataset-2026-11-20.xml, XSD-valid, with its .md5', async () => {
    const response = await fetchPublic(XML_NAME)
    expect(response.statusCode).toBe(200)
    const xml = response.rawPayload
    served.set(env.dialect, { ...(served.get(env.dialect) ?? { csv: Buffer.alloc(0) }), xml })
    if (UPDATE && env.dialect === 'sqlite') {
      fs.mkdirSync(GOLDEN_DIR, { recursive: true })
      fs.writeFileSync(GOLDEN_XML, xml)
    }
    const difference = describeDifference('xml', xml, fs.readFileSync(GOLDEN_XML))
    if (difference) expect.fail(difference)
    const validation = await validateHarvesterXml(xml)
    expect(validation.errors).toEqual([])
    expect(validation.valid).toBe(true)
    expect((await fetchPublic(MD5_NAME)).body).toBe(createHash('md5').update(xml).digest('hex'))
  })

  it('gives the same bytes on every database of the run', () => {
    const [first, ...others] = [...served.entries()]
    if (!first) return
    for (const [dialect, bytes] of others) {
      expect(bytes.csv.equals(first[1].csv), `CSV on ${dialect} vs ${first[0]}`).toBe(true)
      expect(bytes.xml.equals(first[1].xml), `XML on ${dialect} vs ${first[0]}`).toBe(true)
    }
  })

  it('republishing the same day from the same catalog gives the same bytes', async () => {
    env.clock.advance(3_600_000)
    const again = await publish(env.ctx, { date: DATE, trigger: 'cli', actor: { type: 'cli' } })
    expect(again.csv.md5).toBe(outcome.csv.md5)
    expect(again.xml.md5).toBe(outcome.xml.md5)
    const first = served.get(env.dialect)
    expect((await fetchPublic(CSV_NAME)).rawPayload.equals(first?.csv ?? Buffer.alloc(0))).toBe(true)
    expect((await fetchPublic(XML_NAME)).rawPayload.equals(first?.xml ?? Buffer.alloc(0))).toBe(true)
  })
})
