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

/** Query parameters masked wherever they appear, compared without case and separators. */
const SECRET_PARAM_NAMES = new Set([
  'key',
  'apikey',
  'accesskey',
  'secretkey',
  'privatekey',
  'webhookkey',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'token',
  'secret',
  'clientsecret',
  'password',
  'passwd',
  'pwd',
  'pass',
  'signature',
  'sig',
  'nonce',
  'wpnonce',
  'auth',
  'authorization',
  'session',
  'sessionid',
  'cookie',
  'credential',
  'credentials',
  'code',
  'hmac',
  'jwt',
  'bearer',
  'otp',
  'totp',
  'mfa',
  'pin',
])

/** Names that look like a secret although not listed: `x_api_key`, `webhookSecret`, `auth_token`. */
const SECRET_LOOKING = /key$|token|secret|passw|signature|nonce|credential|session|auth|hmac|jwt|bearer/

/** The name as the query parser reads it (`%6bey`, `k%65y`, `+`), decoded again while it changes. */
function decodedName(raw: string): string {
  let name = raw.replaceAll('+', ' ')
  for (let i = 0; i < 3; i++) {
    let next: string
    try {
      next = decodeURIComponent(name)
    } catch {
      // a broken escape: decode what can be, as the parser does
      next = name.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    }
    if (next === name) break
    name = next
  }
  return name
}

/** A bracketed name (`key[a]`, `auth[token][]`) is secret when any of its parts is. */
export function isSecretParamName(raw: string): boolean {
  const decoded = decodedName(raw).toLowerCase()
  const parts = [decoded, ...decoded.split(/[[\]]+/)]
    .map((part) => part.replace(/[^a-z0-9]/g, ''))
    .filter((part) => part !== '')
  return parts.some((name) => SECRET_PARAM_NAMES.has(name) || SECRET_LOOKING.test(name))
}

/** The service's own secret shapes (a webhook secret), found in a piece once it is decoded. */
const OWN_SECRET = /dgwh_[A-Za-z0-9_-]{8,}/

/** One piece (`name=value` or a bare word) with its value masked when it is or holds a secret. */
function maskPiece(piece: string): string {
  const decoded = decodedName(piece)
  const equals = decoded.indexOf('=')
  if (equals !== -1) {
    const rawEquals = piece.indexOf('=')
    const name = rawEquals === -1 ? decoded.slice(0, equals) : piece.slice(0, rawEquals)
    if (isSecretParamName(name)) return `${name}=***`
  }
  return OWN_SECRET.test(decoded) ? '***' : piece
}

/**
 * The URL with the value of every secret-looking parameter replaced by `***`. Names are compared
 * decoded, since the service decodes them (`?%6bey=` is `key`), and every part between `?`, `&`
 * and `;` counts, so a value cannot hide behind a separator the parser does not use. Path
 * segments are read the same way (`/generate/key=…`, `;key=…`, `key%3D…`), and a piece holding
 * the service's own secret shape is masked whole, named or not, since a mistyped URL can carry it
 * anywhere.
 */
export function maskUrl(url: string): string {
  const query = url.indexOf('?')
  const hash = url.indexOf('#', query === -1 ? 0 : query)
  const pathEnd = query === -1 ? (hash === -1 ? url.length : hash) : query
  const path = url
    .slice(0, pathEnd)
    .split(/([/;])/)
    .map((part, index) => (index % 2 === 1 ? part : maskPiece(part)))
    .join('')
  if (query === -1) return `${path}${hash === -1 ? '' : '#***'}`
  const end = hash === -1 ? url.length : hash
  const parts = url.slice(query + 1, end).split(/([&;?])/)
  const masked = parts.map((part, index) => (index % 2 === 1 ? part : maskPiece(part)))
  return `${path}?${masked.join('')}${hash === -1 ? '' : '#***'}`
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
        '*.key',
        '*.api_key',
        '*.access_token',
        '*.token',
        '*.signature',
        // a password reset: its link holds the token, as do the bodies that carry the new password
        '*.link',
        '*.reset_link',
        '*.current_password',
        '*.new_password',
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
