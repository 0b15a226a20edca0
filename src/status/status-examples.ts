/*
 * Descriptions and examples of the status operation, for the OpenAPI document (see
 * src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

export const STATUS_EXAMPLES: OperationDocsByRoute = {
  'GET /wp-json/dg/v2/status': {
    description:
      'The status object: version, legal contract id, licence status, continuity mode, the last publication (an empty object when none) and the public dataset id; for a CRM or a monitor checking the integration. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Needs an active licence with api_webhooks (403 pro_feature_required otherwise).',
    response: {
      status: 200,
      body: {
        version: '2.1.0',
        contract_id: 'pl-mrit-ceny-mieszkan-58-2025',
        license_status: 'active',
        continuity_mode: false,
        last_publication: {},
        public_dataset_id: '6ccec4f5-6c62-47b4-914d-360a6461b06b',
        last_publication_failure: null,
        datasets: [
          {
            developer_id: 1,
            developer_name: 'Przykładowy Deweloper Sp. z o.o.',
            nip: '5251234560',
            public_dataset_id: '6ccec4f5-6c62-47b4-914d-360a6461b06b',
            xml_url: null,
            last_publication: {},
            last_publication_failure: null,
            missed_days: [],
          },
        ],
        missed_days: [],
        offers_without_type: 0,
        alerts: [],
      },
    },
  },
}
