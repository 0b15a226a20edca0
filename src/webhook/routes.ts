/*
 * POST /webhooks/properties. The body is kept as the raw bytes received (the signature covers
 * them exactly; re-serializing would change it), whatever the Content-Type, so that a wrong type is
 * answered 401 invalid_auth by the verifier rather than 415 by the framework.
 */
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { PluginError } from '../host/errors.js'
import { errorResponses } from '../host/http/schemas.js'
import { handlePropertyWebhook } from './webhook-service.js'

export const WEBHOOK_BODY_LIMIT = 256 * 1024

const ResultSchema = Type.Object({
  status: Type.Literal('completed'),
  processed: Type.Integer(),
  created: Type.Integer(),
  updated: Type.Integer(),
  archived: Type.Integer(),
  run_id: Type.Integer(),
})

/** Whether Fastify can parse the value as `type/subtype[; parameters]` (fastify/lib/content-type.js). */
function isMediaType(value: string): boolean {
  const semicolon = value.indexOf(';')
  const media = (semicolon === -1 ? value : value.slice(0, semicolon)).toLowerCase()
  const slash = media.indexOf('/')
  return (
    slash !== -1 &&
    /^[\w!#$%&'*+.^`|~-]+$/.test(media.slice(0, slash).trimStart()) &&
    /^[\w!#$%&'*+.^`|~-]+\s*$/.test(media.slice(slash + 1).trimEnd())
  )
}

export async function webhookRoutes(app: FastifyInstance): Promise<void> {
  // Fastify refuses a malformed Content-Type (415) before any parser runs; the contract wants
  // 401 invalid_auth for it, as for every other header problem, so it is checked first here
  app.addHook('onRequest', async (request) => {
    const type = request.headers['content-type']
    if (type !== undefined && !/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type.trim())) {
      // a well-formed media type with a body over the limit gets the framework's 413, as any other
      if (Number(request.headers['content-length']) > WEBHOOK_BODY_LIMIT && isMediaType(type)) return
      throw new PluginError('invalid_auth', 401, { message: 'Content-Type must be application/json' })
    }
  })
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  )

  app.post(
    '/webhooks/properties',
    {
      bodyLimit: WEBHOOK_BODY_LIMIT,
      schema: {
        tags: ['webhook'],
        summary: 'Signed property update (contract 4.7, 5.2): a flat JSON object of canonical offer fields',
        description:
          'signature = lowercase hex HMAC-SHA256(timestamp + "." + nonce + "." + idempotency_key + "." + raw body, webhook secret). Every attempt needs a new timestamp, nonce and signature; the Idempotency-Key stays the same for the same event and body.',
        headers: Type.Object({
          'x-dg-timestamp': Type.Optional(Type.String({ description: 'Unix seconds, exactly 10 digits' })),
          'x-dg-nonce': Type.Optional(Type.String({ description: '16–128 characters of A-Za-z0-9._:-' })),
          'idempotency-key': Type.Optional(Type.String({ description: '8–128 characters of A-Za-z0-9._:-' })),
          'x-dg-signature': Type.Optional(Type.String({ description: '64 hexadecimal characters' })),
        }),
        response: {
          200: Type.Object({ accepted: Type.Literal(true), result: ResultSchema, replayed: Type.Literal(true) }),
          202: Type.Object({ accepted: Type.Literal(true), result: ResultSchema }),
          ...errorResponses(400, 401, 403, 409, 413, 422, 503),
        },
      },
    },
    async (request, reply) => {
      const started = Date.now()
      const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0)
      try {
        const outcome = await handlePropertyWebhook(app.ctx, { headers: request.headers, rawBody })
        request.log.info(
          {
            webhook: {
              event: outcome.eventId,
              status: outcome.statusCode,
              ms: Date.now() - started,
              body_sha256: outcome.bodySha256,
            },
          },
          'webhook delivery',
        )
        if (outcome.body.replayed) reply.header('Idempotent-Replayed', 'true')
        return reply.code(outcome.statusCode).send(outcome.body)
      } catch (error) {
        if (error instanceof PluginError) {
          // contract 5.2.6: event id, status, error code, duration and body hash; never the secret,
          // the signature, headers or payload
          const key = request.headers['idempotency-key']
          request.log.info(
            {
              webhook: {
                event: typeof key === 'string' && key.length <= 128 ? key : undefined,
                status: error.status,
                error: error.error,
                ms: Date.now() - started,
              },
            },
            'webhook delivery refused',
          )
        }
        throw error
      }
    },
  )
}
