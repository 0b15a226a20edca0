import type { FastifyReply, FastifyRequest } from 'fastify'

import { type Entitlement, requires } from './license.js'

/** preHandler: 403 `pro_feature_required` unless the active licence grants `feature`. */
export function requireEntitlement(feature: Entitlement) {
  return async function checkEntitlement(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    await requires(request.server.ctx, feature)
  }
}
