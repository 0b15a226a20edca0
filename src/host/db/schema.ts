import type { Generated, Insertable, Selectable, Updateable } from 'kysely'

import type { SourceRunsTable, SourcesTable } from './source-tables.js'

/*
 * Portable column conventions, so that one query returns the same JS values on SQLite and
 * PostgreSQL: timestamps are ISO-8601 UTC text, calendar dates are `YYYY-MM-DD` text, flags are
 * integers 0/1, money is integer grosze (bigint on PostgreSQL, parsed to number), structured
 * values are JSON text. Decimal quantities (areas) stay text so that nothing is rounded.
 */

export type Flag = 0 | 1

export interface UsersTable {
  id: Generated<number>
  login: string
  email: string
  display_name: string
  password_hash: string
  role: string
  created_at: string
  /** When an administrator disabled the account (migration 0011); null while it is active. */
  disabled_at: string | null
}

/** What a user who is not an administrator may see and change (migration 0029); no row: everything. */
export interface UserScopesTable {
  user_id: number
  kind: 'developer' | 'investment'
  target_id: number
}

export interface AppPasswordsTable {
  id: Generated<number>
  uuid: string
  user_id: number
  name: string
  password_hash: string
  created_at: string
  last_used_at: string | null
  last_ip: string | null
}

export interface SessionsTable {
  id: Generated<number>
  token_hash: string
  user_id: number
  created_at: string
  expires_at: string
}

export interface PasswordResetsTable {
  user_id: number
  token_hash: string
  created_at: string
  expires_at: string
}

/** An e-mail a trial kept instead of sending it (no SMTP server outside production). */
export interface MailOutboxTable {
  id: Generated<number>
  created_at: string
  /** JSON array of addresses. */
  recipients: string
  sender: string
  subject: string
  body: string
}

export interface OptionsTable {
  name: string
  value: string
  autoload: Flag
}

export interface AuditLogTable {
  id: Generated<number>
  occurred_at: string
  actor_type: string
  actor_user_id: number | null
  actor_name: string
  /** Name of the application password the user authenticated with, when one was used. */
  actor_credential: string | null
  action: string
  object_type: string | null
  object_id: string | null
  outcome: string
  details: string | null
}

/**
 * Refusals of anonymous requests counted per client address, cause and time window; the audit log
 * gets the window's first refusal at once and the rest as one entry when the window is over.
 */
export interface AuditRefusalWindowsTable {
  action: string
  reason: string
  address: string
  window_start: string
  /** Refusals of the window not yet written to the audit log. */
  pending: number
}

/** Legal entity of the official columns 1–28. */
export interface DevelopersTable {
  id: Generated<number>
  name: string
  legal_form: string | null
  krs: string | null
  ceidg: string | null
  nip: string | null
  regon: string | null
  phone: string | null
  email: string | null
  fax: string | null
  website: string | null
  seat_voivodeship: string | null
  seat_powiat: string | null
  seat_gmina: string | null
  seat_city: string | null
  seat_street: string | null
  seat_building_no: string | null
  seat_local_no: string | null
  seat_postal_code: string | null
  sales_voivodeship: string | null
  sales_powiat: string | null
  sales_gmina: string | null
  sales_city: string | null
  sales_street: string | null
  sales_building_no: string | null
  sales_local_no: string | null
  sales_postal_code: string | null
  sales_additional_locations: string | null
  contact_method: string | null
  /** The dataset's `<url>`: the https page of this entity's website with the prices. */
  dataset_url: string | null
  /** Ends the dataset's Polish description (e.g. that sales of an investment ended). */
  description_note_pl: string | null
  /** Ends the English description; none when not given in English. */
  description_note_en: string | null
  created_at: string
  modified_at: string
}

export interface InvestmentsTable {
  id: Generated<number>
  developer_id: number | null
  source_id: string | null
  title: string
  slug: string
  content: string
  excerpt: string
  /** Official columns 29–35. */
  loc_voivodeship: string | null
  loc_powiat: string | null
  loc_gmina: string | null
  loc_city: string | null
  loc_street: string | null
  loc_building_no: string | null
  loc_postal_code: string | null
  /** Official column 58. */
  prospectus_url: string | null
  host_status: string
  visibility: string
  custom_meta: string
  thumbnail_id: number | null
  gallery: string
  documents: string
  created_at: string
  modified_at: string
}

