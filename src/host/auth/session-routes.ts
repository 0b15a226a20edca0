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
import { checkLoginPassword, getUserById, toPublicUser } from '../users/users.js'
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
        body: Type.Object(
          {
            login: Type.String({ minLength: 1, maxLength: 254 }),
            password: Type.String({ minLength: 1, maxLength: 1024 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: SessionResponse, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const { login, password } = request.body as { login: string; password: string }
      const ctx = app.ctx
      const user = await checkLoginPassword(ctx, login, password)
      if (!user) {
        await recordAudit(ctx, {
          actor: { type: 'system' },
          action: 'session.login',
          outcome: 'refused',
          details: { login },
        })
        throw new HostError('incorrect_password', 'Unknown login or wrong password.', 401)
      }
      const session = await startSession(ctx, user.id)
      await recordAudit(ctx, {
        actor: { type: 'user', userId: user.id, login: user.login },
        action: 'session.login',
        objectType: 'user',
        objectId: user.id,
        outcome: 'success',
      })
      reply.setCookie(SESSION_COOKIE, session.token, { ...cookieOptions, expires: session.expiresAt })
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
      if (!token || !user) throw new HostError('rest_not_logged_in', 'You are not currently logged in.', 401)
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
