/*
 * `npm run bench:editor`: the editor's offers table (GET {base_url}/offers, a page of 50) on
 * 50,000 offers in 500 investments (SQLite), as 10 operators at once (10 autocannon connections)
 * against the service in a child process. Each scenario cycles through 25 different pages and
 * filters (the eighth a new search term on every request). Prints requests/s, p99 latency and the
 * server's CPU per request, against the goal: p99 <= 50 ms at 10 concurrent operators.
 * BENCH_SECONDS and BENCH_OFFERS shorten a run.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import autocannon from 'autocannon'
import { pino } from 'pino'

import { createHostContext } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createAppPassword } from '../src/host/auth/app-passwords.js'
import { openConfiguredDatabase } from '../src/host/db/database.js'
import { createUser } from '../src/host/users/users.js'

const OFFERS = Number(process.env.BENCH_OFFERS ?? 50_000)
const INVESTMENTS = 500
const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = 10
const GOAL_P99_MS = 50
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-bench-editor-'))
const env = { ...process.env, DG_DATA_DIR: dataDir, DG_LOG_LEVEL: 'silent', DG_ENV: 'development' }

/** The catalog of bench:catalog, with a few drafts and offers without a type, as an operator's. */
async function seed(): Promise<string> {
  const config = loadConfig(env)
  const database = openConfiguredDatabase(config)
  const ctx = await createHostContext({ config, database, log: pino({ level: 'silent' }) })
  const actor = { type: 'cli' } as const
  await createUser(ctx, {
    login: 'operator',
    email: 'operator@example.test',
    role: 'administrator',
    password: 'bench-password-123',
    actor,
  })
  const { password } = await createAppPassword(ctx, { login: 'operator', name: 'bench', actor })
  const now = Date.now()
  const statuses = ['available', 'available', 'reserved', 'sold']
  await ctx.db.transaction().execute(async (trx) => {
    for (let i = 0; i < INVESTMENTS; i++) {
      const investment = await trx
        .insertInto('investments')
        .values({
          title: `Inwestycja ${i}`,
          slug: `inwestycja-${i}`,
          content: '',
          excerpt: '',
          loc_city: 'Warszawa',
          host_status: 'publish',
          visibility: 'public',
          custom_meta: '{}',
          gallery: '[]',
          documents: '[]',
          created_at: new Date(now).toISOString(),
          modified_at: new Date(now).toISOString(),
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      const rows = []
      for (let j = 0; j < OFFERS / INVESTMENTS; j++) {
        const area = 30 + ((i * 7 + j * 13) % 90)
        const m2 = 1_200_000 + ((i * 31 + j * 17) % 1_000_000)
        rows.push({
          investment_id: investment.id,
          source_property_id: `P${j}`,
          offer_kind: 'property',
          property_type: j % 37 === 0 ? '' : j % 10 === 0 ? 'dom' : 'mieszkanie',
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
          host_status: j % 20 === 0 ? 'draft' : 'publish',
          custom_meta: '{}',
          gallery: '[]',
          created_at: new Date(now).toISOString(),
          modified_at: new Date(now - (i * 100 + j) * 1000).toISOString(),
        })
      }
      await trx.insertInto('offers').values(rows).execute()
    }
  })
  await database.destroy()
  return `Basic ${Buffer.from(`operator:${password}`).toString('base64')}`
}

/** The catalog benchmark's server process (its bare route is not used here). */
async function startServer(port: number) {
  const bodyFile = path.join(dataDir, 'unused.json')
  fs.writeFileSync(bodyFile, '[]')
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/processes/catalog-server.ts'], {
    env: { ...env, PORT: String(port), BARE_PORT: String(port + 1), BARE_BODY_FILE: bodyFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve())
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
  return child
}

function cpuTicks(pid: number | undefined): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return Number(fields[11]) + Number(fields[12])
  } catch {
    return undefined
  }
}

