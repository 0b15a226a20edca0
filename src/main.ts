/*
 * Process entry: load the configuration, build the app, listen, run the schedules, and shut down
 * gracefully on SIGTERM or SIGINT:
 * 1. /readyz answers 503 at once; the schedules start no new run;
 * 2. the server stops accepting connections and every request under way is answered;
 * 3. running jobs (a scheduled publication, the maintenance) finish;
 * 4. locks still held are released, the database is closed, and the process exits 0.
 * Steps 2–3 are bounded by DG_SHUTDOWN_TIMEOUT_SECONDS: when it runs out, open connections are
 * closed, unfinished jobs are left (their work rolls back with the process and is recovered at the
 * next start), locks are released, and the process exits 1.
 */

import http from 'node:http'

import type { FastifyInstance } from 'fastify'

import { buildApp } from './app.js'
import { type AppConfig, baseUrl, ConfigError, loadConfig } from './config.js'
import { isEntryPoint } from './entry-point.js'
import { startScheduler, type TrackJob } from './host/scheduler.js'
import { markServiceRunning } from './host/service-marker.js'
import { MAINTENANCE_JOBS } from './maintenance-jobs.js'
import { type ScheduledPublicationOutcome, startPublicationSchedule } from './publication/publication-schedule.js'
import { onTenantsChanged } from './tenancy/platform.js'
import { platformBase } from './tenancy/tenant-config.js'
import { TenantDispatcher } from './tenancy/tenant-dispatcher.js'

/** How soon a running service sees a company created, suspended or deleted by `dg tenant` elsewhere. */
const TENANTS_REFRESH_MS = 5000

/** `clean`: everything finished in time; `forced`: the shutdown timeout ran out. */
export type ShutdownOutcome = 'clean' | 'forced'

export interface RunningServer {
  app: FastifyInstance
  url: string
  /** The daily publication's catch-up at start, when one runs (always with `publishAtStart`). */
  publicationAtStart: Promise<ScheduledPublicationOutcome> | undefined
  /** Stops the way SIGTERM does, without exiting the process; the same promise on every call. */
  shutdown(reason: string): Promise<ShutdownOutcome>
}

export interface StartServerOptions {
  /** Runs after the socket listens and before the daily schedule starts (the demo sets its public address). */
  beforeSchedule?: (app: FastifyInstance, address: string) => Promise<void>
  /** Publish today at start even before the scheduled time (the demo). */
  publishAtStart?: boolean
  /** Runs after the app is built and before it listens (a test adds routes). */
  beforeListen?: (app: FastifyInstance) => Promise<void> | void
  /** SIGTERM and SIGINT shut down and exit the process (default); false leaves that to the caller. */
  handleSignals?: boolean
}

export async function startServer(config: AppConfig, options: StartServerOptions = {}): Promise<RunningServer> {
  // set once the first company's app listens and the other companies' apps are built
  const routing: { dispatcher?: TenantDispatcher } = {}
  const app = await buildApp({
    config,
    // one server for every company: each request goes to the app of the company it names
    serverFactory: (handler, serverOptions) => {
      const server = http.createServer((req, res) => {
        if (routing.dispatcher) routing.dispatcher.handle(req, res, handler)
        else handler(req, res)
      })
      // what Fastify sets on a server it makes itself
      const timeouts = serverOptions as {
        keepAliveTimeout?: number
        requestTimeout?: number
        connectionTimeout?: number
      }
      server.keepAliveTimeout = timeouts.keepAliveTimeout ?? 72_000
      server.requestTimeout = timeouts.requestTimeout ?? 0
      server.setTimeout(timeouts.connectionTimeout ?? 0)
      return server
    },
  })
  await options.beforeListen?.(app)
  const address = await app.listen({ host: config.host, port: config.port })
  const tenants = new TenantDispatcher(app, platformBase(config, address), {
    schedules: true,
    refreshMs: TENANTS_REFRESH_MS,
  })
  onTenantsChanged(app.ctx, () => tenants.refresh())
  // routing starts at once: a request for a company whose app is still being built waits for it
  routing.dispatcher = tenants
  await tenants.refresh()
  app.metrics.collectProcessMetrics()
  const unmark = await markServiceRunning(config.dataDir, address)
  await options.beforeSchedule?.(app, address)
  const track: TrackJob = (name, run) => app.lifecycle.track(name, run)
  const scheduler = startScheduler(app.ctx, MAINTENANCE_JOBS, track)
  const publicationSchedule = await startPublicationSchedule(app.ctx, {
    catchUpNow: options.publishAtStart ?? false,
    track,
  })
  const url = `${address}${baseUrl(config)}`
  app.log.info(
    { url, database: config.databaseUrl ? 'postgresql' : 'sqlite', dataDir: config.dataDir },
    'service listening',
  )

  const timeoutMs = config.shutdownTimeoutSeconds * 1000
  const stop = async (reason: string): Promise<ShutdownOutcome> => {
    app.lifecycle.beginShutdown()
    tenants.beginShutdown()
    scheduler.stop()
    publicationSchedule.stop()
    app.log.info(
      { reason, timeoutSeconds: config.shutdownTimeoutSeconds, jobs: app.lifecycle.runningJobs },
      'shutting down: no new connections; finishing requests and jobs',
    )
    // a connection whose request was under way stays open for keep-alive once answered; it is
    // closed as soon as it is idle, so that closing the server does not wait for its timeout
    const idleCloser = setInterval(() => app.server.closeIdleConnections(), 100)
    let forced = false
    const timer = setTimeout(() => {
      forced = true
      app.log.warn(
        { jobs: app.lifecycle.runningJobs },
        'shutdown timed out: open connections are closed and unfinished jobs left to roll back',
      )
      app.server.closeAllConnections()
      app.lifecycle.abandon()
    }, timeoutMs)
    try {
      await app.close()
      await tenants.close()
    } finally {
      clearTimeout(timer)
      clearInterval(idleCloser)
      await unmark().catch(() => undefined)
    }
    const outcome: ShutdownOutcome = forced ? 'forced' : 'clean'
    app.log.info({ outcome }, 'stopped')
    return outcome
  }
  let stopping: Promise<ShutdownOutcome> | undefined
  const shutdown = (reason: string) => (stopping ??= stop(reason))

  if (options.handleSignals !== false) {
    const onSignal = (signal: NodeJS.Signals) => {
      // the last resort if closing itself hangs (a database that never answers)
      setTimeout(() => process.exit(1), timeoutMs + 10_000).unref()
      shutdown(signal).then(
        (outcome) => process.exit(outcome === 'clean' ? 0 : 1),
        (error: unknown) => {
          app.log.error({ err: error }, 'error while shutting down')
          process.exit(1)
        },
      )
    }
    process.once('SIGINT', onSignal)
    process.once('SIGTERM', onSignal)
  }
  return { app, url, publicationAtStart: publicationSchedule.catchUp, shutdown }
}

if (isEntryPoint(import.meta.url)) {
  try {
    await startServer(loadConfig())
  } catch (error) {
    process.stderr.write(
      `${error instanceof ConfigError ? 'Configuration error' : 'Start-up failed'}: ${(error as Error).message}\n`,
    )
    process.exit(1)
  }
}
