/*
 * What an administrator sets on a source, checked the same way for REST, the panel and the CLI,
 * and the view of a source the API returns: header names only, never their values.
 */
import { Cron } from 'croner'

import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { parseMapping, parseMode } from '../imports/import-mapping.js'
import { type AddressClass, classifyAddress, privateAllowed } from './address-ranges.js'
import { checkSourceUrl, URL_REQUIRED } from './fetch-source.js'
import { certificateView, normalizeCertificate, type TrustedCertificateView } from './source-certificate.js'
import type { SourceRow, SourceRunRow } from './sources-repository.js'
import type { SourcesTable } from '../host/db/source-tables.js'

export interface GuardLimits {
  /** Most offers archived or withdrawn by one run, in percent of the offers of the investments concerned. */
  max_archived_pct: number
  /** Most a unit's price may change in one run, in percent of its price before. */
  max_price_change_pct: number
  /** Most rows of the file the import may refuse, in percent of its rows. */
  max_invalid_pct: number
  /** Most the file may shrink against the last applied one, in percent of its rows. */
  max_shrink_pct: number
}

export const DEFAULT_GUARDS: GuardLimits = {
  max_archived_pct: 30,
  max_price_change_pct: 20,
  max_invalid_pct: 10,
  max_shrink_pct: 30,
}
export const DEFAULT_STALE_AFTER_DAYS = 3
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding', 'if-none-match'])
const PRIVATE_HOST = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253}|[0-9a-fA-F:]+)(:\d{1,5})?$/

export interface SourceInput {
  name?: unknown
  url?: unknown
  headers?: unknown
  mapping?: unknown
  mode?: unknown
  sheet?: unknown
  schedule?: unknown
  private_hosts?: unknown
  guards?: unknown
  stale_after_days?: unknown
  enabled?: unknown
  ca_certificate?: unknown
}

/** A refused field, in both languages (the answer's `message` is chosen by Accept-Language, Polish by default). */
interface Issue {
  field: string
  message: string
  message_pl: string
  message_en: string
}

/** Polish names of the fields, as the panel labels them. */
const FIELD_NAMES_PL: Readonly<Record<string, string>> = {
  name: 'Nazwa',
  url: 'Adres pliku',
  headers: 'Nagłówki',
  mapping: 'Przypisanie kolumn',
  mode: 'Tryb importu',
  sheet: 'Arkusz',
  schedule: 'Harmonogram',
  private_hosts: 'Hosty w sieci wewnętrznej',
  stale_after_days: 'Alarm po dniach bez zmian',
  enabled: 'Włączone',
  guards: 'Limity',
  'guards.max_archived_pct': 'Limit archiwizowanych lub wycofanych ofert',
  'guards.max_price_change_pct': 'Limit zmiany ceny lokalu',
  'guards.max_invalid_pct': 'Limit błędnych wierszy',
  'guards.max_shrink_pct': 'Limit zmniejszenia pliku',
}

function issue(field: string, pl: string, en: string): Issue {
  return { field, message: pl, message_pl: pl, message_en: en }
}

function refuse(issues: Issue[]): never {
  const pl = issues.map((i) => `${FIELD_NAMES_PL[i.field] ?? i.field}: ${i.message_pl}`).join('; ')
  throw new PluginError('invalid_source', 400, {
    message: pl,
    message_pl: pl,
    message_en: issues.map((i) => `${i.field}: ${i.message_en}`).join('; '),
    issues,
  })
}

/**
 * The columns of a new source (`existing` undefined) or of a change to one; refuses with every
 * issue. `only` checks just those fields of a new source (what a header preview fetches with).
 */
