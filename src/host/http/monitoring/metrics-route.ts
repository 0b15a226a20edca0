/*
 * GET /metrics: the app's Prometheus metrics (src/host/metrics.ts) in the text exposition format.
 * Not public: an administrator (`manage_options`, application password or session), or the bearer
 * token of DG_METRICS_TOKEN for a scraper, compared in constant time.
 */
import { createHash, timingSafeEqual } from 'node:crypto'

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'

import { HostError } from '../../errors.js'
import { requireCapability } from '../authenticate.js'
import { errorResponses } from '../schemas.js'

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest()

export async function metricsRoutes(app: FastifyInstance): Promise<void> {
  const configured = app.ctx.config.metricsToken
  // both sides are hashed first: equal lengths for timingSafeEqual, and no length leak
  const expected = configured === undefined ? undefined : sha256(configured)
  const administrator = requireCapability('manage_options')

  async function authorize(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization
    const bearer = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)
    if (bearer) {
      if (expected !== undefined && timingSafeEqual(sha256(bearer[1] as string), expected)) return
      throw new HostError(
        'rest_forbidden',
        401,
        'The metrics token is not valid.',
        {},
        { 'WWW-Authenticate': 'Bearer realm="dg-metrics"' },
      )
    }
    await administrator(request, reply)
  }

  app.get(
    '/metrics',
    {
      schema: {
        operationId: 'getMetrics',
        tags: ['operations'],
        summary: 'Prometheus metrics (text format 0.0.4)',
        description:
          'For an administrator (manage_options), or with Authorization: Bearer <DG_METRICS_TOKEN> when that token is configured.',
        security: [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }],
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4',
            content: { 'text/plain': { schema: Type.String({ description: 'Prometheus text exposition format' }) } },
          },
          ...errorResponses(401, 403),
        },
      },
      preHandler: authorize,
    },
    async (_request, reply) => {
      const registry = app.metrics.registry
      return reply
        .type(registry.contentType)
        .header('cache-control', 'no-store')
        .send(await registry.metrics())
    },
  )
}
