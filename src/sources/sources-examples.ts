/*
 * Descriptions and examples of the source and source-run operations, for the OpenAPI document (see
 * src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from '../host/http/openapi/operation-docs.js'

export const SOURCES_EXAMPLES: OperationDocsByRoute = {
  'GET /wp-json/dg/v2/sources': {
    description:
      'The scheduled sources (an https CSV/XLSX address pulled on a schedule and imported within guards), each with its latest run. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Needs the bulk_import entitlement (403 pro_feature_required otherwise).',
    response: {
      status: 200,
      body: {
        sources: [
          {
            id: 1,
            name: 'Źródło',
            url: 'https://crm.example.pl/eksport/ceny.csv',
            header_names: ['Authorization'],
            mapping: {
              source_investment_id: 'Inwestycja',
              source_property_id: 'ID lokalu',
            },
            mode: 'patch',
            sheet: null,
            schedule: null,
            private_hosts: ['crm.example.pl'],
            guards: {
              max_archived_pct: 30,
              max_price_change_pct: 20,
              max_invalid_pct: 10,
              max_shrink_pct: 30,
            },
            stale_after_days: 3,
            enabled: true,
            trusted_certificates: [],
            created_at: '2026-11-20T10:00:00.000Z',
            updated_at: '2026-11-20T10:00:00.000Z',
            changed_at: null,
            content_sha256: null,
            last_run: null,
          },
        ],
      },
    },
  },
  'POST /wp-json/dg/v2/sources': {
    response: {
      status: 201,
      body: {
        id: 1,
        name: 'Źródło',
        url: 'https://crm.example.pl/eksport/ceny.csv',
        header_names: ['Authorization'],
        mapping: {
          source_investment_id: 'Inwestycja',
          source_property_id: 'ID lokalu',
        },
        mode: 'patch',
        sheet: null,
        schedule: null,
        private_hosts: ['crm.example.pl'],
        guards: {
          max_archived_pct: 30,
          max_price_change_pct: 20,
          max_invalid_pct: 10,
          max_shrink_pct: 30,
        },
        stale_after_days: 3,
        enabled: true,
        trusted_certificates: [],
        created_at: '2026-11-20T10:00:00.000Z',
        updated_at: '2026-11-20T10:00:00.000Z',
        changed_at: null,
        content_sha256: null,
        last_run: null,
      },
    },
    request: {
      name: 'Źródło',
      url: 'https://crm.example.pl/eksport/ceny.csv',
      headers: {
        Authorization: 'Bearer x',
      },
      mapping: {
        source_investment_id: 'Inwestycja',
        source_property_id: 'ID lokalu',
      },
      private_hosts: ['crm.example.pl'],
    },
  },
  'POST /wp-json/dg/v2/sources/preview-headers': {
    description:
      "Fetches the file once with the settings sent (or a saved source's, by source_id) and answers its header row, so the panel assigns columns from the file itself; nothing is stored.",
    request: { url: 'https://crm.example.pl/eksport/cennik.csv', headers: { Authorization: 'Bearer …' } },
    response: {
      status: 200,
      body: { headers: ['Inwestycja', 'ID lokalu', 'Numer', 'Status', 'Cena'], format: 'csv', bytes: 48213 },
    },
  },
  'GET /wp-json/dg/v2/sources/{id}': {
    description:
      'One scheduled source with its schedule, mapping, guards and latest run; header values are masked. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Needs the bulk_import entitlement (403 pro_feature_required otherwise). 404 for an unknown id.',
    response: {
      status: 200,
      body: {
        id: 1,
        name: 'Źródło',
        url: 'https://crm.example.pl/eksport/ceny.csv',
        header_names: ['Authorization'],
        mapping: {
          source_investment_id: 'Inwestycja',
          source_property_id: 'ID lokalu',
        },
        mode: 'patch',
        sheet: null,
        schedule: null,
        private_hosts: ['crm.example.pl'],
        guards: {
          max_archived_pct: 30,
          max_price_change_pct: 20,
          max_invalid_pct: 10,
          max_shrink_pct: 30,
        },
        stale_after_days: 3,
        enabled: true,
        trusted_certificates: [],
        created_at: '2026-11-20T10:00:00.000Z',
        updated_at: '2026-11-20T10:00:00.000Z',
        changed_at: null,
        content_sha256: null,
        last_run: null,
      },
    },
  },
  'PATCH /wp-json/dg/v2/sources/{id}': {
    description:
      'Changes a scheduled source; only the fields sent change, headers replaces every header and {} removes them. Administrators and operators (dg_import), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Needs the bulk_import entitlement (403 pro_feature_required otherwise). 404 for an unknown id, 400 for an invalid address, schedule or mapping. Audited.',
    response: {
      status: 200,
      body: {
        id: 1,
        name: 'Źródło',
        url: 'https://crm.example.pl/eksport/ceny.csv',
        header_names: ['Authorization'],
        mapping: {
          source_investment_id: 'Inwestycja',
          source_property_id: 'ID lokalu',
        },
        mode: 'patch',
        sheet: null,
        schedule: null,
        private_hosts: ['crm.example.pl'],
        guards: {
          max_archived_pct: 30,
          max_price_change_pct: 20,
          max_invalid_pct: 10,
          max_shrink_pct: 30,
        },
        stale_after_days: 5,
        enabled: true,
        trusted_certificates: [],
        created_at: '2026-11-20T10:00:00.000Z',
        updated_at: '2026-11-20T10:00:00.000Z',
        changed_at: null,
        content_sha256: null,
        last_run: null,
      },
    },
    request: {
      stale_after_days: 5,
    },
  },
  'DELETE /wp-json/dg/v2/sources/{id}': {
    description:
      'Removes a scheduled source; its runs stay on record. Administrators and operators (dg_import), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Needs the bulk_import entitlement (403 pro_feature_required otherwise). 404 for an unknown id. Audited.',
    response: {
      status: 200,
      body: {
        deleted: true,
      },
    },
  },
  'POST /wp-json/dg/v2/sources/{id}/run': {
    response: {
      status: 200,
      body: {
        id: 1,
        source_id: 1,
        trigger: 'manual',
        started_at: '2026-11-20T10:00:00.000Z',
        finished_at: '2026-11-20T10:00:00.000Z',
        outcome: 'failed',
        http_status: null,
        bytes: null,
        content_sha256: null,
        job_id: null,
        summary: {},
        guards: [],
        failure: {
          code: 'source_unreachable',
          message: 'https://crm.example.pl: ECONNREFUSED',
        },
        decided_by: null,
        decided_at: null,
      },
    },
  },
  'GET /wp-json/dg/v2/source-runs': {
    description:
      "Runs of every scheduled source (or of one, by source_id), newest first and paged; outcome=held lists the runs waiting for an operator's decision. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Needs the bulk_import entitlement (403 pro_feature_required otherwise).",
    response: {
      status: 200,
      body: {
        runs: [
          {
            id: 1,
            source_id: 1,
            trigger: 'manual',
            started_at: '2026-11-20T10:00:00.000Z',
            finished_at: '2026-11-20T10:00:00.000Z',
            outcome: 'failed',
            http_status: null,
            bytes: null,
            content_sha256: null,
            job_id: null,
            summary: {},
            guards: [],
            failure: {
              code: 'source_unreachable',
              message: 'https://crm.example.pl: ECONNREFUSED',
            },
            decided_by: null,
            decided_at: null,
            source_name: 'Źródło',
          },
        ],
      },
    },
  },
  'GET /wp-json/dg/v2/source-runs/{id}': {
    description:
      "One run of a scheduled source with its outcome, guards and a page of its plan's changes (before and after per offer). Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. Needs the bulk_import entitlement (403 pro_feature_required otherwise). 404 for an unknown id.",
    response: {
      status: 200,
      body: {
        run: {
          id: 1,
          source_id: 1,
          trigger: 'manual',
          started_at: '2026-11-20T10:00:00.000Z',
          finished_at: '2026-11-20T10:00:00.000Z',
          outcome: 'failed',
          http_status: null,
          bytes: null,
          content_sha256: null,
          job_id: null,
          summary: {},
          guards: [],
          failure: {
            code: 'source_unreachable',
            message: 'https://crm.example.pl: ECONNREFUSED',
          },
          decided_by: null,
          decided_at: null,
        },
        plan: {
          items: [],
          page: 1,
          per_page: 100,
          total_items: 0,
          available: false,
          state: 'none',
          expires_at: null,
          retention_hours: 24,
        },
      },
    },
  },
  'POST /wp-json/dg/v2/source-runs/{id}/apply': {
    response: {
      status: 409,
      body: {
        error: 'source_run_not_held',
        message: 'Przebieg nr 1 nie czeka na decyzję; zastosować można tylko przebieg wstrzymany.',
        message_pl: 'Przebieg nr 1 nie czeka na decyzję; zastosować można tylko przebieg wstrzymany.',
        message_en: 'Run 1 is failed; only a held run can be applied.',
        outcome: 'failed',
      },
    },
  },
  'POST /wp-json/dg/v2/source-runs/{id}/reject': {
    response: {
      status: 404,
      body: {
        error: 'source_run_not_found',
        message: 'Nie ma przebiegu nr 42.',
        message_pl: 'Nie ma przebiegu nr 42.',
        message_en: 'No source run 42.',
      },
    },
  },
}
