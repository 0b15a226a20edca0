/*
 * `npm run bench:webhook`: on SQLite, 5,000 offers (50 investments of 100,
 * seeded directly with their first price records), measured with autocannon (20 connections)
 * against a server in a child process (bench/processes/webhook-server.ts):
 *   floor       a bare Fastify route that reads the raw body and only verifies the HMAC of the same
 *               signed requests (`verifySignedRequest`, no database);
 *   deliveries  full signed deliveries of distinct events (own key, nonce, timestamp and
 *               signature), each changing one offer's total and m² price (202);
 *   replays     the events the deliveries applied, re-signed with new nonces (200 replayed).
 * The signed requests are generated before each run (timestamps must stay within ±300 s, nonces
 * must be unique) and handed out one per request by autocannon's `setupRequest`; should a run
 * outlast its list, the rest are signed on the fly (reported). Prints 2xx/s, p99, the ratio to the
 * floor, and the goals: deliveries >= 500/s with p99 <= 50 ms, replays >= 3,000/s; and, per run,
 * how many transactions (one fsync each) the server's group commit made for its deliveries.
 * BENCH_SECONDS (default 10), BENCH_OFFERS (5000), BENCH_OFFERS_PER_INVESTMENT (100);
 * BENCH_PROFILE=<dir> writes a V8 CPU profile of the server process there.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'

import autocannon from 'autocannon'
import { pino } from 'pino'

import { createHostContext } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { openConfiguredDatabase } from '../src/host/db/database.js'
import { setLicense } from '../src/licensing/license.js'
import { rotateWebhookSecret } from '../src/webhook/webhook-secret.js'
import {
  type BenchEvent,
  eventNumber,
  seedWebhookCatalog,
  type SignedRequest,
  signed,
  WEBHOOK_PATH,
  webhookCatalog,
  webhookEvent,
} from './lib/webhook-events.js'

const OFFERS = Number(process.env.BENCH_OFFERS ?? 5000)
const PER_INVESTMENT = Math.max(1, Number(process.env.BENCH_OFFERS_PER_INVESTMENT ?? 100))
const INVESTMENTS = Math.ceil(OFFERS / PER_INVESTMENT)
const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = 20
const PROFILE_DIR = process.env.BENCH_PROFILE ? path.resolve(process.env.BENCH_PROFILE) : undefined
const GOALS = { deliveriesPerSecond: 500, deliveriesP99Ms: 50, replaysPerSecond: 3000 }

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-bench-webhook-'))
const env = { ...process.env, DG_DATA_DIR: dataDir, DG_LOG_LEVEL: 'silent', DG_ENV: 'development', PORT: '0' }

const catalog = webhookCatalog(OFFERS, PER_INVESTMENT)

async function seed(): Promise<string> {
  const config = loadConfig(env)
  const database = openConfiguredDatabase(config)
  const ctx = await createHostContext({ config, database, log: pino({ level: 'silent' }) })
  await setLicense(ctx, { plan: 'pro', entitlements: ['api_webhooks'], actor: { type: 'cli' } })
  const { secret } = await rotateWebhookSecret(ctx, { type: 'cli' })
  await ctx.db.transaction().execute((trx) => seedWebhookCatalog(trx, catalog))
  await database.destroy()
  return secret
}

const event = (n: number, prefix?: string) => webhookEvent(catalog, n, prefix)

// ---------------------------------------------------------------------------------------------
// Server and measurement

async function startServer(secret: string): Promise<{ child: ChildProcess; port: number; barePort: number }> {
  const child = spawn(
    process.execPath,
    [
      ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : []),
      '--import',
      'tsx',
      'bench/processes/webhook-server.ts',
    ],
    { env: { ...env, BARE_PORT: '0', BENCH_SECRET: secret }, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  const ports = await new Promise<[number, number]>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const match = /^ready (\d+) (\d+)$/.exec(line)
      if (match) resolve([Number(match[1]), Number(match[2])])
    })
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
  return { child, port: ports[0], barePort: ports[1] }
}

interface Measured {
  rps: number
  p99: number
  requests: number
  non2xx: number
  errors: number
  statuses: string
  /** Requests signed on the fly because the pre-generated list ran out. */
  signedLate: number
  /** Webhook transactions (commits) during the run and the deliveries they held; none for the floor. */
  commits?: { batches: number; items: number; largest: number }
}

async function measure(
  url: string,
  list: readonly SignedRequest[],
  late: () => SignedRequest,
  duration = DURATION,
): Promise<Measured> {
  let next = 0
  let signedLate = 0
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: 'POST',
        setupRequest: (request) => {
          let item = list[next++]
          if (!item) {
            signedLate++
            item = late()
          }
          return { ...request, headers: item.headers, body: item.body }
        },
      },
    ],
  })
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .map(([status, stat]) => `${status}×${stat.count ?? 0}`)
    .join(' ')
  return {
    rps: result['2xx'] / result.duration,
    p99: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses,
    signedLate,
  }
}

const secret = await seed()
const server = await startServer(secret)
const fullUrl = `http://127.0.0.1:${server.port}${WEBHOOK_PATH}`
const bareUrl = `http://127.0.0.1:${server.barePort}/bare`

// warm-up (JIT, statement cache, page cache) with events of their own, numbered beyond the others
let warm = 10_000_000
await measure(fullUrl, [], () => signed(secret, event(warm++, 'bench-warm-')), 3)
await measure(bareUrl, [], () => signed(secret, event(warm++, 'bench-warm-')), 2)

