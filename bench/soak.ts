/*
 * `npm run bench:soak`: the mixed workload of `bench:mixed` for DURATION seconds
 * (default 600; `10m` and `90s` are understood too) per scenario (BENCH_SCENARIOS, default
 * `postgres-2,sqlite-1`), with the operator cycle repeated: an import of BENCH_ROWS (100,000) rows,
 * alternately the file of bench:mixed and the same offers 1 zł/m² dearer (so every cycle after the
 * first updates every imported offer and writes its price history), then a publication of today,
 * then BENCH_CYCLE_PAUSE_SECONDS (30) of catalog and webhook load only.
 *
 * Sampled every 5 s and printed every 30 s: the resident set size of each service process (from
 * /proc: all of it, and its anonymous part, without the pages of mapped files such as SQLite's map
 * of the database file, which grows with the file) and its main thread's JS heap in use (from its
 * /metrics, read with a scraper's token), and the database connections: on PostgreSQL those of the
 * bench database in pg_stat_activity by state (the harness's own left out), on SQLite the open
 * descriptors of each process on the database files (dg.sqlite, -wal, -shm). Then the RSS slope
 * (least squares, MB per minute) over every sample after the first cycle and over the RSS just
 * before each import (the same point of each cycle, which the sawtooth of the imports does not
 * move), the lowest heap of each cycle (the live heap after a collection: a leak of JavaScript
 * objects shows there), and the verdict: no growth trend (over the later half of the cycles, once
 * the allocator and the bounded caches have grown to their working size: pre-import anonymous RSS
 * slope ≤ 1 MB/min, or at most 20 MB more than at the first of them; with fewer than six cycles
 * after the first, over all of them; with fewer than two, the same over every sample after the
 * first cycle), no leaked connections (never more than the pool allows, none left idle in a
 * transaction 30 s or more, the count between cycles not growing, none once the instances stopped),
 * the cycles completed, only documented responses, and no secret in the logs. `DURATION=30m`
 * separates a trend from the first cycles' growth better than the default ten minutes.
 */
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

import type pg from 'pg'

import { connectionsByState, maintenanceClient, stuckTransactions } from './lib/bench-database.js'
import { sqliteFileOf } from '../src/host/db/database.js'
import { describeScan, scanLogsForSecrets } from './lib/log-secrets.js'
import { describeEvents } from './lib/mixed-workload.js'
import { offerFile } from './lib/offer-file.js'
import { cleanUp, parseScenarios, runScenario } from './lib/scenario.js'
import { openFilesUnder, rssMib, type ServiceProcess } from './lib/service-process.js'
import { linearRegression, table, verdict } from './lib/stats.js'
import { endpointTable, noStallReport, undocumentedCount } from './lib/workload-report.js'

const env = process.env
function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(s|m|min|h)?$/.exec(text.trim())
  if (!match) throw new Error(`DURATION: "${text}" is not a duration (600, 90s, 10m)`)
  const value = Number(match[1])
  return match[2] === 'h' ? value * 3600 : match[2] === 'm' || match[2] === 'min' ? value * 60 : value
}
const SECONDS = parseDuration(env.DURATION ?? env.BENCH_SECONDS ?? '600')
const ROWS = Number(env.BENCH_ROWS ?? 100_000)
const READERS = Number(env.BENCH_READERS ?? 20)
const CYCLE_PAUSE = Number(env.BENCH_CYCLE_PAUSE_SECONDS ?? 30)
const SAMPLE_EVERY = 5
const PRINT_EVERY = 30
const POOL_MAX = 10
const SCENARIOS = parseScenarios(env.BENCH_SCENARIOS ?? 'postgres-2,sqlite-1')

const out = (text = '') => process.stdout.write(`${text}\n`)

