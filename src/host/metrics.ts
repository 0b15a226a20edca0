/*
 * Prometheus metrics of one app (prom-client, a registry of its own, so that every app a test
 * builds counts apart). What is counted where:
 * - HTTP: one histogram observation per answered request, by method, route pattern (never the raw
 *   URL: `/wp-json/dg/v2/catalog/properties/:id`) and status. Each route gets its own onResponse
 *   hook (added by onRoute) that holds its label objects, so the catalog's hot path allocates
 *   nothing here but what `observe` does; requests that match no route are counted as `unmatched`.
 * - Service boundaries: webhook deliveries by outcome code, import previews and executions and
 *   publications by outcome with their durations, through `measured` wrappers around the service
 *   functions (no-ops for a context that no server owns, such as the CLI's).
 * - At scrape time, from the database: the time of the last successful publication, the locks
 *   held, and the PostgreSQL pool's connections.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'

import type { HostContext } from './context.js'
import { HostError, PluginError } from './errors.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's Prometheus registry and instruments (GET /metrics). */
    metrics: ServiceMetrics
  }
}

/** What a PostgreSQL pool tells about its connections (pg.Pool). */
export interface PoolState {
  readonly totalCount: number
  readonly idleCount: number
  readonly waitingCount: number
}

type HttpLabels = { method: string; route: string; status_code: string }

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
const JOB_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600]

export class ServiceMetrics {
  readonly registry = new Registry()
  readonly http: Histogram<keyof HttpLabels>
  readonly webhookDeliveries: Counter<'code'>
  readonly importDuration: Histogram<'step' | 'outcome'>
  readonly publicationDuration: Histogram<'trigger' | 'outcome'>
  #processMetrics = false

  constructor(ctx: HostContext, pool?: PoolState) {
    const registers = [this.registry]
    this.http = new Histogram({
      name: 'dg_http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status, with their duration',
      labelNames: ['method', 'route', 'status_code'],
      buckets: HTTP_BUCKETS,
      registers,
    })
    this.webhookDeliveries = new Counter({
      name: 'dg_webhook_deliveries_total',
      help: 'Signed property webhook deliveries by outcome: executed, replayed or the refusal code',
      labelNames: ['code'],
      registers,
    })
    this.importDuration = new Histogram({
      name: 'dg_import_duration_seconds',
      help: 'Offer import previews and executions by outcome (completed or the refusal code), with their duration',
      labelNames: ['step', 'outcome'],
      buckets: JOB_BUCKETS,
      registers,
    })
    this.publicationDuration = new Histogram({
      name: 'dg_publication_duration_seconds',
      help: 'Publications by trigger and outcome (published or the refusal code), with their duration',
      labelNames: ['trigger', 'outcome'],
      buckets: JOB_BUCKETS,
      registers,
    })
    new Gauge({
      name: 'dg_last_successful_publication_timestamp_seconds',
      help: 'Unix time of the last successful publication recorded in the database (0: none yet)',
      registers,
      async collect() {
        const row = await ctx.db
          .selectFrom('publications')
          .select((eb) => eb.fn.max('finished_at').as('finished_at'))
          .where('status', '=', 'published')
          .executeTakeFirst()
        const finished = row?.finished_at ? Date.parse(row.finished_at) : NaN
        this.set(Number.isFinite(finished) ? finished / 1000 : 0)
      },
    })
    new Gauge({
      name: 'dg_lock_held',
      help: 'Named database locks with a live lease (1), by name; a lock whose lease ran out is 0',
      labelNames: ['name'],
      registers,
      async collect() {
        const rows = await ctx.db.selectFrom('locks').select(['name', 'expires_at']).execute()
        const now = ctx.now().toISOString()
        this.reset()
        for (const row of rows) this.set({ name: row.name }, row.expires_at >= now ? 1 : 0)
      },
    })
    if (pool) {
      new Gauge({
        name: 'dg_db_pool_connections',
        help: 'PostgreSQL pool connections: total open, idle, and requests waiting for one',
        labelNames: ['state'],
        registers,
        collect() {
          this.set({ state: 'total' }, pool.totalCount)
          this.set({ state: 'idle' }, pool.idleCount)
          this.set({ state: 'waiting' }, pool.waitingCount)
        },
      })
    }
  }

