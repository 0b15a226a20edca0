import path from 'node:path'
import { fileURLToPath } from 'node:url'

export type Environment = 'development' | 'production' | 'test'

/** Validated, defaulted and frozen settings of one process. Built from the environment only. */
export interface AppConfig {
  readonly env: Environment
  readonly host: string
  readonly port: number
  /** Where the embedded database, uploads and published files live. */
  readonly dataDir: string
  /** PostgreSQL connection string; when absent the embedded SQLite database is used. */
  readonly databaseUrl: string | undefined
  /** Addresses or CIDR ranges whose X-Forwarded-* headers are believed. */
  readonly trustedProxies: readonly string[]
  /** Path prefix of the REST API, `/wp-json` like the CMS-hosted original. */
  readonly restPrefix: string
  readonly logLevel: string
  /**
   * Key for the keyed hashes of application passwords and for session nonces. When unset, a
   * random key is generated once and kept in the database, so every instance shares it.
   */
  readonly authKey: string | undefined
  /** Lifetime of an admin-panel login session. */
  readonly sessionTtlSeconds: number
  /** Catalog requests allowed per minute for one user–IP pair (120 by default). */
  readonly catalogRateLimit: number
  /** Public price requests allowed per minute from one client address (IPv6: one /64). */
  readonly publicPricesRateLimit: number
  /** Public address of the developer's website, used for offer permalinks (`url`). */
  readonly siteUrl: string
  /** Keep serialized catalog answers per catalog revision (on by default). */
  readonly catalogResponseCache: boolean
  /** Largest accepted import file in bytes. */
  readonly importMaxBytes: number
  /** Most data rows accepted in one import file. */
  readonly importMaxRows: number
  /** Row errors kept and shown for an invalid preview (the total is always reported). */
  readonly importMaxErrors: number
  /** Import files from this size on are read and validated on a worker thread (0: always). */
  readonly importWorkerMinBytes: number
  /** Largest accepted media upload (image or PDF) in bytes. */
  readonly mediaMaxBytes: number
  /** SQLite page cache in MiB (reads go through the memory map; the cache holds a write's pages). */
  readonly sqliteCacheMib: number
  /**
   * Accept the webhook key in the `key` query parameter of legacy generate (docs/integration/publication.md). Off by
   * default; when on, answers carry Deprecation/Sunset/Warning headers and each use is audited.
   */
  readonly legacyKeyParam: boolean
  /** Base URL of the dane.gov.pl public API (version 1.4) asked by the preflight's `verify_portal`. */
  readonly portalApiUrl: string
  /** How long a SIGTERM/SIGINT waits for in-flight requests and running jobs before it gives up. */
  readonly shutdownTimeoutSeconds: number
  /** Bearer token that may read `/metrics` besides an administrator (unset: administrators only). */
  readonly metricsToken: string | undefined
  /** Absolute paths of the extension modules loaded at start (`DG_EXTENSIONS`), in load order. */
  readonly extensions: readonly string[]
  /** Who is told, and how, when the publication needs attention (src/alerts). */
  readonly alerts: AlertConfig
  /**
   * Where the panel's help links point (`DG_HANDBOOK_URL`, an http(s) folder holding the operator
   * handbook's pages, e.g. the company's copy); unset: the handbook this service serves itself.
   */
  readonly handbookUrl: string | undefined
  /**
   * The panel's public address (scheme, host, optional path before /dg-admin) as DG_PANEL_URL sets
   * it; never taken from a request's Host header. The links the service sends by e-mail read it
   * through effectiveMailSettings (src/mail/mail-settings.ts), which falls back on the panel's setting.
   */
  readonly panelUrl: string | undefined
  /** PostgreSQL schema of this company's database (another company's, src/tenancy); unset: the connection's own. */
  readonly databaseSchema?: string | undefined
  /**
   * Origins besides the panel address's that a browser may sign in from: a company's other
   * addresses (its /t/{slug}/ path on the platform, its other host names), src/tenancy.
   */
  readonly signInOrigins?: readonly string[] | undefined
  /** The company this configuration serves; unset for the deployment's first company (src/tenancy). */
  readonly tenant?: { readonly slug: string } | undefined
}

