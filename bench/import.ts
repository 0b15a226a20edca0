/*
 * `npm run bench:import` (issue 4, "Performance"): generates a 100,000-row offer file twice, as a
 * UTF-8 `;` CSV and as an XLSX (exceljs streaming writer), with 24 columns whose headers map 1:1 to
 * the canonical fields, then measures on SQLite, each in a fresh child process with a fresh data dir
 * (bench/import-child.ts), so that the peak RSS is the scenario's own:
 *   floor  csv-parse + one prepared INSERT per row in one transaction, no validation;
 *   (a)    CSV preview + execute into an empty catalog;
 *   (b)    XLSX preview + execute into an empty catalog;
 *   (c)    the CSV imported twice; the second preview + execute (all `unchanged`) is reported.
 * Prints seconds, the preview/execute split, peak RSS, the ratio to the floor and the goals.
 * BENCH_ROWS shrinks the run (default 100000); BENCH_MODE=snapshot imports as snapshots;
 * BENCH_ASCII=1 writes the Polish letters of every text without diacritics (`śląskie` → `slaskie`,
 * which the validator still recognises), for measuring while non-ASCII text is mishandled somewhere.
 * BENCH_KEEP=1 keeps the generated files and data directories (the path is printed), so that one
 * scenario can be re-run under a profiler: `node --import tsx --cpu-prof bench/import-child.ts …`.
 * The imports run the compiled build (dist/, built first: what `npm start` runs), and the child
 * itself runs as plain JavaScript (transpiled once into node_modules/.cache), so that each child
 * is what a deployed service is: Node and the built modules. BENCH_SOURCES=1 runs the child and
 * the TypeScript sources through tsx instead, whose loader thread (~55 MB) and compiling of every
 * module a thread loads (the preview's worker loads its modules within the measured time) are no
 * cost of the service.
 */
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

import ExcelJS from 'exceljs'
import ts from 'typescript'

import { CANONICAL_FIELDS, type CanonicalField } from '../src/offers/canonical-fields.js'
import type { ChildResult } from './import-child.js'

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000)
const INVESTMENTS = Math.max(1, Math.min(200, Math.floor(ROWS / 5)))
const MIB = 1024 * 1024
const ASCII_ONLY = ['1', 'true', 'yes', 'on'].includes((process.env.BENCH_ASCII ?? '').toLowerCase())
const POLISH_LETTERS: Readonly<Record<string, string>> = { ł: 'l', Ł: 'L' }
const ascii = (text: string) =>
  text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[łŁ]/g, (letter) => POLISH_LETTERS[letter] ?? letter)
    .replace(/\u00a0/g, ' ')

/** Column headers as a Polish CRM export names them; the mapping sent with every import. */
const HEADERS: Readonly<Record<CanonicalField, string>> = {
  source_investment_id: 'ID inwestycji',
  source_property_id: 'ID lokalu',
  prop_no: 'Numer lokalu',
  prop_type: 'Rodzaj lokalu',
  property_status: 'Status',
  prop_area: 'Powierzchnia użytkowa [m2]',
  prop_rooms: 'Liczba pokoi',
  prop_floor: 'Piętro',
  price_m2: 'Cena za m2 [zł]',
  price_m2_from: 'Cena za m2 obowiązuje od',
  price_total: 'Cena [zł]',
  price_total_from: 'Cena obowiązuje od',
  price_combined: 'Cena łączna [zł]',
  price_combined_from: 'Cena łączna obowiązuje od',
  price_combined_variant: 'Wariant ceny łącznej',
  price_combined_status: 'Status ceny łącznej',
  proj_voivod: 'Województwo',
  proj_powiat: 'Powiat',
  proj_gmina: 'Gmina',
  proj_city: 'Miejscowość',
  proj_street: 'Ulica',
  proj_build_no: 'Nr budynku',
  proj_local_no: 'Nr lokalu w adresie',
  proj_zip: 'Kod pocztowy',
}