export function sourceColumns(
  ctx: Pick<HostContext, 'meta' | 'now'>,
  input: SourceInput,
  existing?: SourceRow,
  only?: ReadonlyArray<keyof SourceInput>,
): Partial<Omit<SourcesTable, 'id'>> {
  const issues: Issue[] = []
  const out: Partial<Omit<SourcesTable, 'id'>> = {}
  const given = (field: keyof SourceInput) =>
    (only === undefined || only.includes(field)) && (input[field] !== undefined || existing === undefined)
  if (given('name')) {
    const name = typeof input.name === 'string' ? input.name.trim() : ''
    if (name === '' || name.length > 120 || hasControl(name) || /[<>]/.test(name))
      issues.push(
        issue(
          'name',
          'Podaj nazwę od 1 do 120 znaków, bez znaków sterujących i bez < >.',
          'a name of 1-120 characters, without control characters or < >',
        ),
      )
    else out.name = name
  }
  if (given('url')) {
    const url = typeof input.url === 'string' ? checkSourceUrl(input.url.trim()) : URL_REQUIRED
    if (!(url instanceof URL)) issues.push(issue('url', url.pl, url.en))
    else if (url.href.length > 2000)
      issues.push(issue('url', 'Adres może mieć najwyżej 2000 znaków.', 'at most 2000 characters'))
    else out.url = url.href
  }
  if (input.headers !== undefined || existing === undefined) {
    const headers = input.headers ?? {}
    if (headers === null || typeof headers !== 'object' || Array.isArray(headers))
      issues.push(issue('headers', 'Nagłówki: nazwa → wartość.', 'an object: header name → value'))
    else {
      const entries = Object.entries(headers as Record<string, unknown>)
      if (entries.length > 10) issues.push(issue('headers', 'Najwyżej 10 nagłówków.', 'at most 10 headers'))
      for (const [name, value] of entries) {
        if (!HEADER_NAME.test(name) || FORBIDDEN_HEADERS.has(name.toLowerCase()))
          issues.push(
            issue(
              'headers',
              `„${name.slice(0, 100)}” nie jest nagłówkiem, który źródło może wysłać.`,
              `"${name.slice(0, 100)}" is not a header a source may set`,
            ),
          )
        else if (typeof value !== 'string' || value.length === 0 || value.length > 4000 || hasControl(value))
          issues.push(
            issue(
              'headers',
              `Wartość nagłówka ${name} musi być jednym wierszem o długości do 4000 znaków.`,
              `the value of ${name} must be one line of at most 4000 characters`,
            ),
          )
      }
      out.headers = JSON.stringify(Object.fromEntries(entries))
    }
  }
  if (given('mapping')) {
    try {
      out.mapping = JSON.stringify(parseMapping(input.mapping ?? {}, ctx.meta))
    } catch (error) {
      const message = error instanceof PluginError ? error.extra.message : undefined
      issues.push(
        issue(
          'mapping',
          'Przypisanie kolumn jest niepoprawne: przypisz kolumny pliku do pól oferty (wymagane: identyfikator inwestycji i identyfikator lokalu).',
          typeof message === 'string' ? message : 'invalid mapping',
        ),
      )
    }
  }
  if (given('mode')) {
    try {
      out.mode = parseMode(input.mode)
    } catch {
      issues.push(issue('mode', 'Wybierz „tylko zmiany” albo „pełny stan inwestycji”.', 'patch or snapshot'))
    }
  }
  if (given('sheet')) {
    if (input.sheet === undefined || input.sheet === null || input.sheet === '') out.sheet = null
    else if (typeof input.sheet !== 'string' || input.sheet.length > 100)
      issues.push(
        issue('sheet', 'Nazwa arkusza może mieć najwyżej 100 znaków.', 'a sheet name of at most 100 characters'),
      )
    else out.sheet = input.sheet
  }
  if (given('schedule')) {
    if (input.schedule === undefined || input.schedule === null || input.schedule === '') out.schedule = null
    else if (typeof input.schedule !== 'string' || !validCron(input.schedule))
      issues.push(
        issue(
          'schedule',
          'Harmonogram nie daje się odczytać: wybierz godzinę i dni tygodnia albo podaj poprawny wzorzec cron (np. „0 6 * * *”).',
          'a cron pattern in Europe/Warsaw such as "0 0 * * *", or null',
        ),
      )
    else out.schedule = input.schedule.trim()
  }
  if (given('private_hosts')) {
    const hosts = input.private_hosts ?? []
    if (!Array.isArray(hosts) || hosts.length > 10 || hosts.some((h) => typeof h !== 'string' || !PRIVATE_HOST.test(h)))
      issues.push(
        issue(
          'private_hosts',
          'Podaj najwyżej 10 hostów (host albo host:port), oddzielonych przecinkami.',
          'a list of at most 10 hosts (host or host:port)',
        ),
      )
    else out.private_hosts = JSON.stringify(hosts.map((h: string) => h.toLowerCase()))
  }
  if (given('guards')) {
    const base = existing ? (JSON.parse(existing.guards) as GuardLimits) : DEFAULT_GUARDS
    const guards = { ...base }
    const raw = input.guards ?? {}
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      issues.push(issue('guards', 'Limity podaje się w procentach.', 'an object of limits in percent'))
    else
      for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
        if (!(key in DEFAULT_GUARDS)) issues.push(issue(`guards.${key}`, 'Nie ma takiego limitu.', 'not a guard'))
        else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100)
          issues.push(
            issue(`guards.${key}`, 'Limit to liczba procent od 0 do 100.', 'a number of percent from 0 to 100'),
          )
        else guards[key as keyof GuardLimits] = value
      }
    out.guards = JSON.stringify(guards)
  }
  if (given('stale_after_days')) {
    const days = input.stale_after_days ?? DEFAULT_STALE_AFTER_DAYS
    if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > 90)
      issues.push(
        issue(
          'stale_after_days',
          'Podaj liczbę dni od 1 do 90 (bez części ułamkowej).',
          'a whole number of days from 1 to 90',
        ),
      )
    else out.stale_after_days = days
  }
  if (given('enabled')) {
    const enabled = input.enabled ?? true
    if (typeof enabled !== 'boolean') issues.push(issue('enabled', 'Tak albo nie.', 'true or false'))
    else out.enabled = enabled ? 1 : 0
  }
  if (input.ca_certificate !== undefined) out.ca_certificate = normalizeCertificate(input.ca_certificate)
  if (issues.length > 0) refuse(issues)
  if (input.url !== undefined || input.private_hosts !== undefined || existing === undefined)
    refusePrivateLiteral(
      out.url ?? existing!.url,
      JSON.parse(out.private_hosts ?? existing?.private_hosts ?? '[]') as string[],
    )
  return out
}

