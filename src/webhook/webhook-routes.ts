/*
 * POST /webhooks/properties. The body is kept as the raw bytes received (the signature covers
 * them exactly; re-serializing would change it), whatever the Content-Type, so that a wrong type is
 * answered 401 invalid_auth by the verifier rather than 415 by the framework.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { PluginError } from '../host/errors.js'
import { errorResponse, errorResponses } from '../host/http/schemas.js'
import { IDEMPOTENCY_KEY_PATTERN, ImportResultSchema } from '../imports/schemas.js'
import { CANONICAL_FIELDS } from '../offers/canonical-fields.js'
import { countWebhookDelivery, flushWebhookActivity } from './webhook-activity.js'
import { handlePropertyWebhook } from './webhook-service.js'

export const WEBHOOK_BODY_LIMIT = 256 * 1024

const Scalar = Type.Unsafe<string | number | boolean | null>({ type: ['string', 'number', 'boolean', 'null'] })

/**
 * The payload, for the document only: the route keeps the raw bytes (the signature covers them)
 * and the service parses and validates them (host/http/openapi/openapi.ts, `documented`).
 */
const PropertyWebhookPayload = Type.Object(
  Object.fromEntries(CANONICAL_FIELDS.map((field) => [field, Type.Optional(Scalar)])),
  {
    required: ['source_investment_id', 'source_property_id'],
    additionalProperties: false,
    description:
      'One offer as a flat JSON object of canonical fields: every value a string, number, boolean or null (a nested value or array: 422 unsupported_property_structure; an unknown field: 422 validation_failed). ' +
      'Amounts as decimal text, e.g. "512000.00". Patch mode: a field not sent, empty or null keeps its value. ' +
      'Content-Type must be application/json; the body is signed as sent, byte for byte.',
  },
)

/** The signed headers (docs/integration/webhook.md), for the document only: a missing or malformed one is 401 invalid_auth. */
const SignedHeaders = Type.Object({
  'x-dg-timestamp': Type.String({
    pattern: '^\\d{10}$',
    description: 'Unix time in seconds, exactly 10 digits (±300 s)',
  }),
  'x-dg-nonce': Type.String({
    pattern: '^[A-Za-z0-9._:-]{16,128}$',
    description: 'New for every HTTP attempt; kept 600 s against reuse',
  }),
  'idempotency-key': Type.String({
    pattern: IDEMPOTENCY_KEY_PATTERN,
    description: 'Stable id of the logical event: the same for every attempt with the same body',
  }),
  'x-dg-signature': Type.String({
    pattern: '^[0-9a-f]{64}$',
    description:
      'Lowercase hex HMAC-SHA256(timestamp + "." + nonce + "." + idempotency_key + "." + raw body, webhook secret)',
  }),
})

const WebhookRefusalSchema = Type.Object(
  {
    error: Type.String(),
    message: Type.Optional(Type.String()),
    fields: Type.Optional(Type.Array(Type.String(), { description: 'The offending fields' })),
    issues: Type.Optional(
      Type.Array(
        Type.Object(
          { field: Type.String(), code: Type.String(), message: Type.String() },
          { additionalProperties: true },
        ),
        { description: 'validation_failed, webhook_import_failed: every problem, with a stable code' },
      ),
    ),
  },
  {
    additionalProperties: true,
    description: 'unsupported_property_structure (fields), validation_failed or webhook_import_failed (issues)',
  },
)

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

export async function webhookRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  // Fastify refuses a malformed Content-Type (415) before any parser runs; the contract wants
  // 401 invalid_auth for it, as for every other header problem, so it is checked first here
  app.addHook('onRequest', async (request) => {
    const type = request.headers['content-type']
    if (type !== undefined && !/^application\/json\s*(;\s*charset=utf-8\s*)?$/i.test(type.trim())) {
      // a well-formed media type with a body over the limit gets the framework's 413, as any other
      if (Number(request.headers['content-length']) > WEBHOOK_BODY_LIMIT && isMediaType(type)) return
      countWebhookDelivery(app.ctx, 'invalid_auth')
      throw new PluginError('invalid_auth', 401, { message: 'Content-Type must be application/json' })
    }
  })
  // counts not yet saved are saved when the app stops
  app.addHook('onClose', async () => flushWebhookActivity(app.ctx).catch(() => undefined))
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_request, body, done) =>
    done(null, body),
  )

  app.addSchema(ImportResultSchema)

  app.post(
    '/webhooks/properties',
    {
      bodyLimit: WEBHOOK_BODY_LIMIT,
      schema: {
        operationId: 'sendPropertyEvent',
        tags: ['webhook'],
        summary: 'Signed property update: a flat JSON object of canonical offer fields',
        description:
          'signature = lowercase hex HMAC-SHA256(timestamp + "." + nonce + "." + idempotency_key + "." + raw body, webhook secret). Every attempt needs a new timestamp, nonce and signature; the Idempotency-Key stays the same for the same event and body.',
        headers: Type.Object({
          'x-dg-timestamp': Type.Optional(Type.String({ description: 'Unix seconds, exactly 10 digits' })),
          'x-dg-nonce': Type.Optional(Type.String({ description: '16–128 characters of A-Za-z0-9._:-' })),
          'idempotency-key': Type.Optional(Type.String({ description: '8–128 characters of A-Za-z0-9._:-' })),
          'x-dg-signature': Type.Optional(Type.String({ description: '64 hexadecimal characters' })),
        }),
        documented: {
          headers: SignedHeaders,
          body: { content: { 'application/json': { schema: PropertyWebhookPayload } } },
        },
        response: {
          200: Type.Object(
            { accepted: Type.Literal(true), result: Type.Ref('ImportResult'), replayed: Type.Literal(true) },
            { description: 'A repeat of the same event (same key and body): the stored result; nothing is written' },
          ),
          202: Type.Object(
            { accepted: Type.Literal(true), result: Type.Ref('ImportResult') },
            { description: 'First execution: accepted and committed' },
          ),
          ...errorResponses(400, 401, 403, 409, 413, 503),
          422: errorResponse(422, WebhookRefusalSchema),
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
        countWebhookDelivery(app.ctx, outcome.body.replayed ? 'replayed' : 'accepted')
        if (outcome.body.replayed) reply.header('Idempotent-Replayed', 'true')
        return reply.code(outcome.statusCode).send(outcome.body)
      } catch (error) {
        countWebhookDelivery(app.ctx, error instanceof PluginError ? error.error : 'error')
        if (error instanceof PluginError) {
          // event id, status, error code, duration and body hash; never the secret, the signature,
          // headers or payload (docs/decisions/webhook-exactly-once.md)
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
