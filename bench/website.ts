/*
 * `npm run bench:website`: the example website's offer table (examples/website, `/oferty` with
 * filters and sorting) under 20 concurrent visitors, on the demo catalog with the example
 * extension (SQLite). The service and the website each run in a child process; autocannon runs
 * here. Two runs:
 *   (a) ceiling: the website serves its catalog answers from memory (CATALOG_FRESH_SECONDS=3600),
 *       so each page is only rendered — what the website costs by itself;
 *   (b) the website as shipped (CATALOG_FRESH_SECONDS=0): every page view revalidates its three
 *       catalog answers with If-None-Match.
 * Prints requests/s, p99 latency, their ratio to the ceiling, catalog calls per page and the
 * share of catalog calls answered 304 (counted by the service itself, from its /metrics).
 * The service runs with a rate limit far above the contract's 120/min: what is measured is the
 * website and revalidation, not the limit (the website's README says how to size it).
 * BENCH_SECONDS (default 15) sets each run's length.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

import autocannon from 'autocannon'
import { pino } from 'pino'

import { createHostContext } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { setUpDemo } from '../src/demo/demo-setup.js'
import { openConfiguredDatabase } from '../src/host/db/database.js'
import { loadExtensions } from '../src/host/extensions/load-extensions.js'
import { HookRegistry } from '../src/host/hooks/hooks.js'
import { MetaRegistry } from '../src/host/meta/meta-registry.js'

const DURATION = Number(process.env.BENCH_SECONDS ?? 15)
const CONNECTIONS = 20
const ROOT = path.resolve(import.meta.dirname, '..')
// what visitors of the offer table ask for: the table as it opens, filtered, sorted, paged
const PAGES = [
  '/oferty',
  '/oferty?status=available&sortuj=price',
  '/oferty?pokoje=2&cena_do=1 100 000',
  '/oferty?typ=mieszkanie&pow_od=40&pow_do=70&sortuj=area&kolejnosc=malejaco',
  '/oferty?inwestycja=1&sortuj=title',
  '/oferty?strona=2',
].map((p) => p.replaceAll(' ', '%20'))

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

async function waitFor(url: string, headers: Record<string, string> = {}): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url, { headers })).ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`${url} did not answer`)
}

function start(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)))
  child.once('exit', (code) => {
    if (code !== 0 && code !== null) process.stderr.write(`${args.join(' ')} exited ${code}\n${stderr}\n`)
  })
  return child
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}

/** Catalog answers by status, as the service counted them. */
async function catalogAnswers(metricsUrl: string, token: string): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl, { headers: { authorization: `Bearer ${token}` } })).text()
  const byStatus = new Map<string, number>()
  for (const line of text.split('\n')) {
    const match = /^dg_http_request_duration_seconds_count\{([^}]*)\} (\d+)/.exec(line)
    if (!match || !/route="[^"]*\/catalog/.test(match[1] ?? '')) continue
    const status = /status_code="(\d+)"/.exec(match[1] ?? '')?.[1] ?? '?'
    byStatus.set(status, (byStatus.get(status) ?? 0) + Number(match[2]))
  }
  return byStatus
}

async function measure(url: string): Promise<autocannon.Result> {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: PAGES.map((p) => ({ method: 'GET', path: p })),
  })
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-bench-website-'))
const servicePort = await freePort()
const metricsToken = randomBytes(24).toString('hex')
const serviceEnv = {
  ...process.env,
  DG_DATA_DIR: dataDir,
  DG_LOG_LEVEL: 'silent',
  DG_ENV: 'development',
  PORT: String(servicePort),
  DG_CATALOG_RATE_LIMIT: '1000000',
  DG_METRICS_TOKEN: metricsToken,
  DG_EXTENSIONS: 'examples/extensions/website-fields/index.mjs',
}

// the demo catalog and its reader's application password
const config = loadConfig(serviceEnv, ROOT)
const database = openConfiguredDatabase(config)
const log = pino({ level: 'silent' })
const hooks = new HookRegistry()
const meta = new MetaRegistry()
await loadExtensions(config.extensions, { hooks, meta, log, config })
const ctx = await createHostContext({ config, database, log, hooks, meta })
const password = (await setUpDemo(ctx)).reader.application_password
await database.destroy()

const service = start(['--import', 'tsx', 'src/main.ts'], serviceEnv)
const base = `http://127.0.0.1:${servicePort}`
const children: ChildProcess[] = [service]
try {
  await waitFor(`${base}/readyz`)

  const runWebsite = async (freshSeconds: number) => {
    const port = await freePort()
    const website = start(['--import', 'tsx', 'examples/website/server.js'], {
      ...process.env,
      // the website's `dg-offers/client` is this checkout's source (examples/tsconfig.json paths)
      TSX_TSCONFIG_PATH: 'examples/tsconfig.json',
      DG_CATALOG_URL: `${base}/wp-json/dg/v2`,
      DG_APP_PASSWORD: password,
      PORT: String(port),
      CATALOG_FRESH_SECONDS: String(freshSeconds),
    })
    children.push(website)
    const url = `http://127.0.0.1:${port}`
    await waitFor(`${url}/oferty`)
    // warm-up: every page once, so that the website holds each answer with its ETag
    for (let round = 0; round < 3; round++) for (const p of PAGES) await (await fetch(`${url}${p}`)).text()
    const before = await catalogAnswers(`${base}/metrics`, metricsToken)
    const result = await measure(url)
    const after = await catalogAnswers(`${base}/metrics`, metricsToken)
    await stop(website)
    const delta = new Map<string, number>()
    for (const [status, count] of after) delta.set(status, count - (before.get(status) ?? 0))
    return { result, delta }
  }

  const ceiling = await runWebsite(3600)
  const shipped = await runWebsite(0)

  const line = (name: string, run: typeof ceiling) => {
    const { result, delta } = run
    const calls = [...delta.values()].reduce((a, b) => a + b, 0)
    const notModified = delta.get('304') ?? 0
    const pages = result.requests.total
    const other = [...delta.entries()].filter(([status]) => status !== '304' && status !== '200')
    return (
      `${name.padEnd(34)} ${result.requests.average.toFixed(0).padStart(6)} req/s  p99 ${String(result.latency.p99).padStart(4)} ms  ` +
      `${(result.requests.average / ceiling.result.requests.average).toFixed(2)}× ceiling  ` +
      `non-2xx ${result.non2xx}  errors ${result.errors}  ` +
      `catalog calls ${calls} (${pages > 0 ? (calls / pages).toFixed(2) : '0'} per page), 304: ${calls > 0 ? ((100 * notModified) / calls).toFixed(1) : '–'}%` +
      `${other.length > 0 ? `  other: ${other.map(([s, n]) => `${s}×${n}`).join(', ')}` : ''}`
    )
  }
  process.stdout.write(
    [
      `Example website, offer table (${PAGES.length} filter/sort variants), ${CONNECTIONS} concurrent visitors, ${DURATION} s each, demo catalog, SQLite`,
      line('(a) ceiling: answers from memory', ceiling),
      line('(b) as shipped: revalidate (ETag)', shipped),
      '',
    ].join('\n'),
  )
} finally {
  for (const child of children) await stop(child)
  fs.rmSync(dataDir, { recursive: true, force: true })
}
