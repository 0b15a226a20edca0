/*
 * Admin-panel login: POST starts a session (cookie) and returns the REST nonce the panel sends
 * in X-WP-Nonce; GET returns the current user and a fresh nonce; DELETE logs out.
 */
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { recordAudit } from '../audit/audit.js'
import { HostError } from '../errors.js'
import { requirePrincipal } from '../http/authenticate.js'
import { errorResponses } from '../http/schemas.js'
import { findUserByLoginOrEmail, getUserById, toPublicUser, verifyUserPassword } from '../users/users.js'
import {
  claimSignInAttempt,
  KNOWN_BROWSER_COOKIE,
  KNOWN_BROWSER_DAYS,
  knownBrowserCookie,
  recordSignInSuccess,
  signInBuckets,
} from './login-throttle.js'
import { createRestNonce, endSession, findSessionUserId, SESSION_COOKIE, startSession } from './sessions.js'

const SessionResponse = Type.Object({
  user: Type.Object({
    id: Type.Integer(),
    login: Type.String(),
    email: Type.String(),
    display_name: Type.String(),
    role: Type.String(),
    role_label: Type.String(),
    capabilities: Type.Array(Type.String()),
  }),
  nonce: Type.String({ description: 'Send it in the X-WP-Nonce header of every session request.' }),
})

export async function sessionRoutes(app: FastifyInstance): Promise<void> {
  const cookieOptions = { path: '/', httpOnly: true, secure: true, sameSite: 'strict' as const }

  app.post(
    '/session',
    {
      schema: {
        operationId: 'createSession',
        tags: ['session'],
        summary: 'Log in to the admin panel',
        description:
          'Repeated failed sign-ins are slowed down per account and per client address: 429 too_many_login_attempts with Retry-After (seconds, also in data.retry_after). A browser that signed in before keeps a signed known-browser cookie, so failures elsewhere never slow its own sign-ins to that account. A disabled account is 403 account_disabled.',
        body: Type.Object(
          {
            login: Type.String({ minLength: 1, maxLength: 254 }),
            password: Type.String({ minLength: 1, maxLength: 1024 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: SessionResponse, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const { login, password } = request.body as { login: string; password: string }
      const ctx = app.ctx
      const found = await findUserByLoginOrEmail(ctx, login)
      const buckets = signInBuckets(ctx, {
        name: login,
        userId: found?.id,
        ip: request.ip,
        knownBrowserCookie: request.cookies[KNOWN_BROWSER_COOKIE],
      })
      // counted before the password is checked, in one step with the check of the count
      const delay = await claimSignInAttempt(ctx, buckets)
      if (delay) {
        await recordAudit(ctx, {
          actor: { type: 'system' },
          action: 'session.login',
          ...(found ? { objectType: 'user', objectId: found.id } : {}),
          outcome: 'refused',
          details: {
            login,
            ip: request.ip,
            reason: 'throttled',
            scope: delay.scope,
            retry_after: delay.retryAfterSeconds,
          },
        })
        throw new HostError(
          'too_many_login_attempts',
          `Too many failed sign-ins; try again in ${delay.retryAfterSeconds} seconds.`,
          429,
          { retry_after: delay.retryAfterSeconds, scope: delay.scope },
          { 'Retry-After': delay.retryAfterSeconds },
        )
      }
      const user = await verifyUserPassword(found, password)
      if (!user) {
        await recordAudit(ctx, {
          actor: { type: 'system' },
          action: 'session.login',
          ...(found ? { objectType: 'user', objectId: found.id } : {}),
          outcome: 'refused',
          details: { login, ip: request.ip, reason: 'wrong_password' },
        })
        throw new HostError('incorrect_password', 'Unknown login or wrong password.', 401)
      }
      await recordSignInSuccess(ctx, buckets)
      if (user.disabled_at !== null) {
        await recordAudit(ctx, {
          actor: { type: 'system' },
          action: 'session.login',
          objectType: 'user',
          objectId: user.id,
          outcome: 'refused',
          details: { login, ip: request.ip, reason: 'account_disabled' },
        })
        throw new HostError('account_disabled', 'This account is disabled; an administrator can enable it.', 403)
      }
      const session = await startSession(ctx, user.id)
      await recordAudit(ctx, {
        actor: { type: 'user', userId: user.id, login: user.login },
        action: 'session.login',
        objectType: 'user',
        objectId: user.id,
        outcome: 'success',
        details: { ip: request.ip },
      })
      reply.setCookie(SESSION_COOKIE, session.token, { ...cookieOptions, expires: session.expiresAt })
      reply.setCookie(KNOWN_BROWSER_COOKIE, knownBrowserCookie(ctx, user.id), {
        ...cookieOptions,
        maxAge: KNOWN_BROWSER_DAYS * 24 * 3600,
      })
      return { user: toPublicUser(user), nonce: createRestNonce(ctx, session.token) }
    },
  )

  app.get(
    '/session',
    {
      schema: {
        operationId: 'getSession',
        tags: ['session'],
        summary: 'Current admin-panel session and a fresh REST nonce',
        response: { 200: SessionResponse, ...errorResponses(401) },
      },
    },
    async (request) => {
      const ctx = app.ctx
      const token = request.cookies[SESSION_COOKIE]
      const userId = token ? await findSessionUserId(ctx, token) : undefined
      const user = userId === undefined ? undefined : await getUserById(ctx, userId)
      if (!token || !user || user.disabled_at !== null)
        throw new HostError('rest_not_logged_in', 'You are not currently logged in.', 401)
      return { user: toPublicUser(user), nonce: createRestNonce(ctx, token) }
    },
  )

  app.delete(
    '/session',
    {
      schema: {
        operationId: 'deleteSession',
        tags: ['session'],
        summary: 'Log out (needs X-WP-Nonce)',
        response: { 204: Type.Null(), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      const token = request.cookies[SESSION_COOKIE]
      if (principal.via !== 'session' || !token)
        throw new HostError('rest_not_logged_in', 'Only an admin-panel session can log out.', 401)
      await endSession(app.ctx, token)
      await recordAudit(app.ctx, {
        actor: { type: 'user', userId: principal.user.id, login: principal.user.login },
        action: 'session.logout',
        objectType: 'user',
        objectId: principal.user.id,
        outcome: 'success',
      })
      reply.clearCookie(SESSION_COOKIE, cookieOptions)
      return reply.code(204).send()
    },
  )
}
