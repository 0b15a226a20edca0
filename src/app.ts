/*
 * Builds the whole service as a Fastify instance without listening, so tests drive it with
 * `inject()` and `main.ts`/the CLI decide how to serve it.
 */
import cookie from '@fastify/cookie'
import formbody from '@fastify/formbody'
import multipart from '@fastify/multipart'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerFactory } from 'fastify'
import { pino, type Logger } from 'pino'

import { baseUrl, type AppConfig } from './config.js'
import { auditRoutes } from './host/audit/audit-routes.js'
import { sessionRoutes } from './host/auth/session-routes.js'
import type { HostContext } from './host/context.js'
import { type DatabaseHandle, openConfiguredDatabase } from './host/db/database.js'
import { loadExtensions } from './host/extensions/load-extensions.js'
import { HookRegistry } from './host/hooks/hooks.js'
import { MetaRegistry } from './host/meta/meta-registry.js'
import { frameworkErrorAnswer, registerErrorHandling } from './host/http/error-handler.js'
import './host/http/fastify-augment.js'
import { guardBeforeBody } from './host/http/authenticate.js'
import { registerHttpsPolicy } from './host/http/https-policy.js'
import { registerSecurityHeaders } from './host/http/security-headers.js'
import { registerMountedRedirects } from './host/http/mount-path.js'
import { registerMessageLocalization } from './host/http/responses/localize-messages.js'
import { loggerOptions } from './host/http/logging.js'
import { openApiRoute, registerApiDocs, registerOpenApi } from './host/http/openapi/openapi.js'
import { OPERATION_DOCS } from './openapi-examples.js'
import { HostErrorSchema, PluginErrorSchema } from './host/http/schemas.js'
import { schemaController } from './host/http/validation.js'
import { healthRoutes } from './host/http/monitoring/health.js'
import { metricsRoutes } from './host/http/monitoring/metrics-route.js'
import { Lifecycle } from './host/lifecycle.js'
import { usersRoutes } from './host/users/users-routes.js'
import { siteOptionsRoutes } from './host/extensions/site-options-routes.js'
import { releaseLocksHeldBy } from './host/locks.js'
import { attachMetrics, countUnmatchedRequests, registerRequestMetrics, ServiceMetrics } from './host/metrics.js'
import { statusRoutes, StatusSchema } from './status/status-routes.js'
import { licenseRoutes } from './licensing/license-routes.js'
import { alertSettingsRoutes } from './alerts/alert-settings-routes.js'
import { mailRoutes } from './mail/mail-routes.js'
import { passwordResetRoutes } from './password-reset/password-reset-routes.js'
import { exportRoutes } from './exports/export-routes.js'
import { catalogRoutes } from './catalog/catalog-routes.js'
import { importRoutes } from './imports/import-routes.js'
import { webhookRoutes } from './webhook/webhook-routes.js'
import { webhookSecretRoutes } from './webhook/webhook-secret-routes.js'
import { adminPanelRoutes } from './admin-panel/admin-panel-routes.js'
import { PUBLIC_NAME_MAX, publicationRoutes, publicFileRoutes } from './publication/publication-routes.js'
import { PublicationRecordSchema, publicationHistoryRoutes } from './publication/history/history-routes.js'
import { PublicationOutcomeSchema } from './publication/schemas.js'
import { dashboardRoutes } from './dashboard/dashboard-routes.js'
import { reportImportRoutes } from './publication/report/report-import-routes.js'
import { legacyGenerateRoutes } from './publication/legacy/legacy-generate-routes.js'
import { LEGACY_REST_NAMESPACE } from './version.js'
import { preflightRoutes } from './publication/preflight-routes.js'
import { settingsRoutes } from './publication/settings/settings-routes.js'
import { publicationAuditRoutes } from './publication/audit/audit-routes.js'
import { recoverInterruptedImports } from './imports/execution/recover-interrupted-imports.js'
import { CATALOG_SCHEMAS } from './catalog/schemas.js'
import { editorRoutes } from './editor/editor-routes.js'
import { EDITOR_SCHEMAS } from './editor/schemas.js'
import { mediaFileRoutes } from './editor/media-routes.js'
import { sourceRoutes } from './sources/source-routes.js'
import { embedRoutes } from './embed/embed-routes.js'
import { PUBLIC_PRICES_SCHEMAS, publicPricesRoutes } from './public-prices/public-prices-routes.js'
import { platformRoutes } from './tenancy/platform-routes.js'

import { createHostContext } from './host-context.js'

// the CLI and the benchmarks make a context without an app
export { createHostContext }

export interface BuildAppOptions {
  config: AppConfig
  /** An open database; when omitted one is opened from the configuration and closed with the app. */
  database?: DatabaseHandle
  /** Extension hooks registered by code before the app starts; `DG_EXTENSIONS` modules add theirs. */
  hooks?: HookRegistry
  /** Registered meta keys (custom fields); `DG_EXTENSIONS` modules add theirs. */
  meta?: MetaRegistry
  logger?: Logger
  now?: () => Date
  /** The HTTP server this app listens with; the platform's dispatches to each company's app (src/tenancy). */
  serverFactory?: FastifyServerFactory
}

