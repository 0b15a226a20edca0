/*
 * The machine-readable contract (contract 9.5): an OpenAPI 3.1 document generated from the route
 * schemas themselves, so it cannot drift from what the server validates and returns.
 */
import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'

import { API_VERSION, PLUGIN_VERSION } from '../../version.js'

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Property-offer catalog, import, publication and webhook API',
        version: PLUGIN_VERSION,
        description: `Contract ${API_VERSION}. Errors use the host shape {code, message, data:{status}} or the plugin shape {error, feature?}.`,
      },
      components: {
        securitySchemes: {
          applicationPassword: {
            type: 'http',
            scheme: 'basic',
            description: 'User login or e-mail and an application password',
          },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'dg_session',
            description: 'Admin-panel session; requires X-WP-Nonce too',
          },
          restNonce: { type: 'apiKey', in: 'header', name: 'X-WP-Nonce' },
        },
      },
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, index) =>
        typeof json.$id === 'string' ? json.$id : `def-${index}`,
    },
  })
}

export async function openApiRoute(app: FastifyInstance): Promise<void> {
  app.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) => {
    return reply.type('application/json; charset=utf-8').send(app.swagger())
  })
}
