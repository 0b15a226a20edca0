/*
 * Descriptions and examples of the property webhook and its secret, for the OpenAPI document (see
 * src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

export const WEBHOOK_EXAMPLES: OperationDocsByRoute = {
  'POST /wp-json/dg/v2/webhooks/properties': {
    response: {
      status: 202,
      body: {
        accepted: true,
        result: {
          status: 'completed',
          processed: 1,
          created: 1,
          updated: 0,
          archived: 0,
          run_id: 24,
        },
      },
    },
  },
  'GET /wp-json/dg/v2/webhook-secret': {
    response: {
      status: 200,
      body: {
        secret: 'dgwh_YTleg_YxEsLqswDkm0YDV4JnoWwO6Qk0qWQgel2JRiw',
        created_at: '2026-11-20T10:00:00.000Z',
      },
    },
  },
  'POST /wp-json/dg/v2/webhook-secret/rotate': {
    response: {
      status: 200,
      body: {
        secret: 'dgwh_-6DoyQ-4i3hgfR_40gW4R-nysJExszLslxANIaQneEM',
        created_at: '2026-11-20T10:00:00.000Z',
      },
    },
  },
}
