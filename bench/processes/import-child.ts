/*
 * Child process of `npm run bench:import`: runs one scenario in a fresh process, so that its peak RSS
 * (`process.resourceUsage().maxRSS`) is its own, and prints its figures as one JSON line on stdout.
 *
 *   floor <csv>     csv-parse (streaming, arrays) + better-sqlite3: 24 text columns, one transaction,
 *                   one prepared statement, no validation. The database uses the pragmas the service
 *                   uses (WAL, synchronous = FULL), so that the floor pays for the same durability.
 *   import <file>   preview + execute of the file into the empty catalog of DG_DATA_DIR.
 *   reimport <file> the same twice; the second run (every offer `unchanged`) is reported separately.
 * A preview that refuses the file is reported (`invalid`, with its first errors), not executed.
 *
 * The mapping (canonical field → header) comes in BENCH_MAPPING as JSON; BENCH_MODE is patch (the
 * API's default) or snapshot. BENCH_SERVICE names the service's directory: the compiled build in
 * dist/ (the default, what `npm start` runs), or src/ when this file runs through tsx.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { performance } from 'node:perf_hooks'

import Database from 'better-sqlite3'
import { parse } from 'csv-parse'
import { pino } from 'pino'

import type * as App from '../../src/app.js'
import type * as Config from '../../src/config.js'
import type { HostContext } from '../../src/host/context.js'
import type * as ServiceDatabase from '../../src/host/db/database.js'
import type * as ImportExecution from '../../src/imports/execution/execute-offer-import.js'
import type * as ImportPreview from '../../src/imports/preview-offer-import.js'
import type { RowError } from '../../src/offers/validation/validate-offer-row.js'

const service = pathToFileURL(process.env.BENCH_SERVICE ?? fileURLToPath(new URL('../../dist', import.meta.url))).href
const { createHostContext } = (await import(`${service}/app.js`)) as typeof App
const { loadConfig } = (await import(`${service}/config.js`)) as typeof Config
const { openConfiguredDatabase } = (await import(`${service}/host/db/database.js`)) as typeof ServiceDatabase
const { executeOfferImport } = (await import(
  `${service}/imports/execution/execute-offer-import.js`
)) as typeof ImportExecution
const { previewOfferImport } = (await import(`${service}/imports/preview-offer-import.js`)) as typeof ImportPreview

export interface ImportRun {
  previewSeconds: number
  executeSeconds: number
  counts: { create: number; update: number; unchanged: number; archive: number }
  processed: number
  /** Set when the preview refused the file: nothing was executed. */
  invalid?: { errorsTotal: number; errors: RowError[] }
}

export interface ChildResult {
  scenario: string
  rows: number
  seconds: number
  /** Import scenarios only; for `reimport` the first run is `first` and these figures are the second's. */
  previewSeconds?: number
  executeSeconds?: number
  counts?: ImportRun['counts']
  invalid?: ImportRun['invalid']
  first?: ImportRun
  /** RSS when the work starts (modules loaded, database open), in KiB. */
  startRssKib: number
  /** Peak RSS of the whole child process, in KiB. */
  maxRssKib: number
}

const COLUMNS = 24
const seconds = (from: number) => (performance.now() - from) / 1000

async function floor(file: string): Promise<Pick<ChildResult, 'rows' | 'seconds'>> {
  const dataDir = process.env.DG_DATA_DIR
  if (!dataDir) throw new Error('DG_DATA_DIR must name the directory of the floor database')
  const started = performance.now()
  const db = new Database(path.join(dataDir, 'floor.sqlite'))
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  const columns = Array.from({ length: COLUMNS }, (_, i) => `c${i} TEXT`).join(', ')
  db.exec(`CREATE TABLE rows (id INTEGER PRIMARY KEY, ${columns})`)
  const placeholders = Array.from({ length: COLUMNS }, () => '?').join(', ')
  const names = Array.from({ length: COLUMNS }, (_, i) => `c${i}`).join(', ')
  const insert = db.prepare(`INSERT INTO rows (${names}) VALUES (${placeholders})`)
  const parser = fs
    .createReadStream(file, { highWaterMark: 64 * 1024 })
    .pipe(parse({ delimiter: ';', bom: true, from_line: 2 }))
  let rows = 0
  db.exec('BEGIN')
  for await (const record of parser as AsyncIterable<string[]>) {
    insert.run(record)
    rows++
  }
  db.exec('COMMIT')
  db.close()
  return { rows, seconds: seconds(started) }
}

async function importOnce(
  ctx: HostContext,
  file: string,
  mapping: Record<string, string>,
  run: number,
): Promise<{ rows: number; run: ImportRun }> {
  const actor = { type: 'cli' } as const
  const started = performance.now()
  const { id, preview } = await previewOfferImport(ctx, {
    actor,
    operator: { userId: null, name: 'bench' },
    filePath: file,
    fileName: path.basename(file),
    mode: process.env.BENCH_MODE === 'snapshot' ? 'snapshot' : 'patch',
    mapping,
  })
  const previewSeconds = seconds(started)
  if (!preview.valid) {
    const invalid = { errorsTotal: preview.errors_total, errors: preview.errors.slice(0, 5) }
    return {
      rows: preview.rows,
      run: { previewSeconds, executeSeconds: 0, counts: preview.counts, processed: 0, invalid },
    }
  }
  const executeStarted = performance.now()
  const { result } = await executeOfferImport(ctx, {
    actor,
    jobId: id,
    idempotencyKey: `bench-${run}-${id}`,
    confirmArchiving: false,
  })
  return {
    rows: preview.rows,
    run: {
      previewSeconds,
      executeSeconds: seconds(executeStarted),
      counts: preview.counts,
      processed: result.processed,
    },
  }
}

async function runImports(file: string, times: number): Promise<Omit<ChildResult, 'scenario' | 'maxRssKib'>> {
  const mapping = JSON.parse(process.env.BENCH_MAPPING ?? '{}') as Record<string, string>
  const config = loadConfig(process.env)
  const database = openConfiguredDatabase(config)
  const ctx = await createHostContext({ config, database, log: pino({ level: 'silent' }) })
  const startRssKib = Math.round(process.memoryUsage().rss / 1024)
  const runs: ImportRun[] = []
  let rows = 0
  for (let i = 1; i <= times; i++) {
    const done = await importOnce(ctx, file, mapping, i)
    rows = done.rows
    runs.push(done.run)
    if (done.run.invalid) break
  }
  await database.destroy()
  const last = runs[runs.length - 1] as ImportRun
  return {
    rows,
    seconds: last.previewSeconds + last.executeSeconds,
    previewSeconds: last.previewSeconds,
    executeSeconds: last.executeSeconds,
    counts: last.counts,
    ...(last.invalid ? { invalid: last.invalid } : {}),
    ...(runs.length > 1 ? { first: runs[0] } : {}),
    startRssKib,
  }
}

const [scenario = '', file = ''] = process.argv.slice(2)
let result: Omit<ChildResult, 'scenario' | 'maxRssKib'>
if (scenario === 'floor') {
  const startRssKib = Math.round(process.memoryUsage().rss / 1024)
  result = { ...(await floor(file)), startRssKib }
} else if (scenario === 'import' || scenario === 'reimport') {
  result = await runImports(file, scenario === 'import' ? 1 : 2)
} else {
  throw new Error(`usage: import-child.ts floor|import|reimport <file>, got "${scenario}"`)
}
const output: ChildResult = { scenario, ...result, maxRssKib: process.resourceUsage().maxRSS }
process.stdout.write(`${JSON.stringify(output)}\n`)
