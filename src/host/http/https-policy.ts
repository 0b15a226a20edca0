import type { FastifyInstance, FastifyRequest } from 'fastify'

import { HostError } from '../errors.js'

/*
 * Production needs HTTPS (docs/operations/install.md, HTTPS and proxies). `request.protocol` is the socket's, or the
 * X-Forwarded-Proto of a proxy listed in DG_TRUSTED_PROXIES (fastify's trustProxy), never a
 * header sent by anybody else.
 */
export function registerHttpsPolicy(app: FastifyInstance, required: boolean): void {
  if (!required) return
  app.addHook('onRequest', async function refusePlainHttp(request: FastifyRequest) {
    if (request.protocol !== 'https') {
      throw new HostError(
        'rest_https_required',
        403,
        'HTTPS is required. Connect over https:// (or through the configured TLS proxy).',
      )
    }
  })
}
