/*
 * `npm run bench:embed`: the website component's two costs, each against a floor measured in the
 * same run.
 * 1. The public price endpoint of a 500-unit investment (two price records a unit, parts and other
 *    payments on some) on SQLite, with autocannon (50 connections) against a server in a child
 *    process: (a) a bare Fastify route returning the same bytes (the ceiling); (b) the endpoint,
 *    as browsers of the allowed origin ask it; (c) the same answered 304 (If-None-Match); (d) the
 *    component's script as a browser asks it (brotli); (e) the script answered 304.
 * 2. The component rendering that investment in Chromium, on a page of another origin: from the
 *    data's arrival (performance mark `dg-prices:data`) to the first moment the page can answer
 *    input (a task run after the next frame once the table is drawn), median of BENCH_LOADS fresh
 *    loads, as shipped (the first 50 rows listed, every unit filtered and sorted) and with
 *    page-size="0" (all rows at once); the floor is a plain <table> of the same rows built with one
 *    innerHTML string on the same page. Also the time from a click on a sort button, and from a
 *    filter change, to the next frame.
 * BENCH_SECONDS (10) shortens each HTTP scenario, BENCH_UNITS (500) and BENCH_LOADS (15) the rest.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'

import autocannon from 'autocannon'
import { chromium, type Page } from 'playwright-core'

import { buildApp } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createAppPassword } from '../src/host/auth/app-passwords.js'
import { createUser } from '../src/host/users/users.js'
import { setLicense } from '../src/licensing/license.js'
import { SERVICE_VERSION } from '../src/version.js'

const UNITS = Number(process.env.BENCH_UNITS ?? 500)
const DURATION = Number(process.env.BENCH_SECONDS ?? 10)
const LOADS = Number(process.env.BENCH_LOADS ?? 15)
const CHROMIUM = '/usr/bin/chromium'
const V2 = '/wp-json/dg/v2'
const port = 18_910
const barePort = 18_911
const sitePort = 18_912
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-bench-embed-'))
const env = {
  ...process.env,
  DG_DATA_DIR: dataDir,
  DG_LOG_LEVEL: 'silent',
  DG_ENV: 'development',
  DG_PORT: String(port),
  PORT: String(port),
  DG_PUBLIC_PRICES_RATE_LIMIT: '1000000',
}

/** The page that embeds the component: another origin than the service, as on a developer's site. */
function startSite(serviceOrigin: string, investmentId: number): Promise<{ origin: string; close(): void }> {
  const page = (
    attributes: string,
  ) => `<!doctype html><html lang="pl"><head><meta charset="utf-8"><title>bench</title></head><body>
<script src="${serviceOrigin}${V2}/embed/${SERVICE_VERSION}/dg-prices.js" defer></script>
<script>
  // the first frame after the table is drawn, then the first task after it: the page answers input
  const settled = (name) => new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => {
    performance.mark(name); resolve(performance.now())
  }, 0)))
  document.addEventListener('dg-ready', () => settled('dg-bench:interactive').then(() => { window.benchDone = true }), { once: true })
  // a click on the fifth sort button (price per m²), or a change of the rooms filter, to the next frame
  window.timed = (what) => {
    const table = document.querySelector('dg-offer-table').shadowRoot
    const start = performance.now()
    if (what === 'sort') table.querySelectorAll('th button')[4].click()
    else {
      const rooms = table.querySelector('select[name="rooms"]')
      rooms.value = rooms.value === '' ? '2' : ''
      rooms.dispatchEvent(new Event('input', { bubbles: true }))
    }
    return settled('dg-bench:' + what).then((end) => end - start)
  }
  // the floor: the same rows as one plain table from one innerHTML string
  window.floor = async (url, count) => {
    const data = await (await fetch(url, { credentials: 'omit' })).json()
    const start = performance.now()
    const rows = data.units.slice(0, count).map((u) => '<tr><td>' + [u.designation, u.kind, u.area_m2, u.rooms, u.floor, u.status,
      u.price_m2 && u.price_m2.amount, u.price_total && u.price_total.amount,
      (u.parts || []).map((p) => p.designation).join(', '), '<button>Historia</button>'].join('</td><td>') + '</td></tr>').join('')
    const holder = document.createElement('div')
    holder.innerHTML = '<table><caption>floor</caption><tbody>' + rows + '</tbody></table>'
    document.body.append(holder)
    return (await settled('dg-bench:floor')) - start
  }
</script>
<dg-offer-table investment="${investmentId}" ${attributes}></dg-offer-table></body></html>`
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' })
    response.end(page(request.url === '/all' ? 'page-size="0"' : ''))
  })
  return new Promise((resolve) =>
    server.listen(sitePort, '127.0.0.1', () =>
      resolve({ origin: `http://127.0.0.1:${sitePort}`, close: () => server.close() }),
    ),
  )
}

