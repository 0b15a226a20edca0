/*
 * `npm run bench:mixed`: BENCH_SECONDS (default 60) of mixed
 * work against the service run as in production (dist/main.js in child processes), in turn on
 * PostgreSQL with one instance, on PostgreSQL with two instances sharing the database and the data
 * folder, and on the SQLite default with one instance (BENCH_SCENARIOS, default
 * `postgres-1,postgres-2,sqlite-1`). PostgreSQL runs in its own database, `dg_bench` (see
 * bench/lib/bench-database.ts), created afresh for each scenario and dropped afterwards.
 *
 * The workload (bench/lib/mixed-workload.ts): 20 catalog readers (BENCH_READERS), each with its own
 * application password, pausing BENCH_READER_PAUSE_MS (200) between requests: varied filtered
 * lists, offer details, price histories, and lists again with If-None-Match; a signed webhook
 * stream of BENCH_WEBHOOK_RATE (10) price changes a second from 4 senders; GET /healthz on every
 * instance every 20 ms; and, after BENCH_IDLE_SECONDS (15) of that, one large import (BENCH_ROWS,
 * 100,000 new offers in a CSV: multipart preview on the first instance, execution on the next)
 * and, BENCH_SETTLE_SECONDS (10) after it committed, a publication of today. The catalog holds
 * BENCH_OFFERS (20,000) offers first.
 *
 * Printed per scenario: per endpoint the requests, throughput, p50/p99/max and every status
 * (successes, 429 apart, documented refusals, and anything the endpoint's OpenAPI description does
 * not list, a 500 or a dropped connection, which is an error); the import's and the publication's
 * durations; the no-stall figures: catalog p99 while idle, during the execution and during the
 * publication, their ratio (goal ≤ 3×) to idle, the publication's to the settling time before it
 * (when the catalog already holds the imported offers), and the slowest catalog request of each
 * phase (goal ≤ 250 ms), the /healthz probe, and the harness's own event-loop lag (a stall there
 * would be the harness's, not the service's); and a search of the service logs for secrets.
 * The catalog rate limit is raised to BENCH_RATE_LIMIT (1,000,000 a minute) so that the readers
 * measure the service rather than the limit; 429 answers, should any come, are counted apart.
 *
 * Companies (`tenants-sqlite`, `tenants-postgres`): one instance serving the first company and two
 * more made with `dg tenant create` (`a` and `b`, reached at /t/{slug}/ and seeded alike). Company A
 * gets the webhook stream, the import and the publication, and a burst of catalog lists from one of
 * its readers at BENCH_BURST_RATE (30) a second; company B has the catalog readers, whose figures
 * are the no-stall figures above. The rate limit is BENCH_RATE_LIMIT (400 a minute here), so that
 * A's burst is refused with 429 for most of each minute while B's readers stay below it; A's
 * bursting reader and B's first reader have the same login and user id, and ask from the same
 * address, so that the limit's key is the same in both companies: any 429 of B's readers while A
 * was limited is a bucket shared across companies.
 * The default load (about 100 catalog requests and 10 webhook events a second) is meant to leave
 * a 2-core machine room, so that a stall shows as a stall and not as the queue of a saturated
 * machine; raise it with the variables above to find the saturation point.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

import { describeScan, scanLogsForSecrets } from './lib/log-secrets.js'
import { CATALOG_ENDPOINTS, describeEvents, type WorkloadResult } from './lib/mixed-workload.js'
import { offerFile } from './lib/offer-file.js'
import { cleanUp, parseScenarios, runScenario, type ScenarioRun } from './lib/scenario.js'
import { ms, table, verdict } from './lib/stats.js'
import { endpointTable, noStallReport, phaseFigures, undocumentedCount } from './lib/workload-report.js'

const env = process.env
const SECONDS = Number(env.BENCH_SECONDS ?? 60)
const ROWS = Number(env.BENCH_ROWS ?? 100_000)
const READERS = Number(env.BENCH_READERS ?? 20)
const SCENARIOS = parseScenarios(env.BENCH_SCENARIOS ?? 'postgres-1,postgres-2,sqlite-1')

const out = (text = '') => process.stdout.write(`${text}\n`)

interface CompanyIsolation {
  burst: number
  burstLimited: number
  /** Seconds between A's first and last 429 of each rate-limit minute, summed. */
  limitedSeconds: number
  readerRequests: number
  readerLimited: number
  readerRequestsWhileLimited: number
  readerLimitedWhileLimited: number
}

