/*
 * Log configuration. Request logs carry method, path, status and timing only: never headers
 * (Authorization, cookies, X-WP-Nonce, X-DG-Signature, X-DG-Webhook-Key), and query values that
 * can hold secrets are masked before the URL is written.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LoggerOptions } from 'pino'

const SECRET_QUERY_PARAMS = /([?&](?:key|_wpnonce|password|token|secret)=)[^&#]*/gi

export function maskUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1***')
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["x-wp-nonce"]',
        'req.headers["x-dg-signature"]',
        'req.headers["x-dg-webhook-key"]',
        'res.headers["set-cookie"]',
        '*.password',
        '*.secret',
        '*.authorization',
      ],
      censor: '***',
    },
    serializers: {
      req(request: FastifyRequest) {
        return { method: request.method, url: maskUrl(request.url), remoteAddress: request.ip }
      },
      res(reply: FastifyReply) {
        return { statusCode: reply.statusCode }
      },
    },
  }
}