const authorization = await seed()
const port = 18_950
const server = await startServer(port)
const base = '/wp-json/dg/v2/offers?per_page=50'
const scenarios: Record<string, string[]> = {
  '(a) newest first (default), pages 1-25': Array.from({ length: 25 }, (_, i) => `${base}&page=${i + 1}`),
  '(b) published, available, rooms, by price': Array.from(
    { length: 25 },
    (_, i) =>
      `${base}&host_status=publish&status=available&rooms=${1 + (i % 5)}&orderby=price&order=ASC&page=${1 + Math.floor(i / 5)}`,
  ),
  '(c) published, by modification time': Array.from(
    { length: 25 },
    (_, i) => `${base}&host_status=publish&orderby=modified&page=${i + 1}`,
  ),
  '(d) one investment, by designation': Array.from(
    { length: 25 },
    (_, i) => `${base}&investment=${1 + i * 17}&orderby=code&order=ASC`,
  ),
  '(e) without a type': Array.from({ length: 25 }, (_, i) => `${base}&without_type=true&page=${1 + (i % 10)}`),
  '(f) every status, by price': Array.from({ length: 25 }, (_, i) => `${base}&orderby=price&page=${i + 1}`),
  '(g) search in titles and designations': Array.from(
    { length: 25 },
    (_, i) => `${base}&search=${encodeURIComponent(`-${i}`)}`,
  ),
}
/*
 * Totals are counted once per set of filters until something is written, so after its first 25
 * requests each scenario above reuses its counts. This one searches a new term on every request, a
 * designation number no offer has: the count and the page both read every offer's texts, the worst
 * case of a search.
 */
const NEW_SEARCH = '(h) a new search every request, no match'
let searchTerm = 0
const newSearch = () => `${base}&search=${encodeURIComponent(`/${100 + (searchTerm++ % 100_000)}`)}`
scenarios[NEW_SEARCH] = [newSearch()]

const results: Array<{ name: string; rps: number; p99: number; non2xx: number; cpu: number | undefined }> = []
for (const [name, paths] of Object.entries(scenarios)) {
  const check = await fetch(`http://127.0.0.1:${port}${paths[0]}`, { headers: { authorization } })
  if (check.status !== 200) throw new Error(`${paths[0]} answered ${check.status}: ${await check.text()}`)
  const before = cpuTicks(server.pid)
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: paths.map((p) => ({
      method: 'GET',
      path: p,
      headers: { authorization },
      ...(name === NEW_SEARCH ? { setupRequest: (request: object) => ({ ...request, path: newSearch() }) } : {}),
    })),
  })
  const after = cpuTicks(server.pid)
  results.push({
    name,
    rps: result.requests.average,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    cpu:
      before === undefined || after === undefined ? undefined : ((after - before) * 1e6) / 100 / result.requests.total,
  })
}
const exited = new Promise((resolve) => server.once('exit', resolve))
server.kill()
await exited

process.stdout.write(
  `\nEditor offers table: ${OFFERS} offers in ${INVESTMENTS} investments, SQLite, ${CONNECTIONS} connections, ` +
    `${DURATION} s each, ${os.cpus().length} CPUs, load average ${os.loadavg()[0]?.toFixed(1)}\n\n`,
)
process.stdout.write(
  `${'scenario (page of 50)'.padEnd(46)}${'req/s'.padStart(8)}${'p99 ms'.padStart(9)}${'goal'.padStart(7)}${'non-2xx'.padStart(9)}${'cpu µs/req'.padStart(12)}\n`,
)
for (const r of results) {
  process.stdout.write(
    `${r.name.padEnd(46)}${r.rps.toFixed(0).padStart(8)}${r.p99.toFixed(0).padStart(9)}${(r.p99 <= GOAL_P99_MS ? 'met' : 'MISS').padStart(7)}${String(r.non2xx).padStart(9)}${(r.cpu?.toFixed(0) ?? '-').padStart(12)}\n`,
  )
}
process.stdout.write(
  `\nGoal: p99 <= ${GOAL_P99_MS} ms at ${CONNECTIONS} concurrent operators. cpu µs/req is the server's CPU per request, which other load on the machine barely moves.\n`,
)
fs.rmSync(dataDir, { recursive: true, force: true })