const mapping: Record<CanonicalField, string> = { ...HEADERS }
if (ASCII_ONLY) for (const field of CANONICAL_FIELDS) mapping[field] = ascii(HEADERS[field])

// ---------------------------------------------------------------------------------------------
// Data

/** mulberry32: the same file in every run. */
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
const random = prng(20260401)
const between = (min: number, max: number) => min + Math.floor(random() * (max - min + 1))
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T
const pad = (value: number, width: number) => String(value).padStart(width, '0')

interface Place {
  voivodeship: string
  powiat: string
  gmina: string
  city: string
  zip: string
  /** Typical price per m² of a flat, in grosze. */
  m2: number
}

const PLACES: readonly Place[] = [
  { voivodeship: 'mazowieckie', powiat: 'Warszawa', gmina: 'Warszawa', city: 'Warszawa', zip: '02', m2: 1_750_000 },
  {
    voivodeship: 'mazowieckie',
    powiat: 'piaseczyński',
    gmina: 'Piaseczno',
    city: 'Piaseczno',
    zip: '05',
    m2: 1_000_000,
  },
  { voivodeship: 'małopolskie', powiat: 'Kraków', gmina: 'Kraków', city: 'Kraków', zip: '30', m2: 1_600_000 },
  { voivodeship: 'małopolskie', powiat: 'wielicki', gmina: 'Wieliczka', city: 'Wieliczka', zip: '32', m2: 950_000 },
  { voivodeship: 'dolnośląskie', powiat: 'Wrocław', gmina: 'Wrocław', city: 'Wrocław', zip: '53', m2: 1_350_000 },
  { voivodeship: 'dolnośląskie', powiat: 'wrocławski', gmina: 'Siechnice', city: 'Siechnice', zip: '55', m2: 850_000 },
  { voivodeship: 'pomorskie', powiat: 'Gdańsk', gmina: 'Gdańsk', city: 'Gdańsk', zip: '80', m2: 1_500_000 },
  { voivodeship: 'pomorskie', powiat: 'Gdynia', gmina: 'Gdynia', city: 'Gdynia', zip: '81', m2: 1_450_000 },
  { voivodeship: 'wielkopolskie', powiat: 'Poznań', gmina: 'Poznań', city: 'Poznań', zip: '61', m2: 1_150_000 },
  { voivodeship: 'wielkopolskie', powiat: 'poznański', gmina: 'Luboń', city: 'Luboń', zip: '62', m2: 800_000 },
  { voivodeship: 'łódzkie', powiat: 'Łódź', gmina: 'Łódź', city: 'Łódź', zip: '90', m2: 900_000 },
  { voivodeship: 'śląskie', powiat: 'Katowice', gmina: 'Katowice', city: 'Katowice', zip: '40', m2: 1_000_000 },
  { voivodeship: 'śląskie', powiat: 'Gliwice', gmina: 'Gliwice', city: 'Gliwice', zip: '44', m2: 850_000 },
  { voivodeship: 'lubelskie', powiat: 'Lublin', gmina: 'Lublin', city: 'Lublin', zip: '20', m2: 950_000 },
  { voivodeship: 'podkarpackie', powiat: 'Rzeszów', gmina: 'Rzeszów', city: 'Rzeszów', zip: '35', m2: 900_000 },
  { voivodeship: 'podlaskie', powiat: 'Białystok', gmina: 'Białystok', city: 'Białystok', zip: '15', m2: 850_000 },
  {
    voivodeship: 'kujawsko-pomorskie',
    powiat: 'Bydgoszcz',
    gmina: 'Bydgoszcz',
    city: 'Bydgoszcz',
    zip: '85',
    m2: 800_000,
  },
  { voivodeship: 'kujawsko-pomorskie', powiat: 'Toruń', gmina: 'Toruń', city: 'Toruń', zip: '87', m2: 850_000 },
  { voivodeship: 'warmińsko-mazurskie', powiat: 'Olsztyn', gmina: 'Olsztyn', city: 'Olsztyn', zip: '10', m2: 800_000 },
  {
    voivodeship: 'zachodniopomorskie',
    powiat: 'Szczecin',
    gmina: 'Szczecin',
    city: 'Szczecin',
    zip: '71',
    m2: 900_000,
  },
  {
    voivodeship: 'lubuskie',
    powiat: 'Zielona Góra',
    gmina: 'Zielona Góra',
    city: 'Zielona Góra',
    zip: '65',
    m2: 750_000,
  },
  { voivodeship: 'opolskie', powiat: 'Opole', gmina: 'Opole', city: 'Opole', zip: '45', m2: 750_000 },
  { voivodeship: 'świętokrzyskie', powiat: 'Kielce', gmina: 'Kielce', city: 'Kielce', zip: '25', m2: 750_000 },
]
const STREETS = [
  'Słoneczna',
  'Kwiatowa',
  'Leśna',
  'Ogrodowa',
  'Lipowa',
  'Brzozowa',
  'Polna',
  'Łąkowa',
  'Jana Pawła II',
  'Grunwaldzka',
  'Żeromskiego',
  'Marii Skłodowskiej-Curie',
  'Wrzosowa',
  'Zielona',
]
/** Status words as operators type them; the validator folds case and diacritics. */
const STATUSES: readonly (readonly [string, number])[] = [
  ['wolne', 0.4],
  ['Wolne', 0.15],
  ['rezerwacja', 0.08],
  ['Rezerwacja', 0.04],
  ['sprzedane', 0.25],
  ['Sprzedane', 0.08],
]