/** E-mail over SMTP; `tls`: `starttls` (required upgrade), `implicit` (TLS from the start, port 465) or `none`. */
export interface AlertSmtpConfig {
  readonly host: string
  readonly port: number
  readonly tls: 'starttls' | 'implicit' | 'none'
  readonly user: string | undefined
  readonly password: string | undefined
  readonly from: string
  readonly to: readonly string[]
}

export interface AlertConfig {
  /** Unset: no e-mail. */
  readonly smtp: AlertSmtpConfig | undefined
  /** Unset: no notification webhook. The secret signs each request (HMAC-SHA256, as the property webhook's). */
  readonly webhook: { readonly url: string; readonly secret: string } | undefined
  /** A day's file with fewer rows than the previous day's by more than this share (0–1) is alerted. */
  readonly rowDropShare: number
  /** Language of the subject, the e-mail's first part and the webhook's `text`. */
  readonly language: 'pl' | 'en'
  /** Attempts per channel, the first included. */
  readonly maxAttempts: number
  /** Wait before the second attempt; each further one waits twice as long. */
  readonly retryBaseMs: number
}

export class ConfigError extends Error {}

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])

function parseIntegerSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`)
  const value = Number(raw)
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`)
  return value
}

function parseSwitch(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  if (['on', 'true', '1', 'yes'].includes(raw.toLowerCase())) return true
  if (['off', 'false', '0', 'no'].includes(raw.toLowerCase())) return false
  throw new ConfigError(`${name} must be on or off, got "${raw}"`)
}

function parseProxyList(raw: string | undefined): string[] {
  if (!raw) return []
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  for (const entry of entries) {
    // proxy-addr (used by fastify) accepts IPs, CIDRs and the names loopback/linklocal/uniquelocal
    if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry) && !['loopback', 'linklocal', 'uniquelocal'].includes(entry)) {
      throw new ConfigError(
        `DG_TRUSTED_PROXIES: "${entry}" is not an IP address, a CIDR range or loopback/linklocal/uniquelocal`,
      )
    }
  }
  return entries
}

/**
 * Each entry is a path, absolute or relative to the working directory (never a package name,
 * which would be resolved from wherever this service is installed rather than the site's folder).
 */
