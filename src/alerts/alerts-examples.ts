/*
 * Descriptions and examples of the alert settings operations, for the OpenAPI document (see
 * src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

export const ALERTS_EXAMPLES: OperationDocsByRoute = {
  'GET /wp-json/dg/v2/alerts/settings': {
    description:
      'The alert channels in force (e-mail recipients, notification webhook address) and, for each, whether it comes from the panel or from the environment. Secrets of the webhook are masked. Administrators and auditors (dg_read_administration), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role.',
    response: {
      status: 200,
      body: {
        email: {
          source: null,
          host: null,
          port: null,
          tls: null,
          user: null,
          password_set: false,
          from: null,
          to: [],
        },
        webhook: {
          source: null,
          origin: null,
          secret_set: false,
        },
        updated_at: null,
      },
    },
  },
  'PUT /wp-json/dg/v2/alerts/settings': {
    response: {
      status: 200,
      body: {
        email: {
          source: null,
          host: null,
          port: null,
          tls: null,
          user: null,
          password_set: false,
          from: null,
          to: [],
        },
        webhook: {
          source: 'panel',
          origin: 'https://alerty.example.pl',
          secret_set: true,
        },
        updated_at: '2026-11-20T10:00:00.000Z',
      },
    },
    request: {
      webhook: {
        url: 'https://alerty.example.pl/hook',
        secret: 'ssssssssssssssssssssssssssssssssssssssss',
      },
    },
  },
  'POST /wp-json/dg/v2/alerts/test': {
    response: {
      status: 200,
      body: {
        id: 2,
        cause: 'test',
        day: '2026-11-20',
        severity: 'info',
        developer_id: null,
        raised_at: '2026-11-20T10:00:00.000Z',
        message_pl: 'Alert testowy wysłany z panelu operatora: ten kanał powiadomień działa.',
        message_en: 'Test alert sent from the operator panel: this notification channel works.',
        details: {},
        state: 'failed',
        channels: [
          {
            channel: 'webhook',
            status: 'failed',
            attempts: 1,
            at: '2026-11-20T10:00:00.000Z',
            error: 'https://alerty.example.pl: fetch failed',
          },
        ],
        message: 'Alert testowy wysłany z panelu operatora: ten kanał powiadomień działa.',
      },
    },
  },
}
