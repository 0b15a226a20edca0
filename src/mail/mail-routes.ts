/*
 * E-mail and the panel's address in the panel (manage_options):
 *   GET  {base_url}/mail/settings   the SMTP server and the panel address in force, and where each is set
 *   PUT  {base_url}/mail/settings   save the panel's (parts sent; null removes one); applies at once
 *   POST {base_url}/mail/test       send a test e-mail (to the outbox in a trial)
 *   GET  {base_url}/mail/outbox     the e-mails a trial kept instead of sending them (latest 100)
 * Answers never carry the SMTP password, only whether one is set.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'

import { actorOf, requireCapability, requirePrincipal } from '../host/http/authenticate.js'
import { errorResponses, stringEnum } from '../host/http/schemas.js'
import { mailSettingsView, saveMailSettings } from './mail-settings.js'
import { listOutboxEmails, OUTBOX_KEPT, sendTestEmail } from './outgoing-mail.js'

const security: Array<Record<string, string[]>> = [{ applicationPassword: [] }, { sessionCookie: [], restNonce: [] }]
const guard = [requireCapability('manage_options')]
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()])
const Source = Nullable(
  stringEnum(['environment', 'panel', 'default'], {
    description:
      'environment: set by the server’s variables (they win; read-only here); panel: saved here; default: the service’s own (outside production, its listening address); null: none',
  }),
)
const Tls = stringEnum(['starttls', 'implicit', 'none'], {
  description: 'starttls (required upgrade, port 587), implicit (TLS from the start, 465) or none (a local relay)',
})

const MailSettingsSchema = Type.Object({
  smtp: Type.Object({
    source: Source,
    host: Nullable(Type.String()),
    port: Nullable(Type.Integer()),
    tls: Nullable(Tls),
    user: Nullable(Type.String()),
    password: stringEnum(['set', 'not set'], { description: 'Whether a password is set; it is never answered' }),
    from: Nullable(Type.String({ description: 'The sender address' })),
  }),
  panel_url: Type.Object({
    source: Source,
    value: Nullable(Type.String({ description: 'The panel’s public address, the part before /dg-admin/' })),
  }),
  delivery: stringEnum(['smtp', 'outbox', 'none'], {
    description:
      'Where e-mails go now: smtp; outbox (outside production with no SMTP server: kept for the panel’s outbox page); none (production without SMTP)',
  }),
  updated_at: Nullable(Type.String({ description: 'When the panel’s settings were last saved' })),
})

const MailSettingsBody = Type.Object(
  {
    smtp: Type.Optional(
      Nullable(
        Type.Object(
          {
            host: Type.String({ maxLength: 253 }),
            port: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 65535 }))),
            tls: Type.Optional(Tls),
            user: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
            password: Type.Optional(
              Nullable(
                Type.String({ maxLength: 300, description: 'Write-only. Omitted: the stored one stays; null: none' }),
              ),
            ),
            from: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
          },
          { additionalProperties: false },
        ),
      ),
    ),
    panel_url: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
  },
  { additionalProperties: false },
)

const OutboxSchema = Type.Object({
  active: Type.Boolean({ description: 'E-mails go to the outbox now (outside production, no SMTP server)' }),
  kept: Type.Integer({ description: 'How many of the latest e-mails are kept' }),
  emails: Type.Array(
    Type.Object({
      id: Type.Integer(),
      created_at: Type.String(),
      to: Type.Array(Type.String()),
      from: Type.String(),
      subject: Type.String(),
      body: Type.String({ description: 'Plain text' }),
    }),
  ),
})

export async function mailRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>()
  app.get(
    '/mail/settings',
    {
      preHandler: guard,
      schema: {
        operationId: 'getMailSettings',
        tags: ['mail'],
        summary: 'The SMTP server and the panel’s public address in force, and where each is set',
        security,
        response: { 200: MailSettingsSchema, ...errorResponses(401, 403) },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'no-store')
      return mailSettingsView(app.ctx)
    },
  )

  app.put(
    '/mail/settings',
    {
      preHandler: guard,
      schema: {
        operationId: 'updateMailSettings',
        tags: ['mail'],
        summary: 'Save the SMTP server and the panel’s address; applies at once on every instance',
        description:
          'A part the environment sets is refused (422 set_by_environment). 422 invalid_mail_settings with issues at their fields; nothing is written then.',
        security,
        body: MailSettingsBody,
        response: { 200: MailSettingsSchema, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      reply.header('Cache-Control', 'no-store')
      return saveMailSettings(app.ctx, request.body, actorOf(principal))
    },
  )

  app.post(
    '/mail/test',
    {
      preHandler: guard,
      schema: {
        operationId: 'sendTestEmail',
        tags: ['mail'],
        summary: 'Send a test e-mail through the SMTP server in force (to the outbox in a trial)',
        description:
          '409 mail_not_configured in production without an SMTP server. A refusal of the server is answered 200 with sent false and its text. Audited.',
        security,
        body: Type.Object(
          { to: Type.String({ format: 'email', maxLength: 254, description: 'The recipient' }) },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            sent: Type.Boolean({ description: 'false: the SMTP server refused or could not be reached (see error)' }),
            via: stringEnum(['smtp', 'outbox'], { description: 'Over SMTP, or kept in the outbox (a trial)' }),
            outbox_id: Nullable(Type.Integer({ description: 'The outbox e-mail, when kept there' })),
            error: Nullable(Type.String({ description: 'The SMTP server’s answer when not sent' })),
          }),
          ...errorResponses(400, 401, 403, 409),
        },
      },
    },
    async (request, reply) => {
      const principal = await requirePrincipal(request)
      reply.header('Cache-Control', 'no-store')
      return sendTestEmail(app.ctx, request.body.to, actorOf(principal))
    },
  )

  app.get(
    '/mail/outbox',
    {
      preHandler: guard,
      schema: {
        operationId: 'listMailOutbox',
        tags: ['mail'],
        summary: 'The e-mails a trial kept instead of sending them, newest first',
        security,
        response: { 200: OutboxSchema, ...errorResponses(401, 403) },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'no-store')
      const view = await mailSettingsView(app.ctx)
      return { active: view.delivery === 'outbox', kept: OUTBOX_KEPT, emails: await listOutboxEmails(app.ctx) }
    },
  )
}
