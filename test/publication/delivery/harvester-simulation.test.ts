/*
 * The running server as the dane.gov.pl harvester sees it. The app listens on a real port; the
 * publication's public base URL is the production-like https://ceny.example.pl/dane-gov, so the
 * XML carries https resource URLs exactly as in production, and the simulated harvester
 * (test/helpers/portal/harvester-simulator.ts) maps that origin to the local http server (the test cannot
 * present a trusted certificate) and performs the portal's checks in order. Also: the header line
 * against the official template, the values against the catalog, failed publications (a write
 * failure half-way and a data error) leaving every served byte unchanged, and two concurrent
 * publications answered 200 and 409.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'

import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { OFFICIAL_COLUMN_INDEX } from '../../../src/publication/daily-file/official-columns.js'
import { preparePublication } from '../../../src/publication/publishing/prepare-publication.js'
import { publicationStore } from '../../../src/publication/publication-store.js'
import { updatePublicationSettings } from '../../../src/publication/settings/publication-settings.js'
import { FIXED_HIDDEN_CODES, FIXED_PUBLISHED_CODES, seedFixedCatalog } from '../../helpers/fixed-catalog.js'
import { createTestUser, grantProLicense, type TestUser } from '../../helpers/factories.js'
import {
  HARVEST_STEPS,
  type HarvestResult,
  type HarvestStep,
  SimulatedHarvester,
} from '../../helpers/portal/harvester-simulator.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

const TEMPLATE = fs.readFileSync(
  new URL('../../fixtures/official/Wcorcowy_zakres_danych_dotyczących_cen_mieszkań.csv', import.meta.url),
)
const TEMPLATE_HEADER = TEMPLATE.subarray(0, TEMPLATE.indexOf(0x0a))
const GOLDEN_DAY_ONE = fs.readFileSync(new URL('../../fixtures/golden/daily-2026-11-20.csv', import.meta.url))
const PUBLIC_ORIGIN = 'https://ceny.example.pl'
const XML_URL = `${PUBLIC_ORIGIN}/dane-gov/dataset.xml`

const failedSteps = (result: HarvestResult): HarvestStep[] => result.steps.filter((s) => !s.ok)

/** The codes a daily file lists: column 37 of flats and houses, 45/49 of standalone parts. */
function listedCodes(csv: Buffer): Set<string> {
  const rows = parse(csv, { delimiter: ';', from_line: 2 }) as string[][]
  const codes = new Set<string>()
  for (const row of rows) {
    const code = row[OFFICIAL_COLUMN_INDEX.property_code] as string
    if (code !== 'X') codes.add(code)
    else if (row[OFFICIAL_COLUMN_INDEX.property_type] === 'X') {
      const part = row[OFFICIAL_COLUMN_INDEX.part_designation] as string
      codes.add(part !== 'X' ? part : (row[OFFICIAL_COLUMN_INDEX.room_designation] as string))
    }
  }
  return codes
}

