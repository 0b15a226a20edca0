import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { requireCapability } from '../host/http/authenticate.js'
import { errorResponses } from '../host/http/schemas.js'
import { requireEntitlement } from '../licensing/require-entitlement.js'
import { AlertViewSchema } from '../alerts/alert-schema.js'
import { getServiceStatus } from './service-status.js'

export const StatusSchema = Type.Object(
  {
    version: Type.String({ description: 'Plugin version' }),
    contract_id: Type.String({ description: 'Legal contract (official data standard) identifier' }),
    license_status: Type.String({ description: 'active, expired, suspended or inactive' }),
    continuity_mode: Type.Boolean({
      description: 'True when the licence is not active: the daily publication continues, PRO features answer 403',
    }),
    last_publication: Type.Object(
      {
        date: Type.Optional(Type.String()),
        published_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        record_count: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
        trigger: Type.Optional(Type.String()),
        version: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        xml_md5: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        csv_md5: Type.Optional(Type.Union([Type.String(), Type.Null()])),
        files: Type.Optional(
          Type.Union([Type.Object({ csv: Type.String(), xml: Type.String(), md5: Type.String() }), Type.Null()]),
        ),
        offers_without_type: Type.Optional(
          Type.Integer({ description: 'Offers left out of that file because they had no type yet' }),
        ),
        gaps: Type.Optional(
          Type.Record(Type.String(), Type.Integer(), {
            description:
              'What that file showed incompletely or left out: offers_without_price, offers_without_price_m2, offers_without_total, combined_price_missing, combined_package_held, offers_left_out_by_status, offers_hidden_in_draft, investments_without_location, investments_without_prospectus',
          }),
        ),
      },
      { description: 'Empty object when nothing has been published yet' },
    ),
    public_dataset_id: Type.String({ description: 'Stable extIdent of the dataset on dane.gov.pl' }),
    last_publication_failure: Type.Union(
      [
        Type.Object({
          date: Type.String(),
          failed_at: Type.Union([Type.String(), Type.Null()]),
          trigger: Type.String(),
          issues: Type.Array(Type.Object({ code: Type.String() }, { additionalProperties: true })),
        }),
        Type.Null(),
      ],
      {
        description:
          'The latest failed publication when no success came after it (beyond the status object every installation answers)',
      },
    ),
    datasets: Type.Array(
      Type.Object({
        developer_id: Type.Integer(),
        developer_name: Type.String(),
        nip: Type.Union([Type.String(), Type.Null()]),
        public_dataset_id: Type.String({ description: 'extIdent of this developer entity’s dataset' }),
        xml_url: Type.Union([Type.String(), Type.Null()]),
        last_publication: Type.Object({}, { additionalProperties: true }),
        last_publication_failure: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()]),
        missed_days: Type.Array(Type.String()),
      }),
      {
        description:
          'One dataset per developer entity (beyond the status object every installation answers): the publishing developer’s first, whose fields the top level repeats',
      },
    ),
    missed_days: Type.Array(Type.String(), {
      description:
        'Days before today without a published file since the first one, of any developer entity’s dataset (each dataset’s own are in datasets[].missed_days); a file for a past day is never made from today’s prices, the report import can fill one',
    }),
    offers_without_type: Type.Integer({
      description:
        'Published offers with a listed status but no type yet: left out of the daily file until an operator sets mieszkanie or dom (beyond the status object every installation answers)',
    }),
    alerts: Type.Array(AlertViewSchema, {
      description:
        'Alerts of the last 7 days, newest first, with each channel’s outcome (beyond the status object every installation answers)',
    }),
  },
  { $id: 'Status' },
)

export async function statusRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/status',
    {
      schema: {
        operationId: 'getStatus',
        tags: ['status'],
        summary: 'Service status',
        security: [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }],
        response: { 200: Type.Ref('Status'), ...errorResponses(401, 403) },
      },
      preHandler: [requireCapability('dg_read_all'), requireEntitlement('api_webhooks')],
    },
    async () => getServiceStatus(app.ctx),
  )
}
