/*
 * The public price endpoint and its settings:
 *   GET, HEAD, OPTIONS {base_url}/public/investments/{id}/prices   no credentials, no cookies
 *   GET, PUT           {base_url}/investments/{id}/public-prices  read: dg_read_all; change: dg_edit_catalog, audited
 * The public answer is serialized once per catalog revision and Warsaw day (the catalog's
 * ResponseCache: a write on any instance bumps the revision in its own transaction, the
 * publication's statuses included, and a price announced for a later day takes effect with the
 * day's change) and revalidated with its ETag; the settings are read on every request, so turning
 * the endpoint off holds at once everywhere.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'

import { baseUrl } from '../config.js'
import { catalogDay } from '../catalog/catalog-service.js'
import { ResponseCache } from '../catalog/caching/response-cache.js'
import { requireInScope } from '../host/auth/scope.js'
import { PluginError } from '../host/errors.js'
import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import {
  clientBucketIp,
  hitRateLimit,
  rateLimitHeaders,
  type RateLimitPolicy,
} from '../host/http/rate-limit/rate-limit.js'
import { ifNoneMatchMatches, strongEtag } from '../host/http/responses/conditional.js'
import { errorResponses, noBody } from '../host/http/schemas.js'
import { serviceOrigin } from '../host/http/service-origin.js'
import {
  allowedOriginsOf,
  buildPublicPrices,
  isAnswerable,
  publicPricesUnavailable,
  readPublicRequestState,
} from './public-prices-service.js'
import { getPublicPricesSettings, updatePublicPricesSettings } from './public-prices-settings.js'
import {
  InvestmentIdParams,
  PublicPricesSchema,
  PublicPricesSettingsBody,
  PublicPricesSettingsSchema,
} from './schemas.js'

/** Browsers and shared caches keep an answer a minute, then may show it while revalidating. */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300'
const PREFLIGHT_MAX_AGE_SECONDS = 600
const adminSecurity: Array<Record<string, string[]>> = [
  { applicationPassword: [] },
  { sessionCookie: [], restNonce: [] },
]
const publicHeaders = {
  ETag: { type: 'string', description: 'Strong validator of the body; send it back in If-None-Match' },
  'Cache-Control': { type: 'string', description: PUBLIC_CACHE_CONTROL },
  'Access-Control-Allow-Origin': {
    type: 'string',
    description: 'The request’s Origin, only when it is one of the investment’s allowed origins',
  },
  Vary: { type: 'string', description: '`Origin` when the investment has allowed origins (the answer depends on it)' },
}

function requestOrigin(request: FastifyRequest): string | undefined {
  const origin = request.headers.origin
  return typeof origin === 'string' ? origin : undefined
}

/** Per client address (the trusted proxies' forwarded one, an IPv6 client's /64), on every instance. */
async function limitRequests(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const ctx = request.server.ctx
  const policy: RateLimitPolicy = { name: 'public_prices', limit: ctx.config.publicPricesRateLimit, windowSeconds: 60 }
  const result = await hitRateLimit(ctx, policy, clientBucketIp(request.ip))
  const headers = rateLimitHeaders(policy, result)
  reply.headers(headers)
  if (!result.allowed)
    throw new PluginError(
      'rest_rate_limited',
      429,
      { retry_after: result.resetSeconds },
      { ...headers, 'Retry-After': result.resetSeconds, 'Access-Control-Allow-Origin': '*' },
    )
}

/** CORS of one answer: the origin echoed only when allowed; Vary when the answer depends on it. */
function corsHeaders(reply: FastifyReply, allowed: readonly string[], origin: string | undefined): boolean {
  if (allowed.length > 0) reply.header('Vary', 'Origin')
  if (origin === undefined || !allowed.includes(origin)) return false
  reply.header('Access-Control-Allow-Origin', origin)
  return true
}

