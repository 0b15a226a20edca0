/*
 * The audit log over REST (manage_options; not licence-gated):
 *   GET {base_url}/audit           a page of entries, newest first, filtered by who, action, object,
 *                                  channel, outcome and time range; X-WP-Total / X-WP-TotalPages
 *   GET {base_url}/audit/actions   the actions recorded so far (for a filter's choices)
 * Entries never carry a secret (see maskSecrets).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { requireCapability, requirePrincipal } from '../http/authenticate.js'
import { scopeOf } from '../auth/scope.js'
import { invalidParam } from '../errors.js'
import { errorResponses, stringEnum } from '../http/schemas.js'
import { AUDIT_CHANNELS } from './audit-repository.js'
import { auditActions, auditPage } from './audit.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const readGuard = [requireCapability('dg_read_all')]

const OUTCOMES = ['success', 'failure', 'refused'] as const

const AuditEntrySchema = Type.Object({
  id: Type.Integer(),
  occurred_at: Type.String({ description: 'ISO 8601 UTC' }),
  actor: Type.Object({
    type: Type.String({ description: 'user, webhook, scheduler, cli or system' }),
    user_id: Type.Union([Type.Integer(), Type.Null()]),
    name: Type.String({ description: 'The user’s login, or the actor type' }),
    credential: Type.Union([Type.String(), Type.Null()], {
      description: 'The name of the application password used (never its value); null for a panel session',
    }),
  }),
  channel: stringEnum(AUDIT_CHANNELS, {
    description: 'panel (session), api (application password), webhook, scheduler, cli or system',
  }),
  action: Type.String(),
  object_type: Type.Union([Type.String(), Type.Null()]),
  object_id: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.String({ description: 'success, failure or refused' }),
  details: Type.Object({}, { additionalProperties: true, description: 'Facts of the operation; never a secret' }),
})

/** PostgreSQL cannot compare text holding U+0000: such a filter is a 400, not a failed query. */
const NO_NUL = '^[^\\u0000]*$'

const Instant = Type.String({
  maxLength: 40,
  pattern: NO_NUL,
  description: 'ISO 8601 date-time (or a date, meaning its UTC midnight)',
})

function instant(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined
  const parsed = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
  if (!Number.isFinite(parsed)) throw invalidParam(name, `${name} must be an ISO 8601 date-time.`)
  return new Date(parsed).toISOString()
}

export async function auditRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/audit',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'listAuditEntries',
        tags: ['audit'],
        summary: 'The audit log, newest first, paged and filtered',
        description:
          'Refusals of anonymous requests (sign-ins, password reset requests and links) are counted per client address, cause and 15-minute window: the first is an entry of its own with its details, the others one entry with `details.count` once the window is over.',
        security,
        querystring: Type.Object({
          page: Type.Integer({ minimum: 1, maximum: 100000, default: 1 }),
          per_page: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
          actor: Type.Optional(
            Type.String({
              maxLength: 254,
              pattern: NO_NUL,
              description: 'Who acted: a login, or webhook, scheduler, cli, system',
            }),
          ),
          action: Type.Optional(
            Type.String({
              maxLength: 100,
              pattern: NO_NUL,
              description: 'An action (user.create), or a family with * (user.*)',
            }),
          ),
          object_type: Type.Optional(Type.String({ maxLength: 60, pattern: NO_NUL })),
          object_id: Type.Optional(Type.String({ maxLength: 200, pattern: NO_NUL })),
          channel: Type.Optional(stringEnum(AUDIT_CHANNELS)),
          outcome: Type.Optional(stringEnum(OUTCOMES)),
          from: Type.Optional(Instant),
          until: Type.Optional(Instant),
        }),
        response: {
          200: Type.Object({
            items: Type.Array(AuditEntrySchema),
            page: Type.Integer(),
            per_page: Type.Integer(),
            total: Type.Integer({ description: 'Entries the filter matches (also X-WP-Total)' }),
            total_pages: Type.Integer({ description: 'Also X-WP-TotalPages' }),
          }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const query = request.query
      const principal = await requirePrincipal(request)
      const scope = await scopeOf(request)
      const { items, total } = await auditPage(
        app.ctx,
        {
          actor: query.actor?.trim() || undefined,
          action: query.action?.trim() || undefined,
          objectType: query.object_type?.trim() || undefined,
          objectId: query.object_id?.trim() || undefined,
          channel: query.channel,
          outcome: query.outcome,
          from: instant('from', query.from),
          until: instant('until', query.until),
          ...(scope.restricted
            ? {
                scope: {
                  userId: principal.user.id,
                  investments: [...scope.investments],
                  developers: [...scope.visibleDevelopers],
                },
              }
            : {}),
        },
        query.page,
        query.per_page,
      )
      const totalPages = Math.ceil(total / query.per_page)
      reply.header('X-WP-Total', total).header('X-WP-TotalPages', totalPages)
      return { items, page: query.page, per_page: query.per_page, total, total_pages: totalPages }
    },
  )

  app.get(
    '/audit/actions',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'listAuditActions',
        tags: ['audit'],
        summary: 'The actions the audit log holds, for a filter’s choices',
        security,
        response: { 200: Type.Object({ actions: Type.Array(Type.String()) }), ...errorResponses(401, 403) },
      },
    },
    async () => ({ actions: await auditActions(app.ctx) }),
  )
}
