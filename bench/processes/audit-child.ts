/*
 * Child process of `npm run bench:audit`: opens the seeded database of DG_DATA_DIR, runs the audit
 * of everything published as the nightly run does (auditPublications with rulesOnlyForDay, the
 * latest day) and, in the same process, the floor: every stored day file and each current XML read
 * and hashed, nothing parsed (median of 3). Then the nightly audit again (warm), the audit on demand (every file's rows
 * checked too, informational), and the history damaged — a tampered file of an early day, a deleted
 * file of another day, a title changed in one XML (its .md5 and manifest rewritten to match, so
 * only the comparison with the title first published can tell) — audited once more as at night,
 * reporting what was found. Prints one JSON line; auditMaxRssKib is the peak when the first nightly
 * audit returned, maxRssKib the whole process's.
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

import { pino } from 'pino'

import { createHostContext } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { openConfiguredDatabase } from '../../src/host/db/database.js'
import { auditPublications } from '../../src/publication/audit/publication-audit.js'
import { datasetStore, listDatasets } from '../../src/publication/daily-file/datasets.js'
import { md5Hex } from '../../src/publication/daily-file/harvester-xml.js'
import { MD5_NAME, type PublicationStore, XML_NAME } from '../../src/publication/publication-store.js'

export interface AuditChildResult {
  /** The nightly audit, first run in the process. */
  auditSeconds: number
  auditCpuSeconds: number
  floorSeconds: number
  warmSeconds: number
  /** The audit on demand: the rows of every file checked again too. */
  onDemandSeconds: number
  damagedSeconds: number
  filesChecked: number
  cleanErrors: number
  /** Every error the audit of the damaged history found, by code and day. */
  found: { code: string; day: string | null; file: string | null }[]
  /** Each of the three kinds of damage was named with its day. */
  detected: boolean
  /** RSS when the work starts (modules loaded, database open), in KiB. */
  startRssKib: number
  /** Peak RSS when the first nightly audit returned (before the floor and the other audits), in KiB. */
  auditMaxRssKib: number
  /** Peak RSS of the whole child process, in KiB. */
  maxRssKib: number
}

const seconds = (from: number) => (performance.now() - from) / 1000

/**
 * What no audit that proves the bytes can skip: every stored day file read and hashed once, and
 * each current XML read and hashed; nothing parsed, no manifest read.
 */
async function floor(stores: PublicationStore[]): Promise<number> {
  const started = performance.now()
  for (const store of stores) {
    const current = (await fs.readFile(path.join(store.root, 'current'), 'utf8')).trim()
    createHash('md5')
      .update(await fs.readFile(path.join(store.versionDir(current), XML_NAME)))
      .digest('hex')
    for (const name of await fs.readdir(store.filesDir))
      createHash('md5')
        .update(await fs.readFile(path.join(store.filesDir, name)))
        .digest('hex')
  }
  return seconds(started)
}

const config = loadConfig(process.env)
const database = openConfiguredDatabase(config)
const ctx = await createHostContext({ config, database, log: pino({ level: 'silent' }) })
const startRssKib = Math.round(process.memoryUsage().rss / 1024)
const datasets = await listDatasets(ctx)
const stores = datasets.map((dataset) => datasetStore(ctx, dataset))
let lastDay = ''
for (const store of stores)
  for (const day of (await store.currentManifest())?.days ?? []) if (day.date > lastDay) lastDay = day.date
const nightly = { rulesOnlyForDay: lastDay }

const cpuBefore = process.cpuUsage()
const started = performance.now()
const clean = await auditPublications(ctx, nightly)
const auditSeconds = seconds(started)
const cpu = process.cpuUsage(cpuBefore)
const auditMaxRssKib = process.resourceUsage().maxRSS

const floors: number[] = []
for (let i = 0; i < 3; i++) floors.push(await floor(stores))
floors.sort((a, b) => a - b)

const warmStarted = performance.now()
await auditPublications(ctx, nightly)
const warmSeconds = seconds(warmStarted)

const onDemandStarted = performance.now()
const onDemand = await auditPublications(ctx)
const onDemandSeconds = seconds(onDemandStarted)

// the damage: three datasets, three days
const pick = (index: number) => stores[Math.min(index, stores.length - 1)] as PublicationStore
const manifestOf = async (store: PublicationStore) => {
  const manifest = await store.currentManifest()
  if (!manifest) throw new Error(`no manifest in ${store.root}`)
  return manifest
}
const tamperedStore = pick(2)
const tampered = (await manifestOf(tamperedStore)).days[1]
if (!tampered) throw new Error('too few days to damage')
{
  const file = tamperedStore.csvPath(tampered.md5)
  const text = await fs.readFile(file, 'utf8')
  // one price a little lower, as a hand edit on the server would leave it
  await fs.writeFile(
    file,
    text.replace(/;(\d+)\.00;/, (_m, amount: string) => `;${Number(amount) - 1000}.00;`),
  )
}
const deletedStore = pick(4)
const deleted = (await manifestOf(deletedStore)).days[2]
if (!deleted) throw new Error('too few days to damage')
await fs.rm(deletedStore.csvPath(deleted.md5))
const retitledStore = pick(6)
const retitledManifest = await manifestOf(retitledStore)
const retitled = retitledManifest.days[9] ?? retitledManifest.days[0]
if (!retitled?.title_pl) throw new Error('no recorded title to change')
{
  const dir = retitledStore.versionDir(retitledManifest.version)
  const xml = (await fs.readFile(path.join(dir, XML_NAME), 'utf8')).replace(
    `<polish>${retitled.title_pl}</polish>`,
    `<polish>${retitled.title_pl.replace(/ \d{4}-\d{2}-\d{2}$/, '')} (poprawione)</polish>`,
  )
  const md5 = md5Hex(xml)
  await fs.writeFile(path.join(dir, XML_NAME), xml)
  await fs.writeFile(path.join(dir, MD5_NAME), md5)
  await fs.writeFile(
    path.join(dir, 'manifest.json'),
    JSON.stringify({ ...retitledManifest, xml_md5: md5, xml_bytes: Buffer.byteLength(xml) }, null, 1),
  )
}
const damagedStarted = performance.now()
const damaged = await auditPublications(ctx, nightly)
const damagedSeconds = seconds(damagedStarted)
const found = damaged.datasets.flatMap((d) =>
  d.problems.filter((p) => p.severity === 'error').map((p) => ({ code: p.code, day: p.day, file: p.file })),
)
const named = (code: string, day: { date: string; file_name: string }) =>
  found.some((f) => f.code === code && f.day === day.date && f.file === day.file_name)
const detected =
  named('audit_file_checksum_mismatch', tampered) &&
  named('audit_file_missing', deleted) &&
  named('audit_resource_title_changed', retitled)

await database.destroy()
const result: AuditChildResult = {
  auditSeconds,
  auditCpuSeconds: (cpu.user + cpu.system) / 1e6,
  floorSeconds: floors[1] as number,
  warmSeconds,
  onDemandSeconds,
  damagedSeconds,
  filesChecked: clean.datasets.reduce((n, d) => n + d.files_checked, 0),
  cleanErrors: clean.errors + onDemand.errors,
  found: found.slice(0, 20),
  detected,
  startRssKib,
  auditMaxRssKib,
  maxRssKib: process.resourceUsage().maxRSS,
}
process.stdout.write(`${JSON.stringify(result)}\n`)
