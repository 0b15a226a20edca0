/*
 * `npm run bench:audit`: the nightly audit of everything published (src/publication/audit) over a
 * year of daily files of ten developer entities, on SQLite.
 *
 * Seeding (not measured), in this process:
 *   - BENCH_ENTITIES (default 10) developer entities, each with a published investment (so each has
 *     its own dataset) and BENCH_OFFERS (default 300) units: ~70% flats with a parking space and a
 *     storage room, ~5% houses, the rest parking spaces and storage rooms sold alone;
 *   - BENCH_DAYS (default 365) days of each entity written straight into the store layout of
 *     src/publication/publication-store.ts as publish() leaves it: each day a few prices change
 *     (every day file has bytes of its own, the worst case: no stored file is shared), its CSV under
 *     files/<md5>.csv, a version folder whose manifest lists every day so far with the URL,
 *     extIdent and texts frozen when the day was first published, the publication recorded in
 *     the database, and the latest version's dataset.xml and dataset.md5 behind the `current`
 *     pointer. Earlier versions' XML files are not written: the audit never reads them (it reads
 *     earlier manifests). Publishing 3,650 files one by one would take many minutes and measure
 *     nothing more.
 * Measured in a fresh child process (bench/processes/audit-child.ts), so that the peak RSS is the
 * audit's own:
 *   - the audit of everything published as the nightly run calls it (auditPublications with
 *     rulesOnlyForDay): every dataset's XML and .md5, the end of every earlier manifest (the
 *     resource each publication added: the texts it was first published with, resources dropped
 *     since), every resource compared with them, every day file read and hashed against its
 *     recorded checksums, the rows of the latest day's files checked;
 *   - the floor, in the same process: every stored day file read and hashed once and each current
 *     XML read and hashed, nothing parsed and no manifest read (median of 3 runs): what no audit
 *     that proves the published bytes can skip;
 *   - the audit on demand (panel, dg audit: also every file's rows and each XML's XSD), informational;
 *   - after the figures, a tampered file of an early day, a deleted file of another day and a title
 *     changed in one XML: the nightly audit must name each of them (the script fails otherwise).
 * Goals: the nightly audit ≤ 30 s for the year (the nightly run waits for it) and ≤ 5× the floor,
 * peak RSS ≤ 300 MB.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { pino } from 'pino'

import { createHostContext } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openConfiguredDatabase } from '../src/host/db/database.js'
import type { DeveloperRow } from '../src/host/db/schema.js'
import { warsawDate } from '../src/host/warsaw-day.js'
import { dailyCompanySlug, developerForCsv } from '../src/publication/daily-file/collect-daily-input.js'
import { buildDailyCsv, type DailyCsvInvestment, type DailyCsvOffer } from '../src/publication/daily-file/daily-csv.js'
import { datasetTexts, newResourceTexts } from '../src/publication/daily-file/dataset-resources.js'
import { datasetBase, datasetStore, listDatasets } from '../src/publication/daily-file/datasets.js'
import { buildHarvesterXml, dailyResourceExtIdent, md5Hex } from '../src/publication/daily-file/harvester-xml.js'
import { type Manifest, type ManifestDay, MD5_NAME, XML_NAME } from '../src/publication/publication-store.js'
import { updatePublicationSettings } from '../src/publication/settings/publication-settings.js'
import type { AuditChildResult } from './processes/audit-child.js'

const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 10)
const OFFERS = Number(process.env.BENCH_OFFERS ?? 300)
const DAYS = Number(process.env.BENCH_DAYS ?? 365)
const MIB = 1024 * 1024
const BASE_URL = 'https://ceny.example.pl/dane-gov'
const GOALS = { seconds: 30, ratio: 5, rssMib: 300 }

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-bench-audit-'))
const env: NodeJS.ProcessEnv = { ...process.env, DG_DATA_DIR: dataDir, DG_LOG_LEVEL: 'silent', DG_ENV: 'development' }
delete env.DATABASE_URL // SQLite, like the other benchmarks

/** mulberry32: the same history in every run. */
function prng(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const random = prng(20261102)
const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1))

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/** A NIP with a valid check digit, different for each entity. */
function nipOf(index: number): string {
  const digits = `525${String(100000 + index).padStart(6, '0')}`.split('').map(Number)
  const weights = [6, 5, 7, 2, 3, 4, 5, 6, 7]
  const check = digits.reduce((sum, d, i) => sum + d * (weights[i] as number), 0) % 11
  return check === 10 ? nipOf(index + 1000) : `${digits.join('')}${check}`
}

