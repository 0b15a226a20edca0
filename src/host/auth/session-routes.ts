/*
 * Admin-panel login: POST starts a session (cookie) and returns the REST nonce the panel sends
 * in X-WP-Nonce; GET returns the current user and a fresh nonce; DELETE logs out.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'

import { recordAnonymousRefusal, recordAudit } from '../audit/audit.js'
import { HostError } from '../errors.js'
import { actorOf, requirePrincipal } from '../http/authenticate.js'
import { errorResponses, noBody } from '../http/schemas.js'
import { mountPathOf } from '../http/mount-path.js'
import { serviceOrigin } from '../http/service-origin.js'
import {
  findUserByLoginOrEmail,
  getUserById,
  setLoginPasswordOf,
  toPublicUser,
  verifyUserPassword,
} from '../users/users.js'
import {
  claimSignInAttempt,
  KNOWN_BROWSER_COOKIE,
  KNOWN_BROWSER_DAYS,
  knownBrowserCookie,
  recordSignInSuccess,
  signInBuckets,
} from './login-throttle.js'
import { CAPABILITIES, ROLE_NAMES } from './capabilities.js'
import { storedScopeOf } from './scope.js'
import { createRestNonce, endSession, findSessionUserId, SESSION_COOKIE, startSession } from './sessions.js'

const SessionResponse = Type.Object({
  user: Type.Object({
    id: Type.Integer(),
    login: Type.String(),
    email: Type.String(),
    display_name: Type.String(),
    role: Type.String({ enum: ROLE_NAMES }),
    role_label: Type.String(),
    capabilities: Type.Array(Type.String({ enum: CAPABILITIES }), {
      description: 'What the user may do; the panel shows only the sections these allow',
    }),
    scope: Type.Optional(
      Type.Union(
        [Type.Object({ developers: Type.Array(Type.Integer()), investments: Type.Array(Type.Integer()) }), Type.Null()],
        {
          description:
            'The developer entities and investments the user is limited to (null: the whole catalog); the panel hides what needs more',
        },
      ),
    ),
  }),
  nonce: Type.String({ description: 'Send it in the X-WP-Nonce header of every session request.' }),
})

/**
 * Login CSRF: a page of another site must not sign the browser in (to the attacker's account, whose
 * data the victim would then type in). A browser tells where a request comes from in `Origin` and
 * `Sec-Fetch-Site`; a request with neither (curl, a script) comes from no page at all. The body
 * must be JSON, which a page of another site cannot send without asking first (CORS preflight).
 */
async function refuseCrossSiteLogin(request: FastifyRequest): Promise<void> {
  const site = request.headers['sec-fetch-site']
  const origin = request.headers.origin
  const crossSite =
    (site !== undefined && site !== 'same-origin' && site !== 'none') ||
    (origin !== undefined && !sameOrigin(origin, request))
  if (crossSite)
    throw new HostError(
      'rest_cross_origin_login',
      403,
      'Sign in from the admin panel of this service: a sign-in from another site is refused.',
    )
  const type = request.headers['content-type']
  if (type === undefined || !/^application\/json\s*(;|$)/i.test(type.trim()))
    throw new HostError('rest_unsupported_media_type', 415, 'Send the login and the password as application/json.')
}

/**
 * Compares the scheme, host and port a browser names in Origin with the service's public address
 * (DG_PANEL_URL), or, without one, with the origin the request reached: an `http://` page is
 * another origin than the `https://` service, and may be a network attacker's.
 */
function sameOrigin(origin: string, request: FastifyRequest): boolean {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false // `null` (a sandboxed frame, a redirect across sites) and anything malformed
  }
  const { panelUrl, signInOrigins = [] } = request.server.ctx.config
  const expected = [new URL(panelUrl ?? serviceOrigin(request)).origin, ...signInOrigins]
  return (url.protocol === 'https:' || url.protocol === 'http:') && expected.includes(url.origin)
}

