/*
 * GET endpoints of the catalog (docs/integration/catalog.md). Each handler asks the service for the data, then `answer()`
 * projects `_fields`, serializes once, computes the ETag over those bytes, caches the result by
 * catalog revision and answers 304 when the client's copy is current.
 */
import { createHash } from 'node:crypto'

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type TSchema, Type } from 'typebox'

import { baseUrl } from '../config.js'
import { investmentFilter, requireInScope, scopeOf } from '../host/auth/scope.js'
import { ACTION_NAMES } from '../host/hooks/hooks.js'
import { httpDate, isNotModified, strongEtag } from '../host/http/responses/conditional.js'
import { parseFieldList, projectFields } from '../host/http/responses/fields-projection.js'
import { errorResponses, noBody } from '../host/http/schemas.js'
import { serviceOrigin } from '../host/http/service-origin.js'
import { catalogStateOf, guardCatalog } from './catalog-guard.js'
import {
  catalogDay,
  type CatalogRevisions,
  type Collection,
  getDiscovery,
  getInvestmentDetail,
  getPriceHistory,
  getPropertyDetail,
  listInvestments,
  listProperties,
  listRelated,
} from './catalog-service.js'
import { ResponseCache } from './caching/response-cache.js'
import {
  FieldsQuery,
  IdParams,
  InvestmentListQuery,
  offerFiltersOf,
  PropertyListQuery,
  RelatedQuery,
} from './schemas.js'

const security = [{ applicationPassword: [] }]
const collectionHeaders = {
  'X-WP-Total': { type: 'integer', description: 'Number of matching items' },
  'X-WP-TotalPages': { type: 'integer', description: 'Number of pages' },
  Link: { type: 'string', description: 'rel="prev" and rel="next" page addresses' },
  ETag: { type: 'string' },
  'Last-Modified': { type: 'string' },
}
/** A page of a list; typed as any schema, since the answer is sent already serialized. */
const listOf = (ref: string): TSchema => ({ type: 'array', items: Type.Ref(ref), headers: collectionHeaders })

/** A short name of a set of investments, for the cache key of a scoped reader's answers. */
function scopeDigest(investments: readonly number[]): string {
  return createHash('sha256')
    .update([...investments].sort((a, b) => a - b).join(','))
    .digest('base64url')
    .slice(0, 22)
}

function isCollection(value: unknown): value is Collection<unknown> {
  return typeof value === 'object' && value !== null && 'items' in value && 'totalPages' in value
}

function pageLinks(request: FastifyRequest, origin: string, page: number, totalPages: number): string {
  // appended, not resolved: the origin of a company under /t/{slug} ends with that prefix, which a
  // path resolved against it (request.url starts with /) would drop
  const url = new URL(`${origin}${request.url}`)
  const links: string[] = []
  const at = (n: number) => {
    url.searchParams.set('page', String(n))
    return url.toString()
  }
  if (page > 1 && page <= totalPages) links.push(`<${at(page - 1)}>; rel="prev"`)
  if (page < totalPages) links.push(`<${at(page + 1)}>; rel="next"`)
  return links.join(', ')
}

