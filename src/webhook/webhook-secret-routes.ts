/*
 * The webhook key (docs/integration/webhook.md) over REST, for the admin panel (and any administrator's
 * application password): GET shows the current secret, POST …/rotate replaces it through the same
 * service function as `dg webhook-secret rotate`, so the old secret stops verifying at once on
 * every instance (deliveries read it from the database). `manage_options` only, and deliberately
 * not licence-gated: rotating a leaked secret must stay possible in continuity mode. Answers carry
 * `Cache-Control: no-store`; the secret is never logged (request logs hold method, path, status).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { Type } from 'typebox'

import { recordAudit } from '../host/audit/audit.js'
import { HostError } from '../host/errors.js'
import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { errorResponses } from '../host/http/schemas.js'
import { getWebhookSecret, rotateWebhookSecret, WEBHOOK_SECRET_OPTION } from './webhook-secret.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]

const WebhookSecretSchema = Type.Object({
  secret: Type.String({
    description: 'The HMAC-SHA256 key of X-DG-Signature and the X-DG-Webhook-Key of legacy generate, used as shown',
  }),
  created_at: Type.String({ description: 'When this secret was made (ISO 8601)' }),
})

function noStore(reply: FastifyReply): void {
  reply.header('Cache-Control', 'no-store')
}

export async function webhookSecretRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/webhook-secret',
    {
      preHandler: [requireCapability('manage_options')],
      schema: {
        operationId: 'getWebhookSecret',
        tags: ['webhook'],
        summary: 'Show the webhook key (the secret that signs property webhooks); manage_options',
        description:
          'Each call is recorded in the audit log (`webhook_secret.view`). 404 `webhook_secret_missing` until the first rotation.',
        security,
        response: { 200: WebhookSecretSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      noStore(reply)
      const stored = await getWebhookSecret(app.ctx)
      if (!stored)
        throw new HostError(
          'webhook_secret_missing',
          404,
          'No webhook secret yet; rotate to create one (POST webhook-secret/rotate or dg webhook-secret rotate).',
        )
      // who saw the key is worth knowing when a leak is investigated
      await recordAudit(app.ctx, {
        actor: actorOf(principal),
        action: 'webhook_secret.view',
        objectType: 'option',
        objectId: WEBHOOK_SECRET_OPTION,
        outcome: 'success',
      })
      return { secret: stored.secret, created_at: stored.created_at }
    },
  )

  app.post(
    '/webhook-secret/rotate',
    {
      preHandler: [requireCapability('manage_options')],
      schema: {
        operationId: 'rotateWebhookSecret',
        tags: ['webhook'],
        summary: 'Replace the webhook key; the previous one stops verifying at once; manage_options',
        description:
          'Same operation as `dg webhook-secret rotate`, audited as `webhook_secret.rotate`. Any request body is ignored.',
        security,
        response: { 200: WebhookSecretSchema, ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      noStore(reply)
      const stored = await rotateWebhookSecret(app.ctx, actorOf(principal))
      request.log.info({ created_at: stored.created_at }, 'webhook secret rotated')
      return { secret: stored.secret, created_at: stored.created_at }
    },
  )
}
