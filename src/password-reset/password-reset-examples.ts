/*
 * Descriptions and examples of the password-reset operations, for the OpenAPI document (see
 * src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

export const PASSWORD_RESET_EXAMPLES: OperationDocsByRoute = {
  'GET /wp-json/dg/v2/session/password-reset': {
    description:
      'Whether the sign-in page offers a password reset by e-mail: an SMTP server in force (the alert e-mail settings) and DG_PANEL_URL set. No authentication.',
    response: {
      status: 200,
      body: { available: true, reason: null, ttl_minutes: 30, min_password_length: 12 },
    },
  },
  'POST /wp-json/dg/v2/session/password-reset': {
    description:
      'Asks for a reset link: 202 at once for any login or e-mail (no account enumeration); the e-mail with a one-time link valid for 30 minutes goes afterwards to the address of the account the name belongs to, if any. Throttled per name, per client address and per account.',
    response: { status: 202, body: { accepted: true, ttl_minutes: 30 } },
    request: { login: 'anna.kowalska@example.pl' },
  },
  'POST /wp-json/dg/v2/session/password-reset/confirm': {
    description:
      'Sets the new password with the token of the link (the part after token= in the link’s #/nowe-haslo?token=…). The token works once; every panel session of the account ends.',
    response: { status: 200, body: { sessions_ended: 2 } },
    request: { token: 'q5Jt0c2mJ8d1bXoZ3yq4rUu0a9WZ0kq1m6fJbq0h2cE', password: 'Nowe-hasło-operatora-2026' },
  },
}
