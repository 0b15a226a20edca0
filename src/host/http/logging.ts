/*
 * Log configuration. Request logs carry method, path, status and timing only: never headers
 * (Authorization, cookies, X-WP-Nonce, X-DG-Signature, X-DG-Webhook-Key), and query values that
 * can hold secrets are masked before the URL is written. Plugins log headers of their own: at
 * `trace`, @fastify/multipart logs the request's headers as `busboyOptions.headers` for every
 * upload, so those headers are masked wherever a logged object carries them.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { LoggerOptions } from 'pino'

const SECRET_HEADERS = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-wp-nonce',
  'x-dg-signature',
  'x-dg-webhook-key',
] as const

const SECRET_QUERY_PARAMS = /([?&](?:key|_wpnonce|password|token|secret)=)[^&#]*/gi

export function maskUrl(url: string): string {
  return url.replace(SECRET_QUERY_PARAMS, '$1***')
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        ...SECRET_HEADERS.flatMap((name) => [`headers["${name}"]`, `*.headers["${name}"]`]),
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
