/*
 * Process entry: load the configuration, build the app, listen, and close cleanly on SIGINT or
 * SIGTERM so that running transactions finish and the database is closed.
 */

import type { FastifyInstance } from 'fastify'

import { buildApp } from './app.js'
import { type AppConfig, baseUrl, ConfigError, loadConfig } from './config.js'
import { isEntryPoint } from './entry-point.js'
import { startScheduler } from './host/scheduler.js'
import { MAINTENANCE_JOBS } from './maintenance-jobs.js'
import { startPublicationSchedule } from './publication/publication-schedule.js'

export interface RunningServer {
  app: FastifyInstance
  url: string
}

export async function startServer(config: AppConfig): Promise<RunningServer> {
  const app = await buildApp({ config })
  const address = await app.listen({ host: config.host, port: config.port })
  const scheduler = startScheduler(app.ctx, MAINTENANCE_JOBS)
  const publicationSchedule = await startPublicationSchedule(app.ctx)
  const url = `${address}${baseUrl(config)}`
  app.log.info(
    { url, database: config.databaseUrl ? 'postgresql' : 'sqlite', dataDir: config.dataDir },
    'service listening',
  )

  let closing = false
  const close = (signal: string) => {
    if (closing) return
    closing = true
    scheduler.stop()
    publicationSchedule.stop()
    app.log.info({ signal }, 'shutting down')
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.log.error({ err: error }, 'error while shutting down')
        process.exit(1)
      },
    )
  }
  process.once('SIGINT', () => close('SIGINT'))
  process.once('SIGTERM', () => close('SIGTERM'))
  return { app, url }
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
