/*
 * Headers every answer carries, whichever route (or error) produced it:
 * - `X-Content-Type-Options: nosniff`: a browser never reads an answer as another type than its
 *   own (JSON as HTML, a published CSV as script);
 * - `Cache-Control: no-store` unless the route chose its own policy: answers are personal (a
 *   session's nonce, users, the audit log, settings) or authenticated, and no shared or browser
 *   cache may keep them. The routes that choose keep theirs: the catalog's collections
 *   `private, must-revalidate` (docs/integration/catalog.md), the published files and the panel's assets
 *   `no-cache` (revalidated with their ETag), media and the website component's script
 *   `public, immutable`;
 * - in production, `Strict-Transport-Security`, also when no proxy adds it.
 */
import type { FastifyInstance, FastifyReply } from 'fastify'

// the value of the nginx example (docs/deploy/nginx.conf): subdomains are the developer's to decide
export const HSTS = 'max-age=31536000'

export function setSecurityHeaders(reply: FastifyReply, production: boolean): void {
  reply.header('X-Content-Type-Options', 'nosniff')
  if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'no-store')
  if (production && !reply.hasHeader('Strict-Transport-Security')) reply.header('Strict-Transport-Security', HSTS)
}

export function registerSecurityHeaders(app: FastifyInstance, production: boolean): void {
  app.addHook('onSend', async function securityHeaders(_request, reply, payload) {
    setSecurityHeaders(reply, production)
    return payload
  })
}
