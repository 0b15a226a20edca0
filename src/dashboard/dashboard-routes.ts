/*
 * GET {base_url}/dashboard (manage_options; not licence-gated): what an operator checks first.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { scopeOf } from '../host/auth/scope.js'
import { requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { errorResponses, stringEnum } from '../host/http/schemas.js'
import { StatusSchema } from '../status/status-routes.js'
import { getDashboard } from './dashboard-service.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

const DatasetToday = Type.Object({
  developer_id: Type.Integer(),
  developer_name: Type.String(),
  status: stringEnum(['published', 'failed', 'pending'], {
    description: 'published: a file of today is served; failed: today’s latest attempt failed; pending: not yet run',
  }),
  published: Nullable(Type.Ref('PublicationRecord')),
  failure: Nullable(Type.Ref('PublicationRecord')),
})

const DashboardSchema = Type.Object({
  generated_at: Type.String(),
  today: Type.Object({
    date: Type.String({ description: 'Today in Europe/Warsaw' }),
    status: stringEnum(['published', 'failed', 'pending', 'not_configured'], {
      description: 'The worst of the datasets; not_configured while no developer entity exists',
    }),
    datasets: Type.Array(DatasetToday),
  }),
  schedule: Type.Object({
    pattern: Type.String({ description: 'Cron pattern of the daily publication' }),
    next_run_at: Nullable(Type.String({ description: 'Next run (ISO 8601 UTC)' })),
    timezone: Type.String(),
  }),
  public_base_url: Nullable(Type.String()),
  last_publications: Type.Array(Type.Ref('PublicationRecord'), { description: 'The five latest attempts' }),
  catalog: Type.Object({
    offers_by_status: Type.Record(Type.String(), Type.Integer(), { description: 'Offers per status code' }),
    offers_total: Type.Integer(),
    offers_without_type: Type.Integer({ description: 'Published, listed offers the daily file leaves out' }),
    published_statuses: Type.Array(Type.String()),
    investments_total: Type.Integer(),
    investments_published: Type.Integer(),
    investments_without_location: Type.Integer({ description: 'Published investments missing columns 29–35' }),
    investments_without_prospectus: Type.Integer({ description: 'Published investments missing column 58' }),
    incomplete_investments: Type.Array(
      Type.Object({
        id: Type.Integer(),
        title: Type.String(),
        location_missing: Type.Boolean(),
        prospectus_missing: Type.Boolean(),
      }),
      { description: 'The first 20 of them' },
    ),
  }),
  recent_imports: Type.Array(
    Type.Object({
      id: Type.String(),
      type: Type.String({ description: 'offer or report' }),
      mode: Type.String(),
      status: Type.String(),
      operator: Type.String(),
      file_name: Type.String(),
      file_format: Type.String(),
      counters: Type.Object({}, { additionalProperties: true }),
      result: Nullable(Type.Object({}, { additionalProperties: true })),
      created_at: Type.String(),
      finished_at: Nullable(Type.String()),
    }),
    { description: 'The latest import jobs still kept (previews 24 h, results 7 days)' },
  ),
  webhook: Type.Object({
    days: Type.Array(
      Type.Object({
        day: Type.String(),
        accepted: Type.Integer(),
        replayed: Type.Integer(),
        refused: Type.Record(Type.String(), Type.Integer(), { description: 'Refusals by code' }),
      }),
      { description: 'The last 7 days, today first' },
    ),
  }),
  license: Type.Object({
    status: Type.String(),
    plan: Nullable(Type.String()),
    entitlements: Type.Array(Type.String()),
    valid_until: Nullable(Type.String()),
    continuity_mode: Type.Boolean(),
  }),
  alerts: StatusSchema.properties.alerts,
  sources: Type.Object({
    sources: Type.Integer({ description: 'Scheduled sources configured' }),
    held_runs: Type.Integer({ description: 'Runs held by a guard, waiting for apply or reject' }),
    failing: Type.Integer({ description: 'Sources whose latest run failed or found the file invalid' }),
  }),
})

export async function dashboardRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/dashboard',
    {
      preHandler: [requireCapability('dg_read_all')],
      schema: {
        operationId: 'getDashboard',
        tags: ['status'],
        summary:
          'The operators’ dashboard: today’s publication per dataset, next run, last publications, catalog counts, recent imports, webhook activity, licence, alerts',
        description: 'Not licence-gated: in continuity mode the publication, and so its supervision, continue.',
        security,
        response: { 200: DashboardSchema, ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const scope = await scopeOf(request)
      if (!scope.restricted) return getDashboard(app.ctx)
      return getDashboard(app.ctx, {
        investments: [...scope.investments],
        developers: [...scope.visibleDevelopers],
        userId: (await requirePrincipal(request)).user.id,
      })
    },
  )
}
