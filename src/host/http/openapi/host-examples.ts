/*
 * Descriptions and examples of the operations the host serves itself: health and metrics,
 * sessions, users, the audit log and site options, for the OpenAPI document (see
 * src/host/http/openapi/operation-docs.ts).
 */
import type { OperationDocsByRoute } from './operation-docs.js'

export const HOST_EXAMPLES: OperationDocsByRoute = {
  'GET /healthz': {
    description:
      'Liveness probe for the process supervisor: answers {"status":"ok"} as long as the process serves requests. It touches neither the database nor the files, needs no credentials and is never refused for an outage elsewhere; use /readyz to know whether the service can work.',
    response: {
      status: 200,
      body: {
        status: 'ok',
      },
    },
  },
  'GET /readyz': {
    description:
      'Readiness probe for a load balancer: checks the database connection, that every migration is applied, that the publication storage is writable and that the instance is not shutting down. 200 with status ready, or 503 with status not_ready and the failing checks named. No credentials needed.',
    response: {
      status: 200,
      body: {
        status: 'ready',
        failing: [],
        checks: {
          database: {
            ok: true,
          },
          migrations: {
            ok: true,
          },
          publication_storage: {
            ok: true,
          },
          shutting_down: {
            ok: true,
          },
        },
      },
    },
  },
  'GET /metrics': {
    response: {
      status: 200,
      mediaType: 'text/plain',
      body: '# HELP dg_webhook_deliveries_total Signed property webhook deliveries by outcome: executed, replayed or the refusal code\n# TYPE dg_webhook_deliveries_total counter\ndg_webhook_deliveries_total{code="executed"} 128\ndg_webhook_deliveries_total{code="invalid_signature"} 2\n# HELP dg_last_successful_publication_timestamp_seconds Unix time of the last successful publication recorded in the database (0: none yet)\n# TYPE dg_last_successful_publication_timestamp_seconds gauge\ndg_last_successful_publication_timestamp_seconds 1795654800\n',
    },
  },
  'POST /wp-json/dg/v2/session': {
    response: {
      status: 200,
      body: {
        user: {
          id: 1,
          login: 'admin',
          email: 'admin@example.com',
          display_name: 'Demo administrator',
          role: 'administrator',
          role_label: 'Administrator',
          capabilities: [
            'manage_options',
            'dg_read_catalog',
            'dg_read_all',
            'dg_read_administration',
            'dg_edit_catalog',
            'dg_import',
            'dg_publish',
          ],
        },
        nonce: '9IKl8IZxEFjWe3zXtD1rL9ka',
      },
    },
    request: {
      login: 'admin',
      password: 'GKTpgXoWtJMh4xZZx9nu',
    },
  },
  'GET /wp-json/dg/v2/session': {
    description:
      'Who is signed in to the admin panel through the dg_session cookie, with a fresh REST nonce to send as X-WP-Nonce on the next state-changing request. 401 when there is no valid session (expired, ended by logout or a password change).',
    response: {
      status: 200,
      body: {
        user: {
          id: 1,
          login: 'admin',
          email: 'admin@example.com',
          display_name: 'Demo administrator',
          role: 'administrator',
          role_label: 'Administrator',
          capabilities: [
            'manage_options',
            'dg_read_catalog',
            'dg_read_all',
            'dg_read_administration',
            'dg_edit_catalog',
            'dg_import',
            'dg_publish',
          ],
        },
        nonce: '9IKl8IZxEFjWe3zXtD1rL9ka',
      },
    },
  },
  'DELETE /wp-json/dg/v2/session': {
    description:
      "Ends the admin-panel session of the dg_session cookie and clears the cookie; 204 with no body. Needs the session's X-WP-Nonce (403 rest_cookie_invalid_nonce without it) and a valid session (401).",
    response: {
      status: 401,
      body: {
        code: 'rest_forbidden',
        message: 'Sorry, you are not allowed to do that.',
        data: {
          status: 401,
        },
      },
    },
  },
  'PUT /wp-json/dg/v2/session/password': {
    response: {
      status: 200,
      body: {
        sessions_ended: 0,
      },
    },
    request: {
      current_password: 'GKTpgXoWtJMh4xZZx9nu',
      password: 'GKTpgXoWtJMh4xZZx9nu',
    },
  },
  'GET /wp-json/dg/v2/users': {
    description:
      'Every user account with its role, whether it is disabled, how many application passwords it has and when it last used the API. Administrators and auditors (dg_read_administration), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role.',
    response: {
      status: 200,
      body: {
        items: [
          {
            id: 1,
            login: 'admin',
            email: 'admin@example.com',
            display_name: 'Demo administrator',
            role: 'administrator',
            role_label: 'Administrator',
            capabilities: [
              'manage_options',
              'dg_read_catalog',
              'dg_read_all',
              'dg_read_administration',
              'dg_edit_catalog',
              'dg_import',
              'dg_publish',
            ],
            created_at: '2026-11-20T10:00:00.000Z',
            disabled: false,
            disabled_at: null,
            application_passwords: 0,
            last_api_use_at: null,
            scope: null,
          },
          {
            id: 2,
            login: 'website',
            email: 'website@example.com',
            display_name: 'Company website',
            role: 'dg_catalog_reader',
            role_label: 'API read-only',
            capabilities: ['dg_read_catalog'],
            created_at: '2026-11-20T10:00:00.000Z',
            disabled: false,
            disabled_at: null,
            application_passwords: 1,
            last_api_use_at: '2026-11-20T10:00:00.000Z',
            scope: null,
          },
        ],
      },
    },
  },
  'POST /wp-json/dg/v2/users': {
    description:
      'Creates a user with a role: administrator (everything), dg_operator (catalog, imports, sources, publication; no users, secrets or settings), dg_auditor (reads everything, changes nothing) or the API read-only dg_catalog_reader. Without password a login password is generated and returned in this answer only. Administrators only (manage_options), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 422 invalid_user with the issue of each field (login taken or invalid, e-mail taken or invalid, unknown role, password too short, a scope on an administrator scope_on_administrator, an id of the scope that names nothing unknown_developer / unknown_investment, an empty scope scope_empty); nothing is saved then. `scope` limits a user who is not an administrator to some developer entities and investments (null or left out: the whole catalog). Audited.',
    response: {
      status: 201,
      body: {
        user: {
          id: 4,
          login: 'strona.www',
          email: 'strona.www@example.pl',
          display_name: 'strona.www',
          role: 'dg_catalog_reader',
          role_label: 'API read-only',
          capabilities: ['dg_read_catalog'],
          created_at: '2026-11-20T10:00:00.000Z',
          disabled: false,
          disabled_at: null,
          application_passwords: 0,
          last_api_use_at: null,
          scope: null,
        },
        password: 'M8lBB9vFQtn7SXQ6Oeao',
      },
    },
    request: {
      login: 'strona.www',
      email: 'strona.www@example.pl',
      role: 'dg_catalog_reader',
    },
  },
  'GET /wp-json/dg/v2/users/{id}': {
    description:
      'One user account, as in the list. Administrators and auditors (dg_read_administration), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 404 for an unknown id.',
    response: {
      status: 200,
      body: {
        id: 4,
        login: 'strona.www',
        email: 'strona.www@example.pl',
        display_name: 'strona.www',
        role: 'dg_catalog_reader',
        role_label: 'API read-only',
        capabilities: ['dg_read_catalog'],
        created_at: '2026-11-20T10:00:00.000Z',
        disabled: false,
        disabled_at: null,
        application_passwords: 0,
        last_api_use_at: null,
        scope: null,
      },
    },
  },
  'PATCH /wp-json/dg/v2/users/{id}': {
    response: {
      status: 200,
      body: {
        id: 5,
        login: 'sprzedaz.spv2',
        email: 'sprzedaz@spv2.example.pl',
        display_name: 'Dział sprzedaży SPV 2',
        role: 'dg_operator',
        role_label: 'Operator',
        capabilities: ['dg_read_all', 'dg_edit_catalog', 'dg_import', 'dg_publish'],
        created_at: '2026-11-20T10:00:00.000Z',
        disabled: false,
        disabled_at: null,
        application_passwords: 0,
        last_api_use_at: null,
        scope: { developers: [2], investments: [] },
      },
    },
    request: {
      scope: { developers: [2], investments: [] },
    },
  },
  'PUT /wp-json/dg/v2/users/{id}/password': {
    response: {
      status: 200,
      body: {
        user: {
          id: 4,
          login: 'strona.www',
          email: 'strona.www@example.pl',
          display_name: 'strona.www',
          role: 'dg_catalog_reader',
          role_label: 'API read-only',
          capabilities: ['dg_read_catalog'],
          created_at: '2026-11-20T10:00:00.000Z',
          disabled: true,
          disabled_at: '2026-11-20T10:00:00.000Z',
          application_passwords: 0,
          last_api_use_at: null,
          scope: null,
        },
        password: '8MVIBuBqufRtMFnCNsOj',
        sessions_ended: 0,
        application_passwords_kept: 0,
      },
    },
    request: {},
  },
  'GET /wp-json/dg/v2/users/{id}/application-passwords': {
    description:
      "The user's application passwords: name, creation time, last use and from which address. The password itself is never shown again after its creation. Administrators and auditors (dg_read_administration), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 404 for an unknown user.",
    response: {
      status: 200,
      body: {
        user: {
          id: 4,
          login: 'strona.www',
        },
        items: [
          {
            uuid: 'f3cade09-1939-40cd-a8f9-fb1b313afdd8',
            name: 'Strona WWW',
            created_at: '2026-11-20T10:00:00.000Z',
            last_used_at: null,
            last_ip: null,
          },
        ],
      },
    },
  },
  'POST /wp-json/dg/v2/users/{id}/application-passwords': {
    description:
      "Creates an application password for the user, for HTTP Basic with the user's login (the website back end, a CRM, a script). The password is in this answer only; store it at once. Administrators only (manage_options), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 404 for an unknown user, 422 for a missing name. Audited.",
    response: {
      status: 201,
      body: {
        uuid: 'f3cade09-1939-40cd-a8f9-fb1b313afdd8',
        name: 'Strona WWW',
        created_at: '2026-11-20T10:00:00.000Z',
        last_used_at: null,
        last_ip: null,
        user: 'strona.www',
        password: 'iurw 4aCf hwtj UvbO DFEv uhsN',
      },
    },
    request: {
      name: 'Strona WWW',
    },
  },
  'DELETE /wp-json/dg/v2/users/{id}/application-passwords/{uuid}': {
    description:
      'Revokes one application password; any request signed with it is refused 401 from the next one on. Administrators only (manage_options), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 404 for an unknown user or password. Audited.',
    response: {
      status: 200,
      body: {
        user: 'strona.www',
        uuid: 'f3cade09-1939-40cd-a8f9-fb1b313afdd8',
        revoked: true,
      },
    },
  },
  'GET /wp-json/dg/v2/audit': {
    description:
      'The audit log (who changed what and when, through which channel: panel, import, webhook, command), newest first, paged (X-WP-Total, X-WP-TotalPages) and filtered by action, user and period. Secrets are never recorded. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 400 for an invalid filter or page.',
    response: {
      status: 200,
      body: {
        items: [
          {
            id: 42,
            occurred_at: '2026-11-20T10:00:00.000Z',
            actor: {
              type: 'user',
              user_id: 3,
              name: 'admin1',
              credential: 'tests',
            },
            channel: 'api',
            action: 'app_password.revoke',
            object_type: 'user',
            object_id: '4',
            outcome: 'success',
            details: {
              uuid: 'f3cade09-1939-40cd-a8f9-fb1b313afdd8',
            },
          },
          {
            id: 41,
            occurred_at: '2026-11-20T10:00:00.000Z',
            actor: {
              type: 'user',
              user_id: 3,
              name: 'admin1',
              credential: 'tests',
            },
            channel: 'api',
            action: 'app_password.create',
            object_type: 'user',
            object_id: '4',
            outcome: 'success',
            details: {
              uuid: 'f3cade09-1939-40cd-a8f9-fb1b313afdd8',
              name: 'Strona WWW',
            },
          },
        ],
        page: 1,
        per_page: 5,
        total: 42,
        total_pages: 9,
      },
    },
  },
  'GET /wp-json/dg/v2/audit/actions': {
    description:
      "The distinct actions the audit log holds, for the choices of the panel's action filter. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role.",
    response: {
      status: 200,
      body: {
        actions: ['app_password.create', 'app_password.revoke'],
      },
    },
  },
  'GET /wp-json/dg/v2/site-options': {
    description:
      'Site options that loaded extensions define (dg_extension_settings_fields), with their types, labels and current values; empty when no extension defines any. Administrators, operators and auditors (dg_read_all), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role.',
    response: {
      status: 200,
      body: {
        items: [],
      },
    },
  },
  'PUT /wp-json/dg/v2/site-options/{name}': {
    description:
      "Sets one extension-defined site option: the value is checked against the option's type and passed through its sanitizer before it is stored. Administrators only (manage_options), by application password or panel session with X-WP-Nonce; 401 without credentials, 403 rest_forbidden for another role. 404 unknown_site_option for a name no loaded extension defines, 422 for a value of the wrong type. Audited.",
    response: {
      status: 404,
      body: {
        code: 'unknown_site_option',
        message:
          'No loaded extension defines the site option "no_such_option" (no extension defines any; see DG_EXTENSIONS).',
        data: {
          status: 404,
        },
      },
    },
    request: {
      value: 'x',
    },
  },
}