/** The investment written through the editor's REST write path, as an operator would. */
async function seed(siteOrigin: string): Promise<number> {
  const config = loadConfig(env)
  const app = await buildApp({ config })
  const actor = { type: 'cli' } as const
  await setLicense(app.ctx, { plan: 'pro', entitlements: ['api_webhooks'], validUntil: null, actor })
  await createUser(app.ctx, {
    login: 'bench',
    email: 'bench@example.test',
    role: 'administrator',
    password: 'bench-password-123',
    actor,
  })
  const { password } = await createAppPassword(app.ctx, { login: 'bench', name: 'bench', actor })
  const authorization = `Basic ${Buffer.from(`bench:${password}`).toString('base64')}`
  const call = async (method: 'POST' | 'PATCH' | 'PUT' | 'GET', url: string, payload?: object, headers = {}) => {
    const response = await app.inject({
      method,
      url: `${V2}${url}`,
      headers: { authorization, ...headers },
      ...(payload ? { payload } : {}),
    })
    if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`)
    return response
  }
  const investment = (
    await call('POST', '/investments', { title: 'Osiedle Benchmark', location: { city: 'Poznań' } })
  ).json<{ id: number }>()
  for (let i = 0; i < UNITS; i++) {
    const area = 30 + ((i * 7) % 70)
    const m2 = 10_000 + ((i * 137) % 4000)
    const components =
      i % 3 === 0
        ? [
            { kind: 'parking_space', designation: `P-${i}`, price: '40000.00', price_from: '2026-06-01' },
            { group: 'other_payment', kind_label: 'Opłata rezerwacyjna', price: '5000.00', price_from: '2026-06-01' },
          ]
        : []
    const created = await call('POST', '/offers', {
      investment_id: investment.id,
      prop_no: `${String.fromCharCode(65 + (i % 4))}/${Math.floor(i / 10)}.${String(i % 10).padStart(2, '0')}`,
      prop_type: i % 20 === 0 ? 'dom' : 'mieszkanie',
      property_status: i % 4 === 3 ? 'reserved' : 'available',
      prop_area: `${area}.00`,
      prop_rooms: 1 + (i % 5),
      prop_floor: i % 8,
      price_m2: `${m2}.00`,
      price_m2_from: '2026-06-01',
      price_total: `${m2 * area}.00`,
      price_total_from: '2026-06-01',
      components,
    })
    const offer = created.json<{ id: number; version: string }>()
    await call(
      'PATCH',
      `/offers/${offer.id}`,
      {
        price_m2: `${m2 + 300}.00`,
        price_m2_from: '2026-10-01',
        price_total: `${(m2 + 300) * area}.00`,
        price_total_from: '2026-10-01',
      },
      { 'if-match': offer.version },
    )
  }
  await call('PUT', `/investments/${investment.id}/public-prices`, { enabled: true, allowed_origins: [siteOrigin] })
  await app.close()
  return investment.id
}

async function startServer(bodyFile: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/processes/embed-server.ts'], {
    env: { ...env, BARE_PORT: String(barePort), BARE_BODY_FILE: bodyFile },
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
}

async function measure(url: string, requests: autocannon.Request[]): Promise<Measured> {
  const result = await autocannon({ url, connections: 50, duration: DURATION, requests })
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? NaN
}

const service = `http://127.0.0.1:${port}`
const siteOrigin = `http://127.0.0.1:${sitePort}`
const investmentId = await seed(siteOrigin)
const site = await startSite(service, investmentId)

const endpoint = `${V2}/public/investments/${investmentId}/prices`
const bodyFile = path.join(dataDir, 'answer.json')
fs.writeFileSync(bodyFile, '{}')
let server = await startServer(bodyFile)
const first = await fetch(`${service}${endpoint}`, { headers: { origin: siteOrigin } })
if (first.status !== 200) throw new Error(`the public endpoint answered ${first.status}`)
const answer = Buffer.from(await first.arrayBuffer())
fs.writeFileSync(bodyFile, answer)
await stopServer(server)
server = await startServer(bodyFile)
const etag = (await fetch(`${service}${endpoint}`, { headers: { origin: siteOrigin } })).headers.get('etag') ?? ''
const scriptPath = `${V2}/embed/${SERVICE_VERSION}/dg-prices.js`
// as a browser asks: brotli, whose representation has its own ETag
const browserEncoding = { 'accept-encoding': 'gzip, deflate, br' }
const scriptEtag = (await fetch(`${service}${scriptPath}`, { headers: browserEncoding })).headers.get('etag') ?? ''

const http_: Record<string, Measured> = {}
http_['(a) bare route, same bytes (ceiling)'] = await measure(`http://127.0.0.1:${barePort}`, [
  { method: 'GET', path: '/bare' },
])
http_['(b) public prices, allowed origin'] = await measure(service, [
  { method: 'GET', path: endpoint, headers: { origin: siteOrigin, 'accept-encoding': 'identity' } },
])
http_['(c) public prices, If-None-Match (304)'] = await measure(service, [
  { method: 'GET', path: endpoint, headers: { origin: siteOrigin, 'if-none-match': etag } },
])
http_['(d) component script (brotli)'] = await measure(service, [
  { method: 'GET', path: scriptPath, headers: browserEncoding },
])
http_['(e) component script, If-None-Match (304)'] = await measure(service, [
  { method: 'GET', path: scriptPath, headers: { ...browserEncoding, 'if-none-match': scriptEtag } },
])

// the browser part runs against the same server, idle now
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
})
const render: number[] = []
const floor: number[] = []
const sortClick: number[] = []
const filterChange: number[] = []
const renderAll: number[] = []
const floorAll: number[] = []
const sinceData = (target: Page) =>
  target.evaluate<number>(
    "performance.getEntriesByName('dg-bench:interactive')[0].startTime - performance.getEntriesByName('dg-prices:data')[0].startTime",
  )
