/*
 * `npm run bench:catalog`: 50,000 offers in 500 investments on SQLite, measured with autocannon
 * (50 connections) against a server in a child process:
 *   (a) a bare Fastify route returning the bytes of a typical list page: the ceiling;
 *   (b) GET /catalog/properties?per_page=20 with filters and an application password;
 *   (b-cold) the same with the response cache turned off (every request runs the queries);
 *   (c) the same as (b) with a matching If-None-Match (304);
 *   (d) offer details;
 *   (d-cold) offer details with the response cache off;
 *   (b-announced) (b-cold) after 1 % of the totals are announced for a later day (a price list
 *       prepared ahead): those offers are listed by their price in force today.
 * BENCH_CPU_PROFILE=file.cpuprofile writes a CPU profile of the server during (b), (c) and (d).
 * Prints requests/s, p99 latency and each as a ratio to the ceiling measured in the same run.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import autocannon from 'autocannon'
import { sql } from 'kysely'

import { createHostContext } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createAppPassword } from '../src/host/auth/app-passwords.js'
import { openConfiguredDatabase } from '../src/host/db/database.js'
import { createUser } from '../src/host/users/users.js'
import { setLicense } from '../src/licensing/license.js'
import { pino } from 'pino'

const OFFERS = Number(process.env.BENCH_OFFERS ?? 50_000)
const INVESTMENTS = 500
const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-bench-catalog-'))
const env = {
  ...process.env,
  DG_DATA_DIR: dataDir,
  DG_LOG_LEVEL: 'silent',
  DG_CATALOG_RATE_LIMIT: '1000000',
  DG_ENV: 'development',
  // only the server measured in (b), (c) and (d) is profiled (a later one would overwrite the file)
  BENCH_CPU_PROFILE: undefined,
}

async function seed(): Promise<{ authorization: string; offerIds: number[] }> {
  const config = loadConfig(env)
  const database = openConfiguredDatabase(config)
  const ctx = await createHostContext({ config, database, log: pino({ level: 'silent' }) })
  const actor = { type: 'cli' } as const
  await setLicense(ctx, { plan: 'pro', entitlements: ['api_webhooks'], actor })
  await createUser(ctx, {
    login: 'bench',
    email: 'bench@example.test',
    role: 'dg_catalog_reader',
    password: 'bench-password-123',
    actor,
  })
  const { password } = await createAppPassword(ctx, { login: 'bench', name: 'bench', actor })
  const now = new Date().toISOString()
  const statuses = ['available', 'available', 'reserved', 'sold']
  await ctx.db.transaction().execute(async (trx) => {
    for (let i = 0; i < INVESTMENTS; i++) {
      const inv = await trx
        .insertInto('investments')
        .values({
          title: `Inwestycja ${i}`,
          slug: `inwestycja-${i}`,
          content: 'Opis',
          excerpt: 'Skrót',
          loc_city: 'Warszawa',
          host_status: 'publish',
          visibility: 'public',
          custom_meta: '{}',
          gallery: '[]',
          documents: '[]',
          created_at: now,
          modified_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      const rows = []
      for (let j = 0; j < OFFERS / INVESTMENTS; j++) {
        const area = 30 + ((i * 7 + j * 13) % 90)
        const m2 = 1_200_000 + ((i * 31 + j * 17) % 1_000_000)
        rows.push({
          investment_id: inv.id,
          source_property_id: `P${j}`,
          offer_kind: 'property',
          property_type: j % 10 === 0 ? 'dom' : 'mieszkanie',
          code: `${String.fromCharCode(65 + (j % 4))}/${j}`,
          title: `Mieszkanie ${i}-${j}`,
          status: statuses[j % 4] as string,
          area: `${area}.50`,
          rooms: 1 + (j % 5),
          floor: j % 8,
          building: 'A',
          price_total_cents: Math.round(m2 * (area + 0.5)),
          price_total_from: '2026-03-01',
          price_m2_cents: m2,
          price_m2_from: '2026-03-01',
          host_status: 'publish',
          custom_meta: '{}',
          gallery: '[]',
          created_at: now,
          modified_at: new Date(Date.parse(now) - (i * 100 + j) * 1000).toISOString(),
        })
      }
      await trx.insertInto('offers').values(rows).execute()
    }
  })
  const offerIds = (await ctx.db.selectFrom('offers').select('id').limit(200).execute()).map((r) => r.id)
  await database.destroy()
  return { authorization: `Basic ${Buffer.from(`bench:${password}`).toString('base64')}`, offerIds }
}

/**
 * 1 % of the totals announced for a day a month ahead, as the editor writes one: the price so far
 * as its `first` record, the announced one as a `change` dated ahead, stored on the offer.
 */