/** An entity's units as the daily file shows them on its first day. */
function unitsOf(entity: number, investments: DailyCsvInvestment[], firstDay: string): DailyCsvOffer[] {
  const offers: DailyCsvOffer[] = []
  for (let j = 0; j < OFFERS; j++) {
    const investment = investments[j % investments.length] as DailyCsvInvestment
    const roll = random()
    if (roll < 0.25) {
      const parking = random() < 0.6
      offers.push({
        id: j,
        investment,
        offerKind: 'standalone_part',
        propertyType: parking ? 'parking_space' : 'storage_room',
        code: `${parking ? 'MP' : 'KL'}-${entity}-${j}`,
        priceM2Cents: null,
        priceM2From: null,
        priceTotalCents: parking ? between(3_000_000, 6_000_000) : between(500_000, 1_500_000),
        priceTotalFrom: firstDay,
        priceCombinedCents: null,
        priceCombinedFrom: null,
        components: [],
      })
      continue
    }
    const house = roll > 0.95
    const m2 = between(800_000, 2_000_000)
    const areaCents = house ? between(10_000, 18_000) : between(2_500, 12_000)
    offers.push({
      id: j,
      investment,
      offerKind: 'property',
      propertyType: house ? 'dom' : 'mieszkanie',
      code: `${house ? 'D' : 'A'}/${entity}/${j}`,
      priceM2Cents: m2,
      priceM2From: firstDay,
      priceTotalCents: Math.round((m2 * areaCents) / 100),
      priceTotalFrom: firstDay,
      priceCombinedCents: null,
      priceCombinedFrom: null,
      components: house
        ? []
        : [
            {
              groupKind: 'part',
              kindLabel: 'Miejsce postojowe',
              designation: `MP-${entity}-${j}`,
              priceCents: between(3_000_000, 6_000_000),
              priceFrom: firstDay,
              description: null,
            },
            {
              groupKind: 'appurtenant_room',
              kindLabel: 'Komórka lokatorska',
              designation: `KL-${entity}-${j}`,
              priceCents: between(500_000, 1_500_000),
              priceFrom: firstDay,
              description: null,
            },
          ],
    })
  }
  return offers
}

/** A few prices change on the day (with the day as their "valid from"), so every file differs. */
function changePrices(offers: DailyCsvOffer[], date: string): void {
  for (let k = 0; k < 3; k++) {
    const offer = offers[between(0, offers.length - 1)] as DailyCsvOffer
    const total = (offer.priceTotalCents ?? 0) + between(1, 500) * 100
    if (offer.offerKind === 'property') {
      offer.priceTotalCents = total
      offer.priceM2Cents = (offer.priceM2Cents ?? 0) + 100
      offer.priceM2From = date
    } else offer.priceTotalCents = total
    offer.priceTotalFrom = date
  }
}

interface SeededHistory {
  datasets: number
  files: number
  fileBytes: number
  manifestBytes: number
}