export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = options
  const log = options.logger ?? pino(loggerOptions(config.logLevel))
  // before the database is opened: an extension that cannot start stops the service here
  const hooks = options.hooks ?? new HookRegistry()
  const meta = options.meta ?? new MetaRegistry()
  await loadExtensions(config.extensions, { hooks, meta, log, config })
  const ownsDatabase = options.database === undefined
  const database = options.database ?? openConfiguredDatabase(config)

  let ctx: HostContext
  try {
    ctx = await createHostContext({ ...options, hooks, meta, database, log })
  } catch (error) {
    if (ownsDatabase) await database.destroy()
    throw error
  }

  const app: FastifyInstance = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    trustProxy: config.trustedProxies.length > 0 ? [...config.trustedProxies] : false,
    bodyLimit: 1024 * 1024,
    schemaController,
    // a published file's name can be longer than the router's default of 100 characters
    routerOptions: { maxParamLength: PUBLIC_NAME_MAX },
    frameworkErrors: frameworkErrorAnswer(config.env === 'production'),
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
  })
  app.decorate('ctx', ctx)
  const lifecycle = new Lifecycle()
  app.decorate('lifecycle', lifecycle)
  const metrics = new ServiceMetrics(ctx, database.pool)
  app.decorate('metrics', metrics)
  attachMetrics(ctx, metrics)
  await recoverInterruptedImports(ctx)
  if (ownsDatabase) app.addHook('onClose', async () => database.destroy())
  // onClose hooks run last-registered first, after the server has stopped and its requests are
  // answered: the background jobs finish (or the shutdown gives up on them) and locks this app
  // still holds are released before the database closes
  app.addHook('onClose', async () => {
    await lifecycle.settled()
    await releaseLocksHeldBy(ctx)
  })

  registerRequestMetrics(app, metrics)
  registerErrorHandling(app)
  registerHttpsPolicy(app, config.env === 'production')
  registerSecurityHeaders(app, config.env === 'production')
  registerMountedRedirects(app)
  guardBeforeBody(app)
  registerMessageLocalization(app, `${baseUrl(config)}/catalog`)
  await app.register(cookie)
  await app.register(formbody)
  await app.register(multipart, {
    limits: { fileSize: config.importMaxBytes, files: 1, fields: 10, fieldSize: 256 * 1024 },
  })
  await registerOpenApi(app, OPERATION_DOCS)
  await registerApiDocs(app, `${baseUrl(config)}/docs`)
  app.addSchema(HostErrorSchema)
  app.addSchema(PluginErrorSchema)
  app.addSchema(StatusSchema)
  app.addSchema(PublicationRecordSchema)
  // the answer of a publication, and the result of an import job that published a report
  app.addSchema(PublicationOutcomeSchema)
  for (const schema of CATALOG_SCHEMAS) app.addSchema(schema)
  for (const schema of EDITOR_SCHEMAS) app.addSchema(schema)
  for (const schema of PUBLIC_PRICES_SCHEMAS) app.addSchema(schema)

  await app.register(healthRoutes)
  await app.register(metricsRoutes)
  await app.register(publicFileRoutes)
  await app.register(mediaFileRoutes)
  await app.register(adminPanelRoutes)
  await app.register(
    async (v2) => {
      await v2.register(openApiRoute)
      await v2.register(sessionRoutes)
      await v2.register(passwordResetRoutes)
      await v2.register(usersRoutes)
      await v2.register(auditRoutes)
      await v2.register(siteOptionsRoutes)
      await v2.register(statusRoutes)
      await v2.register(licenseRoutes)
      await v2.register(alertSettingsRoutes)
      await v2.register(mailRoutes)
      await v2.register(catalogRoutes)
      await v2.register(importRoutes)
      await v2.register(webhookRoutes)
      await v2.register(webhookSecretRoutes)
      await v2.register(publicationRoutes)
      await v2.register(publicationHistoryRoutes)
      await v2.register(dashboardRoutes)
      await v2.register(reportImportRoutes)
      await v2.register(preflightRoutes)
      await v2.register(settingsRoutes)
      await v2.register(publicationAuditRoutes)
      await v2.register(editorRoutes)
      await v2.register(sourceRoutes)
      await v2.register(exportRoutes)
      await v2.register(embedRoutes)
      await v2.register(publicPricesRoutes)
      // the other companies are managed from the first company's app only
      if (config.tenant === undefined) await v2.register(platformRoutes)
    },
    { prefix: baseUrl(config) },
  )
  await app.register(
    async (v1) => {
      await v1.register(legacyGenerateRoutes)
    },
    { prefix: `${config.restPrefix}/${LEGACY_REST_NAMESPACE}` },
  )
  countUnmatchedRequests(app, metrics)
  return app
}