async function announceTotals(): Promise<number> {
  const config = loadConfig(env)
  const database = openConfiguredDatabase(config)
  const ctx = await createHostContext({ config, database, log: pino({ level: 'silent' }) })
  const later = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10)
  const recordedAt = new Date().toISOString()
  const offers = await ctx.db
    .selectFrom('offers')
    .select(['id', 'price_total_cents', 'price_total_from'])
    .where(sql<boolean>`id % 101 = 0`)
    .execute()
  await ctx.db.transaction().execute(async (trx) => {
    for (const offer of offers) {
      const before = offer.price_total_cents ?? 0
      const after = Math.round(before * 1.1)
      const record = { offer_id: offer.id, component_id: null, price_type: 'total', reason: '', correction: 0 as const }
      await trx
        .insertInto('price_history')
        .values([
          {
            ...record,
            record_type: 'first',
            before_cents: null,
            after_cents: before,
            valid_from: offer.price_total_from ?? '2026-03-01',
            recorded_at: recordedAt,
          },
          {
            ...record,
            record_type: 'change',
            before_cents: before,
            after_cents: after,
            valid_from: later,
            recorded_at: recordedAt,
          },
        ])
        .execute()
      await trx
        .updateTable('offers')
        .set({ price_total_cents: after, price_total_from: later })
        .where('id', '=', offer.id)
        .execute()
    }
  })
  await database.destroy()
  return offers.length
}

async function startServer(port: number, barePort: number, bodyFile: string, extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/processes/catalog-server.ts'], {
    env: { ...env, ...extraEnv, PORT: String(port), BARE_PORT: String(barePort), BARE_BODY_FILE: bodyFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve())
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
  return child
}

async function stopServer(child: ReturnType<typeof spawn>): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill()
  await exited
}

interface Measured {
  rps: number
  p99: number
  non2xx: number
  /** Server CPU (all its threads) per request: unlike req/s, barely moved by other load on the machine. */
  cpuMicros: number | undefined
}

/** User + system CPU ticks of a process (Linux /proc; undefined elsewhere). */
function cpuTicks(pid: number | undefined): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return undefined
  }
}

// BENCH_ONLY=b,c: only these scenarios (the ceiling always runs), e.g. to profile one of them
const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim())
const skipped: Measured = { rps: 0, p99: 0, non2xx: 0, cpuMicros: undefined }

async function measure(url: string, requests: autocannon.Request[], scenario = 'a'): Promise<Measured> {
  if (only && scenario !== 'a' && !only.includes(scenario)) return skipped
  const before = cpuTicks(server.pid)
  const result = await autocannon({ url, connections: 50, duration: DURATION, requests })
  const after = cpuTicks(server.pid)
  const cpuMicros =
    before === undefined || after === undefined ? undefined : ((after - before) * 1e6) / 100 / result.requests.total
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx, cpuMicros }
}

const { authorization, offerIds } = await seed()
const port = 18_900
const barePort = 18_901
const listPaths = Array.from(
  { length: 25 },
  (_, i) =>
    `/wp-json/dg/v2/catalog/properties?per_page=20&status=available&orderby=price&order=ASC&rooms=${1 + (i % 5)}&page=${1 + Math.floor(i / 5)}`,
)
const bodyFile = path.join(dataDir, 'page.json')
fs.writeFileSync(bodyFile, '[]')
let server = await startServer(port, barePort, bodyFile)
const firstPage = await fetch(`http://127.0.0.1:${port}${listPaths[0]}`, { headers: { authorization } })
fs.writeFileSync(bodyFile, Buffer.from(await firstPage.arrayBuffer()))
await stopServer(server)
server = await startServer(
  port,
  barePort,
  bodyFile,
  process.env.BENCH_CPU_PROFILE ? { BENCH_CPU_PROFILE: process.env.BENCH_CPU_PROFILE } : {},
)