interface Investment {
  id: string
  place: Place
  voivodeshipText: string
  street: string
  buildingNo: string
  zip: string
  /** Thousands separator of this CRM's export: a space or a no-break space, as Polish Excel writes. */
  group: string
  counters: { flat: number; house: number; parking: number; storage: number; garage: number }
}

const investments: Investment[] = Array.from({ length: INVESTMENTS }, (_, i) => {
  const place = PLACES[i % PLACES.length] as Place
  return {
    id: `INV-${pad(i + 1, 3)}`,
    place,
    voivodeshipText: i % 7 === 3 ? `woj. ${place.voivodeship}` : place.voivodeship,
    street: pick(STREETS),
    buildingNo: `${between(1, 180)}${i % 3 === 0 ? pick(['A', 'B', 'C']) : ''}`,
    zip: `${place.zip}-${pad(between(0, 999), 3)}`,
    group: i % 2 === 0 ? ' ' : '\u00a0',
    counters: { flat: 0, house: 0, parking: 0, storage: 0, garage: 0 },
  }
})

/** One offer row: the text a CSV holds for each canonical field ('' for an empty cell), plus typed cells for XLSX. */
interface Generated {
  text: string[]
  cells: (string | number | null)[]
}

function status(): string {
  let r = random()
  for (const [word, weight] of STATUSES) {
    r -= weight
    if (r < 0) return word
  }
  return 'wolne'
}

function date(): string {
  return `2026-${pad(between(1, 6), 2)}-${pad(between(1, 28), 2)}`
}