function parseExtensionList(raw: string | undefined, cwd: string): string[] {
  if (!raw) return []
  const paths = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      if (!entry.startsWith('file:')) return path.resolve(cwd, entry)
      try {
        return fileURLToPath(entry)
      } catch {
        throw new ConfigError(`DG_EXTENSIONS: "${entry}" is not a valid file: URL`)
      }
    })
  const twice = paths.find((p, i) => paths.indexOf(p) !== i)
  if (twice !== undefined) throw new ConfigError(`DG_EXTENSIONS names ${twice} twice`)
  return paths
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): AppConfig {
  const rawEnv = env.DG_ENV ?? (env.NODE_ENV === 'test' ? 'test' : 'development')
  if (rawEnv !== 'development' && rawEnv !== 'production' && rawEnv !== 'test') {
    throw new ConfigError(`DG_ENV must be development, production or test, got "${rawEnv}"`)
  }
  const databaseUrl = env.DATABASE_URL || undefined
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// connection string')
  }
  const restPrefix = env.DG_REST_PREFIX ?? '/wp-json'
  if (!/^(\/[A-Za-z0-9._-]+)+$/.test(restPrefix)) {
    throw new ConfigError(`DG_REST_PREFIX must look like /wp-json, got "${restPrefix}"`)
  }
  const logLevel = env.DG_LOG_LEVEL ?? (rawEnv === 'test' ? 'silent' : 'info')
  if (!LOG_LEVELS.has(logLevel)) throw new ConfigError(`DG_LOG_LEVEL must be one of ${[...LOG_LEVELS].join(', ')}`)
  const authKey = env.DG_AUTH_KEY || undefined
  if (authKey !== undefined && authKey.length < 32)
    throw new ConfigError('DG_AUTH_KEY must be at least 32 characters long')

  const port = parseIntegerSetting(env, 'PORT', 8080, 0, 65535)
  const host = env.HOST ?? '127.0.0.1'
  const siteUrl = (env.DG_SITE_URL ?? `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`).replace(/\/+$/, '')
  if (!/^https?:\/\/[^\s/]+/.test(siteUrl))
    throw new ConfigError(`DG_SITE_URL must be an http(s) address, got "${siteUrl}"`)
  const metricsToken = env.DG_METRICS_TOKEN || undefined
  if (metricsToken !== undefined && !/^[\x21-\x7e]{32,256}$/.test(metricsToken))
    throw new ConfigError('DG_METRICS_TOKEN must be 32 to 256 printable ASCII characters without spaces')
  const portalApiUrl = (env.DG_PORTAL_API_URL || 'https://api.dane.gov.pl').replace(/\/+$/, '')
  if (!/^https?:\/\/[^\s/]+(\/\S*)?$/.test(portalApiUrl))
    throw new ConfigError(`DG_PORTAL_API_URL must be an http(s) address, got "${portalApiUrl}"`)

  return Object.freeze({
    env: rawEnv,
    host,
    port,
    dataDir: path.resolve(cwd, env.DG_DATA_DIR ?? 'data'),
    databaseUrl,
    trustedProxies: Object.freeze(parseProxyList(env.DG_TRUSTED_PROXIES)),
    restPrefix,
    logLevel,
    authKey,
    sessionTtlSeconds: parseIntegerSetting(env, 'DG_SESSION_TTL_SECONDS', 12 * 3600, 300, 30 * 24 * 3600),
    catalogRateLimit: parseIntegerSetting(env, 'DG_CATALOG_RATE_LIMIT', 120, 1, 1_000_000),
    publicPricesRateLimit: parseIntegerSetting(env, 'DG_PUBLIC_PRICES_RATE_LIMIT', 300, 1, 1_000_000),
    siteUrl,
    catalogResponseCache: parseSwitch(env, 'DG_CATALOG_RESPONSE_CACHE', true),
    importMaxBytes: parseIntegerSetting(env, 'DG_IMPORT_MAX_BYTES', 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    importMaxRows: parseIntegerSetting(env, 'DG_IMPORT_MAX_ROWS', 200_000, 1, 5_000_000),
    importMaxErrors: parseIntegerSetting(env, 'DG_IMPORT_MAX_ERRORS', 1000, 1, 100_000),
    importWorkerMinBytes: parseIntegerSetting(env, 'DG_IMPORT_WORKER_MIN_BYTES', 1024 * 1024, 0, 1024 * 1024 * 1024),
    mediaMaxBytes: parseIntegerSetting(env, 'DG_MEDIA_MAX_BYTES', 10 * 1024 * 1024, 1024, 200 * 1024 * 1024),
    sqliteCacheMib: parseIntegerSetting(env, 'DG_SQLITE_CACHE_MIB', 16, 1, 4096),
    legacyKeyParam: parseSwitch(env, 'DG_LEGACY_KEY_PARAM', false),
    portalApiUrl,
    shutdownTimeoutSeconds: parseIntegerSetting(env, 'DG_SHUTDOWN_TIMEOUT_SECONDS', 30, 1, 3600),
    metricsToken,
    extensions: Object.freeze(parseExtensionList(env.DG_EXTENSIONS, cwd)),
    alerts: parseAlertConfig(env, rawEnv),
    handbookUrl: parseHandbookUrl(env.DG_HANDBOOK_URL),
    panelUrl: parsePanelUrl(env.DG_PANEL_URL, rawEnv),
  })
}

function parsePanelUrl(raw: string | undefined, environment: Environment): string | undefined {
  if (!raw) return undefined
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new ConfigError(`DG_PANEL_URL must be an http(s) address, got "${raw}"`)
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && environment !== 'production'))
    throw new ConfigError(`DG_PANEL_URL must be an https address in production, got "${raw}"`)
  if (url.search || url.hash || url.username || url.password)
    throw new ConfigError(`DG_PANEL_URL must be a plain address without query, fragment or credentials`)
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

