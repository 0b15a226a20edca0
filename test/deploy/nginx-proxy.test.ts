/*
 * docs/deploy/nginx.conf for real: Debian's nginx (/usr/sbin/nginx) runs that file, with its ports,
 * certificate (test/fixtures/tls, for localhost) and upstream substituted, as an unprivileged
 * prefix in a temporary folder, in front of the service started as in production (src/main.ts,
 * DG_ENV=production, DG_TRUSTED_PROXIES=127.0.0.1). Through it over https: a publication, the
 * simulated dane.gov.pl harvester (XML, .md5, every CSV) and a catalog call succeed, and plain http
 * is redirected to https; the service asked directly over http answers 403 rest_https_required.
 *
 * SQLite only: nothing here depends on the database. .ci/run installs nginx; elsewhere the suite
 * is skipped, visibly, when /usr/sbin/nginx is absent.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import https from 'node:https'
import os from 'node:os'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { warsawDate } from '../../src/host/warsaw-day.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { FIXED_PUBLISHED_CODES, seedFixedCatalog } from '../helpers/fixed-catalog.js'
import { HARVEST_STEPS, SimulatedHarvester } from '../helpers/portal/harvester-simulator.js'
import { freePort, waitForPort } from '../helpers/servers/ports.js'
import { startTestApp, type TestEnv } from '../helpers/test-app.js'

const NGINX = '/usr/sbin/nginx'
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const EXAMPLE = path.join(ROOT, 'docs', 'deploy', 'nginx.conf')
const TLS_DIR = path.join(ROOT, 'test', 'fixtures', 'tls')
const PUBLIC_ORIGIN = 'https://ceny.example.pl'
const TEMPLATE = fs.readFileSync(
  new URL('../fixtures/official/Wcorcowy_zakres_danych_dotyczących_cen_mieszkań.csv', import.meta.url),
)

/** The example config with this test's ports, certificate and upstream, inside a complete nginx.conf. */
function nginxConfig(dir: string, ports: { https: number; http: number; service: number }): string {
  const site = fs
    .readFileSync(EXAMPLE, 'utf8')
    .replace(/^\s*listen \[::\].*\n/gm, '')
    .replace('listen 80;', `listen 127.0.0.1:${ports.http};`)
    .replace('listen 443 ssl http2;', `listen 127.0.0.1:${ports.https} ssl http2;`)
    .replace('server 127.0.0.1:8080;', `server 127.0.0.1:${ports.service};`)
    .replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${path.join(TLS_DIR, 'localhost-cert.pem')};`)
    .replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${path.join(TLS_DIR, 'localhost-key.pem')};`)
  // the substitutions must all have happened: a changed example fails here, not silently
  for (const expected of [`127.0.0.1:${ports.https} ssl`, `127.0.0.1:${ports.http};`, `:${ports.service};`, TLS_DIR])
    expect(site).toContain(expected)
  fs.writeFileSync(path.join(dir, 'site.conf'), site)
  const temp = (name: string) => {
    const folder = path.join(dir, name)
    fs.mkdirSync(folder, { mode: 0o777 })
    fs.chmodSync(folder, 0o777)
    return folder
  }
  return [
    'daemon off;',
    'worker_processes 1;',
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'error.log')} warn;`,
    'events { worker_connections 64; }',
    'http {',
    `  access_log ${path.join(dir, 'access.log')};`,
    `  client_body_temp_path ${temp('client_body')};`,
    `  proxy_temp_path ${temp('proxy')};`,
    `  fastcgi_temp_path ${temp('fastcgi')};`,
    `  uwsgi_temp_path ${temp('uwsgi')};`,
    `  scgi_temp_path ${temp('scgi')};`,
    `  include ${path.join(dir, 'site.conf')};`,
    '}',
    '',
  ].join('\n')
}

/** fetch over node:https trusting the test certificate (the global fetch cannot be given a CA). */
function fetchTrusting(ca: Buffer): typeof fetch {
  return ((input: string | URL | Request, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(input instanceof Request ? input.url : String(input))
      const method = init?.method ?? 'GET'
      const request = https.request(
        url,
        { method, ca, headers: Object.fromEntries(new Headers(init?.headers).entries()) },
        (response) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('end', () => {
            const headers = new Headers()
            for (const [name, value] of Object.entries(response.headers))
              if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value)
            const status = response.statusCode ?? 0
            const empty = method === 'HEAD' || status === 204 || status === 304
            resolve(new Response(empty ? null : Buffer.concat(chunks), { status, headers }))
          })
        },
      )
      request.on('error', reject)
      if (typeof init?.body === 'string') request.write(init.body)
      request.end()
    })) as typeof fetch
}

describe.skipIf(!fs.existsSync(NGINX) && !process.env.CI)('the nginx example in front of the service [sqlite]', () => {
  let env: TestEnv
  let dir: string
  let service: ChildProcess
  let nginx: ChildProcess
  let nginxExited: Promise<unknown>
  let serviceOrigin: string
  let httpsOrigin: string
  let httpOrigin: string
  let admin: TestUser
  let reader: TestUser
  const httpsFetch = fetchTrusting(fs.readFileSync(path.join(TLS_DIR, 'localhost-cert.pem')))
  let nginxErrors = ''

  beforeAll(async () => {
    if (!fs.existsSync(NGINX)) throw new Error(`${NGINX} is missing: .ci/run installs Debian's nginx package`)
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-nginx-'))
    fs.chmodSync(dir, 0o755)
    // the catalog, users, licence and public address, written before the service starts
    env = await startTestApp('sqlite')
    await seedFixedCatalog(env.ctx)
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    await updatePublicationSettings(env.ctx, { public_base_url: `${PUBLIC_ORIGIN}/dane-gov` }, { type: 'cli' })
    // production refuses to publish a dataset without its page with the prices (<url>)
    await env.ctx.db.updateTable('developers').set({ dataset_url: 'https://www.example.pl/ceny' }).execute()

    service = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src', 'main.ts')], {
      cwd: ROOT,
      env: {
        ...process.env,
        DG_ENV: 'production',
        DG_TRUSTED_PROXIES: '127.0.0.1',
        DG_DATA_DIR: env.database.dataDir,
        DATABASE_URL: '',
        HOST: '127.0.0.1',
        PORT: '0',
        DG_LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    serviceOrigin = await new Promise<string>((resolve, reject) => {
      createInterface({ input: service.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string }
          if (entry.msg === 'service listening' && entry.url) resolve(new URL(entry.url).origin)
        } catch {
          // not a log line
        }
      })
      service.once('exit', (code) => reject(new Error(`the service exited (${code})`)))
    })

    const ports = { https: await freePort(), http: await freePort(), service: Number(new URL(serviceOrigin).port) }
    fs.writeFileSync(path.join(dir, 'nginx.conf'), nginxConfig(dir, ports))
    nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    nginx.stderr?.setEncoding('utf8').on('data', (chunk: string) => (nginxErrors += chunk))
    nginxExited = new Promise((resolve) => nginx.once('exit', resolve))
    await waitForPort(ports.https, nginxExited).catch((error: Error) => {
      throw new Error(`${error.message}; nginx: ${nginxErrors}`)
    })
    httpsOrigin = `https://localhost:${ports.https}`
    httpOrigin = `http://127.0.0.1:${ports.http}`
  })

  afterAll(async () => {
    nginx?.kill('SIGQUIT')
    if (nginx) await nginxExited
    if (service && service.exitCode === null) {
      service.kill('SIGTERM')
      await new Promise((resolve) => service.once('exit', resolve))
    }
    await env?.app.close()
    await env?.database.cleanup()
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  it('publishes over https and passes every check of the simulated harvester through nginx', async () => {
    const publish = () =>
      httpsFetch(`${httpsOrigin}/wp-json/dg/v2/publications`, {
        method: 'POST',
        headers: { authorization: admin.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ date: warsawDate(new Date()) }),
      })
    let published = await publish()
    // the service's catch-up of today's scheduled publication may still be running (409, Retry-After)
    for (let attempt = 0; attempt < 40 && published.status === 409; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      published = await publish()
    }
    expect(published.status, await published.clone().text()).toBe(200)

    const harvester = new SimulatedHarvester({
      origins: { [PUBLIC_ORIGIN]: httpsOrigin },
      templateHeader: TEMPLATE.subarray(0, TEMPLATE.indexOf(0x0a)),
      fetch: httpsFetch,
    })
    const result = await harvester.harvest(`${PUBLIC_ORIGIN}/dane-gov/dataset.xml`)
    expect(result.steps.filter((step) => !step.ok)).toEqual([])
    expect(result.steps.map((step) => step.name)).toEqual(HARVEST_STEPS)
    expect(result.resources.length).toBeGreaterThan(0)
    for (const resource of result.resources) expect(resource.contentType).toMatch(/^text\/csv/)
  })

  it('answers a catalog call and the readiness probe over https', async () => {
    const response = await httpsFetch(`${httpsOrigin}/wp-json/dg/v2/catalog/properties?per_page=100&_fields=code`, {
      headers: { authorization: reader.authorization },
    })
    expect(response.status).toBe(200)
    const codes = ((await response.json()) as Array<{ code: string }>).map((offer) => offer.code)
    expect(codes).toEqual(expect.arrayContaining([...FIXED_PUBLISHED_CODES].filter((code) => code.startsWith('A/'))))
    // the readiness probe answers through the proxy too
    expect((await httpsFetch(`${httpsOrigin}/readyz`)).status).toBe(200)
  })

  it('redirects plain http to https, and the service itself refuses http with 403', async () => {
    const redirected = await fetch(`${httpOrigin}/wp-json/dg/v2/catalog/properties`, { redirect: 'manual' })
    expect(redirected.status).toBe(301)
    expect(redirected.headers.get('location')).toMatch(/^https:\/\/127\.0\.0\.1\/wp-json\/dg\/v2\/catalog\/properties$/)

    const direct = await fetch(`${serviceOrigin}/wp-json/dg/v2/catalog/properties`, {
      headers: { authorization: reader.authorization },
    })
    expect(direct.status).toBe(403)
    expect(((await direct.json()) as { code: string }).code).toBe('rest_https_required')
    const harvest = await fetch(`${serviceOrigin}/dane-gov/dataset.xml`)
    expect(harvest.status).toBe(403)
  })
})