const floorOf = (target: Page, rows: number) =>
  target.evaluate<number>(`window.floor(${JSON.stringify(`${service}${endpoint}`)}, ${rows})`)
for (let i = 0; i < LOADS; i++) {
  // as shipped: the first 50 rows listed, every unit filtered and sorted
  let context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  let page = await context.newPage()
  await page.goto(site.origin)
  await page.waitForFunction('window.benchDone === true', null, { timeout: 30_000 })
  const listed = await page.locator('dg-offer-table tbody tr').count()
  if (listed !== Math.min(50, UNITS)) throw new Error(`the component listed ${listed} rows`)
  render.push(await sinceData(page))
  floor.push(await floorOf(page, listed))
  const timed = (action: 'sort' | 'filter') => page.evaluate<number>(`window.timed('${action}')`)
  sortClick.push(await timed('sort'))
  filterChange.push(await timed('filter'))
  await context.close()
  // page-size="0": every unit listed at once
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  await page.goto(`${site.origin}/all`)
  await page.waitForFunction('window.benchDone === true', null, { timeout: 30_000 })
  const all = await page.locator('dg-offer-table tbody tr').count()
  if (all !== UNITS) throw new Error(`the component drew ${all} rows of ${UNITS}`)
  renderAll.push(await sinceData(page))
  floorAll.push(await floorOf(page, all))
  await context.close()
}
await browser.close()
site.close()
await stopServer(server)

const ceiling = http_['(a) bare route, same bytes (ceiling)']?.rps ?? 1
process.stdout.write(
  `\nWebsite component benchmark: ${UNITS} units (${(answer.length / 1024).toFixed(0)} kB answer), SQLite, 50 connections, ${DURATION} s each, ${os.cpus().length} CPUs\n\n`,
)
process.stdout.write(
  `${'scenario'.padEnd(44)}${'req/s'.padStart(10)}${'p99 ms'.padStart(9)}${'ratio'.padStart(8)}${'non-2xx'.padStart(9)}\n`,
)
for (const [name, m] of Object.entries(http_))
  process.stdout.write(
    `${name.padEnd(44)}${m.rps.toFixed(0).padStart(10)}${m.p99.toFixed(0).padStart(9)}${(m.rps / ceiling).toFixed(2).padStart(8)}${String(m.non2xx).padStart(9)}\n`,
  )
const ms = (values: number[]) =>
  `${median(values).toFixed(0)} ms (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`
process.stdout.write(
  `\nChromium, ${LOADS} fresh loads of ${UNITS} units (median, range):\n` +
    `  data → interactive, first 50 listed  ${ms(render)}\n` +
    `    floor: plain table of the same rows ${ms(floor)}  ratio ${(median(render) / median(floor)).toFixed(2)}\n` +
    `  data → interactive, all listed       ${ms(renderAll)}\n` +
    `    floor: plain table of the same rows ${ms(floorAll)}  ratio ${(median(renderAll) / median(floorAll)).toFixed(2)}\n` +
    `  sort click → next frame              ${ms(sortClick)}\n` +
    `  filter change → next frame           ${ms(filterChange)}\n`,
)
process.stdout.write(
  '\nGoals: (b) at least the catalog list ratio of bench:catalog (0.40); component interactive within 200 ms of the data. ' +
    '(c) and (e) answer 304, counted as non-2xx by autocannon.\n',
)
fs.rmSync(dataDir, { recursive: true, force: true })
