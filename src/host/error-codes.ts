/*
 * Every stable error code the service answers with, in one place: the `code` of a host-style error
 * body `{code, message, data: {status}}` or the `error` of a plugin-style body `{error, ...}`
 * (docs/integration/api.md), and the codes `dg` commands print. Clients branch on these, never on a message.
 * docs/reference/error-codes.md is generated from this list (npm run docs:reference), and a test
 * fails when a code thrown in src/ is missing here or an entry lost its description.
 * Row errors of an import file (`issues[].code`) are listed with the file format instead.
 */

export interface ErrorCodeDefinition {
  /** The HTTP statuses it comes with; `cli` when only a `dg` command prints it. */
  readonly status: readonly (number | 'cli')[]
  readonly description: string
}

export const ERROR_CODES = {
  // --- request shape (any endpoint) ---
  rest_bad_request: {
    status: [400],
    description: 'The request could not be read (framework error without a more precise code).',
  },
  rest_invalid_json: { status: [400], description: 'The body is not valid JSON, or empty with a JSON content type.' },
  rest_invalid_param: {
    status: [400],
    description: 'A parameter has a wrong value; `data.params` names each one with the reason.',
  },
  rest_missing_callback_param: {
    status: [400],
    description: 'A required parameter is missing; `data.params` names it.',
  },
  rest_invalid_request: { status: [400], description: 'The request could not be routed (malformed constraint).' },
  rest_invalid_url: { status: [400], description: 'The URL is malformed or a path segment is too long.' },
  rest_invalid_content_length: { status: [400], description: 'The Content-Length header does not match the body.' },
  rest_payload_too_large: { status: [413], description: 'The request body is larger than the route accepts.' },
  rest_unsupported_media_type: {
    status: [415],
    description: 'The content type of the body is not accepted by this route.',
  },
  rest_no_route: { status: [404], description: 'No endpoint has this path and method.' },
  rest_post_invalid_page_number: {
    status: [400],
    description: 'The requested page is past the last page of the collection.',
  },
  internal_error: {
    status: [500],
    description: 'An unexpected failure; nothing was confirmed. Logged with the request id.',
  },
  database_unavailable: {
    status: [503, 'cli'],
    description: 'The database cannot be reached or could not confirm the work; retry after `Retry-After`.',
  },

  // --- authentication and permissions ---
  rest_not_logged_in: { status: [401], description: 'No valid session or application password came with the request.' },
  rest_forbidden: {
    status: [401, 403],
    description:
      'The user lacks the capability for this endpoint, or the credentials are of a kind the endpoint refuses.',
  },
  rest_forbidden_scope: {
    status: [403],
    description:
      'The object (offer, investment, developer entity, medium, import, source) or the dataset is outside the developer entities and investments the user is limited to (`data.reason`: `object`, `developer`, `new_investment`, `unscoped_only`); nothing was written.',
  },
  rest_invalid_authorization: {
    status: [401],
    description: 'The Authorization header is not HTTP Basic with a user name and an application password.',
  },
  rest_cookie_invalid_nonce: {
    status: [403],
    description: 'A cookie-authenticated write came without a valid X-WP-Nonce.',
  },
  rest_https_required: {
    status: [403],
    description: 'Credentials were sent over plain HTTP to a production instance (see DG_TRUSTED_PROXIES).',
  },
  invalid_username: {
    status: ['cli'],
    description:
      'Unknown login name or e-mail address (a `dg` command only: HTTP sign-ins answer incorrect_password whatever was wrong).',
  },
  incorrect_password: {
    status: [401],
    description:
      'The sign-in failed: unknown login or e-mail, wrong password or wrong application password (one answer for all).',
  },
  account_disabled: { status: [403], description: 'The account is disabled by an administrator.' },
  too_many_login_attempts: {
    status: [429],
    description: 'Too many failed logins from this address or for this login; wait `Retry-After` seconds.',
  },
  rest_cross_origin_login: {
    status: [403],
    description:
      'A sign-in from another site: `Origin` is not the service’s own, or `Sec-Fetch-Site` is cross-site or same-site.',
  },
  pro_feature_required: {
    status: [403],
    description:
      'The licence is missing, expired or lacks the entitlement named in `feature` (for example `api_webhooks`). Install a licence with `dg license set`.',
  },
  dg_catalog_forbidden: {
    status: [403],
    description: 'The user may not read the catalog (role dg_catalog_reader or administrator needed).',
  },
  rest_too_many_requests: {
    status: [429],
    description: 'Catalog rate limit (DG_CATALOG_RATE_LIMIT per minute per user and IP); honour `Retry-After`.',
  },
  rate_limit_unavailable: { status: [503], description: 'The rate-limit counter could not be confirmed; retry later.' },

  // --- users and application passwords ---
  existing_user_login: { status: [409], description: 'A user with this login already exists.' },
  existing_user_email: { status: [409], description: 'A user with this e-mail address already exists.' },
  invalid_user_login: {
    status: [400],
    description: 'The login may use letters, digits and . _ @ - only, 1 to 60 characters.',
  },
  invalid_email: { status: [400], description: 'The e-mail address is not valid.' },
  invalid_role: {
    status: [400],
    description: 'The role is not one of administrator, dg_operator, dg_auditor, dg_catalog_reader.',
  },
  weak_password: { status: [400], description: 'The login password has fewer than 12 characters.' },
  invalid_user: { status: [422], description: 'The user change is not valid (for example an empty display name).' },
  user_not_found: { status: [404], description: 'No user has this id or login.' },
  last_administrator: {
    status: [409],
    description: 'The change would leave the service without an active administrator.',
  },
  own_account: { status: [409], description: 'An administrator cannot disable or demote their own account.' },
  application_password_invalid_name: {
    status: [400],
    description: 'The application password needs a name of 1 to 100 characters.',
  },
  application_password_duplicate_name: {
    status: [409],
    description: 'The user already has an application password with this name.',
  },
  application_password_not_found: {
    status: [404],
    description: 'No application password with this uuid for the user.',
  },
  invalid_application_password: { status: [422], description: 'The application password cannot be created as asked.' },

  // --- catalog ---
  dg_investment_not_found: { status: [404], description: 'No published investment with this id.' },
  dg_property_not_found: { status: [404], description: 'No published offer with this id.' },
  dg_file_not_found: { status: [404], description: 'No published file, media file or panel asset with this name.' },
  dg_published_file_missing: {
    status: [404],
    description:
      'A file of /dane-gov/ the current version lists is missing from the data directory (deleted or lost on the server); logged, found by the audit (audit_file_missing); restore it from the backup.',
  },

  // --- editor ---
  investment_not_found: { status: [404], description: 'No investment with this id.' },
  offer_not_found: { status: [404], description: 'No offer with this id.' },
  investment_has_offers: {
    status: [409],
    description: 'An investment with offers cannot be deleted; archive or move its offers first.',
  },
  edit_conflict: {
    status: [409],
    description: 'The record changed since it was read (If-Match); reload and apply the change again.',
  },
  precondition_required: {
    status: [428],
    description: 'A change to an existing record needs the If-Match header with its version.',
  },
  validation_failed: {
    status: [422],
    description: 'Data errors; `issues` lists each with row, field, code and message.',
  },
  media_not_found: { status: [404], description: 'No media file with this id.' },
  media_in_use: { status: [409], description: 'The media file is still attached to an offer or investment.' },
  invalid_image: { status: [422], description: 'The uploaded image could not be read or converted.' },
  unsupported_media_type: {
    status: [415],
    description: 'The file is not a JPEG, PNG or WebP image or a PDF document (judged by its content).',
  },
  invalid_upload: {
    status: [400],
    description: 'The upload is not multipart/form-data with the file in the field `file`.',
  },
  file_too_large: {
    status: [413],
    description: 'The uploaded file is larger than DG_IMPORT_MAX_BYTES or DG_MEDIA_MAX_BYTES.',
  },

  // --- imports ---
  import_invalid: {
    status: [422],
    description: 'The preview found errors; the body carries the job id and the error list.',
  },
  import_not_found: {
    status: [404],
    description: 'No import job with this id (or it expired: previews live 24 hours, results 7 days).',
  },
  import_pending: { status: [409], description: 'Another import is running; retry after `Retry-After` (5 s).' },
  import_conflict: {
    status: [409],
    description: 'The catalog changed since the preview in a way that touches its plan; preview again.',
  },
  import_recovery_required: {
    status: [409],
    description: 'An earlier execution ended without a confirmed outcome; an administrator checks it first.',
  },
  import_failed: { status: [422], description: 'The execution was refused and nothing was written.' },
  import_file_unreadable: {
    status: [422],
    description:
      'The header row of the file cannot be read (POST /imports/offer/headers); `reason` is the file error code a preview of it would report.',
  },
  archiving_confirmation_required: {
    status: [422],
    description:
      'A snapshot import would archive offers missing from the file; send `confirm_archiving=true` after showing `archive_scope` to an operator.',
  },
  invalid_job_id: {
    status: [400],
    description: 'Neither a job id (32 hexadecimal characters) nor a multipart preview with a file was sent.',
  },
  invalid_mapping: {
    status: [400],
    description: 'The mapping is not a JSON object of canonical field name to column header.',
  },
  invalid_mode: { status: [400], description: 'The import mode is neither `patch` nor `snapshot`.' },
  invalid_idempotency_key: { status: [400], description: 'The idempotency key is not 8 to 128 allowed characters.' },
  confirmation_required: {
    status: [400, 409],
    description:
      'The change touches what is already published (for example the public address of published files) and needs an explicit confirmation.',
  },

  // --- webhook ---
  invalid_auth: { status: [401], description: 'Webhook authentication headers are missing or malformed.' },
  expired_timestamp: {
    status: [401],
    description: 'The webhook timestamp is more than 300 seconds off the server clock.',
  },
  invalid_signature: { status: [401], description: 'The signature does not match the body and the secret.' },
  replay: { status: [401], description: 'The nonce was already used in the last 600 seconds.' },
  invalid_json: { status: [400], description: 'The body is not a JSON object.' },
  invalid_payload: { status: [400], description: 'No mapping could be built from the payload.' },
  webhook_in_progress: {
    status: [409],
    description: 'An execution with this key is running; retry after `Retry-After` with a new nonce.',
  },
  idempotency_body_conflict: {
    status: [409],
    description: 'The idempotency key was already used with another body; use a new key for a new event.',
  },
  recovery_required: {
    status: [409, 503],
    description: 'The outcome of an earlier execution is not confirmed; check it manually.',
  },
  unsupported_property_structure: { status: [422], description: 'The payload has a nested or unsupported structure.' },
  webhook_import_failed: {
    status: [422],
    description: 'The import the event started was refused; nothing was written.',
  },
  execution_storage_unavailable: {
    status: [503],
    description: 'No durable storage for idempotency could be confirmed; retry later with the same key.',
  },
  webhook_secret_missing: {
    status: [404],
    description: 'No webhook secret yet; rotate one (`dg webhook-secret rotate`).',
  },

  // --- publication ---
  invalid_date: { status: [400], description: 'The date is not a real calendar date YYYY-MM-DD.' },
  publication_date_future: {
    status: [422],
    description: 'A file cannot be published for a day after today (Europe/Warsaw).',
  },
  publication_date_past: {
    status: [422],
    description: 'A past day is never published from today’s prices; use the report import to fill it.',
  },
  publication_day_closed: {
    status: [422],
    description: 'The day already has its published file, and a published file never changes.',
  },
  publication_in_progress: {
    status: [409],
    description: 'Another publication or report import is running; retry after `Retry-After`.',
  },
  publication_failed: {
    status: [422],
    description: 'The file failed the legal invariants or the XML schema; `issues` says why. Nothing was published.',
  },
  publication_not_found: { status: [404], description: 'No publication with this id.' },
  preflight_failed: {
    status: [422, 'cli'],
    description: 'The preflight found blocking problems; `issues` lists them.',
  },
  invalid_settings: { status: [422], description: 'A publication setting has a wrong value; `issues` names it.' },
  invalid_developer: {
    status: [422],
    description: 'The developer entity’s data is incomplete or invalid (name, NIP, address).',
  },
  invalid_location: {
    status: [422],
    description: 'The investment location (voivodeship, county, commune, TERYT) is invalid.',
  },
  developer_not_found: { status: [404], description: 'No developer entity with this id.' },
  report_confirmation_required: {
    status: [422],
    description:
      'Publishing a report replaces the published file of that date; send `confirm=true` with the job id and the date.',
  },
  report_file_unavailable: {
    status: [422],
    description: 'The converted report of this job is no longer available unchanged; preview the file again.',
  },

  // --- licence and site options ---
  invalid_license_plan: { status: [400, 'cli'], description: 'The licence plan is neither free nor pro.' },
  invalid_license_date: { status: [400, 'cli'], description: 'The licence expiry is not a date YYYY-MM-DD.' },
  invalid_license_entitlement: { status: [400, 'cli'], description: 'An entitlement is not one the service knows.' },
  unknown_site_option: {
    status: [400, 404, 'cli'],
    description: 'No loaded extension defines a site option with this name.',
  },
  invalid_site_option_value: { status: [400, 422], description: 'The value does not match the option’s schema.' },

  // --- dg commands only ---
  database_missing: {
    status: ['cli'],
    description:
      'There is no SQLite database in DG_DATA_DIR; the command names the folder it looked in and creates nothing.',
  },
  usage: {
    status: ['cli'],
    description: 'The command was called with wrong arguments; `dg <command> --help` shows them.',
  },
  nothing_to_set: { status: ['cli'], description: 'The command was given no value to change.' },
  invalid_file: { status: ['cli'], description: 'The file given to the command could not be read as expected.' },
  invalid_id: { status: ['cli'], description: 'The id given to the command is not a positive whole number.' },
  file_not_found: { status: ['cli'], description: 'The file given to the command does not exist.' },
  mapping_not_found: { status: ['cli'], description: 'The mapping file given to `dg import` does not exist.' },
  alerts_not_configured: {
    status: ['cli'],
    description: 'No alert channel is configured (DG_ALERT_SMTP_HOST or DG_ALERT_WEBHOOK_URL).',
  },
  alert_not_delivered: {
    status: ['cli'],
    description: 'The test alert could not be delivered on at least one channel.',
  },
  backup_target_invalid: { status: ['cli'], description: 'The backup folder lies inside the data folder.' },
  backup_target_exists: { status: ['cli'], description: 'The backup folder exists and is not empty.' },
  backup_no_database: {
    status: ['cli'],
    description: 'There is no embedded database to back up (PostgreSQL is backed up with pg_dump).',
  },
  backup_failed: { status: ['cli'], description: 'The copy failed its integrity check or the files kept changing.' },
  backup_invalid: {
    status: ['cli'],
    description: 'The folder is not a dg backup (missing or wrong manifest, unsafe path).',
  },
  backup_corrupt: { status: ['cli'], description: 'A file changed or does not match its checksum while restoring.' },
  backup_database_mismatch: {
    status: ['cli'],
    description: 'The backup’s database kind (SQLite or PostgreSQL) does not match DATABASE_URL.',
  },
  service_running: {
    status: ['cli'],
    description: 'A running service holds the data folder; stop it before restoring.',
  },
  data_dir_not_empty: {
    status: ['cli'],
    description:
      'The data folder to restore into is not empty; `dg restore --replace` keeps the old one beside as a copy.',
  },
  export_target_invalid: { status: ['cli'], description: 'The export folder lies inside the data folder.' },
  export_target_exists: { status: ['cli'], description: 'The export folder exists and is not empty.' },
  export_source_not_migrated: {
    status: ['cli'],
    description: 'The database to export has no migrations applied: there is no company in it.',
  },
  export_failed: { status: ['cli'], description: 'The published files kept changing while the export copied them.' },
  export_invalid: {
    status: ['cli'],
    description: 'The folder is not a dg data export (missing or wrong manifest, unsafe path or table name).',
  },
  export_corrupt: {
    status: ['cli'],
    description: 'A file of the export is missing, unlisted or does not match its checksum; nothing was imported.',
  },
  export_newer_than_service: {
    status: ['cli'],
    description: 'The export was made after a migration this service does not know; upgrade the target first.',
  },
  export_schema_mismatch: {
    status: ['cli'],
    description: 'A table or column of the export does not exist in the target database.',
  },
  import_target_not_migrated: {
    status: ['cli'],
    description: 'The target database has no migrations applied; migrate it (dg migrate) before importing.',
  },
  import_rows_refused: {
    status: ['cli'],
    description: 'A table’s rows of the export break a constraint of the target database; nothing was imported.',
  },
  import_target_not_empty: {
    status: ['cli'],
    description:
      'The target database already holds users, offers or append-only records, or its data folder holds files: import into a fresh one only.',
  },
  // --- public price endpoint ---
  public_prices_unavailable: {
    status: [404],
    description:
      'The public prices of this investment are not answered: it does not exist, is not published or not public, or its public prices are off (one answer for all, so it reveals nothing).',
  },
  rest_rate_limited: {
    status: [429],
    description: 'Too many public price requests from this address; retry after `Retry-After` seconds.',
  },
  public_prices_origin_invalid: {
    status: [422],
    description:
      'An allowed origin is not an exact website origin (https://host[:port], or http://localhost[:port]; no path, query or wildcard); `data.index` names it. Nothing is changed.',
  },
  public_prices_too_many_origins: {
    status: [422],
    description: 'More allowed origins than an investment may have (`data.max`). Nothing is changed.',
  },

  // --- scheduled sources ---
  invalid_source: { status: [400], description: 'A source’s settings are refused; `data.issues` names each field.' },
  source_address_not_public: {
    status: [422],
    description:
      'A source’s address is an IP literal that is not public unicast (loopback, private, link-local or metadata, unique- or site-local, reserved; any notation, IPv6 forms carrying an IPv4 address judged by it) and private_hosts does not name it; `issues[0]` at `url` says why in Polish. Nothing is stored.',
  },
  source_not_found: { status: [404], description: 'No scheduled source has this id.' },
  source_run_not_found: { status: [404], description: 'No run of a scheduled source has this id.' },
  source_run_not_held: {
    status: [409],
    description: 'The run is not held for a decision (applied, rejected or never held).',
  },
  source_run_stale: {
    status: [409],
    description:
      'The held plan no longer matches the catalog (it changed since, or the plan expired); run the source again.',
  },
  source_busy: { status: [409], description: 'Another request or instance is running this source; retry later.' },
  source_certificate_invalid: {
    status: [422],
    description:
      'The trusted certificate pasted for a source is not PEM X.509 certificates (none found, one unreadable, or too many); `issues[0]` at `ca_certificate` says why in Polish. Nothing is stored.',
  },
  source_preview_failed: {
    status: [422],
    description:
      'A source’s file could not be fetched or read for its header preview; `fetch_code` names the failure as a run would, `network_code` a connection’s, `message` says it in Polish.',
  },
  invalid_option: {
    status: ['cli'],
    description: 'A command option has a value that cannot be read (for example not JSON).',
  },
  invalid_argument: {
    status: ['cli'],
    description: 'A positional argument has a wrong value (for example not a positive id).',
  },
  // --- operator settings, export and bulk price change ---
  invalid_alert_settings: {
    status: [422],
    description:
      'The alert channels are refused; `issues` names each field (set_by_environment: a DG_ALERT_* variable sets that channel).',
  },
  invalid_price_change: { status: [422], description: 'The bulk price change is refused; `issues` names the field.' },
  price_change_not_found: {
    status: [404],
    description: 'The previewed bulk price change is unknown or expired; preview it again.',
  },
  // --- report import for a day, and the audit of published files ---
  report_dates_after_day: {
    status: [422],
    description:
      'The report has “valid from” dates after the day it would be published for; the message names each date with its rows.',
  },
  report_day_published: {
    status: [422],
    description: 'The entity’s dataset already has a file for that day: a published day is never replaced.',
  },
  report_contradicts_published: {
    status: [422],
    description:
      'A report for a missed day gives a unit another price or date than a file published after that day says held on it; `issues[].details.units` names them.',
  },
  developer_mismatch: {
    status: [422],
    description:
      'The report’s developer name or KRS differ from the entity its NIP names: it is never published in that entity’s dataset; correct the report or the developer’s data.',
  },
  audit_failed: {
    status: ['cli'],
    description: '`dg audit` found a published file breaking a rule (exit code 1); the problems are listed.',
  },
  // --- network failures, reported inside a 200 answer (portal and delivery checks, source runs, test alerts) ---
  network_host_not_found: {
    status: [200],
    description: 'The server’s name does not resolve (ENOTFOUND, EAI_AGAIN): a typo in the address or no DNS.',
  },
  network_connection_refused: {
    status: [200],
    description: 'Nothing listens at the address and port (ECONNREFUSED).',
  },
  network_timeout: {
    status: [200],
    description: 'The server did not answer in time (ETIMEDOUT, a deadline of the service).',
  },
  network_connection_reset: {
    status: [200],
    description: 'The server or a proxy cut the connection during the exchange (ECONNRESET, EPIPE).',
  },
  network_unreachable: {
    status: [200],
    description: 'The server’s network cannot be reached from the service host (ENETUNREACH, EHOSTUNREACH).',
  },
  network_certificate: {
    status: [200],
    description: 'The server’s TLS certificate is expired, for another name or from an untrusted authority.',
  },
  network_error: {
    status: [200],
    description: 'A connection failed in a way no more precise code names; the raw error is given beside it.',
  },
  // --- e-mail and the panel's address ---
  invalid_mail_settings: {
    status: [422],
    description:
      'The e-mail settings or the panel address are refused; `issues` names each field (set_by_environment: a DG_ALERT_SMTP_* variable or DG_PANEL_URL sets it).',
  },
  mail_not_configured: {
    status: [409],
    description: 'No SMTP server is set (production): the test e-mail cannot be sent.',
  },
  // --- password reset by e-mail ---
  password_reset_unavailable: {
    status: [409],
    description:
      'Password reset by e-mail is not set up (in production: no SMTP server or no panel address, Settings → E-mail); an administrator sets a new password instead.',
  },
  password_reset_invalid: {
    status: [400],
    description: 'The reset link is unknown, expired, already used, or voided by a newer request or a password change.',
  },
  too_many_password_reset_requests: {
    status: [429],
    description: 'The login/e-mail typed or the client address asked for reset links too often; see Retry-After.',
  },
  // --- companies on one platform (src/tenancy) ---
  tenant_not_found: {
    status: [404],
    description: 'No company of this platform has this slug or address (dg tenant list).',
  },
  tenant_suspended: {
    status: [403],
    description:
      'The company’s account on the platform is suspended: its API and panel refuse every request; its published files stay served.',
  },
  tenant_unavailable: {
    status: [503],
    description: 'The company’s app could not be reached or started now; try again shortly.',
  },
  invalid_tenant_slug: {
    status: [422],
    description:
      'The slug is not 3–40 lower-case letters, digits and single hyphens starting with a letter, or is reserved.',
  },
  invalid_tenant_name: { status: [422], description: 'The company’s name is empty or longer than 200 characters.' },
  invalid_tenant_host: {
    status: [422],
    description: 'A host name is not one (e.g. ceny.firma.pl, without scheme or path).',
  },
  invalid_site_url: { status: [422], description: 'The company’s website is not an http(s) address.' },
  tenant_exists: { status: [409], description: 'A company with this slug exists already; a slug is never reused.' },
  tenant_host_taken: {
    status: [409],
    description: 'The host name belongs to another company or is the platform’s own address.',
  },
  tenant_delete_unconfirmed: {
    status: [422],
    description: 'Deleting a company needs `confirm` repeating its slug.',
  },
  tenant_not_exported: {
    status: [409],
    description: 'A company is deleted only after an export (dg tenant export or the platform page).',
  },
  tenants_need_storage: {
    status: [409],
    description: 'Other companies need a database on disk or PostgreSQL; this service runs on an in-memory database.',
  },
} as const satisfies Record<string, ErrorCodeDefinition>

export type ErrorCode = keyof typeof ERROR_CODES
