/*
 * One HTTP server, one app per company. A request goes to the company whose host name it names
 * (the Host header as the TLS proxy forwards it: `proxy_set_header Host $host`), else to the
 * company whose path it starts with (`/t/{slug}/…`, stripped before the company's app routes it),
 * else to the first company, which keeps every address it had before it had neighbours. Each app
 * has its own database, configuration, rate limits, caches, logger and schedules; none can reach
 * another's. The tenants table is read at start, on every change made through this process, every
 * few seconds (changes made by `dg tenant` in another process) and when a path names an unknown slug.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

import type { FastifyInstance } from 'fastify'

import { buildApp } from '../app.js'
import type { AppConfig } from '../config.js'
import type { DatabaseHandle } from '../host/db/database.js'
import { setMountPath } from '../host/http/mount-path.js'
import { startScheduler, type RunningScheduler } from '../host/scheduler.js'
import { MAINTENANCE_JOBS } from '../maintenance-jobs.js'
import { type RunningPublicationSchedule, startPublicationSchedule } from '../publication/publication-schedule.js'
import { tenantConfig } from './tenant-config.js'
import { TENANT_PATH_PREFIX } from './tenant-names.js'
import { type FirstCompanyDatabase, openTenantDatabase } from './tenant-storage.js'
import { hostsOf, listTenantRows, type TenantRow } from './tenants-repository.js'

interface RunningTenant {
  row: TenantRow
  app: FastifyInstance
  database: DatabaseHandle
  schedules: { stop(): void }[]
}

export interface TenantDispatcherOptions {
  /** Start each active company's daily publication and maintenance (the server; not the tests). */
  schedules: boolean
  /** How often the tenants table is re-read for changes made by another process. */
  refreshMs?: number
}

const PREFIXED = new RegExp(`^${TENANT_PATH_PREFIX}/([a-z][a-z0-9-]{1,38}[a-z0-9])(?=[/?]|$)`)
const UNKNOWN_SLUG_RECHECK_MS = 1000
const TENANT_SCHEDULE_RELOAD_MS = 60_000

function answer(res: ServerResponse, status: number, code: string, message: string): void {
  const body = JSON.stringify({ code, message, data: { status } })
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  })
  res.end(body)
}

/**
 * A suspended company's official files stay served: the portal keeps harvesting what it published.
 * So do the panel's static files (no data in them), so its users read why in the panel's words.
 */
function servedWhileSuspended(method: string | undefined, url: string): boolean {
  return (
    (method === 'GET' || method === 'HEAD') &&
    (url.startsWith('/dane-gov/') || url === '/dg-admin' || url.startsWith('/dg-admin/'))
  )
}

export class TenantDispatcher {
  private readonly running = new Map<string, RunningTenant>()
  private readonly byHost = new Map<string, string>()
  private refreshing: Promise<void> = Promise.resolve()
  private lastUnknownCheck = 0
  /** False until the tenants table was read once: until then a request waits instead of a 404. */
  private loaded = false
  private timer: NodeJS.Timeout | undefined
  private closed = false

  constructor(
    private readonly first: FastifyInstance,
    private readonly platformBase: string,
    private readonly options: TenantDispatcherOptions,
  ) {
    if (options.refreshMs !== undefined && options.refreshMs > 0) {
      this.timer = setInterval(() => {
        this.refresh().catch((error: unknown) => first.log.error({ err: error }, 'reading the tenants table failed'))
      }, options.refreshMs)
      this.timer.unref()
    }
  }

  /** The slugs of the companies whose apps run here, for tests and the platform page. */
  get slugs(): string[] {
    return [...this.running.keys()]
  }

  private firstCompany(): FirstCompanyDatabase {
    const { ctx } = this.first
    return { db: ctx.db, dialect: ctx.caps.name, dataDir: ctx.config.dataDir }
  }

  /** Re-reads the tenants table; starts, stops and reconfigures apps to match. Serialised. */
  refresh(): Promise<void> {
    this.refreshing = this.refreshing.then(
      () => this.applyTable(),
      () => this.applyTable(),
    )
    return this.refreshing
  }

  private async applyTable(): Promise<void> {
    if (this.closed) return
    const rows = await listTenantRows(this.first.ctx.db)
    const wanted = new Map(
      rows.filter((row) => row.status === 'active' || row.status === 'suspended').map((row) => [row.slug, row]),
    )
    for (const [slug, tenant] of this.running) {
      const row = wanted.get(slug)
      // a changed address or website changes the app's configuration: it is built again
      if (!row || row.hosts !== tenant.row.hosts || row.site_url !== tenant.row.site_url) {
        this.running.delete(slug)
        await this.stopTenant(tenant)
      }
    }
    for (const [slug, row] of wanted) {
      const tenant = this.running.get(slug)
      if (tenant) {
        if (tenant.row.status !== row.status) this.setSchedules(tenant, row)
        tenant.row = row
        continue
      }
      try {
        this.running.set(slug, await this.startTenant(row))
      } catch (error) {
        this.first.log.error(
          { err: error, tenant: slug },
          'a company could not be started; its addresses answer 404 tenant_not_found until a later try succeeds',
        )
      }
    }
    this.byHost.clear()
    for (const [slug, tenant] of this.running) for (const host of hostsOf(tenant.row)) this.byHost.set(host, slug)
    this.loaded = true
  }

