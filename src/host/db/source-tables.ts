/*
 * The tables of scheduled sources (migration 0019), beside the migration that makes them;
 * schema.ts lists them in the Database type. Conventions as there: ISO-8601 UTC text, JSON text, flags 0/1.
 */
import type { Generated } from 'kysely'

export interface SourcesTable {
  id: Generated<number>
  name: string
  /** https address of the CSV or XLSX file. */
  url: string
  /** JSON object: header name → value. Secret: never returned by the API, never logged. */
  headers: string
  /** JSON object: canonical field (or `meta:<key>`) → column header, as an import's mapping. */
  mapping: string
  /** `patch` or `snapshot`, as an import's mode. */
  mode: string
  /** XLSX only: the sheet to read; null reads the first. */
  sheet: string | null
  /** Cron pattern (Europe/Warsaw); null runs before the daily publication. */
  schedule: string | null
  /** JSON array of hosts (`host` or `host:port`) an administrator allowed to be private addresses. */
  private_hosts: string
  /** JSON object of the guards' limits in percent (source-guards.ts). */
  guards: string
  /** Days without a change in the file after which an alert is raised. */
  stale_after_days: number
  enabled: number
  created_at: string
  updated_at: string
  /** Validators of the last fetched file, sent back as If-None-Match / If-Modified-Since. */
  etag: string | null
  last_modified: string | null
  /** SHA-256 of the bytes last fetched and planned (applied, held, refused or rejected). */
  content_sha256: string | null
  /** When the fetched bytes last differed from the ones before (the first fetch counts). */
  changed_at: string | null
  /** Rows of the file last applied: what the shrink guard compares with. */
  applied_rows: number | null
  last_run_at: string | null
  /** PEM of the certificate(s) trusted for this source's server besides the usual authorities (migration 0026). */
  ca_certificate: string | null
}

export interface SourceRunsTable {
  id: Generated<number>
  source_id: number
  /** `schedule`, `manual` (REST, panel, CLI). */
  trigger: string
  started_at: string
  finished_at: string | null
  /**
   * `running`, `unchanged`, `applied`, `held`, `rejected`, `invalid` (the import refused the file),
   * `failed` (fetch or execution failed), `stale` (a held plan that no longer holds).
   */
  outcome: string
  http_status: number | null
  bytes: number | null
  content_sha256: string | null
  /** The import job previewed from the fetched file. */
  job_id: string | null
  /** JSON: the plan's counts, rows, errors, the import's result once applied. */
  summary: string
  /** JSON array of the guards the plan broke (empty when within every limit). */
  guards: string
  /** JSON {code, message_pl, message_en} of a failed or refused run. */
  failure: string | null
  decided_by_user_id: number | null
  decided_by_name: string | null
  decided_at: string | null
}