// the deliveries' signed requests, generated before the floor run that verifies the same bytes
const planned = Math.max(20_000, DURATION * 3_000)
let eventCounter = 0
const deliveries = Array.from({ length: planned }, () => signed(secret, event(eventCounter++)))
const results: Record<string, Measured> = {}
let floorNext = 0
results.floor = await measure(bareUrl, deliveries, () => deliveries[floorNext++ % deliveries.length] as SignedRequest)
const statsUrl = `http://127.0.0.1:${server.barePort}/stats`
type BatchStats = NonNullable<Measured['commits']>
const batchStats = async () => (await (await fetch(statsUrl)).json()) as BatchStats
/** Runs `run` and attaches the group-commit counters of the server during it. */
async function withCommits(run: () => Promise<Measured>): Promise<Measured> {
  const before = await batchStats()
  const measured = await run()
  const after = await batchStats()
  return {
    ...measured,
    commits: { batches: after.batches - before.batches, items: after.items - before.items, largest: after.largest },
  }
}
results.deliveries = await withCommits(() => measure(fullUrl, deliveries, () => signed(secret, event(eventCounter++))))

// the replays: every event the deliveries applied, re-signed (new nonce and timestamp)
const config = loadConfig(env)
const database = openConfiguredDatabase(config)
const applied = (
  await database.db
    .selectFrom('webhook_executions')
    .select('idempotency_key')
    .where('status', '=', 'completed')
    .where('idempotency_key', 'like', 'bench-event-%')
    .execute()
).map((row) => event(eventNumber(row.idempotency_key)))
if (applied.length === 0) throw new Error('no delivery was applied; nothing to replay')
let replayCounter = 0
const replays = Array.from({ length: DURATION * 8_000 }, () =>
  signed(secret, applied[replayCounter++ % applied.length] as BenchEvent),
)
results.replays = await withCommits(() =>
  measure(fullUrl, replays, () => signed(secret, applied[replayCounter++ % applied.length] as BenchEvent)),
)

// correctness of what was measured: each applied event wrote exactly its two price records
const executions = await database.db
  .selectFrom('webhook_executions')
  .select((eb) => eb.fn.countAll<number>().as('n'))
  .where('status', '=', 'completed')
  .executeTakeFirstOrThrow()
const history = await database.db
  .selectFrom('price_history')
  .select((eb) => eb.fn.countAll<number>().as('n'))
  .where('run_id', 'is not', null)
  .executeTakeFirstOrThrow()
await database.destroy()

server.child.kill('SIGTERM')
await new Promise((resolve) => server.child.once('exit', resolve))

const floor = results.floor.rps || 1
const rows: Array<[string, Measured, string, boolean | undefined]> = [
  ['floor: bare route, HMAC check only', results.floor, '', undefined],
  [
    'deliveries: distinct events, 1 price each',
    results.deliveries,
    `>= ${GOALS.deliveriesPerSecond}/s, p99 <= ${GOALS.deliveriesP99Ms} ms`,
    results.deliveries.rps >= GOALS.deliveriesPerSecond && results.deliveries.p99 <= GOALS.deliveriesP99Ms,
  ],
  [
    'replays: applied events re-signed (200)',
    results.replays,
    `>= ${GOALS.replaysPerSecond}/s`,
    results.replays.rps >= GOALS.replaysPerSecond,
  ],
]
const out: string[] = [
  '',
  `Webhook benchmark: ${OFFERS} offers in ${INVESTMENTS} investments, SQLite, ${CONNECTIONS} connections, ` +
    `${DURATION} s each, ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  '',
  `${'scenario'.padEnd(44)}${'2xx/s'.padStart(9)}${'p99 ms'.padStart(8)}${'ratio'.padStart(7)}${'non-2xx'.padStart(9)}` +
    `${'errors'.padStart(8)}   ${'goal'.padEnd(28)}result`,
]
for (const [name, m, goal, pass] of rows) {
  out.push(
    `${name.padEnd(44)}${m.rps.toFixed(0).padStart(9)}${m.p99.toFixed(0).padStart(8)}${(m.rps / floor)
      .toFixed(3)
      .padStart(7)}${String(m.non2xx).padStart(9)}${String(m.errors).padStart(8)}   ${goal.padEnd(28)}${
      pass === undefined ? '' : pass ? 'PASS' : 'MISS'
    }`,
  )
}
out.push('')
for (const [name, m] of rows) {
  out.push(
    `  ${name.split(':')[0]}: ${m.requests} requests, status ${m.statuses || '-'}` +
      (m.signedLate > 0 ? `, ${m.signedLate} signed on the fly` : '') +
      (m.commits && m.commits.batches > 0
        ? `; ${m.commits.batches} transactions for ${m.commits.items} deliveries ` +
          `(${(m.commits.items / m.commits.batches).toFixed(1)} per commit)`
        : ''),
  )
}
out.push(
  `  check: ${executions.n} executions completed, ${history.n} price records written by them ` +
    `(${Number(history.n) === 2 * Number(executions.n) ? 'exactly 2 each: OK' : 'NOT 2 each: WRONG'})`,
)
if (PROFILE_DIR) out.push(`  CPU profile of the server: ${PROFILE_DIR}`)
process.stdout.write(`${out.join('\n')}\n`)
fs.rmSync(dataDir, { recursive: true, force: true })