export async function sessionRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  // under a shared host name each company's cookies stay on its own path (mount-path.ts)
  const cookieOptions = (request: FastifyRequest) => ({
    path: mountPathOf(request) || '/',
    httpOnly: true,
    secure: true,
    sameSite: 'strict' as const,
  })

  app.post(
    '/session',
    {
      onRequest: refuseCrossSiteLogin,
      schema: {
        operationId: 'createSession',
        tags: ['session'],
        summary: 'Log in to the admin panel',
        description:
          'JSON only (415 rest_unsupported_media_type for a form or any other body) and from the service’s own origin: an Origin of another site, or Sec-Fetch-Site cross-site or same-site, is 403 rest_cross_origin_login, so another site cannot sign a browser in to an account of its choosing. Repeated failed sign-ins are slowed down per name typed and per client address: 429 too_many_login_attempts with Retry-After (seconds, also in data.retry_after). A browser that signed in before keeps a signed known-browser cookie, so failures elsewhere never slow its own sign-ins to that account. A disabled account is 403 account_disabled.',
        body: Type.Object(
          {
            login: Type.String({ minLength: 1, maxLength: 254 }),
            password: Type.String({ minLength: 1, maxLength: 1024 }),
          },
          { additionalProperties: false },
        ),
        response: { 200: SessionResponse, ...errorResponses(400, 401, 403, 415, 429) },
      },
    },
    async (request, reply) => {
      const { login, password } = request.body
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
        await recordAnonymousRefusal(ctx, {
          action: 'session.login',
          reason: 'throttled',
          ip: request.ip,
          ...(found ? { objectType: 'user', objectId: found.id } : {}),
          details: { login, scope: delay.scope, retry_after: delay.retryAfterSeconds },
        })
        throw new HostError(
          'too_many_login_attempts',
          429,
          `Too many failed sign-ins; try again in ${delay.retryAfterSeconds} seconds.`,
          { retry_after: delay.retryAfterSeconds, scope: delay.scope },
          { 'Retry-After': delay.retryAfterSeconds },
        )
      }
      const user = await verifyUserPassword(found, password)
      if (!user) {
        await recordAnonymousRefusal(ctx, {
          action: 'session.login',
          reason: 'wrong_password',
          ip: request.ip,
          ...(found ? { objectType: 'user', objectId: found.id } : {}),
          details: { login },
        })
        throw new HostError('incorrect_password', 401, 'Unknown login or wrong password.')
      }
      await recordSignInSuccess(ctx, buckets)
      if (user.disabled_at !== null) {
        await recordAnonymousRefusal(ctx, {
          action: 'session.login',
          reason: 'account_disabled',
          ip: request.ip,
          objectType: 'user',
          objectId: user.id,
          details: { login },
        })
        throw new HostError('account_disabled', 403, 'This account is disabled; an administrator can enable it.')
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
      reply.setCookie(SESSION_COOKIE, session.token, { ...cookieOptions(request), expires: session.expiresAt })
      reply.setCookie(KNOWN_BROWSER_COOKIE, knownBrowserCookie(ctx, user.id), {
        ...cookieOptions(request),
        maxAge: KNOWN_BROWSER_DAYS * 24 * 3600,
      })
      return {
        user: { ...toPublicUser(user), scope: await storedScopeOf(ctx.db, user) },
        nonce: createRestNonce(ctx, session.token),
      }
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
        throw new HostError('rest_not_logged_in', 401, 'You are not currently logged in.')
      return {
        user: { ...toPublicUser(user), scope: await storedScopeOf(ctx.db, user) },
        nonce: createRestNonce(ctx, token),
      }
    },
  )

  app.put(
    '/session/password',
    {
      schema: {
        operationId: 'changeOwnPassword',
        tags: ['session'],
        summary: 'Change one’s own login password; ends every other panel session of the account',
        description:
          'Needs the current password (403 incorrect_password when wrong; counted by the sign-in throttle like a login, 429 too_many_login_attempts). The session that asks stays; every other panel session of the account ends (`sessions_ended`). Application passwords are kept. A new password under 12 characters is 400 weak_password.',
        body: Type.Object(
          {
            current_password: Type.String({ minLength: 1, maxLength: 1024 }),
            password: Type.String({ minLength: 1, maxLength: 1024, description: 'At least 12 characters' }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            sessions_ended: Type.Integer({ description: 'Other panel sessions of the account that were ended' }),
          }),
          ...errorResponses(400, 401, 403, 429),
        },
      },
      onRequest: async (request) => {
        await requirePrincipal(request)
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      const ctx = app.ctx
      const body = request.body
      const buckets = signInBuckets(ctx, {
        name: principal.user.login,
        userId: principal.user.id,
        ip: request.ip,
        knownBrowserCookie: request.cookies[KNOWN_BROWSER_COOKIE],
      })
      const delay = await claimSignInAttempt(ctx, buckets)
      if (delay)
        throw new HostError(
          'too_many_login_attempts',
          429,
          `Too many failed sign-ins; try again in ${delay.retryAfterSeconds} seconds.`,
          { retry_after: delay.retryAfterSeconds, scope: delay.scope },
          { 'Retry-After': delay.retryAfterSeconds },
        )
      if (!(await verifyUserPassword(principal.user, body.current_password)))
        throw new HostError('incorrect_password', 403, 'The current password is wrong.')
      await recordSignInSuccess(ctx, buckets)
      const changed = await setLoginPasswordOf(ctx, principal.user, {
        password: body.password,
        actor: actorOf(principal),
        keepSessionToken: principal.via === 'session' ? request.cookies[SESSION_COOKIE] : undefined,
      })
      return reply.header('Cache-Control', 'no-store').send({ sessions_ended: changed.sessionsEnded })
    },
  )

  app.delete(
    '/session',
    {
      schema: {
        operationId: 'deleteSession',
        tags: ['session'],
        summary: 'Log out (needs X-WP-Nonce)',
        response: { 204: noBody(), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      const token = request.cookies[SESSION_COOKIE]
      if (principal.via !== 'session' || !token)
        throw new HostError('rest_not_logged_in', 401, 'Only an admin-panel session can log out.')
      await endSession(app.ctx, token)
      await recordAudit(app.ctx, {
        actor: { type: 'user', userId: principal.user.id, login: principal.user.login },
        action: 'session.logout',
        objectType: 'user',
        objectId: principal.user.id,
        outcome: 'success',
      })
      reply.clearCookie(SESSION_COOKIE, cookieOptions(request))
      return reply.code(204).send()
    },
  )
}
