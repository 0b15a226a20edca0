/*
 * The catalog editor's REST endpoints (read: `dg_read_all`, write: `dg_edit_catalog`; not licence-gated, since
 * prices must stay editable for the daily publication in continuity mode). Routes are thin: the
 * services validate, check the version and write through the shared write path.
 *   GET/POST          {base_url}/investments            list (search, paging) / create
 *   GET/PATCH/DELETE  {base_url}/investments/{id}       read / change / delete (only without offers)
 *   GET/POST          {base_url}/offers                 list (the catalog's filters, host status, without type) / create
 *   GET/PATCH         {base_url}/offers/{id}            read / change
 *   POST              {base_url}/offers/{id}/archive    archive (prices withdrawn)
 *   POST              {base_url}/offers/{id}/restore    restore
 *   GET               {base_url}/offers/{id}/price-history
 *   POST              {base_url}/offers/{id}/components
 *   PATCH/DELETE      {base_url}/offers/{id}/components/{component_id}
 *   GET               {base_url}/custom-fields          what custom_meta may hold
 * and the media endpoints (media-routes.ts).
 * Reads answer the version in `ETag` (and `version`); writes need it in `If-Match` (or `version`).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type TSchema, Type } from 'typebox'

import { assertInScope, investmentFilter, requireInScope, scopeOf } from '../host/auth/scope.js'
import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { errorResponse, errorResponses, noBody } from '../host/http/schemas.js'
import { offerFiltersOf } from '../catalog/schemas.js'
import {
  createInvestment,
  deleteInvestment,
  getInvestment,
  listInvestments,
  updateInvestment,
} from './investment-editor-service.js'
import {
  changeComponent,
  changeOfferLifecycle,
  createOffer,
  getOffer,
  getOfferPriceHistory,
  listOffers,
  type OfferWriteResult,
  updateOffer,
} from './offer-editor-service.js'
import { editableCustomFields } from './custom-fields.js'
import { mediaRoutes } from './media-routes.js'
import {
  ComponentDeleteQuery,
  ComponentParams,
  ComponentWriteBody,
  InvestmentCreateBody,
  InvestmentIdParams,
  InvestmentListQuery,
  InvestmentUpdateBody,
  LifecycleBody,
  OfferCreateBody,
  OfferIdParams,
  OfferListQuery,
  OfferUpdateBody,
} from './schemas.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const readGuard = [requireCapability('dg_read_all')]
const writeGuard = [requireCapability('dg_edit_catalog')]

const ifMatchHeader = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'The version edited: the ETag of the read (or *). Required unless the body carries version; a stale one gets 409 edit_conflict with the current values',
    }),
  ),
})
const etagHeader = { ETag: { type: 'string', description: 'The version of what the body shows' } }
const collectionHeaders = {
  'X-WP-Total': { type: 'integer', description: 'Number of matching items' },
  'X-WP-TotalPages': { type: 'integer', description: 'Number of pages' },
}

const withHeaders = (schema: TSchema, headers: Record<string, unknown>) => ({ ...schema, headers })
const offer = Type.Ref('EditorOffer')
const investment = Type.Ref('EditorInvestment')
const invalid = errorResponse(422, Type.Ref('EditorValidationFailed'))
const offerConflict = errorResponse(409, Type.Ref('EditorOfferConflict'))
const investmentConflict = errorResponse(409, Type.Ref('EditorInvestmentConflict'))

function sendOffer(reply: FastifyReply, result: OfferWriteResult, status = 200): FastifyReply {
  reply.header('ETag', result.offer.version)
  return reply.code(status).send(result.offer)
}

export async function editorRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const actor = async (request: FastifyRequest) => actorOf(await requirePrincipal(request))
  await mediaRoutes(fastify)

  app.get(
    '/custom-fields',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'editorListCustomFields',
        tags: ['editor'],
        summary: 'The custom fields offers and investments may carry in custom_meta, with their types and labels',
        security,
        response: { 200: Type.Ref('EditorCustomFields'), ...errorResponses(401, 403) },
      },
    },
    async () => editableCustomFields(app.ctx),
  )

  // -------------------------------------------------------------------------------------------
  // investments

  app.get(
    '/investments',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'editorListInvestments',
        tags: ['editor'],
        summary: 'Investments in every host status, searched and paged',
        security,
        querystring: InvestmentListQuery,
        response: {
          200: withHeaders(Type.Array(investment), collectionHeaders),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const q = request.query
      const result = await listInvestments(app.ctx, {
        page: q.page,
        perPage: q.per_page,
        search: q.search,
        hostStatus: q.host_status,
        developerId: q.developer_id,
        ids: investmentFilter(await scopeOf(request)),
      })
      reply.header('X-WP-Total', String(result.total))
      reply.header('X-WP-TotalPages', String(result.totalPages))
      return result.items
    },
  )

  app.get(
    '/investments/:id',
    {
      preHandler: [...readGuard, requireInScope('investment')],
      schema: {
        operationId: 'editorGetInvestment',
        tags: ['editor'],
        summary: 'An investment, with its version in ETag',
        security,
        params: InvestmentIdParams,
        response: { 200: withHeaders(investment, etagHeader), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const view = await getInvestment(app.ctx, request.params.id)
      reply.header('ETag', view.version)
      return view
    },
  )

  app.post(
    '/investments',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'editorCreateInvestment',
        tags: ['editor'],
        summary: 'Create an investment; 422 validation_failed with issues',
        security,
        body: InvestmentCreateBody,
        response: {
          201: withHeaders(investment, { ...etagHeader, Location: { type: 'string' } }),
          ...errorResponses(400, 401, 403),
          422: invalid,
        },
      },
    },
    async (request, reply) => {
      const developerId = (request.body as { developer_id?: unknown }).developer_id
      await assertInScope(app.ctx.db, await scopeOf(request), {
        kind: 'new_investment',
        developerId: typeof developerId === 'number' ? developerId : null,
      })
      const view = await createInvestment(app.ctx, await actor(request), request.body)
      reply.header('ETag', view.version)
      reply.header('Location', `${request.url.replace(/\?.*$/, '')}/${view.id}`)
      return reply.code(201).send(view)
    },
  )

  app.patch(
    '/investments/:id',
    {
      preHandler: [...writeGuard, requireInScope('investment')],
      schema: {
        operationId: 'editorUpdateInvestment',
        tags: ['editor'],
        summary: 'Change an investment (fields sent only; null clears); needs its version',
        security,
        params: InvestmentIdParams,
        headers: ifMatchHeader,
        body: InvestmentUpdateBody,
        response: {
          200: withHeaders(investment, etagHeader),
          ...errorResponses(400, 401, 403, 404),
          409: investmentConflict,
          422: invalid,
          428: errorResponse(428),
        },
      },
    },
    async (request, reply) => {
      // moving an investment to another developer entity puts it there: that entity must be in the scope
      const developerId = (request.body as { developer_id?: unknown }).developer_id
      if (developerId !== undefined)
        await assertInScope(app.ctx.db, await scopeOf(request), {
          kind: 'new_investment',
          developerId: typeof developerId === 'number' ? developerId : null,
        })
      const { investment: view } = await updateInvestment(
        app.ctx,
        await actor(request),
        request.params.id,
        request.body,
        request.headers['if-match'],
      )
      reply.header('ETag', view.version)
      return view
    },
  )

  app.delete(
    '/investments/:id',
    {
      preHandler: [...writeGuard, requireInScope('investment')],
      schema: {
        operationId: 'editorDeleteInvestment',
        tags: ['editor'],
        summary: 'Delete an investment that has no offers (409 investment_has_offers otherwise); needs its version',
        security,
        params: InvestmentIdParams,
        headers: ifMatchHeader,
        response: {
          204: noBody({ description: 'Deleted' }),
          ...errorResponses(400, 401, 403, 404),
          409: investmentConflict,
          428: errorResponse(428),
        },
      },
    },
    async (request, reply) => {
      await deleteInvestment(app.ctx, await actor(request), request.params.id, request.headers['if-match'])
      return reply.code(204).send()
    },
  )

  // -------------------------------------------------------------------------------------------
  // offers

  app.get(
    '/offers',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'editorListOffers',
        tags: ['editor'],
        summary: 'Offers in every host status: the catalog’s filters, host status and without type; paged',
        security,
        querystring: OfferListQuery,
        response: { 200: withHeaders(Type.Array(offer), collectionHeaders), ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const q = request.query
      const result = await listOffers(app.ctx, {
        page: q.page,
        perPage: q.per_page,
        ...offerFiltersOf(q),
        hostStatus: q.host_status,
        withoutType: q.without_type,
        investments: investmentFilter(await scopeOf(request)),
        orderBy: q.orderby,
        order: q.order.toLowerCase() === 'asc' ? 'asc' : 'desc',
      })
      reply.header('X-WP-Total', String(result.total))
      reply.header('X-WP-TotalPages', String(result.totalPages))
      return result.items
    },
  )

  app.get(
    '/offers/:id',
    {
      preHandler: [...readGuard, requireInScope('offer')],
      schema: {
        operationId: 'editorGetOffer',
        tags: ['editor'],
        summary: 'An offer with its components, with its version in ETag',
        security,
        params: OfferIdParams,
        response: { 200: withHeaders(offer, etagHeader), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const view = await getOffer(app.ctx, request.params.id)
      reply.header('ETag', view.version)
      return view
    },
  )

  app.post(
    '/offers',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'editorCreateOffer',
        tags: ['editor'],
        summary:
          'Create an offer (a flat, a house or a standalone part, with its components) through the shared write path',
        security,
        body: OfferCreateBody,
        response: {
          201: withHeaders(offer, { ...etagHeader, Location: { type: 'string' } }),
          ...errorResponses(400, 401, 403),
          422: invalid,
        },
      },
    },
    async (request, reply) => {
      const result = await createOffer(app.ctx, await actor(request), request.body)
      reply.header('Location', `${request.url.replace(/\?.*$/, '')}/${result.offer.id}`)
      return sendOffer(reply, result, 201)
    },
  )

  app.patch(
    '/offers/:id',
    {
      preHandler: [...writeGuard, requireInScope('offer')],
      schema: {
        operationId: 'editorUpdateOffer',
        tags: ['editor'],
        summary:
          'Change an offer (fields sent only; null removes, a price null is withdrawn); a price change takes its date, reason and correction flag',
        security,
        params: OfferIdParams,
        headers: ifMatchHeader,
        body: OfferUpdateBody,
        response: {
          200: withHeaders(offer, etagHeader),
          ...errorResponses(400, 401, 403, 404),
          409: offerConflict,
          422: invalid,
          428: errorResponse(428),
        },
      },
    },
    async (request, reply) =>
      sendOffer(
        reply,
        await updateOffer(app.ctx, await actor(request), request.params.id, request.body, request.headers['if-match']),
      ),
  )

  for (const lifecycle of ['archive', 'restore'] as const) {
    app.post(
      `/offers/:id/${lifecycle}`,
      {
        preHandler: [...writeGuard, requireInScope('offer')],
        // the body is optional: archiving needs no more than the version (If-Match)
        preValidation: async (request: FastifyRequest) => {
          request.body ??= {}
        },
        schema: {
          operationId: lifecycle === 'archive' ? 'editorArchiveOffer' : 'editorRestoreOffer',
          tags: ['editor'],
          summary:
            lifecycle === 'archive'
              ? 'Archive an offer: status archived, host status private, every price withdrawn today'
              : 'Restore an archived offer: back on sale (default available, publish), its prices entered again',
          security,
          params: OfferIdParams,
          headers: ifMatchHeader,
          body: LifecycleBody,
          response: {
            200: withHeaders(offer, etagHeader),
            ...errorResponses(400, 401, 403, 404),
            409: offerConflict,
            422: invalid,
            428: errorResponse(428),
          },
        },
      },
      async (request, reply) =>
        sendOffer(
          reply,
          await changeOfferLifecycle(
            app.ctx,
            await actor(request),
            request.params.id,
            lifecycle,
            request.body,
            request.headers['if-match'],
          ),
        ),
    )
  }

  app.get(
    '/offers/:id/price-history',
    {
      preHandler: [...readGuard, requireInScope('offer')],
      schema: {
        operationId: 'editorGetOfferPriceHistory',
        tags: ['editor'],
        summary: 'The offer’s price history, with the channel of each record',
        security,
        params: OfferIdParams,
        response: { 200: Type.Ref('EditorPriceHistory'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => getOfferPriceHistory(app.ctx, request.params.id),
  )

  // -------------------------------------------------------------------------------------------
  // components (a write of their offer: the offer's version is named)

  const componentResponses = (status: number) => ({
    [status]: withHeaders(offer, etagHeader),
    ...errorResponses(400, 401, 403, 404),
    409: offerConflict,
    422: invalid,
    428: errorResponse(428),
  })

  app.post(
    '/offers/:id/components',
    {
      preHandler: [...writeGuard, requireInScope('offer')],
      schema: {
        operationId: 'editorAddComponent',
        tags: ['editor'],
        summary: 'Add a parking space, garage, storage room or other component to a flat or a house',
        security,
        params: OfferIdParams,
        headers: ifMatchHeader,
        body: ComponentWriteBody,
        response: componentResponses(201),
      },
    },
    async (request, reply) =>
      sendOffer(
        reply,
        await changeComponent(app.ctx, await actor(request), {
          offerId: request.params.id,
          action: 'create',
          body: request.body,
          ifMatch: request.headers['if-match'],
        }),
        201,
      ),
  )

  app.patch(
    '/offers/:id/components/:component_id',
    {
      preHandler: [...writeGuard, requireInScope('offer')],
      schema: {
        operationId: 'editorUpdateComponent',
        tags: ['editor'],
        summary: 'Change a component (fields sent only; price null withdraws it)',
        security,
        params: ComponentParams,
        headers: ifMatchHeader,
        body: ComponentWriteBody,
        response: componentResponses(200),
      },
    },
    async (request, reply) => {
      return sendOffer(
        reply,
        await changeComponent(app.ctx, await actor(request), {
          offerId: request.params.id,
          action: 'update',
          componentId: request.params.component_id,
          body: request.body,
          ifMatch: request.headers['if-match'],
        }),
      )
    },
  )

  app.delete(
    '/offers/:id/components/:component_id',
    {
      preHandler: [...writeGuard, requireInScope('offer')],
      schema: {
        operationId: 'editorDeleteComponent',
        tags: ['editor'],
        summary: 'Remove a component; its price is withdrawn in the history',
        security,
        params: ComponentParams,
        headers: ifMatchHeader,
        querystring: ComponentDeleteQuery,
        response: componentResponses(200),
      },
    },
    async (request, reply) => {
      return sendOffer(
        reply,
        await changeComponent(app.ctx, await actor(request), {
          offerId: request.params.id,
          action: 'delete',
          componentId: request.params.component_id,
          body: { ...request.query },
          ifMatch: request.headers['if-match'],
        }),
      )
    },
  )
}
