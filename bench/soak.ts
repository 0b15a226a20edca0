/*
 * `npm run bench:soak` (issue 18, "Soak"): the mixed workload of `bench:mixed` for DURATION seconds
 * (default 600; `10m` and `90s` are understood too) per scenario (BENCH_SCENARIOS, default
 * `postgres-2,sqlite-1`), with the operator cycle repeated: an import of BENCH_ROWS (100,000) rows,
 * alternately the file of bench:mixed and the same offers 1 zł/m² dearer (so every cycle after the
 * first updates every imported offer and writes its price history), then a publication of today,
 * then BENCH_CYCLE_PAUSE_SECONDS (30) of catalog and webhook load only.
 *
 * Sampled every 5 s and printed every 30 s: the resident set size of each service process (from
 * /proc), and the database connections: on PostgreSQL those of the bench database in
 * pg_stat_activity by state (the harness's own left out), on SQLite the open descriptors of each
 * process on the database files (dg.sqlite, -wal, -shm). Then the RSS slope (least squares, MB per
 * minute) over every sample after the first cycle and over the RSS just before each import (the
 * same point of each cycle, which the sawtooth of the imports does not move), and the verdict:
 * no growth trend (pre-import RSS slope ≤ 1 MB/min, or at most 20 MB more than at the first
 * cycle; with fewer than two cycles after the first, the same over every sample after it), no leaked connections (never more than the pool allows, none left idle in a transaction
 * 30 s or more, the count between cycles not growing, none once the instances stopped),
 * the cycles completed, only documented responses, and no secret in the logs.
 */
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

interface MemorySample {
  t: number
  rss: number[]
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
      let connections: Record<string, number>
      if (admin) connections = await connectionsByState(admin, databaseName).catch(() => ({ unknown: NaN }))
      else
        connections = Object.fromEntries(
          instances.map((instance) => [instance.label, openFilesUnder(instance.pid, sqlitePrefix)]),
        )
      const total = Object.values(connections).reduce((a, b) => a + b, 0)
      const stuck = admin ? await stuckTransactions(admin, databaseName, 30).catch(() => NaN) : 0
      samples.push({ t, rss, connections, total, stuck })
      if (samples.length % (PRINT_EVERY / SAMPLE_EVERY) === 1)
        out(
          `  t=${t.toFixed(0).padStart(4)} s  RSS ${rss.map((r, i) => `${instances[i]?.label} ${r.toFixed(0)} MB`).join(', ')}  ` +
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
        'before each import, MB',
        'slope MB/min',
        'result',
      ],
    ]
    let memoryOk = true
    instances.forEach((instance, i) => {
      const series = steady.filter((s) => Number.isFinite(s.rss[i]))
      const all = linearRegression(
        series.map((s) => s.t / 60),
        series.map((s) => s.rss[i] as number),
      )
      // the last sample before each preview started (after a pause of catalog and webhook load only)
      const baselines = previews
        .slice(1)
        .map((t) => [...samples].reverse().find((s) => s.t <= t))
        .filter((s): s is MemorySample => s !== undefined)
      const base = linearRegression(
        baselines.map((s) => s.t / 60),
        baselines.map((s) => s.rss[i] as number),
      )
      const firstBase = baselines[0]?.rss[i] ?? NaN
      const lastBase = baselines[baselines.length - 1]?.rss[i] ?? NaN
      // with two cycles or more, the RSS at the same point of each; with fewer (a cycle longer than
      // the run), every sample after the first cycle, whose slope the sawtooth of an import blurs
      const ok =
        baselines.length >= 2
          ? base.slope <= 1 || lastBase - firstBase <= 20
          : series.length >= 10 &&
            (all.slope <= 1 || (series[series.length - 1]?.rss[i] ?? 0) - (series[0]?.rss[i] ?? 0) <= 20)
      if (!ok) memoryOk = false
      rows.push([
        `${instance.label} (pid ${instance.pid})`,
        (series[0]?.rss[i] ?? NaN).toFixed(0),
        (series[series.length - 1]?.rss[i] ?? NaN).toFixed(0),
        Math.max(...samples.map((s) => s.rss[i] ?? 0)).toFixed(0),
        `${all.slope.toFixed(2)} (${all.r2.toFixed(2)})`,
        baselines.map((s) => (s.rss[i] as number).toFixed(0)).join(' → ') || '-',
        baselines.length < 2 ? 'too few cycles: all samples' : base.slope.toFixed(2),
        verdict(ok),
      ])
    })
    out(`\nMemory (RSS after the first cycle; slope by least squares):\n${table(rows)}`)

    const totals = samples.map((s) => s.total).filter(Number.isFinite)
    const stuckInTransaction = samples.some((s) => s.stuck > 0)
    const betweenCycles = previews
      .map((t) => [...samples].reverse().find((s) => s.t <= t)?.total)
      .filter((n): n is number => n !== undefined && Number.isFinite(n))
    // the pools, plus the connection of the thread that runs a large PostgreSQL execution (one at
    // a time: the import lock), which the README tells operators to count in max_connections
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
    const scan = await scanLogsForSecrets(run.logFiles, run.deployment.credentials, result.signatures)
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