export async function publicPricesRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  const cache = new ResponseCache(2000, 32 * 1024 * 1024)
  const base = baseUrl(app.ctx.config)

  app.get(
    '/public/investments/:id/prices',
    {
      schema: {
        operationId: 'getPublicPrices',
        tags: ['public'],
        summary: 'The prices of an investment’s units on offer, without credentials (art. 19a)',
        security: [],
        params: InvestmentIdParams,
        response: {
          200: { ...Type.Ref('PublicPrices'), headers: publicHeaders },
          304: noBody({ description: 'The copy named in If-None-Match is current' }),
          ...errorResponses(400, 404, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const ctx = app.ctx
      const id = request.params.id
      await limitRequests(request, reply)
      const state = await readPublicRequestState(ctx, id)
      if (!isAnswerable(state)) throw publicPricesUnavailable()
      const cors = corsHeaders(reply, allowedOriginsOf(state), requestOrigin(request))
      if (cors) reply.header('Access-Control-Expose-Headers', 'ETag, RateLimit, RateLimit-Policy, Retry-After')
      // a change of the publication's statuses is an option write, which bumps the revision too
      const key = `${state.revision}|${catalogDay(ctx)}|${id}`
      let entry = ctx.config.catalogResponseCache ? cache.get(key) : undefined
      if (!entry) {
        const body = await buildPublicPrices(ctx, id, state)
        if (!body) throw publicPricesUnavailable()
        const bytes = Buffer.from(JSON.stringify(body))
        entry = { body: bytes, etag: strongEtag(bytes), headers: {} }
        if (ctx.config.catalogResponseCache) cache.set(key, entry)
      }
      reply.header('ETag', entry.etag)
      reply.header('Cache-Control', PUBLIC_CACHE_CONTROL)
      const ifNoneMatch = request.headers['if-none-match']
      if (ifNoneMatch !== undefined && ifNoneMatchMatches(ifNoneMatch, entry.etag)) return reply.code(304).send()
      return reply.type('application/json; charset=utf-8').send(entry.body)
    },
  )

  app.options(
    '/public/investments/:id/prices',
    {
      schema: {
        operationId: 'preflightPublicPrices',
        tags: ['public'],
        summary: 'CORS preflight of the public prices',
        description:
          'Answers 204. For an Origin among the investment’s allowed origins (the endpoint on, the investment published) it allows GET and HEAD with If-None-Match, for 10 minutes; for any other Origin it allows nothing.',
        security: [],
        params: InvestmentIdParams,
        response: { 204: noBody({ description: 'Preflight answered' }), ...errorResponses(400, 413, 415, 503) },
      },
    },
    async (request, reply) => {
      const state = await readPublicRequestState(app.ctx, request.params.id)
      const allowed = isAnswerable(state) ? allowedOriginsOf(state) : []
      reply.header('Vary', 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers')
      const origin = requestOrigin(request)
      const method = request.headers['access-control-request-method']
      if (origin !== undefined && allowed.includes(origin) && (method === 'GET' || method === 'HEAD')) {
        reply.header('Access-Control-Allow-Origin', origin)
        reply.header('Access-Control-Allow-Methods', 'GET, HEAD')
        reply.header('Access-Control-Allow-Headers', 'If-None-Match')
        reply.header('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_SECONDS))
      }
      return reply.code(204).send()
    },
  )

  const serviceBase = (request: FastifyRequest) => `${serviceOrigin(request)}${base}`

  app.get(
    '/investments/:id/public-prices',
    {
      preHandler: [requireCapability('dg_read_all'), requireInScope('investment')],
      schema: {
        operationId: 'getPublicPricesSettings',
        tags: ['public'],
        summary: 'Whether the investment’s prices are public, the origins allowed, and the snippet (dg_read_all)',
        security: adminSecurity,
        params: InvestmentIdParams,
        response: { 200: Type.Ref('PublicPricesSettings'), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store')
      return getPublicPricesSettings(app.ctx, request.params.id, serviceBase(request))
    },
  )

  app.put(
    '/investments/:id/public-prices',
    {
      preHandler: [requireCapability('dg_edit_catalog'), requireInScope('investment')],
      schema: {
        operationId: 'updatePublicPricesSettings',
        tags: ['public'],
        summary: 'Turn the investment’s public prices on or off, or set the origins allowed (dg_edit_catalog)',
        security: adminSecurity,
        params: InvestmentIdParams,
        body: PublicPricesSettingsBody,
        response: {
          200: Type.Ref('PublicPricesSettings'),
          ...errorResponses(400, 401, 403, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      reply.header('Cache-Control', 'no-store')
      const body = request.body
      return updatePublicPricesSettings(app.ctx, actorOf(principal), request.params.id, body, serviceBase(request))
    },
  )
}

export const PUBLIC_PRICES_SCHEMAS = [PublicPricesSchema, PublicPricesSettingsSchema]
