/*
 * Password reset by e-mail (see password-reset.ts):
 *   GET  {base_url}/session/password-reset           whether the sign-in page offers it
 *   POST {base_url}/session/password-reset           ask for a link (the same answer for any name)
 *   POST {base_url}/session/password-reset/confirm   set the new password with the link's token
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Type } from 'typebox'

import { HostError } from '../host/errors.js'
import { errorResponses } from '../host/http/schemas.js'
import { MIN_LOGIN_PASSWORD_LENGTH } from '../host/users/users.js'
import {
  completePasswordReset,
  PASSWORD_RESET_TTL_MINUTES,
  passwordResetUnavailable,
  requestPasswordReset,
} from './password-reset.js'

/** JSON only, as the sign-in: a form of another site cannot post it without asking first (CORS). */
async function requireJson(request: FastifyRequest): Promise<void> {
  const type = request.headers['content-type']
  if (type === undefined || !/^application\/json\s*(;|$)/i.test(type.trim()))
    throw new HostError('rest_unsupported_media_type', 415, 'Send the request as application/json.')
}

const Availability = Type.Object({
  available: Type.Boolean({ description: 'The sign-in page offers the reset by e-mail' }),
  reason: Type.Union([Type.Literal('smtp_not_configured'), Type.Literal('panel_url_not_configured'), Type.Null()], {
    description: 'Why it is not offered; null when it is',
  }),
  ttl_minutes: Type.Integer({ description: 'How long a link works' }),
  min_password_length: Type.Integer({ description: 'The password policy: the shortest password accepted' }),
})

export async function passwordResetRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/session/password-reset',
    {
      schema: {
        operationId: 'getPasswordResetAvailability',
        tags: ['session'],
        summary: 'Whether a forgotten password can be reset by e-mail here',
        description:
          'No authentication. Offered when an SMTP server is in force (the alerts’ e-mail settings, from the environment or the panel) and DG_PANEL_URL names the panel’s public address; otherwise the sign-in page says who can set a new password.',
        response: { 200: Availability },
      },
    },
    async () => {
      const reason = await passwordResetUnavailable(app.ctx)
      return {
        available: reason === null,
        reason,
        ttl_minutes: PASSWORD_RESET_TTL_MINUTES,
        min_password_length: MIN_LOGIN_PASSWORD_LENGTH,
      }
    },
  )

  app.post(
    '/session/password-reset',
    {
      onRequest: requireJson,
      schema: {
        operationId: 'requestPasswordReset',
        tags: ['session'],
        summary: 'Ask for a password reset link by e-mail (the same answer whether or not the account exists)',
        description:
          'No authentication; JSON only (415). Answers 202 at once for any login or e-mail; when it names an enabled account with an e-mail address, a one-time link valid for 30 minutes is sent to that address afterwards (a newer request or a password change voids the earlier link). Counted per name, per client address and per account by the sign-in throttle: 429 too_many_password_reset_requests with Retry-After when the name or the address asks too often (an account asking too often is not told: no e-mail is sent). 409 password_reset_unavailable when the reset by e-mail is not set up.',
        body: Type.Object(
          { login: Type.String({ minLength: 1, maxLength: 254, description: 'A login or an e-mail' }) },
          { additionalProperties: false },
        ),
        response: {
          202: Type.Object({
            accepted: Type.Literal(true),
            ttl_minutes: Type.Integer({ description: 'How long the link works' }),
          }),
          ...errorResponses(400, 409, 415, 429),
        },
      },
    },
    async (request, reply) => {
      const { login } = request.body
      await requestPasswordReset(app.ctx, { name: login, ip: request.ip })
      return reply
        .code(202)
        .header('Cache-Control', 'no-store')
        .send({ accepted: true, ttl_minutes: PASSWORD_RESET_TTL_MINUTES })
    },
  )

  app.post(
    '/session/password-reset/confirm',
    {
      onRequest: requireJson,
      schema: {
        operationId: 'confirmPasswordReset',
        tags: ['session'],
        summary: 'Set a new password with the token of a reset link; ends every panel session of the account',
        description:
          'No authentication; JSON only (415). 400 weak_password under the password policy (the link stays usable); 400 password_reset_invalid for a token that is unknown, expired, already used or voided by a newer request or a password change. Application passwords are kept.',
        body: Type.Object(
          {
            token: Type.String({ minLength: 1, maxLength: 200, description: 'The token of the link' }),
            password: Type.String({ minLength: 1, maxLength: 1024, description: 'At least 12 characters' }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            sessions_ended: Type.Integer({ description: 'Panel sessions of the account that were ended' }),
          }),
          ...errorResponses(400, 415),
        },
      },
    },
    async (request, reply) => {
      const body = request.body
      const done = await completePasswordReset(app.ctx, { ...body, ip: request.ip })
      return reply.header('Cache-Control', 'no-store').send({ sessions_ended: done.sessionsEnded })
    },
  )
}
