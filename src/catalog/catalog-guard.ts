/*
 * Access to the catalog, in this order: HTTPS policy (global), application password (401),
 * rate limit per user–IP pair (429/503), capability `dg_read_catalog` (403 dg_catalog_forbidden),
 * entitlement `api_webhooks` (403 pro_feature_required).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'

import { type CatalogRequestState, selectCatalogRequestState } from './catalog-repository.js'

import { userCan } from '../host/auth/capabilities.js'
import { useScopeRevision } from '../host/auth/scope.js'
import { HostError } from '../host/errors.js'
import { requirePrincipal, useCredentialsRevision, WWW_AUTHENTICATE } from '../host/http/authenticate.js'
import {
  clientBucketIp,
  hitRateLimit,
  rateLimitHeaders,
  type RateLimitPolicy,
} from '../host/http/rate-limit/rate-limit.js'
import { requiresAtCatalogRevision } from '../licensing/license.js'

const catalogStates = new WeakMap<FastifyRequest, Promise<CatalogRequestState>>()

/** The catalog revision and its time, read once per request: by the guard, then by the answer. */
export function catalogStateOf(request: FastifyRequest): Promise<CatalogRequestState> {
  let state = catalogStates.get(request)
  if (!state) {
    state = selectCatalogRequestState(request.server.ctx.db)
    catalogStates.set(request, state)
  }
  return state
}

export async function guardCatalog(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const ctx = request.server.ctx
  // the password check is kept under the credentials revision read in the same statement as the
  // catalog's revisions: one read per request instead of two
  useCredentialsRevision(request, async () => Number((await catalogStateOf(request)).credentials_revision))
  useScopeRevision(request, async () => {
    const state = await catalogStateOf(request)
    return `${state.credentials_revision}:${state.revision}`
  })
  const principal = await requirePrincipal(request)
  if (principal.via !== 'app_password') {
    throw new HostError(
      'rest_forbidden',
      401,
      'The catalog accepts HTTP Basic with an application password only.',
      {},
      { 'WWW-Authenticate': WWW_AUTHENTICATE },
    )
  }
  const policy: RateLimitPolicy = { name: 'catalog', limit: ctx.config.catalogRateLimit, windowSeconds: 60 }
  const result = await hitRateLimit(ctx, policy, `${principal.user.id}:${clientBucketIp(request.ip)}`)
  const headers = rateLimitHeaders(policy, result)
  reply.headers(headers)
  if (!result.allowed) {
    throw new HostError(
      'rest_too_many_requests',
      429,
      `Too many catalog requests: the limit is ${policy.limit} per minute.`,
      { retry_after: result.resetSeconds },
      {
        ...headers,
        'Retry-After': result.resetSeconds,
      },
    )
  }
  if (!userCan(principal.user, 'dg_read_catalog')) {
    throw new HostError('dg_catalog_forbidden', 403, 'Sorry, you are not allowed to read the catalog.')
  }
  await requiresAtCatalogRevision(ctx, 'api_webhooks', (await catalogStateOf(request)).revision)
}