/** A's burst against B's readers: were B's readers ever refused, and while A was being refused? */
function companyIsolation(result: WorkloadResult): CompanyIsolation {
  const burst = result.samples.filter((s) => s.endpoint === 'catalog burst')
  const readers = result.samples.filter((s) => CATALOG_ENDPOINTS.includes(s.endpoint))
  // the limit counts per minute of the clock: one window of A's refusals a minute
  const windows = new Map<number, { start: number; end: number }>()
  const minuteOf = (t: number) => Math.floor((performance.timeOrigin + t) / 60_000)
  for (const s of burst.filter((b) => b.status === 429)) {
    const minute = minuteOf(s.start)
    const window = windows.get(minute)
    if (!window) windows.set(minute, { start: s.start, end: s.end })
    else window.end = Math.max(window.end, s.end)
  }
  const whileLimited = readers.filter((s) => [...windows.values()].some((w) => s.start < w.end && s.end > w.start))
  return {
    burst: burst.length,
    burstLimited: burst.filter((s) => s.status === 429).length,
    limitedSeconds: [...windows.values()].reduce((sum, w) => sum + (w.end - w.start) / 1000, 0),
    readerRequests: readers.length,
    readerLimited: readers.filter((s) => s.status === 429).length,
    readerRequestsWhileLimited: whileLimited.length,
    readerLimitedWhileLimited: whileLimited.filter((s) => s.status === 429).length,
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-bench-mixed-'))
const csvPath = path.join(tmp, 'oferty.csv')
const file = offerFile({ rows: ROWS })
const generated = performance.now()
await file.generateFiles(csvPath)
out(
  `Mixed benchmark: ${SECONDS} s per scenario, ${READERS} catalog readers, webhook stream ${env.BENCH_WEBHOOK_RATE ?? 10}/s, ` +
    `import of ${ROWS} rows (${(fs.statSync(csvPath).size / 1048576).toFixed(1)} MB CSV, generated in ` +
    `${((performance.now() - generated) / 1000).toFixed(1)} s) and a publication; ${os.cpus().length} CPUs, ` +
    `Node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
)

const summary: string[][] = [
  [
    'scenario',
    'import',
    'publication',
    'idle p99',
    'exec p99',
    'idle after p99',
    'pub p99',
    'slowest',
    'no stall',
    'documented only',
    '429 B / A',
  ],
]
let failed = false
try {
  for (const scenario of SCENARIOS) {
    out(`\n=== ${scenario.name} ===`)
    const run: ScenarioRun = await runScenario(
      scenario,
      {
        readers: READERS,
        offers: Number(env.BENCH_OFFERS ?? 20_000),
        offersPerInvestment: 100,
        catalogRateLimit: Number(env.BENCH_RATE_LIMIT ?? (scenario.tenants ? 400 : 1_000_000)),
      },
      {
        seconds: SECONDS,
        readers: READERS,
        readerPauseMs: Number(env.BENCH_READER_PAUSE_MS ?? 200),
        webhookRate: Number(env.BENCH_WEBHOOK_RATE ?? 10),
        webhookSenders: 4,
        probeIntervalMs: 20,
        idleSeconds: Number(env.BENCH_IDLE_SECONDS ?? Math.min(15, SECONDS / 4)),
        files: [{ csvPath, mapping: file.mapping, rows: ROWS }],
        cyclePauseSeconds: 0,
        settleSeconds: Number(env.BENCH_SETTLE_SECONDS ?? 10),
      },
    )
    const { result } = run
    out(`\n${endpointTable(result, run.documented)}`)
    const cycle = result.cycles[0]
    const importDone = cycle?.executeStatus === 200 && run.importedOffers === ROWS
    const publicationDone = cycle?.publicationStatus === 200
    out(
      `\nImport: preview ${cycle?.previewSeconds.toFixed(1)} s (${cycle?.previewStatus}), execution ` +
        `${cycle?.executeSeconds.toFixed(1)} s (${cycle?.executeStatus}), result ${JSON.stringify(cycle?.result ?? {})}; ` +
        `${run.importedOffers} imported offers in the database (${run.totalOffers} in all): ${importDone ? 'complete' : 'NOT COMPLETE'}`,
    )
    out(
      `Publication: ${cycle?.publicationSeconds.toFixed(1)} s (${cycle?.publicationStatus}), ${cycle?.publishedRows ?? '-'} rows: ` +
        `${publicationDone ? 'complete' : 'NOT COMPLETE'}${cycle?.error ? `; ${cycle.error}` : ''}`,
    )
    out(
      `Webhook events: ${describeEvents(result.events)}. Run took ${((result.endedAt - result.startedAt) / 1000).toFixed(1)} s; ` +
        `instances stopped with exit code(s) ${run.exitCodes.join(', ')} (SIGTERM, graceful shutdown)`,
    )
    out(`\nNo stall (catalog requests overlapping each phase; /healthz probe; harness lag):`)
    const stall = noStallReport(result)
    out(stall.text)
    let isolation: CompanyIsolation | undefined
    if (scenario.tenants) {
      isolation = companyIsolation(result)
      out(
        `\nCompanies (${run.operatorCompany.prefix}/ imports, publishes and bursts; ${run.readerCompany.prefix}/ is read):`,
      )
      out(
        `  A's burst: ${isolation.burst} catalog lists at ${scenario.tenants.burstRate}/s as reader-0 (user id ` +
          `${run.operatorCompany.readerUserIds[0]}), ${isolation.burstLimited} answered 429` +
          (isolation.limitedSeconds > 0
            ? `, A limited for ${isolation.limitedSeconds.toFixed(1)} s (between its first and last 429 of each minute)`
            : ''),
      )
      out(
        `  B's readers: ${isolation.readerRequests} catalog requests, ${isolation.readerLimited} answered 429, ` +
          `${isolation.readerRequestsWhileLimited} of them while A was limited (${isolation.readerLimitedWhileLimited} 429); ` +
          `B's reader-0 has user id ${run.readerCompany.readerUserIds[0]}, the same address: ` +
          `${isolation.readerLimited === 0 && isolation.burstLimited > 0 ? 'PASS' : 'MISS'}`,
      )
      if (isolation.burstLimited === 0)
        out(`  A's burst was never limited: raise BENCH_BURST_RATE or lower BENCH_RATE_LIMIT`)
    }
    const undocumented = undocumentedCount(result, run.documented)
    out(`Only documented responses: ${undocumented === 0 ? 'PASS' : `MISS (${undocumented} undocumented)`}`)
    const credentials = [
      ...new Set([...run.deployment.credentials, ...run.readerCompany.credentials, ...run.operatorCompany.credentials]),
    ]
    const scan = await scanLogsForSecrets(run.logFiles, credentials, result.signatures)
    out(describeScan(scan))
    const isolated = !isolation || (isolation.readerLimited === 0 && isolation.burstLimited > 0)
    if (scan.findings.size > 0 || undocumented > 0 || !importDone || !publicationDone || !isolated) failed = true
    const figures = phaseFigures(result)
    const phase = (name: string) => ms(figures.find((f) => f.phase === name)?.catalog.p99 ?? NaN)
    const slowest = Math.max(...figures.map((f) => f.catalog.max))
    summary.push([
      scenario.name,
      importDone ? `${cycle?.executeSeconds.toFixed(1)} s` : 'FAILED',
      publicationDone ? `${cycle?.publicationSeconds.toFixed(1)} s` : 'FAILED',
      phase('idle'),
      phase('import execution'),
      phase('idle after import'),
      phase('publication'),
      ms(slowest),
      verdict(stall.passed),
      verdict(undocumented === 0),
      isolation ? `${isolation.readerLimited} / ${isolation.burstLimited}` : '-',
    ])
    const kept = await cleanUp(run.deployment)
    if (kept) out(kept)
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}

out(
  `\nSummary (p99 of catalog requests per phase, ms; goals: execution ≤ 3× idle, publication ≤ 3× idle after import, ≤ 250 ms slowest; ` +
    `companies: the readers' company B, its 429s / those of A's burst):\n${table(summary)}`,
)
if (failed) process.exitCode = 1
