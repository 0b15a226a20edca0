/*
 * The newcomer's first command: `npm run demo` in a fresh data folder, exactly as the README says
 * (it builds, prepares the demo, serves and publishes today once). Then, as an independent client
 * over HTTP: the addresses it printed serve the XML, its .md5 and the day's CSV with the right
 * Content-Type; the XML validates against the bundled XSD (as it reads behind an https address:
 * the XSD's `https://.*` URL pattern is the one rule an http:// trial address cannot meet) and
 * names the CSV; `POST /publications` for today answers 200; the start logged no error; and a
 * second run keeps the credentials it printed.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

import { afterAll, describe, expect, it } from 'vitest'

import { OFFICIAL_COLUMNS } from '../../src/publication/daily-file/official-columns.js'
import { validateHarvesterXml } from '../../src/publication/daily-file/validate-xml.js'

const ROOT = path.resolve(import.meta.dirname, '../..')

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}

interface Started {
  child: ChildProcess
  output: () => string
}

/** Starts a command and waits until its output contains `ready` (or it exits). */
function start(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Started> {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let text = ''
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8')
      if (ready.test(text)) resolve({ child, output: () => text })
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code}:\n${text}`)))
  })
}

async function stop(started: Started | undefined): Promise<void> {
  if (!started?.child.pid || started.child.exitCode !== null) return
  const exited = new Promise((resolve) => started.child.once('exit', resolve))
  process.kill(-started.child.pid, 'SIGTERM')
  await exited
}

const printed = (text: string, label: string): string => {
  const match = new RegExp(`${label}\\s+(\\S+)`).exec(text)
  if (!match?.[1]) throw new Error(`"${label}" not printed:\n${text}`)
  return match[1]
}

describe('npm run demo on a fresh data folder', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-demo-'))
  let running: Started | undefined
  afterAll(async () => {
    await stop(running)
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it('publishes today at start, serves the files it names, publishes again on request and keeps its credentials', async () => {
    const port = await freePort()
    const env = {
      ...process.env,
      PORT: String(port),
      DG_DATA_DIR: dataDir,
      DG_ENV: 'development',
      DG_LOG_LEVEL: 'info',
      DATABASE_URL: '',
      NODE_ENV: '',
    }
    const done = /Stop the service with Ctrl\+C/
    running = await start('npm', ['run', 'demo'], env, done)
    let text = running.output()
    expect(text).toContain("Published today's official file")
    expect(text).toContain(`Admin panel:               http://127.0.0.1:${port}/dg-admin/`)
    // the scheduled job's catch-up is what published; nothing at error level was logged
    expect(text).not.toMatch(/"level":(50|60)/)

    const xmlUrl = printed(text, 'dataset XML for dane.gov.pl:')
    const md5Url = printed(text, 'its MD5:')
    const csvUrl = printed(text, 'the day.s CSV \\(58 columns\\):')
    expect(xmlUrl).toBe(`http://127.0.0.1:${port}/dane-gov/dataset.xml`)

    const xml = await fetch(xmlUrl)
    expect(xml.status).toBe(200)
    expect(xml.headers.get('content-type')).toMatch(/xml/)
    const xmlBytes = Buffer.from(await xml.arrayBuffer())
    const md5 = await fetch(md5Url)
    expect(md5.status).toBe(200)
    expect((await md5.text()).trim()).toBe(createHash('md5').update(xmlBytes).digest('hex'))
    const xmlText = xmlBytes.toString('utf8')
    expect(xmlText).toContain(`<url>${csvUrl}</url>`)
    const raw = await validateHarvesterXml(xmlBytes)
    // served as is, only the https pattern of the URLs fails; behind an https address it is valid
    expect(raw.errors.length).toBeGreaterThan(0)
    for (const error of raw.errors) expect(error).toMatch(/url.*https:\/\/\.\*/)
    const asProduction = await validateHarvesterXml(xmlText.replaceAll('<url>http://', '<url>https://'))
    expect(asProduction).toEqual({ valid: true, errors: [] })

    const csv = await fetch(csvUrl)
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/)
    const lines = (await csv.text()).split('\n').filter(Boolean)
    expect(lines[0]?.split(';')).toHaveLength(OFFICIAL_COLUMNS.length)
    expect(lines.length).toBeGreaterThan(5)

    // the administrator it printed logs in and publishes today through the public API
    const adminPassword = printed(text, 'Administrator login:\\s+admin /')
    const api = `http://127.0.0.1:${port}/wp-json/dg/v2`
    const login = await fetch(`${api}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'admin', password: adminPassword }),
    })
    expect(login.status).toBe(200)
    const { nonce } = (await login.json()) as { nonce: string }
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    const session = { cookie, 'x-wp-nonce': nonce, 'content-type': 'application/json' }
    const preflight = await fetch(`${api}/publications/preflight`, { method: 'POST', headers: session, body: '{}' })
    expect(preflight.status).toBe(200)
    const report = (await preflight.json()) as { valid: boolean; production_allowed: boolean; warnings: any[] }
    expect(report).toMatchObject({ valid: true, production_allowed: false })
    const trial = report.warnings.find((w) => w.code === 'public_url_http_trial')
    expect(trial.message).toMatch(/https:\/\/ na porcie 443/)

    const published = await fetch(`${api}/publications`, { method: 'POST', headers: session, body: '{}' })
    expect(published.status).toBe(200)
    const outcome = (await published.json()) as { csv: { url: string; md5: string }; xml: { url: string } }
    expect(outcome.xml.url).toBe(xmlUrl)
    const again = await fetch(outcome.csv.url)
    expect(again.status).toBe(200)
    expect(
      createHash('md5')
        .update(Buffer.from(await again.arrayBuffer()))
        .digest('hex'),
    ).toBe(outcome.csv.md5)

    // a second start keeps the credentials the first one printed
    await stop(running)
    running = await start('node', ['dist/cli/main.js', 'demo'], env, done)
    text = running.output()
    expect(text).toContain('a re-run never replaces one that exists')
    expect(printed(text, 'Administrator login:\\s+admin /')).toBe(adminPassword)
    expect(text).toMatch(/Administrator login:.*\(made by an earlier run, unchanged\)/)
    expect(text).toContain("Published today's official file")
  }, 180_000)
})
