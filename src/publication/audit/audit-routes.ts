/*
 * GET {base_url}/publication/audit (manage_options; not licence-gated: checking what was published
 * is part of the legal duty): every published file of every developer entity's dataset read again
 * and checked (publication-audit.ts). Read only; the answer is 200 whatever it finds.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { PluginError } from '../../host/errors.js'
import { requireCapability } from '../../host/http/authenticate.js'
import { isCalendarDate } from '../../host/warsaw-day.js'
import { DateString, errorResponses } from '../../host/http/schemas.js'
import { auditPublications } from './publication-audit.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])

const AuditProblemSchema = Type.Object({
  code: Type.String({
    description:
      'Stable code: audit_* (XML, .md5, resources and their titles and descriptions, files and their checksums), the byte rules’ codes, invariant_* (the day-file invariants) or a gap (offer_price_missing, offer_price_m2_missing, offer_price_total_missing)',
  }),
  severity: Type.String({ description: 'error (a rule a published file breaks) or gap (a unit shown incompletely)' }),
  message: Type.String({ description: 'Polish, or English with Accept-Language: en' }),
  message_pl: Type.String(),
  message_en: Type.String(),
  developer_id: Type.Integer({ description: 'The developer entity whose dataset it is' }),
  day: Nullable(Type.String({ description: 'The day of the file (dataDate); null for the dataset’s XML' })),
  file: Nullable(Type.String({ description: 'The day file’s name' })),
  unit: Nullable(Type.String({ description: 'The unit (column 37, or a part’s designation) it is about' })),
  line: Nullable(Type.Integer({ description: '1-based line of the day file (the header is line 1)' })),
  details: Type.Optional(Type.Object({}, { additionalProperties: true })),
})

export const PublicationAuditSchema = Type.Object(
  {
    checked_at: Type.String(),
    day: Nullable(Type.String({ description: 'Only this day’s files were checked; null: every published file' })),
    valid: Type.Boolean({ description: 'No error in any dataset (gaps are reported, not counted as errors)' }),
    errors: Type.Integer(),
    gaps: Type.Integer(),
    datasets: Type.Array(
      Type.Object({
        developer_id: Type.Integer(),
        developer_name: Type.String(),
        public_dataset_id: Type.String({ description: 'The dataset’s extIdent' }),
        xml_url: Nullable(Type.String()),
        resources: Type.Integer({ description: 'Resources the served XML lists' }),
        files_checked: Type.Integer({ description: 'Day files read and checked' }),
        errors: Type.Integer(),
        gaps: Type.Integer(),
        problems: Type.Array(AuditProblemSchema),
      }),
    ),
  },
  { $id: 'PublicationAudit' },
)

export async function publicationAuditRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.addSchema(PublicationAuditSchema)
  app.get(
    '/publication/audit',
    {
      preHandler: [requireCapability('dg_read_all')],
      schema: {
        operationId: 'auditPublications',
        tags: ['publication'],
        summary: 'Audit of everything published: every file of every dataset read again and checked',
        description:
          'Re-reads every published file of every developer entity’s dataset (or one day’s, or one dataset’s) and checks ' +
          'the XML against the XSD and its .md5, every listed resource present with its recorded checksum and with the ' +
          'URL, day, titles and descriptions it was first published with, no resource removed from the XML since it was ' +
          'published, and each day file against the invariants every file passes ' +
          'before it is written (dates never after the day, prices of units on offer, column 42 ≥ column 40, ' +
          'elementary cells, lengths the XML allows) and the byte rules. Each problem names the day, the file and the unit.',
        security,
        querystring: Type.Object({
          date: Type.Optional(DateString),
          developer_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
        }),
        response: { 200: Type.Ref('PublicationAudit'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const q = request.query
      if (q.date !== undefined && !isCalendarDate(q.date))
        throw new PluginError('invalid_date', 400, { message: 'date must be a real calendar date YYYY-MM-DD' })
      return auditPublications(app.ctx, { day: q.date, developerId: q.developer_id })
    },
  )
}