export async function catalogRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const cache = new ResponseCache()
  const base = baseUrl(app.ctx.config)

  async function answer(
    request: FastifyRequest,
    query: { _fields?: string | undefined; page?: number },
    reply: FastifyReply,
    produce: (revisions: CatalogRevisions | undefined, investments: readonly number[] | undefined) => Promise<unknown>,
  ): Promise<FastifyReply> {
    const ctx = app.ctx
    const state = await catalogStateOf(request)
    // a scoped reader's answers hold its investments only: kept under its scope, and its lists'
    // totals are never shared with other readers' (the listing values know no scope)
    const investments = investmentFilter(await scopeOf(request))
    const lastModified = new Date(state.modified_at)
    // actions are side effects callers rely on, so their presence turns the cache off
    const cacheable = ctx.config.catalogResponseCache && !ACTION_NAMES.some((name) => ctx.hooks.hasAction(name))
    // the origin is part of the answer (discovery resources, Link) and comes from the client's Host
    // header: keyed by it, one client's Host never reaches another client's answer
    const origin = serviceOrigin(request)
    // and by the day: a price announced for a later day is in force from that day without a write
    const scopeKey = investments === undefined ? '' : `|s${scopeDigest(investments)}`
    const key = `${state.revision}|${catalogDay(ctx)}|${origin}|${request.url}${scopeKey}`
    let entry = cacheable ? cache.get(key) : undefined
    if (!entry) {
      const failuresBefore = ctx.hooks.failures
      // with the cache off, nothing is shared between requests, the totals of a list included
      const result = await produce(
        cacheable && investments === undefined
          ? { revision: Number(state.revision), listing: Number(state.listing_revision) }
          : undefined,
        investments,
      )
      const fields = parseFieldList(query._fields)
      const headers: Record<string, string> = {}
      let body: unknown = result
      if (isCollection(result)) {
        const { page = 1 } = query
        body = result.items
        headers['X-WP-Total'] = String(result.total)
        headers['X-WP-TotalPages'] = String(result.totalPages)
        const link = pageLinks(request, origin, page, result.totalPages)
        if (link) headers.Link = link
      }
      const bytes = Buffer.from(JSON.stringify(projectFields(body, fields)))
      entry = { body: bytes, etag: strongEtag(bytes), headers }
      // an answer made while an extension's callback failed lacks its change: it is not kept, so
      // the next request asks the extension again (another request's failure may be counted too,
      // which costs only a cache entry)
      if (cacheable && ctx.hooks.failures === failuresBefore) cache.set(key, entry)
    }
    reply.headers(entry.headers)
    reply.header('ETag', entry.etag)
    reply.header('Last-Modified', httpDate(lastModified))
    reply.header('Cache-Control', 'private, must-revalidate')
    if (isNotModified(request, entry.etag, lastModified)) return reply.code(304).send()
    return reply.type('application/json; charset=utf-8').send(entry.body)
  }

  const common = { preHandler: guardCatalog }
  const inScope = (kind: 'offer' | 'investment') => ({ preHandler: [guardCatalog, requireInScope(kind)] })
  const refused = errorResponses(400, 401, 403, 429, 503)

  app.get(
    '/catalog',
    {
      ...common,
      schema: {
        operationId: 'getCatalog',
        tags: ['catalog'],
        summary: 'Catalog discovery object (2.1)',
        security,
        querystring: FieldsQuery,
        response: { 200: Type.Ref('CatalogDiscovery'), 304: noBody(), ...refused },
      },
    },
    (request, reply) =>
      answer(request, request.query, reply, () => getDiscovery(app.ctx, `${serviceOrigin(request)}${base}`)),
  )

  app.get(
    '/catalog/investments',
    {
      ...common,
      schema: {
        operationId: 'listInvestments',
        tags: ['catalog'],
        summary: 'Published investments (summaries)',
        security,
        querystring: InvestmentListQuery,
        response: {
          200: listOf('CatalogInvestment'),
          304: noBody(),
          ...refused,
        },
      },
    },
    (request, reply) => {
      const { page, per_page: perPage, search } = request.query
      return answer(request, request.query, reply, (_revisions, ids) =>
        listInvestments(app.ctx, { page, perPage, search, ids }),
      )
    },
  )

  app.get(
    '/catalog/investments/:id',
    {
      ...inScope('investment'),
      schema: {
        operationId: 'getInvestment',
        tags: ['catalog'],
        summary: 'Investment detail',
        security,
        params: IdParams,
        querystring: FieldsQuery,
        response: {
          200: Type.Ref('CatalogInvestment'),
          304: noBody(),
          ...errorResponses(400, 401, 403, 404, 429, 503),
        },
      },
    },
    (request, reply) => answer(request, request.query, reply, () => getInvestmentDetail(app.ctx, request.params.id)),
  )

  app.get(
    '/catalog/properties',
    {
      ...common,
      schema: {
        operationId: 'listProperties',
        tags: ['catalog'],
        summary: 'Published offers (summaries), filtered, ordered and paged',
        security,
        querystring: PropertyListQuery,
        response: {
          200: listOf('CatalogOffer'),
          304: noBody(),
          ...refused,
        },
      },
    },
    (request, reply) => {
      const q = request.query
      return answer(request, request.query, reply, (revisions, investments) =>
        listProperties(
          app.ctx,
          {
            page: q.page,
            perPage: q.per_page,
            ...offerFiltersOf(q),
            investments,
            orderBy: q.orderby,
            order: q.order.toLowerCase() === 'asc' ? 'asc' : 'desc',
          },
          revisions,
        ),
      )
    },
  )

  app.get(
    '/catalog/properties/:id',
    {
      ...inScope('offer'),
      schema: {
        operationId: 'getProperty',
        tags: ['catalog'],
        summary: 'Offer detail',
        security,
        params: IdParams,
        querystring: FieldsQuery,
        response: {
          200: Type.Ref('CatalogPropertyDetail'),
          304: noBody(),
          ...errorResponses(400, 401, 403, 404, 429, 503),
        },
      },
    },
    (request, reply) => answer(request, request.query, reply, () => getPropertyDetail(app.ctx, request.params.id)),
  )

  app.get(
    '/catalog/properties/:id/price-history',
    {
      ...inScope('offer'),
      schema: {
        operationId: 'getPropertyPriceHistory',
        tags: ['catalog'],
        summary: 'Price history of an offer (2.4)',
        security,
        params: IdParams,
        querystring: FieldsQuery,
        response: {
          200: Type.Ref('CatalogPriceHistory'),
          304: noBody(),
          ...errorResponses(400, 401, 403, 404, 429, 503),
        },
      },
    },
    (request, reply) => answer(request, request.query, reply, () => getPriceHistory(app.ctx, request.params.id)),
  )

  app.get(
    '/catalog/properties/:id/related',
    {
      ...inScope('offer'),
      schema: {
        operationId: 'listRelatedProperties',
        tags: ['catalog'],
        summary: 'Other published offers of the same investment',
        security,
        params: IdParams,
        querystring: RelatedQuery,
        response: {
          200: listOf('CatalogOffer'),
          304: noBody(),
          ...errorResponses(400, 401, 403, 404, 429, 503),
        },
      },
    },
    (request, reply) => {
      const { page, per_page: perPage } = request.query
      return answer(request, request.query, reply, (revisions) =>
        listRelated(app.ctx, request.params.id, { page, perPage }, revisions),
      )
    },
  )
}