/** Grosze → `12 345,67`. */
function money(cents: number, group: string): string {
  const zloty = String(Math.floor(cents / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, group)
  return `${zloty},${pad(cents % 100, 2)}`
}

const area = (hundredths: number) => `${Math.floor(hundredths / 100)},${pad(hundredths % 100, 2)}`

function offerRow(index: number): Generated {
  const inv = investments[Math.min(INVESTMENTS - 1, Math.floor((index * INVESTMENTS) / ROWS))] as Investment
  const c = inv.counters
  const kind = random()
  let type: string
  let code: string
  let areaHundredths: number
  let rooms: number | null
  let floorNo: number
  let m2: number
  let localNo = ''
  if (kind < 0.8) {
    const n = c.flat++
    type = 'mieszkanie'
    floorNo = Math.floor(n / 8) % 12
    const unit = (n % 8) + 1
    code = `${String.fromCharCode(65 + (Math.floor(n / 96) % 8))}/${floorNo}.${pad(unit, 2)}`
    rooms = between(1, 5)
    areaHundredths = rooms * 1500 + between(1000, 2500) + between(0, 99)
    m2 = Math.round(inv.place.m2 * (0.85 + random() * 0.35))
    localNo = String(n + 1)
  } else if (kind < 0.85) {
    const n = ++c.house
    type = pick(['dom', 'dom jednorodzinny'])
    code = `D${n}`
    floorNo = 0
    rooms = between(4, 7)
    areaHundredths = between(9000, 18000)
    m2 = Math.round(inv.place.m2 * (0.6 + random() * 0.2))
  } else {
    // parking spaces, storage rooms and garages, exported without a type: the import takes flats and
    // houses only (contract 2.7) and creates these unqualified; their type is set in the editor
    const part = kind < 0.93 ? 'miejsce postojowe' : kind < 0.97 ? 'komórka lokatorska' : 'garaż'
    type = ''
    rooms = null
    floorNo = -between(1, 2)
    if (part === 'miejsce postojowe') {
      code = `MP/${floorNo}.${pad(++c.parking, 3)}`
      areaHundredths = between(1250, 1500)
      m2 = between(300_000, 600_000)
    } else if (part === 'komórka lokatorska') {
      code = `K/${floorNo}.${pad(++c.storage, 3)}`
      areaHundredths = between(250, 800)
      m2 = between(400_000, 700_000)
    } else {
      code = `G/${floorNo}.${pad(++c.garage, 2)}`
      areaHundredths = between(1600, 2200)
      m2 = between(350_000, 550_000)
    }
  }
  // whole złoty per m² for most CRMs, grosze for some
  if (index % 5 !== 0) m2 = Math.round(m2 / 100) * 100
  const total = Math.floor((m2 * areaHundredths + 50) / 100)
  const priceDate = date()
  const combined = type === 'mieszkanie' && random() < 0.3
  const extra = combined ? between(40_000, 90_000) * 100 : 0
  const combinedVariant = combined ? pick(['z miejscem postojowym', 'z komórką lokatorską', 'z garażem']) : ''
  const combinedStatus = combined ? pick(['obowiązuje', 'promocja']) : ''
  const combinedDate = combined ? priceDate : ''
  const { place } = inv
  const propertyId = String(100_001 + index)
  const text = [
    inv.id,
    propertyId,
    code,
    type,
    status(),
    area(areaHundredths),
    rooms === null ? '' : String(rooms),
    String(floorNo),
    money(m2, inv.group),
    priceDate,
    money(total, inv.group),
    priceDate,
    combined ? money(total + extra, inv.group) : '',
    combinedDate,
    combinedVariant,
    combinedStatus,
    inv.voivodeshipText,
    place.powiat,
    place.gmina,
    place.city,
    inv.street,
    inv.buildingNo,
    localNo,
    inv.zip,
  ]
  if (ASCII_ONLY) for (let i = 0; i < text.length; i++) text[i] = ascii(text[i] ?? '')
  const cells = text.map((value) => (value === '' ? null : value)) as (string | number | null)[]
  cells[5] = areaHundredths / 100
  cells[6] = rooms
  cells[7] = floorNo
  cells[8] = m2 / 100
  cells[10] = total / 100
  cells[12] = combined ? (total + extra) / 100 : null
  return { text, cells }
}

async function generateFiles(csvPath: string, xlsxPath: string): Promise<void> {
  const csv = fs.createWriteStream(csvPath)
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: xlsxPath,
    useSharedStrings: false,
    useStyles: false,
  })
  const sheet = workbook.addWorksheet('Oferty')
  const headers = CANONICAL_FIELDS.map((field) => mapping[field])
  sheet.addRow(headers).commit()
  let chunk = `\ufeff${headers.join(';')}\r\n`
  for (let i = 0; i < ROWS; i++) {
    const row = offerRow(i)
    if (row.text.some((value) => /[;"\r\n]/.test(value))) throw new Error(`row ${i} would need quoting`)
    chunk += `${row.text.join(';')}\r\n`
    sheet.addRow(row.cells).commit()
    if (i % 2000 === 1999 || i === ROWS - 1) {
      if (!csv.write(chunk)) await once(csv, 'drain')
      chunk = ''
      // lets the ZIP stream drain the committed rows
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
  csv.end()
  await once(csv, 'finish')
  sheet.commit()
  await workbook.commit()
}

// ---------------------------------------------------------------------------------------------
// Children

async function runChild(scenario: string, file: string, dataDir: string): Promise<ChildResult> {
  fs.mkdirSync(dataDir, { recursive: true })
  const entry = FROM_SOURCES ? ['--import', 'tsx', 'bench/import-child.ts'] : [CHILD_JS]
  const child = spawn(process.execPath, [...entry, scenario, file], {
    env: {
      ...process.env,
      BENCH_SERVICE: path.resolve(FROM_SOURCES ? 'src' : 'dist'),
      DG_DATA_DIR: dataDir,
      DG_LOG_LEVEL: 'silent',
      DG_ENV: 'development',
      DG_IMPORT_MAX_ROWS: String(Math.max(200_000, ROWS)),
      DG_IMPORT_MAX_BYTES: String(Math.max(50 * MIB, fs.statSync(file).size + MIB)),
      BENCH_MAPPING: JSON.stringify(mapping),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let stdout = ''
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (text: string) => (stdout += text))
  const [code] = (await once(child, 'exit')) as [number | null]
  const last = stdout.trim().split('\n').pop() ?? ''
  if (code !== 0 || !last.startsWith('{')) throw new Error(`scenario ${scenario} failed (exit ${code}): ${stdout}`)
  return JSON.parse(last) as ChildResult
}

// ---------------------------------------------------------------------------------------------
// Run

const FROM_SOURCES = process.env.BENCH_SOURCES === '1'
const CHILD_JS = path.resolve('node_modules/.cache/dg-bench/import-child.mjs')
if (!FROM_SOURCES) {
  const build = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  })
  if (build.status !== 0) throw new Error('npm run build failed: the benchmark measures the compiled service')
  // inside node_modules, so that the child's own imports (better-sqlite3, csv-parse, pino) resolve
  const child = ts.transpileModule(fs.readFileSync('bench/import-child.ts', 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  })
  fs.mkdirSync(path.dirname(CHILD_JS), { recursive: true })
  fs.writeFileSync(CHILD_JS, child.outputText)
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-bench-import-'))
try {
  const csvPath = path.join(tmp, 'oferty.csv')
  const xlsxPath = path.join(tmp, 'oferty.xlsx')
  const generationStarted = performance.now()
  await generateFiles(csvPath, xlsxPath)
  const generationSeconds = (performance.now() - generationStarted) / 1000
  const mb = (bytes: number) => (bytes / MIB).toFixed(1)
  process.stdout.write(
    `Generated ${ROWS} rows in ${INVESTMENTS} investments in ${generationSeconds.toFixed(1)} s: ` +
      `CSV ${mb(fs.statSync(csvPath).size)} MB, XLSX ${mb(fs.statSync(xlsxPath).size)} MB\n`,
  )

  const floor = await runChild('floor', csvPath, path.join(tmp, 'floor'))
  const csv = await runChild('import', csvPath, path.join(tmp, 'csv'))
  const xlsx = await runChild('import', xlsxPath, path.join(tmp, 'xlsx'))
  const twice = await runChild('reimport', csvPath, path.join(tmp, 'twice'))

  const checks: Array<[string, boolean]> = [
    ['floor read every row', floor.rows === ROWS],
    ['(a) created every row', csv.counts?.create === ROWS],
    ['(b) created every row', xlsx.counts?.create === ROWS],
    ['(c) first import created every row', twice.first?.counts.create === ROWS],
    ['(c) second import: every row unchanged', twice.counts?.unchanged === ROWS],
  ]

  interface Line {
    name: string
    result: Pick<ChildResult, 'seconds' | 'maxRssKib' | 'invalid'> & {
      previewSeconds?: number
      executeSeconds?: number
    }
    maxRatio?: number
    maxRssMb?: number
  }
  const lines: Line[] = [
    { name: 'floor: csv-parse + INSERT, 1 transaction', result: floor },
    { name: '(a) CSV preview + execute, empty catalog', result: csv, maxRatio: 3, maxRssMb: 350 },
    { name: '(b) XLSX preview + execute, empty catalog', result: xlsx, maxRatio: 6, maxRssMb: 600 },
    { name: '(c) CSV second import, all unchanged', result: twice, maxRatio: 1.5 },
  ]
  if (twice.first) {
    lines.push({
      name: '(c) its first import (info)',
      result: { ...twice.first, seconds: twice.first.previewSeconds + twice.first.executeSeconds, maxRssKib: NaN },
    })
  }

  const cols = [46, 9, 10, 10, 10, 8, 20, 9]
  const row = (cells: string[]) =>
    cells.map((cell, i) => (i === 0 ? cell.padEnd(cols[i] ?? 0) : cell.padStart(cols[i] ?? 0))).join('') + '\n'
  process.stdout.write(
    `\nImport benchmark: ${ROWS} rows, 24 columns, SQLite, mode ${process.env.BENCH_MODE === 'snapshot' ? 'snapshot' : 'patch'}, ` +
      `${os.cpus().length} CPUs, Node ${process.version}, ` +
      `service ${FROM_SOURCES ? 'from its TypeScript sources (tsx)' : 'compiled (dist/), children in plain Node'}\n\n`,
  )
  process.stdout.write(row(['scenario', 'seconds', 'preview', 'execute', 'peak MB', 'ratio', 'goal', 'result']))
  let missed = 0
  for (const { name, result, maxRatio, maxRssMb } of lines) {
    const ratio = result.seconds / floor.seconds
    const rssMb = result.maxRssKib / 1024
    const goal = maxRatio === undefined ? '' : `≤ ${maxRatio}×${maxRssMb === undefined ? '' : ` & ≤ ${maxRssMb} MB`}`
    const pass =
      result.invalid === undefined &&
      (maxRatio === undefined || (ratio <= maxRatio && (maxRssMb === undefined || rssMb <= maxRssMb)))
    if (!pass) missed++
    process.stdout.write(
      row([
        name,
        result.seconds.toFixed(2),
        result.previewSeconds === undefined ? '' : result.previewSeconds.toFixed(2),
        result.executeSeconds === undefined ? '' : result.executeSeconds.toFixed(2),
        Number.isNaN(rssMb) ? '' : rssMb.toFixed(0),
        ratio.toFixed(2),
        goal,
        result.invalid ? 'INVALID' : maxRatio === undefined ? '' : pass ? 'PASS' : 'MISS',
      ]),
    )
  }
  process.stdout.write(
    `\nPeak MB is the child's maxRSS (for (c), both imports); RSS before the work: floor ` +
      `${(floor.startRssKib / 1024).toFixed(0)} MB, imports ${(csv.startRssKib / 1024).toFixed(0)} MB ` +
      `(Node, ${FROM_SOURCES ? 'tsx, ' : ''}the service modules, the open database).\n`,
  )
  for (const { name, result } of lines) {
    if (result.invalid === undefined) continue
    process.stdout.write(
      `${name.slice(0, 3)}: the preview refused the file (${result.invalid.errorsTotal} row error(s), nothing executed):\n`,
    )
    for (const error of result.invalid.errors) process.stdout.write(`  row ${error.row}: ${error.message}\n`)
  }
  for (const [check, ok] of checks) if (!ok) process.stdout.write(`CHECK FAILED: ${check}\n`)
  process.stdout.write(`${missed === 0 ? 'All goals met.' : `${missed} goal(s) missed.`}\n`)
  if (checks.some(([, ok]) => !ok)) process.exitCode = 1
} finally {
  if (['1', 'true', 'yes', 'on'].includes((process.env.BENCH_KEEP ?? '').toLowerCase()))
    process.stdout.write(`Files kept in ${tmp}\n`)
  else fs.rmSync(tmp, { recursive: true, force: true })
}
