/*
 * The publication history (manage_options; not licence-gated: the daily duty and its record go on
 * in continuity mode):
 *   GET {base_url}/publications        every attempt, newest first, paged and filtered
 *   GET {base_url}/publications/{id}   one attempt
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { requireCapability } from '../../host/http/authenticate.js'
import { DateString, errorResponses, stringEnum } from '../../host/http/schemas.js'
import { getPublicationRecord, publicationHistory } from './publication-history.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const readGuard = [requireCapability('dg_read_all')]
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

const HistoryIssue = Type.Object({
  code: Type.String({ description: 'Stable code' }),
  message: Type.Optional(Type.String({ description: 'Polish, or English with Accept-Language: en' })),
  message_pl: Type.String({ description: 'The corrective message in Polish' }),
  message_en: Type.String(),
  details: Type.Optional(Type.Object({}, { additionalProperties: true })),
})

export const PublicationRecordSchema = Type.Object(
  {
    id: Type.Integer(),
    date: Type.String({ description: 'The day of the data (YYYY-MM-DD)' }),
    status: Type.String({ description: 'published or failed' }),
    trigger: Type.String({ description: 'api, schedule, admin, legacy_generate, report_import or cli' }),
    actor: Type.String({ description: 'Who ran it: a login, or scheduler, webhook, cli' }),
    started_at: Type.String(),
    finished_at: Nullable(Type.String()),
    developer_id: Nullable(
      Type.Integer({ description: 'Another developer entity’s dataset; null: the publishing developer’s' }),
    ),
    record_count: Nullable(Type.Integer({ description: 'Rows of the day’s file' })),
    version: Nullable(Type.String({ description: 'The version folder of a success' })),
    csv: Nullable(
      Type.Object({
        file_name: Type.String(),
        url: Type.String({ description: 'The address the portal fetches it at' }),
        served_path: Type.String({ description: 'Where this service serves it (path on this host)' }),
        md5: Type.String({ description: 'MD5 of the CSV bytes' }),
        bytes: Nullable(Type.Integer()),
      }),
    ),
    xml: Nullable(
      Type.Object({
        url: Type.String(),
        md5_url: Type.String(),
        md5: Type.String({ description: 'MD5 of the harvester XML as published then' }),
        resources: Nullable(
          Type.Integer({ description: 'Resources (CSV files) listed in the XML: a day published again is one more' }),
        ),
        served_path: Type.String({ description: 'The current XML on this host' }),
      }),
    ),
    offers_without_type: Nullable(Type.Integer({ description: 'Offers left out for having no type yet' })),
    gaps: Type.Record(Type.String(), Type.Integer(), { description: 'What the file showed incompletely, by kind' }),
    warnings: Type.Array(HistoryIssue, { description: 'Findings of a success that did not stop it' }),
    issues: Type.Array(HistoryIssue, { description: 'Why a failure failed, each with its corrective message' }),
  },
  { $id: 'PublicationRecord', description: 'One publication attempt' },
)

export async function publicationHistoryRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/publications',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'listPublications',
        tags: ['publication'],
        summary: 'Publication history: every attempt, newest first, with files, checksums, warnings and issues',
        security,
        querystring: Type.Object({
          page: Type.Integer({ minimum: 1, maximum: 100000, default: 1 }),
          per_page: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
          status: Type.Optional(stringEnum(['published', 'failed'])),
          trigger: Type.Optional(stringEnum(['api', 'schedule', 'admin', 'legacy_generate', 'report_import', 'cli'])),
          developer_id: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 2147483647,
              description: 'Another developer entity’s dataset (default: all datasets)',
            }),
          ),
          from: Type.Optional(DateString),
          to: Type.Optional(DateString),
        }),
        response: {
          200: Type.Object({
            items: Type.Array(Type.Ref('PublicationRecord')),
            page: Type.Integer(),
            per_page: Type.Integer(),
            total: Type.Integer({ description: 'Also X-WP-Total' }),
            total_pages: Type.Integer({ description: 'Also X-WP-TotalPages' }),
          }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const q = request.query
      const { items, total } = await publicationHistory(
        app.ctx,
        { status: q.status, trigger: q.trigger, developerId: q.developer_id, fromDate: q.from, toDate: q.to },
        q.page,
        q.per_page,
      )
      const totalPages = Math.ceil(total / q.per_page)
      reply.header('X-WP-Total', total).header('X-WP-TotalPages', totalPages)
      return { items, page: q.page, per_page: q.per_page, total, total_pages: totalPages }
    },
  )

  app.get(
    '/publications/:id',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'getPublication',
        tags: ['publication'],
        summary: 'One publication attempt',
        security,
        params: Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2147483647 }) }),
        response: { 200: Type.Ref('PublicationRecord'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getPublicationRecord(app.ctx, request.params.id),
  )
}