describeEachDatabase('the running server, checked by a simulated dane.gov.pl harvester', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let origin: string
  let harvester: SimulatedHarvester
  let ids: Map<string, number>

  /** A JSON answer of the API: the publication outcome or an error body with its issues. */
  type ApiBody = {
    error?: string
    issues?: Array<{ code: string; message_pl: string; message_en: string; details?: unknown }>
    xml?: unknown
  }
  const json = async (response: Response) => (await response.json()) as ApiBody
  const publishOverHttp = (date: string) =>
    fetch(`${origin}/wp-json/dg/v2/publications`, {
      method: 'POST',
      headers: { authorization: admin.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ date }),
    })

  /** Every served byte the harvester can see, plus the headers it may compare. */
  async function servedState(result: HarvestResult) {
    const files = ['dataset.xml', 'dataset.md5', ...result.resources.map((r) => new URL(r.url).pathname.slice(10))]
    const state: Record<string, { body: Buffer; etag: string | null; lastModified: string | null }> = {}
    for (const file of files) {
      const response = await harvester.fetch(`${PUBLIC_ORIGIN}/dane-gov/${file}`, 'GET')
      expect(response.status, file).toBe(200)
      state[file] = {
        body: response.body,
        etag: response.headers.get('etag'),
        lastModified: response.headers.get('last-modified'),
      }
    }
    return state
  }

  const readCurrentPointer = () => fs.readFileSync(path.join(publicationStore(env.ctx).root, 'current'), 'utf8')
  const listVersions = () => fs.readdirSync(path.join(publicationStore(env.ctx).root, 'versions')).sort()

  beforeAll(async () => {
    env = getEnv()
    env.clock.set('2026-11-20T00:30:00Z')
    ids = await seedFixedCatalog(env.ctx)
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    await updatePublicationSettings(env.ctx, { public_base_url: `${PUBLIC_ORIGIN}/dane-gov` }, { type: 'cli' })
    await env.app.listen({ port: 0, host: '127.0.0.1' })
    origin = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`
    harvester = new SimulatedHarvester({ origins: { [PUBLIC_ORIGIN]: origin }, templateHeader: TEMPLATE_HEADER })
  })

  it('passes every portal check, in the portal order, after two published days', async () => {
    const first = await publishOverHttp('2026-11-20')
    expect(first.status, await first.clone().text()).toBe(200)
    // the next day a standalone storage room gets a new price
    env.clock.set('2026-11-21T00:30:00Z')
    await env.ctx.db
      .updateTable('offers')
      .set({ price_total_cents: 900_000, price_total_from: '2026-11-21' })
      .where('id', '=', ids.get('KL-07') as number)
      .execute()
    const second = await publishOverHttp('2026-11-21')
    expect(second.status, await second.clone().text()).toBe(200)
    expect((await json(second)).xml).toMatchObject({ url: XML_URL, md5_url: `${PUBLIC_ORIGIN}/dane-gov/dataset.md5` })

    const result = await harvester.harvest(XML_URL)
    expect(failedSteps(result)).toEqual([])
    expect(result.ok).toBe(true)
    expect(result.steps.map((s) => s.name)).toEqual(HARVEST_STEPS)
    expect(result.steps.find((s) => s.name === 'head')?.detail).toMatch(/xml/)
    expect(result.md5).toMatch(/^[0-9a-f]{32}$/)
    expect(result.resources.map((r) => [r.dataDate, r.url, r.contentType])).toEqual([
      [
        '2026-11-20',
        `${PUBLIC_ORIGIN}/dane-gov/ceny-ofertowe-mieszkan-dewelopera-zlota-laka-deweloper-sp-z-o-o-2026-11-20.csv`,
        'text/csv; charset=utf-8',
      ],
      [
        '2026-11-21',
        `${PUBLIC_ORIGIN}/dane-gov/ceny-ofertowe-mieszkan-dewelopera-zlota-laka-deweloper-sp-z-o-o-2026-11-21.csv`,
        'text/csv; charset=utf-8',
      ],
    ])
    // the first day is still served exactly as published (it is the golden file)
    expect(result.resources[0]?.body.equals(GOLDEN_DAY_ONE)).toBe(true)
  })

  it('serves the header line of every listed CSV byte for byte as the official template has it', async () => {
    const result = await harvester.harvest(XML_URL)
    expect(result.resources.length).toBeGreaterThan(0)
    for (const resource of result.resources) {
      const header = resource.body.subarray(0, resource.body.indexOf(0x0a))
      expect(header.equals(TEMPLATE_HEADER), resource.url).toBe(true)
      expect(resource.body.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false)
    }
    const headers = TEMPLATE_HEADER.toString('utf8').split(';')
    expect(headers).toHaveLength(58)
    expect(headers.filter((h) => h.endsWith(' ')).map((h) => headers.indexOf(h) + 1)).toEqual([12, 36])
  })

  it('lists the catalog in every CSV: published offers only, with the price of that day', async () => {
    const result = await harvester.harvest(XML_URL)
    for (const resource of result.resources) {
      const codes = listedCodes(resource.body)
      expect([...codes].sort(), resource.dataDate).toEqual([...FIXED_PUBLISHED_CODES].sort())
      for (const hidden of FIXED_HIDDEN_CODES) expect(codes.has(hidden)).toBe(false)
    }
    const storageRow = (csv: Buffer) =>
      (parse(csv, { delimiter: ';', from_line: 2 }) as string[][]).find(
        (row) => row[OFFICIAL_COLUMN_INDEX.room_designation] === 'KL-07',
      )
    const [dayOne, dayTwo] = result.resources
    expect(storageRow(dayOne?.body as Buffer)?.slice(47, 51)).toEqual([
      'Komórka lokatorska',
      'KL-07',
      '8500.05',
      '2026-10-15',
    ])
    expect(storageRow(dayTwo?.body as Buffer)?.slice(47, 51)).toEqual([
      'Komórka lokatorska',
      'KL-07',
      '9000.00',
      '2026-11-21',
    ])
  })

  it('keeps every served byte when a publication fails half-way while writing its files', async () => {
    const before = await harvester.harvest(XML_URL)
    expect(before.ok).toBe(true)
    const served = await servedState(before)
    const pointer = readCurrentPointer()
    const versions = listVersions()

    env.clock.set('2026-11-22T00:30:00Z')
    await env.ctx.db
      .updateTable('offers')
      .set({ price_total_cents: 4_100_000, price_total_from: '2026-11-22' })
      .where('id', '=', ids.get('MP-50') as number)
      .execute()
    // The day's CSV is stored under its MD5; a directory in its place makes the new version fail
    // after its CSV was built, written and checked in the new version folder, when the file is
    // moved to its stored name (EISDIR, even for root).
    const prepared = await preparePublication(env.ctx, '2026-11-22')
    expect(prepared.issues).toEqual([])
    const blocker = publicationStore(env.ctx).csvPath(prepared.csv.md5)
    fs.mkdirSync(blocker)
    try {
      const failed = await publishOverHttp('2026-11-22')
      expect(failed.status).toBe(422)
      const body = await json(failed)
      expect(body.error).toBe('publication_failed')
      expect(body.issues).toEqual([
        expect.objectContaining({ code: 'publication_error', details: { reason: expect.stringMatching(/EISDIR/) } }),
      ])

      expect(readCurrentPointer()).toBe(pointer)
      expect(listVersions()).toEqual(versions)
      const after = await harvester.harvest(XML_URL)
      expect(failedSteps(after)).toEqual([])
      expect(after.resources.map((r) => r.dataDate)).toEqual(['2026-11-20', '2026-11-21'])
      const servedAfter = await servedState(after)
      expect(Object.keys(servedAfter)).toEqual(Object.keys(served))
      for (const [file, was] of Object.entries(served)) {
        const now = servedAfter[file]
        expect(now?.body.equals(was.body), file).toBe(true)
        expect(now?.etag, file).toBe(was.etag)
        expect(now?.lastModified, file).toBe(was.lastModified)
      }
    } finally {
      fs.rmdirSync(blocker)
    }
  })

  it('keeps every served byte when a publication is refused for a data error', async () => {
    const before = await harvester.harvest(XML_URL)
    const served = await servedState(before)
    const pointer = readCurrentPointer()
    const versions = listVersions()
    const storedFiles = fs.readdirSync(publicationStore(env.ctx).filesDir).sort()
    const offer = ids.get('A/2') as number
    await env.ctx.db.updateTable('offers').set({ price_m2_from: null }).where('id', '=', offer).execute()
    try {
      const failed = await publishOverHttp('2026-11-22')
      expect(failed.status).toBe(422)
      const issues = (await json(failed)).issues
      expect(issues).toEqual([
        expect.objectContaining({ code: 'csv_missing_price_date', message_pl: expect.any(String) }),
      ])
      // the refused day's partly written file went with its version folder
      expect(readCurrentPointer()).toBe(pointer)
      expect(listVersions()).toEqual(versions)
      expect(fs.readdirSync(publicationStore(env.ctx).filesDir).sort()).toEqual(storedFiles)
      const after = await harvester.harvest(XML_URL)
      expect(failedSteps(after)).toEqual([])
      const servedAfter = await servedState(after)
      for (const [file, was] of Object.entries(served))
        expect(servedAfter[file]?.body.equals(was.body), file).toBe(true)
    } finally {
      await env.ctx.db.updateTable('offers').set({ price_m2_from: '2026-11-02' }).where('id', '=', offer).execute()
    }
  })

  it('answers exactly one of two concurrent publications with 409, and the winner is served whole', async () => {
    const responses = await Promise.all([publishOverHttp('2026-11-22'), publishOverHttp('2026-11-22')])
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409])
    const refused = responses.find((r) => r.status === 409) as Response
    expect((await json(refused)).error).toBe('publication_in_progress')
    expect(refused.headers.get('retry-after')).toBe('10')

    const result = await harvester.harvest(XML_URL)
    expect(failedSteps(result)).toEqual([])
    expect(result.resources.map((r) => r.dataDate)).toEqual(['2026-11-20', '2026-11-21', '2026-11-22'])
    const dayThree = result.resources[2]?.body as Buffer
    const parking = (parse(dayThree, { delimiter: ';', from_line: 2 }) as string[][]).find(
      (row) => row[OFFICIAL_COLUMN_INDEX.part_designation] === 'MP-50',
    )
    expect(parking?.slice(43, 47)).toEqual(['Miejsce postojowe', 'MP-50', '41000.00', '2026-11-22'])
  })
})

describe('the simulated harvester itself', () => {
  let server: http.Server
  let origin: string
  const files: Record<string, { type: string; body: Buffer }> = {}
  const harvester = () =>
    new SimulatedHarvester({ origins: { [PUBLIC_ORIGIN]: origin }, templateHeader: TEMPLATE_HEADER })

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      const file = files[request.url ?? '']
      if (!file) return response.writeHead(404).end()
      response.writeHead(200, { 'content-type': file.type })
      response.end(request.method === 'HEAD' ? undefined : file.body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const xml = Buffer.from(fs.readFileSync(new URL('../../fixtures/golden/dataset-2026-11-20.xml', import.meta.url)))
  const md5 = createHash('md5').update(xml).digest('hex')

  it('stops at the first failing check: a Content-Type without xml fails at the HEAD step', async () => {
    files['/dane-gov/dataset.xml'] = { type: 'text/html', body: xml }
    files['/dane-gov/dataset.md5'] = { type: 'text/plain', body: Buffer.from(md5) }
    const result = await harvester().harvest(XML_URL)
    expect(result.ok).toBe(false)
    expect(result.steps.map((s) => `${s.name}:${s.ok}`)).toEqual(['file_name:true', 'head:false'])
  })

  it('refuses an uppercase or stale .md5, and a file name with a space or an extra port', async () => {
    files['/dane-gov/dataset.xml'] = { type: 'application/xml', body: xml }
    files['/dane-gov/dataset.md5'] = { type: 'text/plain', body: Buffer.from(md5.toUpperCase()) }
    expect(failedSteps(await harvester().harvest(XML_URL)).map((s) => s.name)).toEqual(['md5_file'])
    files['/dane-gov/dataset.md5'] = { type: 'text/plain', body: Buffer.from('0'.repeat(32)) }
    expect(failedSteps(await harvester().harvest(XML_URL)).map((s) => s.name)).toEqual(['md5_match'])
    expect(failedSteps(await harvester().harvest(`${PUBLIC_ORIGIN}/dane-gov/data set.xml`))[0]?.name).toBe('file_name')
    expect(failedSteps(await harvester().harvest('https://ceny.example.pl:8443/dane-gov/dataset.xml'))[0]?.name).toBe(
      'file_name',
    )
  })

  it('fails the csv step when a listed CSV is missing', async () => {
    files['/dane-gov/dataset.xml'] = { type: 'application/xml', body: xml }
    files['/dane-gov/dataset.md5'] = { type: 'text/plain', body: Buffer.from(`${md5}\n`) }
    const result = await harvester().harvest(XML_URL)
    expect(result.steps.map((s) => `${s.name}:${s.ok}`)).toEqual([
      ...HARVEST_STEPS.slice(0, -1).map((name) => `${name}:true`),
      'csv:false',
    ])
    expect(failedSteps(result)[0]?.detail).toMatch(/404/)
  })
})
