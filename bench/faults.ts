/*
 * `npm run bench:faults`: two instances of the service (dist/main.js, child
 * processes) on the PostgreSQL bench database (bench/lib/bench-database.ts) and one data folder,
 * under catalog, webhook and /healthz load (bench/lib/mixed-workload.ts), and three faults:
 *
 * 1. SIGKILL of instance A during a webhook storm (up to BENCH_STORM_RATE, 300 events/s, from
 *    BENCH_STORM_SENDERS, 32, senders, each waiting for its answer before its next event, that retry as the sender algorithm (docs/integration/webhook.md) tells: the same key and body, a new nonce, on the other
 *    instance when the connection failed). B must keep serving. Afterwards, checked against the
 *    senders' log of accepted events (2xx) and the database: every accepted event is executed
 *    exactly once (one completed execution and exactly one price record per price of its offer
 *    with its value), no event is applied twice, no execution is left `running`.
 * 2. SIGKILL of instance A (restarted) during the execution of a BENCH_ROWS (100,000) row import,
 *    BENCH_KILL_AFTER_MS (1,500) after the job turned `running`. Right after: no offer of the file
 *    in the catalog and the job not completed (absent), the lock still held by the dead process
 *    but only until its lease ends. Then the client retries the execution with the same
 *    Idempotency-Key on B: the whole file or nothing (offer count, job status). Then no lock in the
 *    database outlives its lease: every lock row belongs to a live process or has expired, and no
 *    row of a killed process was renewed after its death.
 * 3. The database connections cut under load: once (pg_terminate_backend of every backend of the
 *    bench database), then the database made unavailable for BENCH_OUTAGE_SECONDS (10) (new
 *    connections refused and every backend terminated) and given back. Printed: each status seen
 *    per endpoint during the outage (503 is the documented answer; a 500 is a defect), and the
 *    time from the database's return to the first success and to steady success (20 in a row) of
 *    each instance, with no restart.
 * Finally the captured logs of both instances are searched for secrets. Exit code 1 on any miss.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'

import type { Kysely } from 'kysely'
import { pino } from 'pino'

import { createHostContext } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openConfiguredDatabase } from '../src/host/db/database.js'
import type { Database } from '../src/host/db/schema.js'
import { multipart } from '../test/helpers/multipart.js'
import { allowConnections, connectionsByState, maintenanceClient, terminateBackends } from './lib/bench-database.js'
import { prepareDeployment } from './lib/deployment.js'
import { type DocumentedStatuses, loadDocumentedStatuses } from './lib/documented-responses.js'
import { jsonOf, keepAliveAgent, sleep, timedRequest, type TimedResponse } from './lib/http-client.js'
import { describeScan, scanLogsForSecrets } from './lib/log-secrets.js'
import {
  CATALOG_ENDPOINTS,
  describeEvents,
  runMixedWorkload,
  type Sample,
  V2,
  type WorkloadOptions,
  type WorkloadResult,
} from './lib/mixed-workload.js'
import { offerFile } from './lib/offer-file.js'
import { cleanUp } from './lib/scenario.js'
import { killService, type ServiceProcess, startService, stopService } from './lib/service-process.js'
import { ms, summarize, table, verdict } from './lib/stats.js'
import { eventTarget } from './lib/webhook-events.js'
import { endpointFigures } from './lib/workload-report.js'

const env = process.env
const ROWS = Number(env.BENCH_ROWS ?? 100_000)
const STORM_RATE = Number(env.BENCH_STORM_RATE ?? 300)
const STORM_SENDERS = Number(env.BENCH_STORM_SENDERS ?? 32)
const KILL_AFTER_MS = Number(env.BENCH_KILL_AFTER_MS ?? 1500)
const OUTAGE_SECONDS = Number(env.BENCH_OUTAGE_SECONDS ?? 10)
/** The leases of the locks the service takes (src/imports, src/publication): 120 s each. */
const LOCK_LEASE_MS: Record<string, number> = { offer_import: 120_000, publication: 120_000 }