// the services' /metrics are read with a scraper's token, as an operator's Prometheus would
const METRICS_TOKEN = randomBytes(24).toString('base64url')
async function heapInUseMib(origin: string): Promise<number> {
  try {
    const response = await fetch(`${origin}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      signal: AbortSignal.timeout(3000),
    })
    const match = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(await response.text())
    return match ? Number(match[1]) / 1024 / 1024 : NaN
  } catch {
    return NaN
  }
}

interface MemorySample {
  t: number
  rss: number[]
  /** The anonymous part of the RSS, without mapped files (SQLite maps its database file, up to 256 MiB). */
  anon: number[]
  /** The main thread's V8 heap in use, MB (from /metrics), to tell a leak from memory the allocator keeps. */
  heap: number[]
  /** PostgreSQL: connections by state; SQLite: open database files per process. */
  connections: Record<string, number>
  total: number
  /** PostgreSQL: connections idle in a transaction without a statement for 30 s or more. */
  stuck: number
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-bench-soak-'))
const files = [0, 100].map((m2PlusCents) => ({ m2PlusCents, file: offerFile({ rows: ROWS, m2PlusCents }) }))
for (const { m2PlusCents, file } of files) await file.generateFiles(path.join(tmp, `oferty-${m2PlusCents}.csv`))
out(
  `Soak: ${SECONDS} s per scenario (${(SECONDS / 60).toFixed(1)} min), ${READERS} catalog readers, webhook stream ` +
    `${env.BENCH_WEBHOOK_RATE ?? 10}/s, cycles of an import of ${ROWS} rows and a publication with ${CYCLE_PAUSE} s between; ` +
    `${os.cpus().length} CPUs, Node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
)

let failed = false
try {
  for (const scenario of SCENARIOS) {
    out(`\n=== ${scenario.name} ===`)
    const samples: MemorySample[] = []
    let instances: ServiceProcess[] = []
    let admin: pg.Client | undefined
    let databaseName = ''
    let sqlitePrefix = ''
    let startedAt = 0
    let sampling: Promise<void> = Promise.resolve()
    const sample = async () => {
      const t = (performance.now() - startedAt) / 1000
      const rss = instances.map((instance) => rssMib(instance.pid))
      const anon = instances.map((instance) => rssMib(instance.pid, 'RssAnon'))
      const heap = await Promise.all(instances.map((instance) => heapInUseMib(instance.origin)))
      let connections: Record<string, number>
      if (admin) connections = await connectionsByState(admin, databaseName).catch(() => ({ unknown: NaN }))
      else
        connections = Object.fromEntries(
          instances.map((instance) => [instance.label, openFilesUnder(instance.pid, sqlitePrefix)]),
        )
      const total = Object.values(connections).reduce((a, b) => a + b, 0)
      const stuck = admin ? await stuckTransactions(admin, databaseName, 30).catch(() => NaN) : 0
      samples.push({ t, rss, anon, heap, connections, total, stuck })
      if (samples.length % (PRINT_EVERY / SAMPLE_EVERY) === 1)
        out(
          `  t=${t.toFixed(0).padStart(4)} s  RSS (anonymous, heap) ${rss.map((r, i) => `${instances[i]?.label} ${r.toFixed(0)} (${anon[i]?.toFixed(0)}, ${heap[i]?.toFixed(0)}) MB`).join(', ')}  ` +
            `${admin ? 'connections' : 'open database files'} ${total} ${JSON.stringify(connections)}`,
        )
    }
    const run = await runScenario(
      scenario,
      {
        readers: READERS,
        offers: Number(env.BENCH_OFFERS ?? 20_000),
        offersPerInvestment: 100,
        catalogRateLimit: Number(env.BENCH_RATE_LIMIT ?? 1_000_000),
        extraEnv: { DG_METRICS_TOKEN: METRICS_TOKEN },
      },
      {
        seconds: SECONDS,
        readers: READERS,
        readerPauseMs: Number(env.BENCH_READER_PAUSE_MS ?? 200),
        webhookRate: Number(env.BENCH_WEBHOOK_RATE ?? 10),
        webhookSenders: 4,
        probeIntervalMs: 20,
        idleSeconds: Number(env.BENCH_IDLE_SECONDS ?? 15),
        files: files.map(({ m2PlusCents, file }) => ({
          csvPath: path.join(tmp, `oferty-${m2PlusCents}.csv`),
          mapping: file.mapping,
          rows: ROWS,
        })),
        cyclePauseSeconds: CYCLE_PAUSE,
        onStart: (at) => (startedAt = at),
        onSecond: (elapsed) => {
          if (Math.round(elapsed) % SAMPLE_EVERY === 0) sampling = sampling.then(sample)
        },
      },
      {
        onInstances: async (started, deployment) => {
          instances = started
          if (deployment.databaseUrl && deployment.databaseName) {
            admin = await maintenanceClient(deployment.databaseUrl)
            databaseName = deployment.databaseName
          } else sqlitePrefix = sqliteFileOf({ dataDir: deployment.dataDir })
        },
      },
    )
    await sampling
    // after the graceful stop (a server process notices a closed connection within moments)
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const afterStop = admin
      ? Object.values(await connectionsByState(admin, databaseName)).reduce((a, b) => a + b, 0)
      : instances.map((instance) => openFilesUnder(instance.pid, sqlitePrefix)).filter(Number.isFinite).length
    await admin?.end()

    const { result } = run
    const cycleCount = result.cycles.length
    const completed = result.cycles.filter((c) => c.executeStatus === 200 && c.publicationStatus === 200).length
    out(`\n${endpointTable(result, run.documented)}`)
    out(
      `\nCycles: ${completed} of ${cycleCount} completed (import + publication); ` +
        result.cycles
          .map(
            (c, i) =>
              `#${i + 1} preview ${c.previewSeconds.toFixed(1)} s, execution ${c.executeSeconds.toFixed(1)} s ` +
              `(${c.result?.created ?? '-'} created, ${c.result?.updated ?? '-'} updated), publication ${c.publicationSeconds.toFixed(1)} s` +
              (c.error ? ` [${c.error}]` : ''),
          )
          .join('; '),
    )
    out(
      `Webhook events: ${describeEvents(result.events)}; ` +
        `instances stopped with exit code(s) ${run.exitCodes.join(', ')}`,
    )
    out(`\nNo stall over the soak (every window of each phase):\n${noStallReport(result).text}`)

    // memory: after the first cycle (warm-up, first import), and at the same point of every cycle
    const previews = result.phases.filter((p) => p.name === 'import preview').map((p) => (p.start - startedAt) / 1000)
    const firstCycleEnd = (result.phases.find((p) => p.name === 'publication')?.end ?? startedAt) - startedAt
    const steady = samples.filter((s) => s.t >= firstCycleEnd / 1000)
    const rows: string[][] = [
      [
        'process',
        'first MB',
        'last MB',
        'max MB',
        'slope MB/min (r²)',
        'file-backed MB',
        'anonymous before each import, MB',
        'slope',
        'later half: slope',
        'lowest heap of each cycle, MB',
        'heap slope',
        'result',
      ],
    ]
    // the last sample before each preview started (after a pause of catalog and webhook load only)
    const baselines = previews
      .slice(1)
      .map((t) => [...samples].reverse().find((s) => s.t <= t))
      .filter((s): s is MemorySample => s !== undefined)
    // a leak grows for as long as the load runs; the allocator's arenas and the bounded caches grow
    // over the first cycles and then stay (30 minutes on 2026-11-28: one instance 236 → ~400 MB in
    // five cycles, then flat for twenty), so the trend is judged over the later half of the cycles
    const laterHalf = baselines.length >= 6 ? baselines.slice(Math.floor(baselines.length / 2)) : baselines
    // the lowest JS heap in use between two imports is the live heap after a collection: a leak of
    // JavaScript objects shows there, memory kept by the allocator only in the RSS
    const cycleWindows = previews.slice(1).map((t, k) => [t, previews[k + 2] ?? Infinity] as const)
    let memoryOk = true
    instances.forEach((instance, i) => {
      const series = steady.filter((s) => Number.isFinite(s.rss[i]))
      const all = linearRegression(
        series.map((s) => s.t / 60),
        series.map((s) => s.rss[i] as number),
      )
      // judged on the anonymous part: what the process itself holds, whatever the file maps hold
      const rssAt = (list: MemorySample[]) => list.map((s) => s.anon[i] as number)
      const fileBacked = (s: MemorySample | undefined) => ((s?.rss[i] ?? NaN) - (s?.anon[i] ?? NaN)).toFixed(0)
      const base = linearRegression(
        baselines.map((s) => s.t / 60),
        rssAt(baselines),
      )
      const later = linearRegression(
        laterHalf.map((s) => s.t / 60),
        rssAt(laterHalf),
      )
      const lowestHeaps = cycleWindows
        .map(([from, to]) => {
          const inCycle = samples.filter((s) => s.t >= from && s.t < to && Number.isFinite(s.heap[i]))
          return inCycle.length === 0
            ? undefined
            : { t: from, mb: Math.min(...inCycle.map((s) => s.heap[i] as number)) }
        })
        .filter((h): h is { t: number; mb: number } => h !== undefined)
      const heap = linearRegression(
        lowestHeaps.map((h) => h.t / 60),
        lowestHeaps.map((h) => h.mb),
      )
      const firstLater = rssAt(laterHalf)[0] ?? NaN
      const lastLater = rssAt(laterHalf).at(-1) ?? NaN
      const anonSeries = rssAt(series)
      const anonAll = linearRegression(
        series.map((s) => s.t / 60),
        anonSeries,
      )
      // with two cycles or more, the RSS at the same point of each; with fewer (a cycle longer than
      // the run), every sample after the first cycle, whose slope the sawtooth of an import blurs
      const ok =
        laterHalf.length >= 2
          ? later.slope <= 1 || lastLater - firstLater <= 20
          : series.length >= 10 &&
            (anonAll.slope <= 1 || (anonSeries[anonSeries.length - 1] ?? 0) - (anonSeries[0] ?? 0) <= 20)
      if (!ok) memoryOk = false
      rows.push([
        `${instance.label} (pid ${instance.pid})`,
        (series[0]?.rss[i] ?? NaN).toFixed(0),
        (series[series.length - 1]?.rss[i] ?? NaN).toFixed(0),
        Math.max(...samples.map((s) => s.rss[i] ?? 0)).toFixed(0),
        `${all.slope.toFixed(2)} (${all.r2.toFixed(2)})`,
        `${fileBacked(series[0])} → ${fileBacked(series[series.length - 1])}`,
        rssAt(baselines)
          .map((mb) => mb.toFixed(0))
          .join(' → ') || '-',
        baselines.length < 2 ? 'too few cycles: all samples' : base.slope.toFixed(2),
        laterHalf.length < 2 ? '-' : `${later.slope.toFixed(2)} (${laterHalf.length} cycles)`,
        lowestHeaps.map((h) => h.mb.toFixed(0)).join(' → ') || '-',
        lowestHeaps.length < 2 ? '-' : heap.slope.toFixed(2),
        verdict(ok),
      ])
    })
    out(
      `\nMemory after the first cycle, MB (RSS; its file-backed part; its anonymous part, on which the trend is judged; ` +
        `the main thread's JS heap in use), slopes by least squares in MB/min:\n${table(rows)}`,
    )

    const totals = samples.map((s) => s.total).filter(Number.isFinite)
    const stuckInTransaction = samples.some((s) => s.stuck > 0)
    const betweenCycles = previews
      .map((t) => [...samples].reverse().find((s) => s.t <= t)?.total)
      .filter((n): n is number => n !== undefined && Number.isFinite(n))
    // the pools, plus the connection of the thread that runs a large PostgreSQL execution (one at
    // a time: the import lock), which docs/operations/install.md tells operators to count in max_connections
    const connectionLimit = admin ? POOL_MAX * instances.length + 1 : Infinity
    const connectionsOk =
      Math.max(...totals) <= connectionLimit &&
      !stuckInTransaction &&
      afterStop === 0 &&
      (betweenCycles.length < 2 ||
        (betweenCycles[betweenCycles.length - 1] as number) <= Math.max(...betweenCycles.slice(0, 2)))
    out(
      `\n${admin ? `Connections to ${databaseName} (pg_stat_activity)` : 'Open database files (dg.sqlite, -wal, -shm) of the processes'}: ` +
        `min ${Math.min(...totals)}, max ${Math.max(...totals)}${admin ? ` (pool limit ${connectionLimit})` : ''}, ` +
        `before each import ${betweenCycles.join(' → ') || '-'}, ` +
        `${admin ? `idle in a transaction for 30 s or more: ${stuckInTransaction ? 'YES' : 'never'}, ` : ''}` +
        `after the instances stopped: ${afterStop}: ${verdict(connectionsOk)}`,
    )
    const undocumented = undocumentedCount(result, run.documented)
    const scan = await scanLogsForSecrets(
      run.logFiles,
      [...run.deployment.credentials, METRICS_TOKEN],
      result.signatures,
    )
    out(`Only documented responses: ${undocumented === 0 ? 'PASS' : `MISS (${undocumented} undocumented)`}`)
    out(describeScan(scan))
    const ok =
      memoryOk &&
      connectionsOk &&
      completed === cycleCount &&
      cycleCount > 0 &&
      undocumented === 0 &&
      scan.findings.size === 0
    out(
      `Verdict (${scenario.name}): ${ok ? 'PASS' : 'MISS'} — memory ${memoryOk ? 'without' : 'WITH'} a growth trend, ` +
        `connections ${connectionsOk ? 'without' : 'WITH'} a leak, ${completed}/${cycleCount} cycles completed`,
    )
    if (!ok) failed = true
    const kept = await cleanUp(run.deployment)
    if (kept) out(kept)
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
if (failed) process.exitCode = 1
