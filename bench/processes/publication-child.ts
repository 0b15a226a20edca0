/*
 * Child process of `npm run bench:publication`: opens the seeded database of DG_DATA_DIR, runs
 * publish() for the date given as argument and, in the same process right after, the floor (the
 * same CSV bytes written to a new file with one stream write, median of 3), then republishes the
 * same day once more (warm, informational). Prints one JSON line; maxRSS is this process's peak.
 * The floor's copy of the CSV is read for the floor only and dropped before the warm republish,
 * so the process's peak is the publication's, not the harness's.
 */
import fs from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

import { pino } from 'pino'

import { createHostContext } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { openConfiguredDatabase } from '../../src/host/db/database.js'
import { publicationStore } from '../../src/publication/publication-store.js'
import { publish } from '../../src/publication/publishing/publish.js'

export interface ChildResult {
  date: string
  publishSeconds: number
  floorSeconds: number
  warmSeconds: number
  rows: number
  csvBytes: number
  xmlBytes: number
  resources: number
  /** RSS when the work starts (modules loaded, database open), in KiB. */
  startRssKib: number
  /** Peak RSS of the whole child process, in KiB. */
  maxRssKib: number
  /** Peak RSS when the first publish() returned (before the floor and the warm republish), in KiB. */
  publishMaxRssKib: number
  /** CPU time of the first publish(), all threads of the process (xmllint's worker included), in seconds. */
  publishCpuSeconds: number
}

const seconds = (from: number) => (performance.now() - from) / 1000

async function singleStreamWrite(file: string, bytes: Buffer): Promise<number> {
  const started = performance.now()
  const stream = fs.createWriteStream(file)
  await new Promise<void>((resolve, reject) => {
    stream.once('error', reject)
    stream.once('finish', resolve)
    stream.end(bytes)
  })
  return seconds(started)
}

const date = process.argv[2]
if (!date) throw new Error('usage: publication-child.ts YYYY-MM-DD')
const config = loadConfig(process.env)
const database = openConfiguredDatabase(config)
const ctx = await createHostContext({ config, database, log: pino({ level: 'silent' }) })
const startRssKib = Math.round(process.memoryUsage().rss / 1024)

const cpuBefore = process.cpuUsage()
const started = performance.now()
const outcome = await publish(ctx, { date, trigger: 'cli', actor: { type: 'cli' } })
const publishSeconds = seconds(started)
const cpu = process.cpuUsage(cpuBefore)
const publishMaxRssKib = process.resourceUsage().maxRSS

const store = publicationStore(ctx)
const floorFile = path.join(config.dataDir, 'floor.csv')
const floors: number[] = []
let csvBytes = 0
{
  const csv = fs.readFileSync(store.csvPath(outcome.csv.md5))
  csvBytes = csv.length
  for (let i = 0; i < 3; i++) {
    fs.rmSync(floorFile, { force: true })
    floors.push(await singleStreamWrite(floorFile, csv))
  }
}
floors.sort((a, b) => a - b)

const warmStarted = performance.now()
await publish(ctx, { date, trigger: 'cli', actor: { type: 'cli' } })
const warmSeconds = seconds(warmStarted)

const manifest = await store.currentManifest()
await database.destroy()
const result: ChildResult = {
  date,
  publishSeconds,
  floorSeconds: floors[1] as number,
  warmSeconds,
  rows: outcome.record_count,
  csvBytes,
  xmlBytes: manifest?.xml_bytes ?? 0,
  resources: outcome.xml.resources,
  startRssKib,
  maxRssKib: process.resourceUsage().maxRSS,
  publishMaxRssKib,
  publishCpuSeconds: (cpu.user + cpu.system) / 1e6,
}
process.stdout.write(`${JSON.stringify(result)}\n`)
