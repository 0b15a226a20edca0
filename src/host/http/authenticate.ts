/*
 * Who is calling: an application password (HTTP Basic) or an admin-panel session (cookie plus
 * REST nonce). Resolved lazily and once per request, so routes that need no user (the webhook,
 * the OpenAPI document, published files) never touch the user tables.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'

import type { Actor } from '../audit/audit.js'
import { verifyAppPassword } from '../auth/app-passwords.js'
import { type Capability, userCan } from '../auth/capabilities.js'
import { findSessionUserId, SESSION_COOKIE, verifyRestNonce } from '../auth/sessions.js'
import type { UserRow } from '../db/schema.js'
import { forbidden, HostError } from '../errors.js'
import { getUserById } from '../users/users.js'

export interface Principal {
  user: UserRow
  via: 'app_password' | 'session'
  /** Name of the application password used. */
  credential?: string
}

const principals = new WeakMap<FastifyRequest, Promise<Principal | null>>()
const credentialsRevisions = new WeakMap<FastifyRequest, () => Promise<number>>()

/**
 * A route that reads the credentials revision together with its own state (one statement instead
 * of two) hands it over before authenticating; without it the check reads the revision itself.
 */
export function useCredentialsRevision(request: FastifyRequest, revision: () => Promise<number>): void {
  credentialsRevisions.set(request, revision)
}

export const WWW_AUTHENTICATE = 'Basic realm="dg", charset="UTF-8"'

function unauthorized(code: string, message: string): HostError {
  return new HostError(code, 401, message, {}, { 'WWW-Authenticate': WWW_AUTHENTICATE })
}

function parseBasic(header: string): { name: string; password: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header)
  if (!match?.[1]) return null
  const decoded = Buffer.from(match[1], 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  if (colon <= 0) return null
  return { name: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

async function resolvePrincipal(request: FastifyRequest): Promise<Principal | null> {
  const ctx = request.server.ctx
  const authorization = request.headers.authorization
  if (authorization !== undefined) {
    const credentials = parseBasic(authorization)
    if (!credentials)
      throw unauthorized(
        'rest_invalid_authorization',
        'The Authorization header must use HTTP Basic with a user name and an application password.',
      )
    const check = await verifyAppPassword(ctx, {
      ...credentials,
      ip: request.ip,
      credentialsRevision: await credentialsRevisions.get(request)?.(),
      throttled: true,
    })
    if (!check.ok) {
      if (check.code === 'account_disabled')
        throw new HostError('account_disabled', 403, 'This account is disabled; an administrator can enable it.')
      if (check.code === 'throttled')
        throw new HostError(
          'too_many_login_attempts',
          429,
          `Too many failed sign-ins; try again in ${check.delay.retryAfterSeconds} seconds.`,
          { retry_after: check.delay.retryAfterSeconds, scope: check.delay.scope },
          { 'Retry-After': check.delay.retryAfterSeconds },
        )
      // one answer whatever was wrong: it never tells which user names or e-mails exist
      throw unauthorized('incorrect_password', 'Unknown user name or wrong application password.')
    }
    return { user: check.user, via: 'app_password', credential: check.credential }
  }
  const token = request.cookies[SESSION_COOKIE]
  if (!token) return null
  const userId = await findSessionUserId(ctx, token)
  if (userId === undefined) return null
  const nonceHeader = request.headers['x-wp-nonce']
  const nonce = Array.isArray(nonceHeader) ? nonceHeader[0] : nonceHeader
  // as in the CMS: a cookie without a nonce is simply not an authentication (CSRF protection)
  if (!nonce) return null
  if (!verifyRestNonce(ctx, token, nonce))
    throw new HostError('rest_cookie_invalid_nonce', 403, 'Cookie nonce is invalid')
  const user = await getUserById(ctx, userId)
  // disabling ends the account's sessions; this also covers a session that started meanwhile
  return user && user.disabled_at === null ? { user, via: 'session' } : null
}

export function authenticate(request: FastifyRequest): Promise<Principal | null> {
  let pending = principals.get(request)
  if (!pending) {
    pending = resolvePrincipal(request)
    principals.set(request, pending)
  }
  return pending
}

export async function requirePrincipal(request: FastifyRequest): Promise<Principal> {
  const principal = await authenticate(request)
  if (principal) return principal
  // A request that tried the admin panel's session (its cookie or X-WP-Nonce, no Authorization)
  // gets no Basic challenge, as in the CMS: a browser would answer one with its own login dialog
  // over the panel (and a headless one would wait for it forever).
  const triedSession =
    request.headers.authorization === undefined &&
    (request.headers['x-wp-nonce'] !== undefined || request.cookies[SESSION_COOKIE] !== undefined)
  if (triedSession) throw new HostError('rest_forbidden', 401, 'Sorry, you are not allowed to do that.')
  throw unauthorized('rest_forbidden', 'Sorry, you are not allowed to do that.')
}

export function actorOf(principal: Principal): Actor {
  return { type: 'user', userId: principal.user.id, login: principal.user.login, credential: principal.credential }
}

/** preHandler: 401 without valid credentials, 403 (`forbiddenCode`) without the capability. */
export function requireCapability(capability: Capability, forbiddenCode = 'rest_forbidden') {
  return async function checkCapability(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const principal = await requirePrincipal(request)
    if (!userCan(principal.user, capability)) throw forbidden(forbiddenCode)
  }
}

/**
 * Route guards (authentication, capability, licence) are declared as `preHandler`, which Fastify
 * runs after parsing and validating the body: an anonymous caller got 400 with the body's schema
 * instead of 401. Every route's guards move to `onRequest`, before the body is read, so the
 * schema (and the work of parsing an upload) is only ever for authenticated callers.
 */
export function guardBeforeBody(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (route.preHandler === undefined) return
    const guards = Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler]
    const before =
      route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
    route.onRequest = [...before, ...guards] as typeof route.onRequest
    delete route.preHandler
  })
}