function parseHandbookUrl(raw: string | undefined): string | undefined {
  if (!raw) return undefined
  if (!/^https?:\/\/[^\s"<>]+$/.test(raw))
    throw new ConfigError(`DG_HANDBOOK_URL must be an http(s) address, got "${raw}"`)
  return raw.endsWith('/') ? raw : `${raw}/`
}

const EMAIL_ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/

/** Alert settings; a message never repeats the password or the secret it refuses. */
function parseAlertConfig(env: NodeJS.ProcessEnv, environment: Environment): AlertConfig {
  const host = env.DG_ALERT_SMTP_HOST || undefined
  const recipients = (env.DG_ALERT_EMAIL_TO ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
  const wrongRecipient = recipients.find((address) => !EMAIL_ADDRESS.test(address))
  if (wrongRecipient !== undefined)
    throw new ConfigError(`DG_ALERT_EMAIL_TO: "${wrongRecipient}" is not an e-mail address`)
  let smtp: AlertSmtpConfig | undefined
  if (host === undefined) {
    if (recipients.length > 0) throw new ConfigError('DG_ALERT_EMAIL_TO is set but DG_ALERT_SMTP_HOST is not')
  } else {
    if (recipients.length === 0)
      throw new ConfigError('DG_ALERT_SMTP_HOST is set but DG_ALERT_EMAIL_TO names no recipient')
    const tls = env.DG_ALERT_SMTP_TLS || 'starttls'
    if (tls !== 'starttls' && tls !== 'implicit' && tls !== 'none')
      throw new ConfigError(`DG_ALERT_SMTP_TLS must be starttls, implicit or none, got "${tls}"`)
    const user = env.DG_ALERT_SMTP_USER || undefined
    const password = env.DG_ALERT_SMTP_PASSWORD || undefined
    if (password !== undefined && user === undefined)
      throw new ConfigError('DG_ALERT_SMTP_PASSWORD is set but DG_ALERT_SMTP_USER is not')
    const from = env.DG_ALERT_SMTP_FROM || (user !== undefined && EMAIL_ADDRESS.test(user) ? user : undefined)
    if (from === undefined) throw new ConfigError('DG_ALERT_SMTP_FROM must name the sender address of alert e-mails')
    if (!EMAIL_ADDRESS.test(from.replace(/^.*<([^>]*)>\s*$/, '$1')))
      throw new ConfigError(`DG_ALERT_SMTP_FROM: "${from}" is not an e-mail address`)
    smtp = Object.freeze({
      host,
      port: parseIntegerSetting(env, 'DG_ALERT_SMTP_PORT', tls === 'implicit' ? 465 : 587, 1, 65535),
      tls,
      user,
      password,
      from,
      to: Object.freeze(recipients),
    })
  }
  const url = env.DG_ALERT_WEBHOOK_URL || undefined
  const secret = env.DG_ALERT_WEBHOOK_SECRET || undefined
  let webhook: AlertConfig['webhook']
  if (url === undefined) {
    if (secret !== undefined) throw new ConfigError('DG_ALERT_WEBHOOK_SECRET is set but DG_ALERT_WEBHOOK_URL is not')
  } else {
    let parsed: URL | undefined
    try {
      parsed = new URL(url)
    } catch {
      parsed = undefined
    }
    // the address may carry a token (Slack, Teams), so it is not repeated in the message
    if (!parsed || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:'))
      throw new ConfigError('DG_ALERT_WEBHOOK_URL must be an http(s) address')
    if (environment === 'production' && parsed.protocol !== 'https:')
      throw new ConfigError('DG_ALERT_WEBHOOK_URL must be an https:// address when DG_ENV=production')
    if (secret === undefined || secret.length < 32)
      throw new ConfigError('DG_ALERT_WEBHOOK_SECRET must be set, at least 32 characters, with DG_ALERT_WEBHOOK_URL')
    webhook = Object.freeze({ url, secret })
  }
  const rawShare = (env.DG_ALERT_ROW_DROP_SHARE ?? '').trim()
  let rowDropShare = 0.3
  if (rawShare !== '') {
    const percent = rawShare.endsWith('%')
    const value = Number(percent ? rawShare.slice(0, -1) : rawShare) / (percent ? 100 : 1)
    if (!/^\d+(\.\d+)?%?$/.test(rawShare) || !(value > 0 && value < 1))
      throw new ConfigError(
        `DG_ALERT_ROW_DROP_SHARE must be a share between 0 and 1 (0.30) or a percentage (30%), got "${rawShare}"`,
      )
    rowDropShare = value
  }
  const language = env.DG_ALERT_LANGUAGE || 'pl'
  if (language !== 'pl' && language !== 'en')
    throw new ConfigError(`DG_ALERT_LANGUAGE must be pl or en, got "${language}"`)
  return Object.freeze({
    smtp,
    webhook,
    rowDropShare,
    language,
    maxAttempts: parseIntegerSetting(env, 'DG_ALERT_MAX_ATTEMPTS', 5, 1, 10),
    retryBaseMs: parseIntegerSetting(env, 'DG_ALERT_RETRY_BASE_MS', 2000, 10, 600_000),
  })
}

export function baseUrl(config: Pick<AppConfig, 'restPrefix'>): string {
  return `${config.restPrefix}/dg/v2`
}

/** One environment variable as docs/reference/configuration.md lists it. */
export interface EnvironmentVariable {
  readonly name: string
  readonly type: string
  /** The value used when the variable is unset or empty, as text. */
  readonly default: string
  readonly description: string
}

/*
 * Every variable loadConfig reads, for the generated configuration reference (npm run
 * docs:reference). A test fails when loadConfig reads a variable missing here or one lacks a
 * description, so a new setting is documented in the commit that adds it.
 */
export const ENVIRONMENT_VARIABLES: readonly EnvironmentVariable[] = [
  {
    name: 'DG_HANDBOOK_URL',
    type: 'http(s) URL',
    default: '(unset: the service serves docs/operator/ at /dg-admin/podrecznik/)',
    description:
      "Folder holding the operator handbook's pages (README.md, pierwszy-dzien.md, …) that the panel's help links open, for a company's own copy.",
  },
  {
    name: 'DG_PANEL_URL',
    type: 'https URL (http outside production)',
    default: '(unset: the panel’s Settings → E-mail; outside production, the listening address)',
    description:
      'The public address the operators open the service at (e.g. https://ceny.example.pl, the part before /dg-admin/). The password-reset e-mail links to it; with it and an SMTP server the sign-in page offers “Nie pamiętasz hasła?” by e-mail. Set here, it wins over the panel’s setting (shown there read-only) and is the address the sign-in checks a browser’s Origin against.',
  },
  {
    name: 'DG_ENV',
    type: 'development | production | test',
    default: 'development (test when NODE_ENV=test)',
    description:
      'production refuses every request that did not arrive over HTTPS (403 rest_https_required; see DG_TRUSTED_PROXIES), accepts only an https:// public address of the files and an https:// alert webhook; development and test accept http:// for local trials (the demo).',
  },
  {
    name: 'NODE_ENV',
    type: 'string',
    default: '(unset)',
    description: 'Read only to default DG_ENV to test when it is `test` (as test runners set it).',
  },
  {
    name: 'HOST',
    type: 'address',
    default: '127.0.0.1',
    description: 'Address the HTTP server listens on; 0.0.0.0 for every interface.',
  },
  {
    name: 'PORT',
    type: 'integer 0–65535',
    default: '8080',
    description: 'Port the HTTP server listens on (0: any free port).',
  },
  {
    name: 'DATABASE_URL',
    type: 'postgres:// URL',
    default: '(unset: embedded SQLite in DG_DATA_DIR)',
    description:
      'PostgreSQL connection string. Required for several instances; unset, the embedded SQLite database is used.',
  },
  {
    name: 'DG_DATA_DIR',
    type: 'path',
    default: 'data',
    description:
      "Folder of the embedded database, uploads, media and published files, relative to the working directory (npm start and npm run dg run in the checkout's root). Several instances share it on a shared file system.",
  },
  {
    name: 'DG_TRUSTED_PROXIES',
    type: 'comma-separated IPs, CIDRs, loopback, linklocal, uniquelocal',
    default: '(none)',
    description:
      'Proxies whose X-Forwarded-For/-Proto headers are believed (nginx in front: `127.0.0.1`). Needed in production behind a TLS-terminating proxy.',
  },
  {
    name: 'DG_REST_PREFIX',
    type: 'path',
    default: '/wp-json',
    description: 'Path prefix of the REST API; the API lives at `<prefix>/dg/v2`.',
  },
  {
    name: 'DG_LOG_LEVEL',
    type: 'fatal | error | warn | info | debug | trace | silent',
    default: 'info (silent under test)',
    description: 'pino log level of the JSON log on standard output.',
  },
  {
    name: 'DG_AUTH_KEY',
    type: 'string, 32+ characters',
    default: '(generated once and kept in the database)',
    description:
      'Key of the keyed hashes of application passwords and of REST nonces. When unset, one is generated once and kept in the database, shared by every instance. Changing it invalidates every application password.',
  },
  {
    name: 'DG_SESSION_TTL_SECONDS',
    type: 'integer 300–2592000',
    default: '43200',
    description: 'Lifetime of an admin-panel login session.',
  },
  {
    name: 'DG_CATALOG_RATE_LIMIT',
    type: 'integer 1–1000000',
    default: '120',
    description: 'Catalog requests allowed per minute for one user–IP pair; above it 429 with Retry-After.',
  },
  {
    name: 'DG_PUBLIC_PRICES_RATE_LIMIT',
    type: 'integer 1–1000000',
    default: '300',
    description:
      'Requests to the public price endpoint allowed per minute from one client address (an IPv6 client: its /64; behind DG_TRUSTED_PROXIES, the forwarded address); above it 429 rest_rate_limited with Retry-After.',
  },
  {
    name: 'DG_SITE_URL',
    type: 'http(s) URL',
    default: 'http://HOST:PORT',
    description: 'Public address of the developer’s website, used for the offers’ permalinks (`url` in the catalog).',
  },
  {
    name: 'DG_CATALOG_RESPONSE_CACHE',
    type: 'on | off',
    default: 'on',
    description: 'Keep serialized catalog answers per catalog revision; every write invalidates them.',
  },
  {
    name: 'DG_IMPORT_MAX_BYTES',
    type: 'integer 1024–1073741824',
    default: '52428800 (50 MiB)',
    description: 'Largest accepted import file (413 file_too_large above it).',
  },
  {
    name: 'DG_IMPORT_MAX_ROWS',
    type: 'integer 1–5000000',
    default: '200000',
    description: 'Most data rows accepted in one import file (too_many_rows above it).',
  },
  {
    name: 'DG_IMPORT_MAX_ERRORS',
    type: 'integer 1–100000',
    default: '1000',
    description: 'Row errors kept and shown for an invalid preview; the total is always reported.',
  },
  {
    name: 'DG_IMPORT_WORKER_MIN_BYTES',
    type: 'integer 0–1073741824',
    default: '1048576 (1 MiB)',
    description:
      'Import files from this size on are read and validated on a worker thread (0: always), keeping the event loop free.',
  },
  {
    name: 'DG_MEDIA_MAX_BYTES',
    type: 'integer 1024–209715200',
    default: '10485760 (10 MiB)',
    description: 'Largest accepted media upload (image or PDF).',
  },
  {
    name: 'DG_SQLITE_CACHE_MIB',
    type: 'integer 1–4096',
    default: '16',
    description:
      'SQLite page cache in MiB (reads go through the memory map; the cache holds a write’s pages). SQLite only.',
  },
  {
    name: 'DG_LEGACY_KEY_PARAM',
    type: 'on | off',
    default: 'off',
    description:
      "on: legacy generate accepts the webhook key in the `key` query parameter (deprecated, removed in 3.0.0); answers then carry Deprecation/Sunset/Warning headers and each use is audited. The default only: the admin panel's setting wins until it is reset.",
  },
  {
    name: 'DG_PORTAL_API_URL',
    type: 'http(s) URL',
    default: 'https://api.dane.gov.pl',
    description: 'Base URL of the dane.gov.pl public API (1.4) asked by the preflight’s portal check.',
  },
  {
    name: 'DG_SHUTDOWN_TIMEOUT_SECONDS',
    type: 'integer 1–3600',
    default: '30',
    description:
      "How long SIGTERM/SIGINT waits for requests under way and running jobs (a publication) before it closes what is left and exits 1; give systemd's TimeoutStopSec more.",
  },
  {
    name: 'DG_METRICS_TOKEN',
    type: 'string, 32–256 printable ASCII',
    default: '(unset: administrators only)',
    description: 'Bearer token that may read /metrics besides an administrator (for Prometheus).',
  },
  {
    name: 'DG_EXTENSIONS',
    type: 'comma-separated paths or file: URLs',
    default: '(none)',
    description:
      'Extension modules loaded at start, in order (custom fields, site options, filters); one that fails stops the start, naming it.',
  },
  {
    name: 'DG_ALERT_SMTP_HOST',
    type: 'host name',
    default: '(unset: the panel’s Settings → E-mail; none: no e-mail, or the outbox outside production)',
    description:
      'SMTP server of the service’s e-mails (alerts, password reset); needs DG_ALERT_EMAIL_TO. Set here, the DG_ALERT_SMTP_* variables win over the panel’s server (shown there read-only).',
  },
  {
    name: 'DG_ALERT_SMTP_PORT',
    type: 'integer 1–65535',
    default: '587 (465 with implicit TLS)',
    description: 'SMTP port.',
  },
  {
    name: 'DG_ALERT_SMTP_TLS',
    type: 'starttls | implicit | none',
    default: 'starttls',
    description:
      "starttls: the connection must be upgraded to TLS before logging in or sending; implicit: TLS from the first byte (port 465); none: plain, for a relay on the same machine only. Certificates are checked against Node's trust store (NODE_EXTRA_CA_CERTS adds a private CA).",
  },
  {
    name: 'DG_ALERT_SMTP_USER',
    type: 'string',
    default: '(none)',
    description: 'SMTP login, when the server wants one.',
  },
  {
    name: 'DG_ALERT_SMTP_PASSWORD',
    type: 'string (secret)',
    default: '(none)',
    description: 'SMTP password; needs DG_ALERT_SMTP_USER. Never logged.',
  },
  {
    name: 'DG_ALERT_SMTP_FROM',
    type: 'e-mail address or Name <address>',
    default: 'DG_ALERT_SMTP_USER when it is an address',
    description: 'Sender of alert e-mails.',
  },
  {
    name: 'DG_ALERT_EMAIL_TO',
    type: 'comma-separated e-mail addresses',
    default: '(none)',
    description: 'Recipients of alert e-mails; needs DG_ALERT_SMTP_HOST.',
  },
  {
    name: 'DG_ALERT_WEBHOOK_URL',
    type: 'http(s) URL (https in production)',
    default: '(unset: no alert webhook)',
    description:
      'Address the signed alert notifications are POSTed to (a Slack or Teams incoming webhook works: the JSON carries `text`); https:// with DG_ENV=production. Treated as a secret: only its origin is logged. Needs DG_ALERT_WEBHOOK_SECRET.',
  },
  {
    name: 'DG_ALERT_WEBHOOK_SECRET',
    type: 'string, 32+ characters (secret)',
    default: '(none)',
    description: 'Secret signing each alert request with HMAC-SHA256, as the property webhook is signed.',
  },
  {
    name: 'DG_ALERT_ROW_DROP_SHARE',
    type: 'share 0–1 or percentage',
    default: '0.3',
    description:
      'A day’s file with fewer rows than the previous day’s by more than this share raises the row_drop alert.',
  },
  {
    name: 'DG_ALERT_LANGUAGE',
    type: 'pl | en',
    default: 'pl',
    description:
      "Language of alert subjects, the e-mail's first part and the webhook's `text`; both texts are always in the body.",
  },
  {
    name: 'DG_ALERT_MAX_ATTEMPTS',
    type: 'integer 1–10',
    default: '5',
    description: 'Delivery attempts per alert channel, the first included.',
  },
  {
    name: 'DG_ALERT_RETRY_BASE_MS',
    type: 'integer 10–600000',
    default: '2000',
    description:
      "Wait before the second delivery attempt; each further one waits twice as long (at most 5 minutes, longer when the receiver's Retry-After asks).",
  },
]
