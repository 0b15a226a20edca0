/*
 * A platform in a test: the first company's test app (describeEachDatabase) behind a real HTTP
 * server whose dispatcher routes to the other companies, as startServer does. inject() would
 * bypass the dispatcher, so requests go over the socket (`platform.fetch`).
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'

import pg from 'pg'

import { onTenantsChanged } from '../../src/tenancy/platform.js'
import { TenantDispatcher } from '../../src/tenancy/tenant-dispatcher.js'
import { type CreatedTenant, createTenant, type Platform } from '../../src/tenancy/tenant-service.js'
import { PG_TEST_URL } from './databases.js'
import type { TestEnv } from './test-app.js'

export interface TestPlatform {
  /** http://127.0.0.1:PORT, the platform's address. */
  origin: string
  dispatcher: TenantDispatcher
  platform: Platform
  createTenant(slug: string, name?: string, options?: { hosts?: string[] }): Promise<CreatedTenant>
  /** A request to the platform's server; `host` overrides the Host header (a company's own host name). */
  fetch(path: string, init?: RequestInit & { host?: string }): Promise<Response>
  close(): Promise<void>
}

function basic(login: string, password: string): string {
  return `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`
}

export function authorization(tenant: CreatedTenant): string {
  return basic(tenant.admin.login, tenant.admin.application_password)
}

export async function startPlatform(env: TestEnv): Promise<TestPlatform> {
  const { app } = env
  const routing: { dispatcher?: TenantDispatcher } = {}
  const firstCompany = (req: http.IncomingMessage, res: http.ServerResponse) => app.routing(req, res)
  const server = http.createServer((req, res) => {
    if (routing.dispatcher) routing.dispatcher.handle(req, res, firstCompany)
    else firstCompany(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const dispatcher = new TenantDispatcher(app, origin, { schedules: false })
  routing.dispatcher = dispatcher
  const routed = dispatcher
  onTenantsChanged(app.ctx, () => routed.refresh())
  await dispatcher.refresh()
  const platform: Platform = { ctx: app.ctx, base: origin, changed: () => routed.refresh() }
  return {
    origin,
    dispatcher,
    platform,
    async createTenant(slug, name = `Spółka ${slug}`, options = {}) {
      return createTenant(platform, { slug, name, ...options }, { type: 'cli' })
    },
    fetch(path, init = {}) {
      const { host, ...rest } = init
      if (host === undefined) return fetch(`${origin}${path}`, rest)
      // fetch() does not let a caller set Host; a raw request does
      return new Promise((resolve, reject) => {
        const url = new URL(`${origin}${path}`)
        const headers = Object.fromEntries(new Headers(rest.headers).entries())
        const req = http.request(
          {
            host: '127.0.0.1',
            port: url.port,
            path: `${url.pathname}${url.search}`,
            method: rest.method ?? 'GET',
            headers: { ...headers, host },
          },
          (res) => {
            const chunks: Buffer[] = []
            res.on('data', (chunk: Buffer) => chunks.push(chunk))
            res.on('end', () => {
              const responseHeaders = new Headers()
              for (const [name, value] of Object.entries(res.headers))
                if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value)
              resolve(
                new Response(res.statusCode === 204 || res.statusCode === 304 ? null : Buffer.concat(chunks), {
                  status: res.statusCode ?? 0,
                  headers: responseHeaders,
                }),
              )
            })
          },
        )
        req.on('error', reject)
        if (typeof rest.body === 'string') req.write(rest.body)
        req.end()
      })
    },
    async close() {
      await routed.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      if (env.dialect === 'postgres' && PG_TEST_URL) {
        const schema = env.ctx.caps.name === 'postgres' ? env.database.connection.pgSchema : undefined
        if (schema) {
          const client = new pg.Client({ connectionString: PG_TEST_URL })
          await client.connect()
          const { rows } = await client.query<{ nspname: string }>(
            `select nspname from pg_namespace where nspname like $1`,
            [`${schema}\\_\\_%`],
          )
          for (const { nspname } of rows) await client.query(`drop schema if exists "${nspname}" cascade`)
          await client.end()
        }
      }
    },
  }
}
