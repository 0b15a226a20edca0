/*
 * Descriptions and examples of the e-mail settings and outbox operations, for the OpenAPI document
 * (see src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

const SETTINGS = {
  smtp: {
    source: 'panel',
    host: 'smtp.example.pl',
    port: 587,
    tls: 'starttls',
    user: 'ceny@example.pl',
    password: 'set',
    from: 'Ceny <ceny@example.pl>',
  },
  panel_url: { source: 'environment', value: 'https://ceny.example.pl' },
  delivery: 'smtp',
  updated_at: '2026-11-20T10:00:00.000Z',
}

export const MAIL_EXAMPLES: OperationDocsByRoute = {
  'GET /wp-json/dg/v2/mail/settings': {
    description:
      'The SMTP server the service sends e-mails with (a password reset, alert e-mails) and the panel’s public address the links point to, each with where it is set: environment (DG_ALERT_SMTP_* or DG_PANEL_URL: they win and cannot be changed here), panel, or default (outside production, the listening address). The password is never answered, only "set" or "not set". delivery says where e-mails go now: outbox in a trial (outside production without SMTP). Administrators only (manage_options); 401 without credentials, 403 rest_forbidden for another role.',
    response: { status: 200, body: SETTINGS },
  },
  'PUT /wp-json/dg/v2/mail/settings': {
    description:
      'Saves the parts sent; the next e-mail on every instance uses them, without a restart. The password is write-only: omitted, the stored one stays; null removes it. null for smtp or panel_url removes the panel’s value. A part the environment sets is refused: 422 invalid_mail_settings with an issue set_by_environment at its field; nothing is written then. Audited (never the password).',
    request: {
      smtp: {
        host: 'smtp.example.pl',
        port: 587,
        tls: 'starttls',
        user: 'ceny@example.pl',
        password: 'hasło-do-poczty',
        from: 'Ceny <ceny@example.pl>',
      },
    },
    response: { status: 200, body: SETTINGS },
  },
  'POST /wp-json/dg/v2/mail/test': {
    description:
      'Sends a short test e-mail to the address given, through the SMTP server in force, or into the outbox in a trial. A server that refuses is answered 200 with sent false and its answer (never the password); 409 mail_not_configured in production without SMTP. Audited as mail.test.',
    request: { to: 'anna.kowalska@example.pl' },
    response: { status: 200, body: { sent: true, via: 'smtp', outbox_id: null, error: null } },
  },
  'GET /wp-json/dg/v2/mail/outbox': {
    description:
      'The e-mails a trial kept instead of sending them (outside production with no SMTP server: `npm run demo`), newest first, the latest 100, so that a password reset can be tried without a mail server. active says whether e-mails go there now.',
    response: {
      status: 200,
      body: {
        active: true,
        kept: 100,
        emails: [
          {
            id: 3,
            created_at: '2026-11-20T10:00:00.000Z',
            to: ['anna.kowalska@example.pl'],
            from: 'dg-offers@localhost',
            subject: 'Testowy e-mail z panelu cen / A test e-mail from the price panel',
            body: 'Dzień dobry,\n\nto jest testowy e-mail wysłany z ustawień panelu operatora. …',
          },
        ],
      },
    },
  },
}