  private async startTenant(row: TenantRow): Promise<RunningTenant> {
    const first = this.firstCompany()
    const config: AppConfig = tenantConfig(this.first.ctx.config, row, this.platformBase, first.dialect === 'postgres')
    const database = openTenantDatabase(first, row)
    let app: FastifyInstance
    try {
      app = await buildApp({
        config,
        database,
        logger: this.first.log.child({ tenant: row.slug }) as never,
        now: () => this.first.ctx.now(),
      })
      await app.ready()
    } catch (error) {
      await database.destroy()
      throw error
    }
    const tenant: RunningTenant = { row, app, database, schedules: [] }
    this.setSchedules(tenant, row)
    return tenant
  }

  private setSchedules(tenant: RunningTenant, row: TenantRow): void {
    for (const schedule of tenant.schedules) schedule.stop()
    tenant.schedules = []
    if (!this.options.schedules || row.status !== 'active') return
    const { app } = tenant
    const track = <T>(name: string, run: Promise<T>) => app.lifecycle.track(name, run)
    const scheduler: RunningScheduler = startScheduler(app.ctx, MAINTENANCE_JOBS, track)
    tenant.schedules.push(scheduler)
    const publication: { stop(): void; schedule?: RunningPublicationSchedule } = {
      stop: () => publication.schedule?.stop(),
    }
    tenant.schedules.push(publication)
    // settings changed by another instance are seen within a minute: a 10 s reload would keep one
    // of the company's connections open for good (the pool closes a connection idle for 10 s)
    startPublicationSchedule(app.ctx, { track, reloadMs: TENANT_SCHEDULE_RELOAD_MS }).then(
      (schedule) => {
        if (tenant.schedules.includes(publication)) publication.schedule = schedule
        else schedule.stop()
      },
      (error: unknown) => app.log.error({ err: error }, 'the daily publication could not be scheduled'),
    )
  }

  private async stopTenant(tenant: RunningTenant): Promise<void> {
    for (const schedule of tenant.schedules) schedule.stop()
    tenant.schedules = []
    tenant.app.lifecycle.beginShutdown()
    try {
      await tenant.app.close()
    } finally {
      await tenant.database.destroy()
    }
  }

  /** Answers one request: a company's app, or `next` (the first company's). */
  handle(req: IncomingMessage, res: ServerResponse, next: (req: IncomingMessage, res: ServerResponse) => void): void {
    if (!this.loaded) {
      // at start-up: the companies' host names are not known yet either
      this.refreshing.then(
        () => this.handle(req, res, next),
        () => answer(res, 503, 'tenant_unavailable', 'The company cannot be reached now; try again shortly.'),
      )
      return
    }
    const url = req.url ?? '/'
    const hostHeader = (req.headers.host ?? '').toLowerCase()
    let slug = this.byHost.get(hostHeader) ?? this.byHost.get(hostHeader.replace(/:\d+$/, ''))
    let mount = ''
    if (slug === undefined) {
      const prefixed = PREFIXED.exec(url)
      if (prefixed === null) {
        if (url === TENANT_PATH_PREFIX || url.startsWith(`${TENANT_PATH_PREFIX}/`))
          return answer(res, 404, 'tenant_not_found', 'No company is served at this address.')
        return next(req, res)
      }
      slug = prefixed[1]!
      mount = prefixed[0]
    }
    const tenant = this.running.get(slug)
    if (tenant === undefined) {
      const now = Date.now()
      if (now - this.lastUnknownCheck < UNKNOWN_SLUG_RECHECK_MS)
        return answer(res, 404, 'tenant_not_found', 'No company is served at this address.')
      this.lastUnknownCheck = now
      this.refresh().then(
        () => {
          if (this.running.has(slug)) this.handle(req, res, next)
          else answer(res, 404, 'tenant_not_found', 'No company is served at this address.')
        },
        () => answer(res, 503, 'tenant_unavailable', 'The company cannot be reached now; try again shortly.'),
      )
      return
    }
    const path = mount === '' ? url : url.slice(mount.length) || '/'
    const routed = path.startsWith('/') ? path : `/${path}`
    if (tenant.row.status === 'suspended' && !servedWhileSuspended(req.method, routed))
      return answer(
        res,
        403,
        'tenant_suspended',
        'This company’s account on the platform is suspended; its published files stay available. Its administrator can ask the platform’s operator to resume it.',
      )
    req.url = routed
    setMountPath(req, mount)
    tenant.app.routing(req, res)
  }

  /** SIGTERM: every company's /readyz answers 503 and its schedules start no new run. */
  beginShutdown(): void {
    for (const tenant of this.running.values()) {
      for (const schedule of tenant.schedules) schedule.stop()
      tenant.schedules = []
      tenant.app.lifecycle.beginShutdown()
    }
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    await this.refreshing.catch(() => undefined)
    const tenants = [...this.running.values()]
    this.running.clear()
    await Promise.all(tenants.map((tenant) => this.stopTenant(tenant)))
  }
}