  /** Adds the process's own metrics (CPU, memory, event loop, handles); the server does, once. */
  collectProcessMetrics(): void {
    if (this.#processMetrics) return
    this.#processMetrics = true
    collectDefaultMetrics({ register: this.registry })
  }
}

const contextMetrics = new WeakMap<HostContext, ServiceMetrics>()

/** Makes the service boundaries of `ctx` count into `metrics`. */
export function attachMetrics(ctx: HostContext, metrics: ServiceMetrics): void {
  contextMetrics.set(ctx, metrics)
}

/** The stable code of a refusal (PluginError `error`, HostError `code`), `error` for anything else. */
export function outcomeCode(error: unknown): string {
  if (error instanceof PluginError) return error.error
  if (error instanceof HostError) return error.code
  return 'error'
}

/**
 * Wraps a service function so that each call records its outcome and duration in the metrics of
 * the context it runs with. `record` gets the outcome (the result, or the refusal's code).
 */
export function measured<A extends unknown[], R>(
  fn: (ctx: HostContext, ...args: A) => Promise<R>,
  record: (metrics: ServiceMetrics, call: Call<A, R>) => void,
): (ctx: HostContext, ...args: A) => Promise<R> {
  return async (ctx, ...args) => {
    const metrics = contextMetrics.get(ctx)
    if (!metrics) return fn(ctx, ...args)
    const started = performance.now()
    try {
      const result = await fn(ctx, ...args)
      record(metrics, { seconds: (performance.now() - started) / 1000, args, result })
      return result
    } catch (error) {
      record(metrics, { seconds: (performance.now() - started) / 1000, args, error: outcomeCode(error) })
      throw error
    }
  }
}

const OBSERVER = Symbol('dg.metrics.observer')

/** The per-route observer: label objects made once per method and status, then reused. */
function routeObserver(metrics: ServiceMetrics, route: string) {
  const byMethod: Record<string, Map<number, HttpLabels>> = Object.create(null) as Record<
    string,
    Map<number, HttpLabels>
  >
  const observe = function observeRequest(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    const method = request.method
    const status = reply.statusCode
    let byStatus = byMethod[method]
    if (byStatus === undefined) byStatus = byMethod[method] = new Map()
    let labels = byStatus.get(status)
    if (labels === undefined) {
      labels = { method, route, status_code: String(status) }
      byStatus.set(status, labels)
    }
    metrics.http.observe(labels, reply.elapsedTime / 1000)
    done()
  }
  return Object.assign(observe, { [OBSERVER]: true })
}

/**
 * Counts every request of `app`: call before the routes are registered (onRoute gives each route
 * its observer) and `countUnmatchedRequests` after them.
 */
export function registerRequestMetrics(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook('onRoute', (route) => {
    const hooks =
      route.onResponse === undefined ? [] : Array.isArray(route.onResponse) ? route.onResponse : [route.onResponse]
    // the HEAD route Fastify adds for a GET route starts from the GET route's options
    if (hooks.some((hook) => OBSERVER in hook)) return
    route.onResponse = [...hooks, routeObserver(metrics, route.url)]
  })
}

/** Requests no route matched (404 rest_no_route), counted as route `unmatched`. */
export function countUnmatchedRequests(app: FastifyInstance, metrics: ServiceMetrics): void {
  const observe = routeObserver(metrics, 'unmatched')
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) observe(request, reply, done)
    else done()
  })
}

type Call<A extends unknown[], R> = { seconds: number; args: A } & ({ result: R } | { error: string })

/** Webhook deliveries: `executed` (202), `replayed` (200) or the refusal's code. */
export function recordWebhook(metrics: ServiceMetrics, call: Call<unknown[], { statusCode: number }>): void {
  metrics.webhookDeliveries.inc({
    code: 'result' in call ? (call.result.statusCode === 202 ? 'executed' : 'replayed') : call.error,
  })
}

/** Import previews: `previewed`, `invalid` (row errors) or the refusal's code. */
export function recordImportPreview(metrics: ServiceMetrics, call: Call<unknown[], { preview: { valid: boolean } }>) {
  const outcome = 'result' in call ? (call.result.preview.valid ? 'previewed' : 'invalid') : call.error
  metrics.importDuration.observe({ step: 'preview', outcome }, call.seconds)
}

/** Import executions: `completed`, `replayed` (same Idempotency-Key) or the refusal's code. */
export function recordImportExecution(metrics: ServiceMetrics, call: Call<unknown[], { replayed: boolean }>) {
  const outcome = 'result' in call ? (call.result.replayed ? 'replayed' : 'completed') : call.error
  metrics.importDuration.observe({ step: 'execute', outcome }, call.seconds)
}

/** Publications by trigger: `published` or the refusal's code. */
export function recordPublication(metrics: ServiceMetrics, call: Call<[{ trigger: string }, ...unknown[]], unknown>) {
  const outcome = 'result' in call ? 'published' : call.error
  metrics.publicationDuration.observe({ trigger: call.args[0].trigger, outcome }, call.seconds)
}