export interface OffersTable {
  id: Generated<number>
  investment_id: number
  source_property_id: string | null
  offer_kind: string
  property_type: string
  code: string
  title: string
  status: string
  area: string | null
  rooms: number | null
  floor: number | null
  building: string | null
  price_total_cents: number | null
  price_total_from: string | null
  price_m2_cents: number | null
  price_m2_from: string | null
  price_combined_cents: number | null
  price_combined_from: string | null
  price_combined_variant: string | null
  price_combined_status: string | null
  variant: string | null
  /** Defaults (`publish`, `{}`, `[]`) are the database's: a new offer may leave them out. */
  host_status: Generated<string>
  custom_meta: Generated<string>
  thumbnail_id: number | null
  gallery: Generated<string>
  created_at: string
  modified_at: string
}

/** A part of the property, appurtenant room, right or other payment (official columns 44–57). */
export interface OfferComponentsTable {
  id: Generated<number>
  offer_id: number
  position: number
  group_kind: string
  kind_label: string
  designation: string | null
  description: string | null
  price_cents: number | null
  price_from: string | null
  relation: string | null
  requirement: string | null
  variant: string | null
  legal_title: string | null
  created_at: string
  modified_at: string
}

export interface PriceHistoryTable {
  id: Generated<number>
  offer_id: number
  component_id: number | null
  price_type: string
  record_type: string
  before_cents: number | null
  after_cents: number | null
  valid_from: string
  recorded_at: string
  reason: string
  correction: Flag
  run_id: number | null
}

/** Every change of an offer's status (migration 0022), append-only like the price history. */
export interface StatusHistoryTable {
  id: Generated<number>
  offer_id: number
  before_status: string
  after_status: string
  valid_from: string
  recorded_at: string
  reason: string
  run_id: number | null
}

export interface AttachmentsTable {
  id: Generated<number>
  investment_id: number | null
  offer_id: number | null
  kind: string
  title: string
  url: string
  mime_type: string | null
  alt: string
  position: number
  created_at: string
}

export interface PublicationsTable {
  id: Generated<number>
  publication_date: string
  status: string
  trigger: string
  actor_name: string
  started_at: string
  finished_at: string | null
  record_count: number | null
  version: string | null
  csv_md5: string | null
  xml_md5: string | null
  issues: string | null
  /** The developer entity whose dataset this is; null: the dataset at the original /dane-gov/ paths. */
  developer_id: Generated<number | null>
}

/** What a large import counted before it committed, for the other instances (migration 0016). */
export interface ListingValuesTable {
  listing_revision: number
  /** The kind of value (`t` total, `p` page ids, `m` match set), a colon, the list's key. */
  list_key: string
  /** JSON of the value. */
  value: string
  /** When the import stored it (ISO); older values are not used (listing-values-repository.ts). */
  stored_at: string
}

export interface CatalogStateTable {
  id: number
  /** Bumped by database triggers on every catalog write; keys ETags and the response cache. */
  revision: number
  /**
   * Bumped only by writes that can change which offers a list without a price or
   * modification-time filter counts (migration 0014); keys those lists' totals.
   */
  listing_revision: number
  modified_at: string
}

export interface CredentialsStateTable {
  id: number
  /** Bumped by triggers on users and application passwords (migration 0012); keys verified checks. */
  revision: number
}

export interface RateLimitCountersTable {
  bucket: string
  window_start: number
  hits: number
}

export interface ImportJobsTable {
  /** 32 hex characters. */
  id: string
  type: string
  mode: string
  status: string
  operator_user_id: number | null
  operator_name: string
  file_name: string
  file_sha256: string
  file_format: string
  mapping: string
  counters: string
  errors: string
  archive_scope: string
  /** SHA-256 of the previewed plan; execution re-plans and must arrive at the same digest. */
  plan_digest: string
  /** How the plan's operations are stored (see imports/execution/stored-operations.ts). */
  plan_format: Generated<number>
  /** The catalog revision the whole plan was computed against; null when it changed meanwhile. */
  plan_revision: number | null
  /** The day (Europe/Warsaw) the plan dated undated prices with. */
  plan_today: string | null
  /** The planner's rules the plan was made with (PLANNER_VERSION). */
  plan_version: string | null
  idempotency_key: string | null
  run_token: string | null
  run_id: number | null
  result: string | null
  failure: string | null
  created_at: string
  updated_at: string
  started_at: string | null
  finished_at: string | null
  expires_at: string
}

export interface ImportJobItemsTable {
  job_id: string
  seq: number
  row: number | null
  action: string
  offer_key: string
  payload: string
}

export interface LocksTable {
  name: string
  owner: string
  acquired_at: string
  expires_at: string
}

export interface WebhookReplayGuardTable {
  /** `n:<nonce>` or `s:<sha256 of the signing string>`. */
  fingerprint: string
  expires_at: string
}

