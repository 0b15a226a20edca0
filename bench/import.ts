/*
 * `npm run bench:import`: generates a 100,000-row offer file twice, as a
 * UTF-8 `;` CSV and as an XLSX (exceljs streaming writer), with 24 columns whose headers map 1:1 to
 * the canonical fields, then measures on SQLite, each in a fresh child process with a fresh data dir
 * (bench/processes/import-child.ts), so that the peak RSS is the scenario's own:
 *   floor  csv-parse + one prepared INSERT per row in one transaction, no validation;
 *   (a)    CSV preview + execute into an empty catalog;
 *   (b)    XLSX preview + execute into an empty catalog;
 *   (c)    the CSV imported twice; the second preview + execute (all `unchanged`) is reported.
 * Prints seconds, the preview/execute split, peak RSS, the ratio to the floor and the goals.
 * BENCH_ROWS shrinks the run (default 100000); BENCH_MODE=snapshot imports as snapshots;
 * BENCH_ASCII=1 writes the Polish letters of every text without diacritics (`śląskie` → `slaskie`,
 * which the validator still recognises), for measuring while non-ASCII text is mishandled somewhere.
 * BENCH_KEEP=1 keeps the generated files and data directories (the path is printed), so that one
 * scenario can be re-run under a profiler: `node --import tsx --cpu-prof bench/processes/import-child.ts …`.
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

import ts from 'typescript'

import type { ChildResult } from './processes/import-child.js'
import { offerFile } from './lib/offer-file.js'

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000)
const MIB = 1024 * 1024
const ASCII_ONLY = ['1', 'true', 'yes', 'on'].includes((process.env.BENCH_ASCII ?? '').toLowerCase())
const offers = offerFile({ rows: ROWS, asciiOnly: ASCII_ONLY })
const INVESTMENTS = offers.investments
const mapping = offers.mapping

// ---------------------------------------------------------------------------------------------
// Children

async function runChild(scenario: string, file: string, dataDir: string): Promise<ChildResult> {
  fs.mkdirSync(dataDir, { recursive: true })
  const entry = FROM_SOURCES ? ['--import', 'tsx', 'bench/processes/import-child.ts'] : [CHILD_JS]
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
  const child = ts.transpileModule(fs.readFileSync('bench/processes/import-child.ts', 'utf8'), {
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
  await offers.generateFiles(csvPath, xlsxPath)
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
