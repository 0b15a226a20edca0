/*
 * The alert channels in the panel (manage_options; not licence-gated: alerts protect the legal
 * duty, which continues in continuity mode):
 *   GET  {base_url}/alerts/settings   the channels in force and where each is set (environment or panel)
 *   PUT  {base_url}/alerts/settings   the panel's e-mail and webhook channels (parts sent; null turns one off)
 *   POST {base_url}/alerts/test       a test alert through every channel in force, one attempt each
 * Answers never carry the SMTP password, the webhook's secret or its path (only whether they are set).
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { HostError } from '../host/errors.js'
import { errorResponses, stringEnum } from '../host/http/schemas.js'
import { todayInWarsaw } from '../host/warsaw-day.js'
import { testAlert } from './alert-causes.js'
import { AlertViewSchema } from './alert-schema.js'
import { configuredChannels, sendTestAlert } from './alert-service.js'
import { alertSettingsView, saveAlertSettings } from './alert-settings.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const readGuard = [requireCapability('dg_read_administration')]
const writeGuard = [requireCapability('manage_options')]
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])
const Source = Nullable(
  stringEnum(['environment', 'panel'], {
    description: 'environment: DG_ALERT_* variables set it (they win, read-only here); panel: set here; null: off',
  }),
)
const Tls = stringEnum(['starttls', 'implicit', 'none'], {
  description: 'starttls (required upgrade, port 587), implicit (TLS from the start, 465) or none (a local relay)',
})

const AlertSettingsSchema = Type.Object({
  email: Type.Object({
    source: Source,
    host: Nullable(Type.String()),
    port: Nullable(Type.Integer()),
    tls: Nullable(Tls),
    user: Nullable(Type.String()),
    password_set: Type.Boolean(),
    from: Nullable(Type.String()),
    to: Type.Array(Type.String()),
  }),
  webhook: Type.Object({
    source: Source,
    origin: Nullable(Type.String({ description: 'Scheme, host and port of the address (its path may hold a token)' })),
    secret_set: Type.Boolean(),
  }),
  updated_at: Nullable(Type.String({ description: 'When the panel’s channels were last saved' })),
})

const AlertSettingsBody = Type.Object(
  {
    email: Type.Optional(
      Nullable(
        Type.Object(
          {
            host: Type.String({ maxLength: 253 }),
            port: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 65535 }))),
            tls: Type.Optional(Tls),
            user: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
            password: Type.Optional(
              Nullable(Type.String({ maxLength: 300, description: 'Omitted: the stored one stays' })),
            ),
            from: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
            to: Type.Array(Type.String({ maxLength: 300 }), { maxItems: 50 }),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    webhook: Type.Optional(
      Nullable(
        Type.Object(
          {
            url: Type.Optional(Type.String({ maxLength: 2000, description: 'Omitted: the stored one stays' })),
            secret: Type.Optional(Type.String({ maxLength: 500, description: 'Omitted: the stored one stays' })),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
)

export async function alertSettingsRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/alerts/settings',
    {
      preHandler: readGuard,
      schema: {
        operationId: 'getAlertSettings',
        tags: ['alerts'],
        summary: 'The alert channels in force (e-mail, notification webhook) and where each is set',
        security,
        response: { 200: AlertSettingsSchema, ...errorResponses(401, 403) },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'no-store')
      return alertSettingsView(app.ctx)
    },
  )

  app.put(
    '/alerts/settings',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'updateAlertSettings',
        tags: ['alerts'],
        summary: 'Set the panel’s alert channels; applies to the next alert on every instance',
        description:
          'A channel the DG_ALERT_* variables set is refused (422 set_by_environment): the environment wins. 422 invalid_alert_settings with issues at their fields; nothing is written then.',
        security,
        body: AlertSettingsBody,
        response: { 200: AlertSettingsSchema, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      reply.header('Cache-Control', 'no-store')
      return saveAlertSettings(app.ctx, request.body, actorOf(principal))
    },
  )

  app.post(
    '/alerts/test',
    {
      preHandler: writeGuard,
      schema: {
        operationId: 'sendTestAlert',
        tags: ['alerts'],
        summary: 'Send a test alert through every channel in force (one attempt each) and say how each did',
        description:
          'Recorded and audited like any alert (cause test). 400 alerts_not_configured when no channel is set. A channel that failed is reported in the 200 answer (state failed, the channel’s error).',
        security,
        response: { 200: AlertViewSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async () => {
      if ((await configuredChannels(app.ctx)).length === 0)
        throw new HostError(
          'alerts_not_configured',
          400,
          'No alert channel is set: set the e-mail or the notification webhook first.',
        )
      return sendTestAlert(app.ctx, testAlert(todayInWarsaw(app.ctx), 'panel'), { maxAttempts: 1 })
    },
  )
}
