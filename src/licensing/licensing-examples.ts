/*
 * Descriptions and examples of the licence operations, for the OpenAPI document (see
 * src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

export const LICENSING_EXAMPLES: OperationDocsByRoute = {
  'GET /wp-json/dg/v2/license': {
    description:
      'The installed licence (plan, entitlements, last valid day), its status and which licensed functions (official publication, imports, webhooks) may run now. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role.',
    response: {
      status: 200,
      body: {
        plan: 'pro',
        status: 'active',
        entitlements: ['api_webhooks', 'bulk_import'],
        valid_until: '2027-11-20',
        continuity_mode: false,
        updated_at: '2026-11-20T10:00:00.000Z',
        functions: [
          {
            function: 'publication',
            entitlement: 'api_webhooks',
            allowed: true,
          },
          {
            function: 'status',
            entitlement: 'api_webhooks',
            allowed: true,
          },
        ],
      },
    },
  },
  'PUT /wp-json/dg/v2/license': {
    description:
      'Installs a licence: plan, entitlements and last valid day. It applies at once on every instance sharing the database. Administrators only (manage_options), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 400 for a body that does not match the schema. Audited.',
    response: {
      status: 200,
      body: {
        plan: 'pro',
        status: 'active',
        entitlements: ['api_webhooks', 'bulk_import'],
        valid_until: null,
        continuity_mode: false,
        updated_at: '2026-11-20T10:00:00.000Z',
        functions: [
          {
            function: 'publication',
            entitlement: 'api_webhooks',
            allowed: true,
          },
          {
            function: 'status',
            entitlement: 'api_webhooks',
            allowed: true,
          },
        ],
      },
    },
    request: {
      plan: 'pro',
      entitlements: ['api_webhooks', 'bulk_import'],
      valid_until: null,
    },
  },
}