const out = (text = '') => process.stdout.write(`${text}\n`)
const checks: Array<[string, boolean]> = []
const check = (name: string, ok: boolean, detail = '') => {
  checks.push([name, ok])
  out(`  ${verdict(ok)}  ${name}${detail ? `: ${detail}` : ''}`)
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-bench-faults-'))
const csvPath = path.join(tmp, 'oferty.csv')
const file = offerFile({ rows: ROWS })
await file.generateFiles(csvPath)

const deployment = await prepareDeployment({
  storage: 'postgres',
  readers: 8,
  offers: 20_000,
  offersPerInvestment: 100,
  catalogRateLimit: 1_000_000,
})
const databaseName = deployment.databaseName as string
const admin = await maintenanceClient(deployment.databaseUrl as string)
const config = loadConfig(deployment.env)
const handle = openConfiguredDatabase(config)
const ctx = await createHostContext({ config, database: handle, log: pino({ level: 'silent' }) })
const db: Kysely<Database> = ctx.db
const logFiles: string[] = []
const signatures = new Set<string>()
let instanceCount = 0
async function start(label: string): Promise<ServiceProcess> {
  const logFile = path.join(deployment.dataDir, `service-${label}-${++instanceCount}.log`)
  logFiles.push(logFile)
  return startService(label, deployment.env, logFile)
}
let a = await start('A')
const b = await start('B')
const documented: DocumentedStatuses = await loadDocumentedStatuses(b.origin, V2)
const killed: Array<{ pid: number; at: Date }> = []
let nextEvent = 0
const allAccepted: number[] = []
const allAttempted: number[] = []

out(
  `Faults: two instances on PostgreSQL (${databaseName}), ${os.cpus().length} CPUs, Node ${process.version}, ` +
    `load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
)

function load(origins: string[], overrides: Partial<WorkloadOptions>): Promise<WorkloadResult> {
  return runMixedWorkload({
    deployment,
    origins,
    seconds: 30,
    readers: 8,
    readerPauseMs: 50,
    webhookRate: 20,
    webhookSenders: 4,
    probeIntervalMs: 20,
    idleSeconds: 3600,
    files: [],
    cyclePauseSeconds: 0,
    firstEvent: nextEvent,
    ...overrides,
  })
}

function absorb(result: WorkloadResult): void {
  nextEvent = result.nextEvent
  allAccepted.push(...result.acceptedEvents)
  allAttempted.push(...result.attemptedEvents)
  for (const signature of result.signatures) signatures.add(signature)
}

/** Statuses per endpoint of the samples of one instance that started within [from, to). */
function statusesOf(samples: readonly Sample[], instance: number, from: number, to: number): string {
  const counts = new Map<string, number>()
  for (const s of samples) {
    if (s.instance !== instance || s.start < from || s.start >= to) continue
    const label = `${s.endpoint.startsWith('catalog') ? 'catalog' : s.endpoint} ${s.status || 'network'}${s.code ? ` ${s.code}` : ''}`
    counts.set(label, (counts.get(label) ?? 0) + 1)
  }
  return (
    [...counts]
      .sort()
      .map(([label, count]) => `${label} ×${count}`)
      .join(', ') || '-'
  )
}

/** Requests of one instance within [from, to) that were not a success nor a documented refusal. */
function failuresOf(samples: readonly Sample[], instance: number, from: number, to: number): number {
  const window = samples.filter((s) => s.instance === instance && s.start >= from && s.start < to)
  return endpointFigures(window, documented).reduce(
    (sum, f) => sum + [...f.undocumented.values()].reduce((x, y) => x + y, 0) + f.tooMany,
    0,
  )
}

async function lockRows() {
  return db.selectFrom('locks').selectAll().orderBy('name').execute()
}

const pidOf = (owner: string) => Number(/:(\d+):[0-9a-f]+$/.exec(owner)?.[1] ?? NaN)
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** No lock row of a killed process renewed after its death, and every row live or expired. */
async function checkLocks(when: string): Promise<void> {
  const rows = await lockRows()
  const now = Date.now()
  const described = rows.map((row) => {
    const pid = pidOf(row.owner)
    const death = killed.find((k) => k.pid === pid)?.at
    const expires = Date.parse(row.expires_at)
    const lease = LOCK_LEASE_MS[row.name] ?? 120_000
    const holderAlive = alive(pid)
    // a holder that died stops renewing: its lease ends at most one lease after its death
    const ok = holderAlive || (death !== undefined ? expires <= death.getTime() + lease + 1000 : expires < now)
    return {
      text: `${row.name} held by pid ${pid} (${holderAlive ? 'alive' : 'dead'}), lease ends in ${((expires - now) / 1000).toFixed(0)} s`,
      ok,
    }
  })
  out(`  locks ${when}: ${described.map((d) => d.text).join('; ') || 'none'}`)
  check(
    `no lock outlives its lease (${when})`,
    described.every((d) => d.ok),
    "each lock is held by a live process, or ends within one lease of its holder's death",
  )
}

/** Every accepted event executed exactly once; no event applied twice; no execution left running. */
async function checkEvents(when: string): Promise<void> {
  const offers = await db
    .selectFrom('offers')
    .innerJoin('investments', 'investments.id', 'offers.investment_id')
    .select(['offers.id', 'offers.source_property_id', 'investments.source_id'])
    .where('investments.source_id', 'like', 'BENCH-%')
    .execute()
  const offerId = new Map(offers.map((o) => [`${o.source_id}/${o.source_property_id}`, o.id]))
  const records = await db
    .selectFrom('price_history')
    .select(['offer_id', 'price_type', 'after_cents', (eb) => eb.fn.countAll<number>().as('n')])
    .where('run_id', 'is not', null)
    .where('offer_id', 'in', [...offerId.values()])
    .groupBy(['offer_id', 'price_type', 'after_cents'])
    .execute()
  const recordCount = new Map(records.map((r) => [`${r.offer_id}/${r.price_type}/${r.after_cents}`, Number(r.n)]))
  const executions = await db
    .selectFrom('webhook_executions')
    .select(['idempotency_key', 'status'])
    .where('idempotency_key', 'like', 'bench-event-%')
    .execute()
  const executionStatus = new Map(executions.map((e) => [e.idempotency_key, e.status]))
  let missing = 0
  let twice = 0
  const attempted = new Set(allAttempted)
  const accepted = new Set(allAccepted)
  for (const n of attempted) {
    const target = eventTarget(deployment.catalog, n)
    const id = offerId.get(`${target.sourceInvestmentId}/${target.sourcePropertyId}`)
    const m2 = recordCount.get(`${id}/m2/${target.m2Cents}`) ?? 0
    const total = recordCount.get(`${id}/total/${(target.m2Cents * 5000) / 100}`) ?? 0
    if (m2 > 1 || total > 1) twice++
    if (accepted.has(n) && (m2 !== 1 || total !== 1 || executionStatus.get(`bench-event-${n}`) !== 'completed'))
      missing++
  }
  const running = executions.filter((e) => e.status !== 'completed').length
  const appliedNotAccepted = [...attempted].filter(
    (n) => !accepted.has(n) && executionStatus.get(`bench-event-${n}`) === 'completed',
  ).length
  out(
    `  events ${when}: ${accepted.size} accepted (2xx) of ${attempted.size} sent; executions in the database: ` +
      `${executions.length} (${appliedNotAccepted} applied though the sender never saw a 2xx: it gave up or the run ended)`,
  )
  check(`every accepted event applied exactly once (${when})`, missing === 0, `${missing} not applied exactly once`)
  check(`no event applied twice (${when})`, twice === 0, `${twice} applied more than once`)
  check(`no webhook execution left running (${when})`, running === 0, `${running} running`)
}

try {
  // --------------------------------------------------------------------------------------------
  out('\n1. SIGKILL of instance A during a webhook storm')
  let killAt = 0
  const storm = load([a.origin, b.origin], {
    seconds: 20,
    webhookRate: STORM_RATE,
    webhookSenders: STORM_SENDERS,
    onStart: () => {
      setTimeout(() => {
        killAt = performance.now()
        killed.push({ pid: a.pid, at: new Date() })
        void killService(a)
      }, 6000)
    },
  })
  const stormResult = await storm
  absorb(stormResult)
  const stormEnd = stormResult.endedAt
  out(`  A (pid ${a.pid}) killed ${((killAt - stormResult.startedAt) / 1000).toFixed(1)} s into the storm`)
  out(`  A before the kill: ${statusesOf(stormResult.samples, 0, stormResult.startedAt, killAt)}`)
  out(`  A after the kill:  ${statusesOf(stormResult.samples, 0, killAt, stormEnd)}`)
  out(`  B before the kill: ${statusesOf(stormResult.samples, 1, stormResult.startedAt, killAt)}`)
  out(`  B after the kill:  ${statusesOf(stormResult.samples, 1, killAt, stormEnd)}`)
  const bAfter = stormResult.samples.filter((s) => s.instance === 1 && s.start >= killAt)
  check(
    'B keeps serving after A is killed',
    failuresOf(stormResult.samples, 1, killAt, stormEnd) === 0 && bAfter.some((s) => s.status === 200),
    `${bAfter.length} requests to B after the kill, ${failuresOf(stormResult.samples, 1, killAt, stormEnd)} failed`,
  )
  const webhookLatency = summarize(
    stormResult.samples.filter((s) => s.endpoint === 'webhook' && s.instance === 1).map((s) => s.end - s.start),
  )
  const catalogLatency = summarize(
    stormResult.samples
      .filter((s) => CATALOG_ENDPOINTS.includes(s.endpoint) && s.instance === 1 && s.start >= killAt)
      .map((s) => s.end - s.start),
  )
  out(
    `  storm events: ${describeEvents(stormResult.events)}, ` +
      `${(stormResult.events.sent / ((stormResult.endedAt - stormResult.startedAt) / 1000)).toFixed(0)} attempts/s; ` +
      `webhook on B p50 ${ms(webhookLatency.p50)} ms, p99 ${ms(webhookLatency.p99)} ms; ` +
      `catalog on B after the kill p50 ${ms(catalogLatency.p50)} ms, p99 ${ms(catalogLatency.p99)} ms, max ${ms(catalogLatency.max)} ms`,
  )
  await checkEvents('after the storm')
  await checkLocks('after the storm')
  a = await start('A')

  // --------------------------------------------------------------------------------------------
  out(`\n2. SIGKILL of instance A during the execution of a ${ROWS}-row import`)
  const agent = keepAliveAgent()
  const form = multipart(
    { mode: 'patch', mapping: JSON.stringify(file.mapping) },
    { name: 'oferty.csv', content: fs.readFileSync(csvPath), type: 'text/csv' },
  )
  const preview = await timedRequest(agent, a.origin, {
    method: 'POST',
    path: `${V2}/imports/offer`,
    headers: { authorization: deployment.adminAuthorization, ...form.headers },
    body: form.payload,
    timeoutMs: 600_000,
  })
  const jobId = jsonOf<{ id?: string }>(preview)?.id ?? ''
  out(`  preview on A: ${preview.status} in ${(preview.ms / 1000).toFixed(1)} s, job ${jobId}`)
  const idempotencyKey = `bench-faults-${jobId}`
  const execute = (origin: string) =>
    timedRequest(agent, origin, {
      method: 'POST',
      path: `${V2}/imports/offer`,
      headers: {
        authorization: deployment.adminAuthorization,
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': idempotencyKey,
      },
      body: `job_id=${jobId}&confirm_archiving=false`,
      timeoutMs: 600_000,
    })
  let importKilledAt = 0
  let releaseLoad: () => void = () => undefined
  const loadDone = new Promise<void>((resolve) => (releaseLoad = resolve))
  const importLoad = load([a.origin, b.origin], { seconds: 600, until: loadDone })
  const onA = execute(a.origin)
  const runningSince = performance.now()
  let status = ''
  while (performance.now() - runningSince < 120_000) {
    status =
      (await db.selectFrom('import_jobs').select('status').where('id', '=', jobId).executeTakeFirst())?.status ?? ''
    if (status !== 'previewed') break
    await sleep(50)
  }
  await sleep(KILL_AFTER_MS)
  const beforeKill = (await db.selectFrom('import_jobs').select('status').where('id', '=', jobId).executeTakeFirst())
    ?.status
  importKilledAt = performance.now()
  killed.push({ pid: a.pid, at: new Date() })
  await killService(a)
  const answerOnA: TimedResponse = await onA
  out(
    `  execution on A: job ${status} → ${beforeKill} when A (pid ${a.pid}) was killed ${KILL_AFTER_MS} ms later; ` +
      `the client saw ${answerOnA.status === 0 ? `no answer (${answerOnA.error})` : answerOnA.status}`,
  )
  await sleep(3000)
  releaseLoad()
  const importLoadResult = await importLoad
  absorb(importLoadResult)
  out(
    `  B during and after the kill: ${statusesOf(importLoadResult.samples, 1, importKilledAt, importLoadResult.endedAt)}`,
  )
  check(
    'B keeps serving while A dies mid-import',
    failuresOf(importLoadResult.samples, 1, importKilledAt, importLoadResult.endedAt) === 0,
    `${failuresOf(importLoadResult.samples, 1, importKilledAt, importLoadResult.endedAt)} failed requests to B`,
  )
  const countImported = async () =>
    Number(
      (
        await db
          .selectFrom('offers')
          .innerJoin('investments', 'investments.id', 'offers.investment_id')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('investments.source_id', 'like', 'INV-%')
          .executeTakeFirstOrThrow()
      ).n,
    )
  const jobAfterKill = await db.selectFrom('import_jobs').select('status').where('id', '=', jobId).executeTakeFirst()
  const afterKill = await countImported()
  check(
    'the killed import is absent (no offer of the file, job not completed)',
    afterKill === 0 && jobAfterKill?.status !== 'completed',
    `${afterKill} offers of the file, job ${jobAfterKill?.status}`,
  )
  await checkLocks('right after the kill')
  const retry = await execute(b.origin)
  const retried = jsonOf<{ result?: Record<string, unknown>; replayed?: boolean; error?: string }>(retry)
  const afterRetry = await countImported()
  const jobAfterRetry = await db.selectFrom('import_jobs').select('status').where('id', '=', jobId).executeTakeFirst()
  out(
    `  the client retried on B (same Idempotency-Key): ${retry.status} in ${(retry.ms / 1000).toFixed(1)} s ` +
      `${JSON.stringify(retried?.result ?? retried ?? {})}`,
  )
  check(
    'the retried import is whole (every offer of the file, job completed)',
    afterRetry === ROWS && jobAfterRetry?.status === 'completed',
    `${afterRetry} of ${ROWS} offers, job ${jobAfterRetry?.status}`,
  )
  await checkLocks('after the retry')
  agent.destroy()
  a = await start('A')

  // --------------------------------------------------------------------------------------------
  out(`\n3. Database connections cut under load (${databaseName})`)
  const marks: Record<string, number> = {}
  const outage = load([a.origin, b.origin], {
    seconds: 25 + OUTAGE_SECONDS,
    onStart: (startedAt) => {
      void (async () => {
        await sleep(Math.max(0, startedAt + 5000 - performance.now()))
        marks.terminated = performance.now()
        marks.terminatedCount = await terminateBackends(admin, databaseName)
        await sleep(5000)
        marks.outageStart = performance.now()
        await allowConnections(admin, databaseName, false)
        marks.outageCount = await terminateBackends(admin, databaseName)
        await sleep(OUTAGE_SECONDS * 1000)
        await allowConnections(admin, databaseName, true)
        marks.outageEnd = performance.now()
      })()
    },
  })
  const outageResult = await outage
  absorb(outageResult)
  const { samples } = outageResult
  out(
    `  one cut: ${marks.terminatedCount} backends terminated; then ${OUTAGE_SECONDS} s without the database ` +
      `(connections refused, ${marks.outageCount} backends terminated)`,
  )
  const rows: string[][] = [['window', 'instance', 'statuses seen']]
  const windows: Array<[string, number, number]> = [
    ['the 5 s after the one cut', marks.terminated ?? 0, (marks.terminated ?? 0) + 5000],
    ['while the database was gone', marks.outageStart ?? 0, marks.outageEnd ?? 0],
    ['after it came back', marks.outageEnd ?? 0, outageResult.endedAt],
  ]
  for (const [name, from, to] of windows)
    for (const instance of [0, 1])
      rows.push([name, instance === 0 ? 'A' : 'B', statusesOf(samples, instance, from, to)])
  out(table(rows))
  const during = samples.filter((s) => s.start >= (marks.outageStart ?? 0) && s.start < (marks.outageEnd ?? 0))
  const undocumentedDuring = endpointFigures(during, documented).flatMap((f) =>
    [...f.undocumented].map(([label, count]) => `${f.endpoint} ${label} ×${count}`),
  )
  check(
    'only documented answers while the database is gone (503, never a 500)',
    undocumentedDuring.length === 0,
    undocumentedDuring.join(', ') || 'none undocumented',
  )
  const serviceUnavailable = during.filter((s) => s.status === 503).length
  check(
    'requests that need the database answer 503 while it is gone',
    serviceUnavailable > 0,
    `${serviceUnavailable} answered 503, ${during.filter((s) => s.endpoint === 'healthz' && s.status === 200).length} /healthz 200`,
  )
  const recovery: string[][] = [['instance', 'first catalog 200', '20 in a row', 'first webhook 2xx']]
  let recovered = true
  for (const instance of [0, 1]) {
    const after = samples.filter((s) => s.instance === instance && s.start >= (marks.outageEnd ?? 0))
    const catalog = after.filter((s) => CATALOG_ENDPOINTS.includes(s.endpoint))
    const first = catalog.find((s) => s.status === 200 || s.status === 304)
    let streak = 0
    let steady: Sample | undefined
    for (const s of catalog) {
      streak = s.status === 200 || s.status === 304 ? streak + 1 : 0
      if (streak === 20) {
        steady = s
        break
      }
    }
    const webhook = after.find((s) => s.endpoint === 'webhook' && (s.status === 200 || s.status === 202))
    const since = (s: Sample | undefined) =>
      s ? `${((s.end - (marks.outageEnd ?? 0)) / 1000).toFixed(2)} s` : 'NOT RECOVERED'
    if (!steady) recovered = false
    recovery.push([instance === 0 ? 'A' : 'B', since(first), since(steady), since(webhook)])
  }
  out(`  recovery (from the database's return, no restart):\n${table(recovery)}`)
  check('both instances recover by themselves', recovered && a.child.exitCode === null && b.child.exitCode === null)
  const connections = await connectionsByState(admin, databaseName)
  out(`  connections afterwards: ${JSON.stringify(connections)}`)
  await checkEvents('after the outage')
  await checkLocks('at the end')
} finally {
  for (const instance of [a, b]) await stopService(instance, 10_000)
  await handle.destroy()
  await admin.end()
}

const scan = await scanLogsForSecrets(logFiles, deployment.credentials, signatures)
out(`\n${describeScan(scan)}`)
checks.push(['no secret in the logs', scan.findings.size === 0])
const missed = checks.filter(([, ok]) => !ok)
out(
  `\n${missed.length === 0 ? 'All fault checks passed.' : `${missed.length} check(s) missed: ${missed.map(([n]) => n).join('; ')}`}`,
)
const kept = await cleanUp(deployment)
if (kept) out(kept)
fs.rmSync(tmp, { recursive: true, force: true })
if (missed.length > 0) process.exitCode = 1
