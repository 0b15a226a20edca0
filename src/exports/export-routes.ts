/*
 * Files of the catalog in the import's own columns, and the bulk price change (manage_options; not
 * licence-gated, like the editor: they feed the daily publication, which continues in continuity mode):
 *   GET  {base_url}/offers/export?format=csv|xlsx&…   the offers the editor's table shows with the same filters
 *   GET  {base_url}/imports/template?format=csv|xlsx  the import's columns, no rows (XLSX: with their descriptions)
 * Both in Polish (headers and statuses) unless `columns=technical` asks for the field names and status codes.
 *   POST {base_url}/offers/price-change/preview       before → after per offer, as a previewed import run
 *   POST {base_url}/offers/price-change/execute       that run executed by the import's writer (Idempotency-Key)
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'

import { assertInScope, assertOffersInScope, investmentFilter, scopeOf } from '../host/auth/scope.js'
import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { DateString, errorResponses, stringEnum, withDefault } from '../host/http/schemas.js'
import { OfferListQuery } from '../editor/schemas.js'
import { offerFiltersOf } from '../catalog/schemas.js'
import { COLUMN_NAMINGS, exportCsv, exportOffers, exportXlsx } from './offer-export.js'
import { executePriceChange, previewPriceChange } from '../bulk-changes/bulk-price-change.js'
import { PRICE_CHANGE_STATUSES } from '../bulk-changes/price-change-lines.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const readGuard = [requireCapability('dg_read_all')]
const writeGuard = [requireCapability('dg_edit_catalog')]
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
const Format = stringEnum(['csv', 'xlsx'] as const, { default: 'xlsx', description: 'csv (UTF-8, ;) or xlsx' })
const Columns = stringEnum(COLUMN_NAMINGS, {
  default: 'polish',
  description:
    'polish: Polish headers (Identyfikator inwestycji, …) and status words (wolne, sprzedane, …), for people; technical: the canonical field names and status codes (available, sold, …), for integrations. The import reads both.',
})

const {
  page: _p,
  per_page: _pp,
  orderby: _o,
  order: _d,
  modified_after: _m,
  ...filterProperties
} = OfferListQuery.properties
const ExportQuery = Type.Object(
  { ...filterProperties, format: withDefault(Format), columns: withDefault(Columns) },
  { additionalProperties: false },
)

const fileResponse = (description: string) => ({
  description,
  content: {
    'text/csv': { schema: Type.String({ description: 'UTF-8 with a byte-order mark, ; between cells' }) },
    [XLSX_TYPE]: { schema: Type.String({ format: 'binary' }) },
  },
})

function sendFile(reply: FastifyReply, format: 'csv' | 'xlsx', name: string, body: Buffer): FastifyReply {
  return reply
    .header('Content-Type', format === 'csv' ? 'text/csv; charset=utf-8' : XLSX_TYPE)
    .header('Content-Disposition', `attachment; filename="${name}.${format}"`)
    .header('Cache-Control', 'no-store')
    .send(body)
}

const Money = Type.String({ description: 'PLN with two decimals, e.g. 650000.00' })
const PriceChangeBody = Type.Object(
  {
    offer_ids: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), { maxItems: 5000 })),
    investment: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
    statuses: Type.Optional(
      Type.Array(stringEnum(PRICE_CHANGE_STATUSES), {
        minItems: 1,
        maxItems: PRICE_CHANGE_STATUSES.length,
        uniqueItems: true,
        description:
          'The statuses of the offers changed. Default: an investment’s units on sale only (available), never a sold one; offers chosen by offer_ids whatever their status.',
      }),
    ),
    percent: Type.String({ maxLength: 10, description: 'Change in percent, e.g. "3", "-2,5" (two decimals at most)' }),
    rounding: stringEnum(['grosz', 'zloty', 'hundred'] as const, {
      description: 'The new total rounded to the grosz, the whole złoty or whole 100 PLN (halves up)',
    }),
    valid_from: DateString,
    reason: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
)
const PriceChangePreview = Type.Object({
  job_id: Type.String({ description: 'The previewed import run; executed by …/execute' }),
  valid: Type.Boolean(),
  errors: Type.Array(Type.Object({}, { additionalProperties: true })),
  counts: Type.Object({}, { additionalProperties: true }),
  lines: Type.Array(
    Type.Object({
      offer_id: Type.Integer(),
      designation: Type.String(),
      investment_title: Type.String(),
      source_investment_id: Type.String(),
      source_property_id: Type.String(),
      area: Type.String(),
      before_total: Money,
      after_total: Money,
      before_m2: Type.Union([Money, Type.Null()]),
      after_m2: Money,
    }),
  ),
  skipped: Type.Array(
    Type.Object({
      offer_id: Type.Integer(),
      designation: Type.String(),
      reason: Type.String({ description: 'standalone_part, no_import_identifier or no_price_or_area' }),
    }),
  ),
  valid_from: Type.String(),
  reason: Type.String(),
  rounding: Type.String(),
  rounding_rule: Type.Object({ pl: Type.String(), en: Type.String() }),
  percent: Type.String(),
  statuses: Type.Array(Type.String(), { description: 'The statuses of the offers the change covers' }),
})
const PriceChangeResult = Type.Object({
  id: Type.String(),
  result: Type.Object({}, { additionalProperties: true }),
  replayed: Type.Boolean(),
})

export async function exportRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/offers/export',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'exportOffers',
        tags: ['editor'],
        summary: 'The offers (the editor table’s filters) as CSV or XLSX in the import’s own columns',
        description:
          'An unchanged export imports as unchanged for every offer. Offers the import cannot address (standalone parts, no import identifiers) are left out and counted in X-DG-Left-Out.',
        security,
        querystring: ExportQuery,
        response: { 200: fileResponse('The file'), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const q = request.query
      const found = await exportOffers(app.ctx, {
        ...offerFiltersOf(q),
        hostStatus: q.host_status,
        withoutType: q.without_type,
        investments: investmentFilter(await scopeOf(request)),
      })
      reply.header('X-DG-Left-Out', String(found.left_out))
      const options = { naming: q.columns }
      const body = q.format === 'csv' ? exportCsv(found.rows, options) : await exportXlsx(found.rows, options)
      return sendFile(reply, q.format, 'oferty', body)
    },
  )

  app.get(
    '/imports/template',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'importTemplate',
        tags: ['imports'],
        summary: 'An empty import file with the import’s own columns (XLSX also describes each column)',
        security,
        querystring: Type.Object(
          { format: withDefault(Format), columns: withDefault(Columns) },
          { additionalProperties: false },
        ),
        response: { 200: fileResponse('The template'), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { format, columns } = request.query
      const body =
        format === 'csv'
          ? exportCsv([], { naming: columns })
          : await exportXlsx([], { describeColumns: true, naming: columns })
      return sendFile(reply, format, 'szablon-importu', body)
    },
  )

  app.post(
    '/offers/price-change/preview',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'previewPriceChange',
        tags: ['editor'],
        summary: 'Preview a price change of an investment or a selection (percent, rounding, valid-from, reason)',
        description:
          'Planned by the offer import (patch mode) and kept as its job; nothing is written. An investment’s change covers its units on sale (available) unless `statuses` names others: a sold flat is never repriced by default. 422 invalid_price_change with issues.',
        security,
        body: PriceChangeBody,
        response: { 200: PriceChangePreview, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request) => {
      const principal = await requirePrincipal(request)
      const { body } = request
      // the import's planner refuses the rows of other investments too; this names the cause before any is read
      const scope = await scopeOf(request)
      if (body.investment !== undefined)
        await assertInScope(app.ctx.db, scope, { kind: 'investment', id: body.investment })
      if (body.offer_ids !== undefined) await assertOffersInScope(app.ctx.db, scope, body.offer_ids)
      return previewPriceChange(
        app.ctx,
        {
          offerIds: body.offer_ids,
          investment: body.investment,
          statuses: body.statuses,
          percent: body.percent,
          rounding: body.rounding,
          validFrom: body.valid_from,
          reason: body.reason,
        },
        actorOf(principal),
        { userId: principal.user.id, name: principal.user.login },
      )
    },
  )

  app.post(
    '/offers/price-change/execute',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'executePriceChange',
        tags: ['editor'],
        summary: 'Execute a previewed price change as one import run (history records, audit entry with the reason)',
        security,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 200 })) }),
        body: Type.Object(
          {
            job_id: Type.String({ pattern: '^[0-9a-f]{32}$' }),
            reason: Type.String({ minLength: 1, maxLength: 500 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: PriceChangeResult, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      const { body } = request
      const outcome = await executePriceChange(app.ctx, {
        jobId: body.job_id,
        idempotencyKey: request.headers['idempotency-key'],
        reason: body.reason,
        actor: actorOf(principal),
      })
      if (outcome.replayed) reply.header('Idempotent-Replayed', 'true')
      return { id: outcome.id, result: outcome.result, replayed: outcome.replayed }
    },
  )
}
