/*
 * Scheduled sources over REST: the sources (list, add, show, change, remove, run now), their runs,
 * a run with its plan, and the decision on a held run (apply, reject). `manage_options` and the
 * `bulk_import` entitlement, as the offer import whose path the runs take. Answers carry
 * `Cache-Control: no-store`; header values sent are stored and never answered.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { requireWholeCatalog, scopeOf } from '../host/auth/scope.js'
import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { errorResponses, RowId, withDefault } from '../host/http/schemas.js'
import { PluginError } from '../host/errors.js'
import { requireEntitlement } from '../licensing/require-entitlement.js'
import {
  SOURCE_SCHEMAS,
  SourceCreateBody,
  SourceHeaderPreviewBody,
  SourceHeaderPreviewSchema,
  SourceRunPlanSchema,
  SourceUpdateBody,
} from './schemas.js'
import { previewSourceHeaders } from './source-header-preview.js'
import { applyHeldRun, bilingual, rejectHeldRun, runSource, runWithPlan } from './source-runs.js'
import { changeSource, createSource, getSource, listRuns, listSources, removeSource } from './source-service.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const IdParams = Type.Object({ id: RowId() })
const tags = ['sources']

export async function sourceRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const readGuard = [requireCapability('dg_read_all'), requireEntitlement('bulk_import')]
  const writeGuard = [requireCapability('dg_import'), requireEntitlement('bulk_import')]
  for (const schema of SOURCE_SCHEMAS) app.addSchema(schema)
  app.addHook('onSend', async (_request, reply) => {
    reply.header('Cache-Control', 'no-store')
  })

  app.get(
    '/sources',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'listSources',
        tags,
        summary: 'Scheduled sources with their latest run',
        security,
        response: { 200: Type.Object({ sources: Type.Array(Type.Ref('Source')) }), ...errorResponses(401, 403) },
      },
    },
    // a scheduled run acts for the whole catalog, so sources are an unscoped user's: none is listed to a scoped one
    async (request) => ({ sources: (await scopeOf(request)).restricted ? [] : await listSources(app.ctx) }),
  )

  app.post(
    '/sources',
    {
      preHandler: [...writeGuard, requireWholeCatalog],
      schema: {
        operationId: 'createSource',
        tags,
        summary: 'Add a source: an https CSV/XLSX address pulled on a schedule and imported within guards',
        description:
          'Header values (a token) are stored like the webhook secret and never returned: the answer lists header names. ' +
          'ca_certificate (PEM) is trusted for this source only; text that is not a certificate: 422 source_certificate_invalid. ' +
          'A private or loopback address is fetched only when its host is in private_hosts: an address literal that is not public unicast, in any notation, ' +
          'is refused here with 422 source_address_not_public (issues[0] at url, in Polish), a name is checked after DNS resolution at each run. 400 invalid_source with issues.',
        security,
        body: SourceCreateBody,
        response: { 201: Type.Ref('Source'), ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      const view = await createSource(app.ctx, actorOf(principal), request.body)
      reply.header('Location', `${request.url.replace(/\?.*$/, '')}/${view.id}`)
      return reply.code(201).send(view)
    },
  )

  app.post(
    '/sources/preview-headers',
    {
      // whoever may save a source and run it (which fetches its address) may read its header first
      preHandler: [...writeGuard, requireWholeCatalog],
      schema: {
        operationId: 'previewSourceHeaders',
        tags,
        summary: "Fetch a source's file once and answer its header row (to assign columns); nothing is stored",
        description:
          'The same fetch, limits and address guard as a run. With source_id the saved source fills what is not sent. ' +
          '400 invalid_source (issues) or 422 source_address_not_public / source_certificate_invalid for settings refused as on save; ' +
          '422 source_preview_failed when the file cannot be fetched or read (fetch_code: the run failure’s code, network_code when a connection failed), message in Polish.',
        security,
        body: SourceHeaderPreviewBody,
        response: { 200: SourceHeaderPreviewSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => previewSourceHeaders(app.ctx, request.body),
  )

  app.get(
    '/sources/:id',
    {
      preHandler: [...readGuard, requireWholeCatalog],
      schema: {
        operationId: 'getSource',
        tags,
        summary: 'One source',
        security,
        params: IdParams,
        response: { 200: Type.Ref('Source'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getSource(app.ctx, request.params.id),
  )

  app.patch(
    '/sources/:id',
    {
      preHandler: [...writeGuard, requireWholeCatalog],
      schema: {
        operationId: 'updateSource',
        tags,
        summary: 'Change a source (fields sent only; headers replaces every header, {} removes them)',
        description:
          'A url on another origin (scheme, host or port) removes the stored headers unless the same request sends them: the answer says so in warnings (source_headers_removed). ' +
          'A url or private_hosts that leaves a non-public address literal without its allowance: 422 source_address_not_public, nothing changed.',
        security,
        params: IdParams,
        body: SourceUpdateBody,
        response: { 200: Type.Ref('Source'), ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      return changeSource(app.ctx, actorOf(principal), request.params.id, request.body)
    },
  )

  app.delete(
    '/sources/:id',
    {
      preHandler: [...writeGuard, requireWholeCatalog],
      schema: {
        operationId: 'deleteSource',
        tags,
        summary: 'Remove a source; its runs stay on record, a held one can no longer be applied',
        security,
        params: IdParams,
        response: { 200: Type.Object({ deleted: Type.Boolean() }), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      await removeSource(app.ctx, actorOf(principal), request.params.id)
      return { deleted: true }
    },
  )

  app.post(
    '/sources/:id/run',
    {
      preHandler: [...writeGuard, requireWholeCatalog],
      schema: {
        operationId: 'runSource',
        tags,
        summary: 'Run the source now: fetch, preview, guards, then apply or hold',
        description:
          'The same path and guards as a scheduled run: a plan that breaks a limit, or would undo an operator’s decision ' +
          '(a sold or reserved unit back on sale, an announced price replaced, a value changed in the panel since the ' +
          'previous applied run), is held with nothing written. 409 source_busy when another request or instance is running it.',
        security,
        params: IdParams,
        response: { 200: Type.Ref('SourceRun'), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const ran = await runSource(app.ctx, request.params.id, 'manual', actorOf(principal))
      if (ran.busy)
        throw new PluginError(
          'source_busy',
          409,
          bilingual(
            'To źródło jest właśnie uruchomione; spróbuj ponownie za minutę.',
            'This source is being run; retry in a minute.',
          ),
          { 'Retry-After': 30 },
        )
      return ran.run
    },
  )

  app.get(
    '/source-runs',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'listSourceRuns',
        tags,
        summary: 'Runs of every source (or of one), newest first; outcome=held lists the runs waiting for a decision',
        security,
        querystring: Type.Object({
          source_id: Type.Optional(RowId()),
          outcome: Type.Optional(Type.String({ pattern: '^[a-z_]{1,20}$' })),
          limit: withDefault(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
        }),
        response: { 200: Type.Object({ runs: Type.Array(Type.Ref('SourceRun')) }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const query = request.query
      if ((await scopeOf(request)).restricted) return { runs: [] }
      return {
        runs: await listRuns(app.ctx, {
          limit: query.limit,
          ...(query.source_id === undefined ? {} : { sourceId: query.source_id }),
          ...(query.outcome === undefined ? {} : { outcome: query.outcome }),
        }),
      }
    },
  )

  app.get(
    '/source-runs/:id',
    {
      preHandler: [...readGuard, requireWholeCatalog],
      schema: {
        operationId: 'getSourceRun',
        tags,
        summary: "A run with a page of its plan's changes (before → after per offer)",
        security,
        params: IdParams,
        querystring: Type.Object({
          page: withDefault(Type.Integer({ minimum: 1, default: 1 })),
          per_page: withDefault(Type.Integer({ minimum: 1, maximum: 200, default: 100 })),
        }),
        response: { 200: SourceRunPlanSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { page, per_page } = request.query
      return runWithPlan(app.ctx, request.params.id, page, per_page)
    },
  )

  for (const [verb, decide] of [
    ['apply', applyHeldRun],
    ['reject', rejectHeldRun],
  ] as const)
    app.post(
      `/source-runs/:id/${verb}`,
      {
        preHandler: [...writeGuard, requireWholeCatalog],
        schema: {
          operationId: verb === 'apply' ? 'applySourceRun' : 'rejectSourceRun',
          tags,
          summary:
            verb === 'apply'
              ? "Apply a held run's plan through the import's execution (its idempotency key: never twice)"
              : 'Reject a held run: nothing is written',
          description:
            '409 source_run_not_held when the run is not held; ' +
            (verb === 'apply'
              ? '409 source_run_stale when the catalog changed since the run or its plan expired.'
              : ''),
          security,
          params: IdParams,
          response: { 200: Type.Ref('SourceRun'), ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request) => {
        const principal = await requirePrincipal(request)
        return decide(app.ctx, request.params.id, {
          actor: actorOf(principal),
          userId: principal.user.id,
          name: principal.user.login,
        })
      },
    )
}
