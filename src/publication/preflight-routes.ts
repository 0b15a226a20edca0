/*
 * POST {base_url}/publications/preflight (docs/integration/publication.md): manage_options and the
 * `publishing_gov` entitlement (docs/decisions/licence.md). 200 with the report when the day's file would pass validation,
 * 422 `preflight_failed` with the same report when it would not.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { type TSchema, Type } from 'typebox'

import { assertInScope, scopeOf } from '../host/auth/scope.js'
import { requireCapability } from '../host/http/authenticate.js'
import { DateString, errorResponses } from '../host/http/schemas.js'
import { requireEntitlement } from '../licensing/require-entitlement.js'
import { primaryDataset } from './daily-file/datasets.js'
import { preflightOrRefuse } from './preflight.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const PublicationIssueSchema = Type.Object(
  {
    code: Type.String({ description: 'Stable code' }),
    message: Type.String({ description: 'Corrective message: Polish, or English with Accept-Language: en' }),
    message_pl: Type.String(),
    message_en: Type.String(),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true },
)

const PortalSchema = Type.Object(
  {
    api_url: Type.String(),
    api_version: Type.String(),
    checked_at: Type.String(),
    date: Type.String(),
    query: Type.String(),
    dataset: Nullable(Type.Object({ id: Type.String(), title: Type.String() }, { additionalProperties: true })),
    resource: Nullable(Type.Object({ id: Type.String(), title: Type.String() }, { additionalProperties: true })),
    resources_seen: Type.Integer(),
    latest_data_date: Nullable(Type.String()),
    error: Type.Optional(Type.String({ description: 'The raw failure (technical detail)' })),
    error_code: Type.Optional(Type.String({ description: 'The failure’s stable code (network_host_not_found, …)' })),
    error_pl: Type.Optional(Type.String({ description: 'The failure explained in Polish' })),
    error_en: Type.Optional(Type.String({ description: 'The failure explained in English' })),
  },
  { description: 'What the dane.gov.pl public API (1.4) answered' },
)

export const PreflightReportSchema = Type.Object({
  date: Type.String({ description: 'The checked date (default today in Europe/Warsaw)' }),
  valid: Type.Boolean({ description: 'No blocking issue: a publication for the date would pass validation' }),
  production_allowed: Type.Boolean({
    description: 'valid, an active licence with api_webhooks, and an https public_base_url',
  }),
  contract: Type.Object({ id: Type.String(), valid_until: Type.String() }),
  record_count: Type.Integer({ description: 'Rows of the day’s file' }),
  mode: Type.Union([Type.Literal('production'), Type.Literal('continuity')]),
  artifact_status: Type.Union([Type.Literal('ready'), Type.Literal('invalid')]),
  delivery_status: Type.Union([
    Type.Literal('ok'),
    Type.Literal('failed'),
    Type.Literal('not_published'),
    Type.Literal('not_checked'),
  ]),
  delivery_checked_at: Nullable(Type.String()),
  delivery_issues: Type.Array(PublicationIssueSchema),
  portal_status: Type.Union([
    Type.Literal('not_checked'),
    Type.Literal('ok'),
    Type.Literal('missing_resource'),
    Type.Literal('unreachable'),
    Type.Literal('dataset_not_found'),
  ]),
  issues: Type.Array(PublicationIssueSchema, { description: 'Blocking issues' }),
  warnings: Type.Array(PublicationIssueSchema, { description: 'Findings that do not block' }),
  portal: Type.Optional(PortalSchema),
})

export async function preflightRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.post(
    '/publications/preflight',
    {
      preHandler: [requireCapability('dg_publish'), requireEntitlement('publishing_gov')],
      schema: {
        operationId: 'preflightPublication',
        tags: ['publication'],
        summary: 'Check a publication without publishing: the day’s file, the served files and the portal',
        security,
        body: Type.Optional(
          Type.Object(
            {
              date: Type.Optional(DateString),
              verify_portal: Type.Optional(
                Type.Boolean({ description: 'Ask the dane.gov.pl API whether the dataset has the date' }),
              ),
              developer_id: Type.Optional(
                Type.Integer({
                  minimum: 1,
                  description: 'The developer entity whose dataset is checked; default the publishing developer',
                }),
              ),
            },
            { additionalProperties: false },
          ),
        ),
        response: { 200: PreflightReportSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const body = request.body
      const scope = await scopeOf(request)
      // the preflight prepares the entity's dataset as a publication would: the same scope rule
      if (scope.restricted)
        await assertInScope(app.ctx.db, scope, {
          kind: 'dataset',
          developerId: body?.developer_id ?? (await primaryDataset(app.ctx))?.developer.id ?? null,
        })
      return preflightOrRefuse(app.ctx, {
        date: body?.date,
        verifyPortal: body?.verify_portal ?? false,
        developerId: body?.developer_id ?? null,
      })
    },
  )
}
