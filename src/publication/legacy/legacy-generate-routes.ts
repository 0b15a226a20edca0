/*
 * GET and POST {legacy_base_url}/generate?date=YYYY-MM-DD with the header X-DG-Webhook-Key
 * (docs/decisions/report-import-and-legacy.md). HEAD is not exposed: it would publish. Any request body is read and ignored, so
 * a legacy client posting an empty JSON body is not refused by a body parser.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { errorResponses } from '../../host/http/schemas.js'
import { legacyGenerate } from './legacy-generate.js'
import { KEY_PARAM_HEADERS } from './legacy-key-setting.js'
import { legacyKeyParamEnabled } from './legacy-key-setting.js'

export async function legacyGenerateRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_request, _body, done) =>
    done(null, undefined),
  )

  app.route({
    method: ['GET', 'POST'],
    url: '/generate',
    exposeHeadRoute: false,
    schema: {
      operationId: 'legacyGenerate',
      tags: ['publication'],
      summary: 'Legacy generate (transitional): publish the official file of a date',
      description:
        'Authenticates with the webhook key in the X-DG-Webhook-Key header (401 invalid_auth when missing or wrong) ' +
        'and needs PRO with api_webhooks (403 pro_feature_required); runs the same pipeline as POST /publications. ' +
        'The key query parameter is refused unless enabled (PUT {base_url}/legacy-generate/settings or DG_LEGACY_KEY_PARAM=on); when enabled, answers carry ' +
        'Deprecation, Sunset and Warning headers and each use is audited. Not a model for new integrations.',
      querystring: Type.Object({
        date: Type.Optional(Type.String({ description: 'Calendar date YYYY-MM-DD (required)' })),
        key: Type.Optional(
          Type.String({ description: 'Deprecated, disabled by default, removed in 3.0.0: use X-DG-Webhook-Key' }),
        ),
      }),
      headers: Type.Object({
        'x-dg-webhook-key': Type.Optional(Type.String({ description: 'The webhook secret' })),
      }),
      response: {
        200: Type.Ref('PublicationOutcome'),
        ...errorResponses(400, 401, 403, 409, 422),
      },
    },
    handler: async (request, reply) => {
      const query = request.query
      const keyParam = Object.hasOwn(query, 'key')
      if (keyParam && (await legacyKeyParamEnabled(app.ctx))) {
        // on every answer, errors included: the caller must learn to move the key to the header
        for (const [name, value] of Object.entries(KEY_PARAM_HEADERS)) reply.header(name, value)
        request.log.warn(
          { legacy_generate: { key_param: true } },
          'legacy generate called with the key query parameter',
        )
      }
      return legacyGenerate(app.ctx, {
        headerKey: request.headers['x-dg-webhook-key'],
        queryKey: keyParam ? query.key : undefined,
        date: query.date,
        remoteAddress: request.ip,
      })
    },
  })
}