export interface WebhookExecutionsTable {
  idempotency_key: string
  body_sha256: string
  /** `running` (lease held by `owner`) or `completed`. */
  status: string
  owner: string
  lease_expires_at: string
  result: string | null
  run_id: number | null
  created_at: string
  updated_at: string
  expires_at: string
}

/** An alert told once per cause, day and scope (migration 0009). */
export interface AlertsTable {
  id: Generated<number>
  cause: string
  /** The day (YYYY-MM-DD, Europe/Warsaw) the alert is about. */
  day: string
  /** `developer:<id>` for one dataset's alert, '' for the service's. */
  scope: string
  developer_id: number | null
  severity: string
  message_pl: string
  message_en: string
  /** JSON object. */
  details: string
  raised_at: string
  /** `sending` while an instance delivers it, then `delivered`, `failed` or `not_configured`. */
  state: string
  /** When the sending instance claimed it; a `sending` row claimed long ago is taken over. */
  claimed_at: string
  /** JSON object: channel name → {status, attempts, at, error}. */
  channels: string
  finished_at: string | null
}

/** Failed sign-ins of one bucket (account, known browser or client address), migration 0011. */
export interface LoginThrottleTable {
  bucket: string
  failures: number
  last_failed_at: string
  /** Sign-ins of this bucket are refused (429) until then; null while it is not slowed down. */
  blocked_until: string | null
}

/** Webhook deliveries per day (Europe/Warsaw) and outcome: `accepted`, `replayed` or the refusal's code. */
export interface WebhookActivityTable {
  day: string
  code: string
  count: number
}

/** The public price endpoint of one investment (migration 0020); no row: off. */
export interface PublicPricesSettingsTable {
  investment_id: number
  enabled: Flag
  /** JSON array of exact origins (`https://host[:port]`) allowed to read the prices from a browser. */
  allowed_origins: string
  updated_at: string
}

/** A company served by this deployment besides the first (src/tenancy). */
export interface TenantsTable {
  id: Generated<number>
  slug: string
  name: string
  /** `active` or `suspended`. */
  status: string
  /** The PostgreSQL schema, or the folder under the data folder holding its dg.sqlite and files. */
  storage: string
  /** JSON array of the host names it answers on besides its path under /t/. */
  hosts: string
  /** The company's own website, for its offers' permalinks; null: its address on this platform. */
  site_url: string | null
  created_at: string
  suspended_at: string | null
  exported_at: string | null
}

export interface Database {
  tenants: TenantsTable
  users: UsersTable
  app_passwords: AppPasswordsTable
  sessions: SessionsTable
  password_resets: PasswordResetsTable
  mail_outbox: MailOutboxTable
  options: OptionsTable
  audit_log: AuditLogTable
  audit_refusal_windows: AuditRefusalWindowsTable
  developers: DevelopersTable
  investments: InvestmentsTable
  offers: OffersTable
  offer_components: OfferComponentsTable
  price_history: PriceHistoryTable
  status_history: StatusHistoryTable
  attachments: AttachmentsTable
  publications: PublicationsTable
  catalog_state: CatalogStateTable
  listing_values: ListingValuesTable
  credentials_state: CredentialsStateTable
  rate_limit_counters: RateLimitCountersTable
  import_jobs: ImportJobsTable
  import_job_items: ImportJobItemsTable
  locks: LocksTable
  webhook_replay_guard: WebhookReplayGuardTable
  webhook_executions: WebhookExecutionsTable
  alerts: AlertsTable
  login_throttle: LoginThrottleTable
  webhook_activity: WebhookActivityTable
  sources: SourcesTable
  source_runs: SourceRunsTable
  public_prices_settings: PublicPricesSettingsTable
  user_scopes: UserScopesTable
}

export type UserRow = Selectable<UsersTable>
export type NewUser = Insertable<UsersTable>
export type AppPasswordRow = Selectable<AppPasswordsTable>
export type DeveloperRow = Selectable<DevelopersTable>
export type NewDeveloper = Insertable<DevelopersTable>
export type InvestmentRow = Selectable<InvestmentsTable>
export type NewInvestment = Insertable<InvestmentsTable>
export type OfferRow = Selectable<OffersTable>
export type NewOffer = Insertable<OffersTable>
export type OfferUpdate = Updateable<OffersTable>
export type NewOfferComponent = Insertable<OfferComponentsTable>
export type NewPriceHistory = Insertable<PriceHistoryTable>
export type PublicationRow = Selectable<PublicationsTable>