async function seed(firstDay: string): Promise<SeededHistory> {
  const config = loadConfig(env)
  const database = openConfiguredDatabase(config)
  const ctx = await createHostContext({ config, database, log: pino({ level: 'silent' }) })
  const now = new Date().toISOString()
  const stamp = { created_at: now, modified_at: now }
  const developers: DeveloperRow[] = []
  for (let e = 0; e < ENTITIES; e++) {
    const developer = await ctx.db
      .insertInto('developers')
      .values({
        name: `Inwestycja ${e + 1} Sp. z o.o.`,
        legal_form: 'spółka z ograniczoną odpowiedzialnością',
        krs: String(123456 + e).padStart(10, '0'),
        ceidg: null,
        nip: nipOf(e),
        regon: '146789017',
        phone: '221234567',
        email: `sprzedaz${e + 1}@benchmark.example.pl`,
        fax: null,
        website: 'https://benchmark.example.pl',
        seat_voivodeship: 'mazowieckie',
        seat_powiat: 'Warszawa',
        seat_gmina: 'Warszawa',
        seat_city: 'Warszawa',
        seat_street: 'Marszałkowska',
        seat_building_no: '100',
        seat_local_no: '5',
        seat_postal_code: '00-026',
        sales_voivodeship: 'mazowieckie',
        sales_powiat: 'Warszawa',
        sales_gmina: 'Warszawa',
        sales_city: 'Warszawa',
        sales_street: 'Lipowa',
        sales_building_no: '12',
        sales_local_no: null,
        sales_postal_code: '02-495',
        sales_additional_locations: null,
        contact_method: 'Telefonicznie lub e-mailowo',
        dataset_url: `https://benchmark.example.pl/inwestycja-${e + 1}/ceny`,
        description_note_pl: null,
        description_note_en: null,
        ...stamp,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    developers.push(developer)
    await ctx.db
      .insertInto('investments')
      .values({
        developer_id: developer.id,
        source_id: `inv-${e}`,
        title: `Osiedle ${e + 1}`,
        slug: `osiedle-${e + 1}`,
        content: '',
        excerpt: '',
        host_status: 'publish',
        visibility: 'public',
        custom_meta: '{}',
        gallery: '[]',
        documents: '[]',
        ...stamp,
      })
      .execute()
  }
  await updatePublicationSettings(ctx, { public_base_url: BASE_URL }, { type: 'cli' })

  const history: SeededHistory = { datasets: 0, files: 0, fileBytes: 0, manifestBytes: 0 }
  for (const dataset of await listDatasets(ctx)) {
    history.datasets += 1
    const developer = dataset.developer
    const entity = developers.findIndex((d) => d.id === developer.id)
    const store = datasetStore(ctx, dataset)
    const base = datasetBase(BASE_URL, dataset)
    fs.mkdirSync(store.filesDir, { recursive: true })
    fs.mkdirSync(path.join(store.root, 'versions'), { recursive: true })
    const location = developerForCsv(developer).seat
    const investments: DailyCsvInvestment[] = [1, 2].map((id) => ({
      id,
      location: { ...location, street: `Ulica ${entity}-${id}` },
      prospectusUrl: `https://benchmark.example.pl/prospekty/${entity}-${id}.pdf`,
    }))
    const offers = unitsOf(entity, investments, firstDay)
    const days: ManifestDay[] = []
    const rows: Array<Record<string, unknown>> = []
    let manifest: Manifest | undefined
    for (let d = 0; d < DAYS; d++) {
      const date = addDays(firstDay, d)
      if (d > 0) changePrices(offers, date)
      const csv = buildDailyCsv({
        date,
        companySlug: dailyCompanySlug(developer),
        developer: developerForCsv(developer),
        offers,
      })
      const md5 = md5Hex(csv.content)
      fs.writeFileSync(store.csvPath(md5), csv.content)
      history.files += 1
      history.fileBytes += csv.content.length
      const publishedAt = `${date}T23:30:00.000Z`
      days.push({
        date,
        file_name: csv.fileName,
        md5,
        rows: csv.rowCount,
        bytes: csv.content.length,
        url: `${base}/${csv.fileName}`,
        ext_ident: dailyResourceExtIdent(dataset.extIdent, date, 1),
        revision: 1,
        ...newResourceTexts(developer.name, date, 1, publishedAt),
      })
      const version = `${date.replaceAll('-', '')}T233000-${String(entity).padStart(8, '0')}`
      const last = d === DAYS - 1
      const xml = last
        ? Buffer.from(
            buildHarvesterXml({
              extIdent: dataset.extIdent,
              ...datasetTexts(developer, days),
              url: developer.dataset_url,
              resources: days.map((day) => ({
                extIdent: day.ext_ident as string,
                url: day.url as string,
                dataDate: day.date,
                titlePl: day.title_pl as string,
                titleEn: day.title_en as string,
                descriptionPl: day.description_pl as string,
                descriptionEn: day.description_en as string,
              })),
            }),
            'utf8',
          )
        : undefined
      manifest = {
        version,
        created_at: publishedAt,
        // an earlier version's XML is not written (see the header); its checksum is not read either
        xml_md5: xml ? md5Hex(xml) : md5Hex(version),
        xml_bytes: xml?.length ?? 0,
        days: [...days],
      }
      const dir = store.versionDir(version)
      fs.mkdirSync(dir)
      const json = JSON.stringify(manifest, null, 1)
      history.manifestBytes += json.length
      fs.writeFileSync(path.join(dir, 'manifest.json'), json)
      if (xml) {
        fs.writeFileSync(path.join(dir, XML_NAME), xml)
        fs.writeFileSync(path.join(dir, MD5_NAME), manifest.xml_md5)
      }
      rows.push({
        developer_id: dataset.primary ? null : developer.id,
        publication_date: date,
        status: 'published',
        trigger: 'schedule',
        actor_name: 'scheduler',
        started_at: publishedAt,
        finished_at: publishedAt,
        record_count: csv.rowCount,
        version,
        csv_md5: md5,
        xml_md5: manifest.xml_md5,
        issues: JSON.stringify({
          outcome: {
            status: 'published',
            date,
            version,
            csv: { file_name: csv.fileName, url: `${base}/${csv.fileName}`, md5, bytes: csv.content.length },
          },
          warnings: [],
        }),
      })
    }
    if (manifest) fs.writeFileSync(path.join(store.root, 'current'), `${manifest.version}\n`)
    for (let k = 0; k < rows.length; k += 100)
      await ctx.db
        .insertInto('publications')
        .values(rows.slice(k, k + 100) as never)
        .execute()
  }
  await database.destroy()
  return history
}

async function runChild(): Promise<AuditChildResult> {
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
      '--import',
      'tsx',
      'bench/processes/audit-child.ts',
    ],
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  if (code !== 0) throw new Error(`bench/processes/audit-child.ts exited with ${code}`)
  const line = out.trim().split('\n').pop() ?? ''
  return JSON.parse(line) as AuditChildResult
}

const firstDay = addDays(warsawDate(new Date()), -DAYS)
const seedStarted = Date.now()
const seeded = await seed(firstDay)
const seedSeconds = (Date.now() - seedStarted) / 1000
const result = await runChild()

const ratio = result.auditSeconds / result.floorSeconds
const rssMib = result.auditMaxRssKib / 1024
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS')
const rows: Array<[string, string, string, string]> = [
  [
    'nightly audit, every dataset and day',
    `${result.auditSeconds.toFixed(2)} s`,
    `<= ${GOALS.seconds} s`,
    verdict(result.auditSeconds <= GOALS.seconds),
  ],
  ['floor: every file read and hashed once', `${result.floorSeconds.toFixed(2)} s`, '', ''],
  ['ratio audit / floor', `${ratio.toFixed(1)}x`, `<= ${GOALS.ratio}x`, verdict(ratio <= GOALS.ratio)],
  [
    'peak RSS when the nightly audit returned',
    `${rssMib.toFixed(0)} MB`,
    `<= ${GOALS.rssMib} MB`,
    verdict(rssMib <= GOALS.rssMib),
  ],
  ['  (peak RSS of the whole run, all audits)', `${(result.maxRssKib / 1024).toFixed(0)} MB`, '', ''],
  ['  (RSS before the audit: modules, DB open)', `${(result.startRssKib / 1024).toFixed(0)} MB`, '', ''],
  ['  (CPU time of the audit, all threads)', `${result.auditCpuSeconds.toFixed(2)} s`, '', ''],
  ['  (nightly audit again, warm process)', `${result.warmSeconds.toFixed(2)} s`, '', ''],
  ["  (audit on demand: every file's rows too)", `${result.onDemandSeconds.toFixed(2)} s`, '', ''],
  ['  (nightly audit of the damaged history)', `${result.damagedSeconds.toFixed(2)} s`, '', ''],
]
process.stdout.write(
  `\nAudit benchmark: ${seeded.datasets} datasets × ${DAYS} days = ${seeded.files} day files ` +
    `(${(seeded.fileBytes / MIB).toFixed(0)} MB, ${OFFERS} units an entity), ${result.filesChecked} checked; ` +
    `${(seeded.manifestBytes / MIB).toFixed(0)} MB of manifests; SQLite, ${os.cpus().length} CPUs, Node ${process.version}; ` +
    `seeding took ${seedSeconds.toFixed(1)} s (not measured)\n\n`,
)
process.stdout.write(`${'measure'.padEnd(44)}${'value'.padStart(12)}${'goal'.padStart(12)}${'result'.padStart(8)}\n`)
for (const [name, value, goal, ok] of rows)
  process.stdout.write(`${name.padEnd(44)}${value.padStart(12)}${goal.padStart(12)}${ok.padStart(8)}\n`)
process.stdout.write(
  `\nThe clean history: ${result.cleanErrors} errors (must be 0). The damaged one: ` +
    `${result.found.map((f) => `${f.code} ${f.day ?? ''}`.trim()).join('; ')}\n` +
    `Goals: the nightly audit <= ${GOALS.seconds} s and <= ${GOALS.ratio}x the floor, peak RSS <= ${GOALS.rssMib} MB. ` +
    `The floor reads and hashes every stored day file once and each current XML, without parsing anything; the ` +
    `audit also reads the end of every version's manifest (the resource each publication added: the texts it was ` +
    `first published with, resources dropped since), compares every resource of each XML and manifest with them, ` +
    `compares every file with its recorded checksums, and checks the rows of the latest day's files (the audit on ` +
    `demand also checks every file's rows and each XML against the XSD). ` +
    `BENCH_ENTITIES / BENCH_DAYS / BENCH_OFFERS change the size; ` +
    `BENCH_NODE_ARGS=--cpu-prof profiles the child.\n`,
)
if (!process.env.BENCH_KEEP) fs.rmSync(dataDir, { recursive: true, force: true })
else process.stdout.write(`data kept in ${dataDir}\n`)
if (result.cleanErrors !== 0 || !result.detected) process.exitCode = 1