/** Polish names of the ranges an address literal is refused for. */
const RANGE_NAMES_PL: Readonly<Record<string, string>> = {
  loopback: 'adres pętli zwrotnej (ten sam serwer)',
  private: 'adres sieci prywatnej',
  linkLocal: 'adres lokalny łącza (w nim adres metadanych chmury 169.254.169.254)',
  uniqueLocal: 'adres lokalny IPv6 (fc00::/7)',
  deprecatedSiteLocal: 'adres lokalny ośrodka IPv6 (fec0::/10)',
  carrierGradeNat: 'adres sieci operatora (100.64.0.0/10)',
  unspecified: 'adres nieokreślony',
  broadcast: 'adres rozgłoszeniowy',
  multicast: 'adres grupowy (multicast)',
  reserved: 'adres zarezerwowany',
  ipv4Compatible: 'przestarzały zapis IPv6 zgodny z IPv4 (::a.b.c.d)',
  nat64LocalUse: 'lokalny prefiks NAT64 (64:ff9b:1::/48)',
  teredo: 'adres tunelu Teredo',
}

function rangeNamePl(found: AddressClass): string {
  return RANGE_NAMES_PL[found.range] ?? `adres niepubliczny (${found.range})`
}

/**
 * A source is fetched from public addresses only. An address literal in any other range (in any
 * notation: URL has normalised IPv4 forms, the classifier reads IPv6 transition forms) is refused
 * now rather than at the first run, unless private_hosts names it; names are judged at each run,
 * after DNS resolution.
 */
function refusePrivateLiteral(href: string, privateHosts: readonly string[]): void {
  const url = new URL(href)
  const found = classifyAddress(url.hostname)
  if (!found || found.public || privateAllowed(url, privateHosts)) return
  const allowance = url.port ? `${url.hostname}:${url.port}` : url.hostname
  const leadsTo = found.embeddedIn ? ` (prowadzi do ${found.address})` : ''
  const pl =
    `${url.hostname}${leadsTo} to ${rangeNamePl(found)}. Źródło pobiera się tylko z adresów publicznych. ` +
    `Jeśli ten serwer jest zamierzony, dopisz „${allowance}” do hostów prywatnych (private_hosts).`
  const en =
    `${url.hostname}${found.embeddedIn ? ` (leads to ${found.address})` : ''} is not a public address (${found.range}). ` +
    `Sources are fetched from public addresses only; if this server is intended, add "${allowance}" to private_hosts.`
  throw new PluginError('source_address_not_public', 422, {
    message: pl,
    message_pl: pl,
    message_en: en,
    issues: [
      {
        field: 'url',
        code: 'source_address_not_public',
        message: pl,
        message_pl: pl,
        message_en: en,
        details: { address: found.address, range: found.range, allowance },
      },
    ],
  })
}

/** Control characters (a line break would split a header; a name shows on one line). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) < 32 || text.charCodeAt(i) === 127) return true
  return false
}

export function validCron(pattern: string): boolean {
  try {
    new Cron(pattern, { paused: true, timezone: 'Europe/Warsaw' }).stop()
    return true
  } catch {
    return false
  }
}

export interface RunSummaryView {
  id: number
  outcome: string
  started_at: string
  finished_at: string | null
}

export interface SourceView {
  id: number
  name: string
  url: string
  header_names: string[]
  mapping: Record<string, string>
  mode: string
  sheet: string | null
  schedule: string | null
  private_hosts: string[]
  guards: GuardLimits
  stale_after_days: number
  enabled: boolean
  /** The certificates trusted for this source's server besides the usual authorities. */
  trusted_certificates: TrustedCertificateView[]
  created_at: string
  updated_at: string
  changed_at: string | null
  content_sha256: string | null
  last_run: RunSummaryView | null
}

export function sourceView(row: SourceRow, lastRun?: SourceRunRow): SourceView {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    header_names: Object.keys(JSON.parse(row.headers) as Record<string, string>),
    mapping: JSON.parse(row.mapping) as Record<string, string>,
    mode: row.mode,
    sheet: row.sheet,
    schedule: row.schedule,
    private_hosts: JSON.parse(row.private_hosts) as string[],
    guards: { ...DEFAULT_GUARDS, ...(JSON.parse(row.guards) as Partial<GuardLimits>) },
    stale_after_days: row.stale_after_days,
    enabled: row.enabled === 1,
    trusted_certificates: certificateView(row.ca_certificate ?? null),
    created_at: row.created_at,
    updated_at: row.updated_at,
    changed_at: row.changed_at,
    content_sha256: row.content_sha256,
    last_run: lastRun
      ? { id: lastRun.id, outcome: lastRun.outcome, started_at: lastRun.started_at, finished_at: lastRun.finished_at }
      : null,
  }
}