const etags = new Map<string, string>()
for (const p of listPaths) {
  const response = await fetch(`http://127.0.0.1:${port}${p}`, { headers: { authorization } })
  etags.set(p, response.headers.get('etag') ?? '')
}

const results: Record<string, Measured> = {}
results['(a) bare route, same bytes (ceiling)'] = await measure(`http://127.0.0.1:${barePort}`, [
  { method: 'GET', path: '/bare' },
])
results['(b) list, filters, app password'] = await measure(
  `http://127.0.0.1:${port}`,
  listPaths.map((p) => ({ method: 'GET', path: p, headers: { authorization } })),
  'b',
)
results['(c) list with If-None-Match (304)'] = await measure(
  `http://127.0.0.1:${port}`,
  listPaths.map((p) => ({ method: 'GET', path: p, headers: { authorization, 'if-none-match': etags.get(p) ?? '' } })),
  'c',
)
results['(d) offer detail'] = await measure(
  `http://127.0.0.1:${port}`,
  offerIds.map((id) => ({
    method: 'GET',
    path: `/wp-json/dg/v2/catalog/properties/${id}`,
    headers: { authorization },
  })),
  'd',
)
await stopServer(server)
server = await startServer(port, barePort, bodyFile, { DG_CATALOG_RESPONSE_CACHE: 'off' })
results['(b-cold) list, response cache off'] = await measure(
  `http://127.0.0.1:${port}`,
  listPaths.map((p) => ({ method: 'GET', path: p, headers: { authorization } })),
  'b-cold',
)
results['(d-cold) offer detail, response cache off'] = await measure(
  `http://127.0.0.1:${port}`,
  offerIds.map((id) => ({
    method: 'GET',
    path: `/wp-json/dg/v2/catalog/properties/${id}`,
    headers: { authorization },
  })),
  'd-cold',
)
await stopServer(server)
if (!only || only.includes('b-announced')) {
  const announced = await announceTotals()
  server = await startServer(port, barePort, bodyFile, { DG_CATALOG_RESPONSE_CACHE: 'off' })
  results[`(b-announced) cache off, ${((announced / OFFERS) * 100).toFixed(0)} % announced`] = await measure(
    `http://127.0.0.1:${port}`,
    listPaths.map((p) => ({ method: 'GET', path: p, headers: { authorization } })),
    'b-announced',
  )
  await stopServer(server)
}

const ceiling = results['(a) bare route, same bytes (ceiling)']?.rps ?? 1
process.stdout.write(
  `\nCatalog benchmark: ${OFFERS} offers in ${INVESTMENTS} investments, SQLite, 50 connections, ${DURATION} s each, ${os.cpus().length} CPUs\n\n`,
)
process.stdout.write(
  `${'scenario'.padEnd(44)}${'req/s'.padStart(10)}${'p99 ms'.padStart(9)}${'ratio'.padStart(8)}${'non-2xx'.padStart(9)}${'cpu µs/req'.padStart(12)}\n`,
)
for (const [name, m] of Object.entries(results)) {
  process.stdout.write(
    `${name.padEnd(44)}${m.rps.toFixed(0).padStart(10)}${m.p99.toFixed(0).padStart(9)}${(m.rps / ceiling).toFixed(3).padStart(8)}${String(m.non2xx).padStart(9)}${(m.cpuMicros?.toFixed(0) ?? '-').padStart(12)}\n`,
  )
}
const cold = results['(b-cold) list, response cache off']?.rps ?? 0
const announcedRps = Object.entries(results).find(([name]) => name.startsWith('(b-announced)'))?.[1].rps ?? 0
if (cold > 0 && announcedRps > 0)
  process.stdout.write(`\n(b-announced) / (b-cold): ${(announcedRps / cold).toFixed(2)}\n`)
process.stdout.write(
  '\nGoals: (b) >= 0.40 of the ceiling with p99 <= 25 ms; (c) >= 0.70; (b-cold) >= 0.04; (b-announced) >= 0.8 of (b-cold).\n' +
    '(c) answers 304, counted as non-2xx by autocannon.\n' +
    'cpu µs/req: the CPU of the server process per request (100 ticks/s), a figure that other load on the machine barely moves.\n',
)
fs.rmSync(dataDir, { recursive: true, force: true })
