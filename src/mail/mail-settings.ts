/*
 * The service's outgoing e-mail (the SMTP server and the sender) and the panel's public address
 * (the links a password reset e-mail carries), set in the panel (option `dg_mail_settings`) and
 * read on every use, so that a change applies at once on every instance without a restart.
 *
 * effectiveMailSettings is the one reader. Each setting is taken from, in order:
 *   1. the environment (DG_ALERT_SMTP_* for the server as a whole, DG_PANEL_URL): whoever runs the
 *      server keeps the last word, and the panel shows the setting as theirs, read-only;
 *   2. the panel's option (and, for the server, the SMTP server saved earlier with the alerts'
 *      e-mail channel, so that an installation configured before keeps sending);
 *   3. the default: no server; outside production, the service's own listening address for the panel.
 * Outside production with no server in force, the e-mails are kept in the outbox instead (a trial:
 * see mail-outbox.ts). The SMTP password is never answered back, only whether it is set.
 *
 * The sign-in's Origin check and stored media addresses stay on DG_PANEL_URL alone: an address
 * mistyped in the panel must not be able to lock every operator out of signing in.
 */
import type { AlertSmtpConfig } from '../config.js'
import { type Actor, recordAudit } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { configuredServiceBase } from '../host/http/service-origin.js'
import { getOption, setOption } from '../host/options/options.js'

export const MAIL_SETTINGS_OPTION = 'dg_mail_settings'
/** The alerts' panel option (src/alerts/alert-settings.ts), whose SMTP server predates this one. */
const ALERT_CHANNELS_OPTION = 'dg_alert_channels'

export type SmtpTls = 'starttls' | 'implicit' | 'none'
/** An SMTP server and the sender of its e-mails. */
export type SmtpServer = Omit<AlertSmtpConfig, 'to'>

const EMAIL_ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/

interface StoredSmtp {
  host: string
  port: number
  tls: SmtpTls
  user: string | null
  password: string | null
  from: string
}

interface StoredMailSettings {
  /** Absent: never set here (the alerts' server, if any, serves); null: removed here. */
  smtp?: StoredSmtp | null
  panel_url: string | null
  updated_at: string
}

/** environment: set by the server's variables (read-only here); panel: saved in the panel; default: the service's own. */
export type MailSettingSource = 'environment' | 'panel' | 'default' | null

export interface EffectiveMailSettings {
  smtp: SmtpServer | undefined
  panelUrl: string | undefined
  /** Outside production with no SMTP server: e-mails go to the outbox instead. */
  outbox: boolean
  source: { smtp: MailSettingSource; panel_url: MailSettingSource }
}

async function stored(ctx: Pick<HostContext, 'db'>): Promise<StoredMailSettings> {
  return (await getOption<StoredMailSettings>(ctx, MAIL_SETTINGS_OPTION)) ?? { panel_url: null, updated_at: '' }
}

async function alertsPanelSmtp(ctx: Pick<HostContext, 'db'>): Promise<StoredSmtp | null> {
  const alerts = await getOption<{ email: StoredSmtp | null }>(ctx, ALERT_CHANNELS_OPTION)
  return alerts?.email ?? null
}

const fromStored = (smtp: StoredSmtp): SmtpServer => ({
  host: smtp.host,
  port: smtp.port,
  tls: smtp.tls,
  user: smtp.user ?? undefined,
  password: smtp.password ?? undefined,
  from: smtp.from,
})

export async function effectiveMailSettings(ctx: Pick<HostContext, 'db' | 'config'>): Promise<EffectiveMailSettings> {
  const { config } = ctx
  const panel = await stored(ctx)
  let smtp: SmtpServer | undefined
  let smtpSource: MailSettingSource = null
  if (config.alerts.smtp) {
    const { host, port, tls, user, password, from } = config.alerts.smtp
    smtp = { host, port, tls, user, password, from }
    smtpSource = 'environment'
  } else {
    const saved = panel.smtp === undefined ? await alertsPanelSmtp(ctx) : panel.smtp
    if (saved) {
      smtp = fromStored(saved)
      smtpSource = 'panel'
    }
  }
  let panelUrl: string | undefined
  let panelUrlSource: MailSettingSource = null
  if (config.panelUrl) {
    panelUrl = config.panelUrl
    panelUrlSource = 'environment'
  } else if (panel.panel_url) {
    panelUrl = panel.panel_url
    panelUrlSource = 'panel'
  } else if (config.env !== 'production') {
    panelUrl = configuredServiceBase(config)
    panelUrlSource = 'default'
  }
  return {
    smtp,
    panelUrl,
    outbox: smtp === undefined && config.env !== 'production',
    source: { smtp: smtpSource, panel_url: panelUrlSource },
  }
}

export interface MailSettingsView {
  smtp: {
    source: MailSettingSource
    host: string | null
    port: number | null
    tls: SmtpTls | null
    user: string | null
    /** Whether a password is set; the password itself is never answered. */
    password: 'set' | 'not set'
    from: string | null
  }
  panel_url: { source: MailSettingSource; value: string | null }
  /** Where the e-mails go now: smtp, the outbox (a trial) or nowhere (production without SMTP). */
  delivery: 'smtp' | 'outbox' | 'none'
  updated_at: string | null
}

export async function mailSettingsView(ctx: Pick<HostContext, 'db' | 'config'>): Promise<MailSettingsView> {
  const effective = await effectiveMailSettings(ctx)
  const panel = await stored(ctx)
  const smtp = effective.smtp
  return {
    smtp: {
      source: effective.source.smtp,
      host: smtp?.host ?? null,
      port: smtp?.port ?? null,
      tls: smtp?.tls ?? null,
      user: smtp?.user ?? null,
      password: smtp?.password ? 'set' : 'not set',
      from: smtp?.from ?? null,
    },
    panel_url: { source: effective.source.panel_url, value: effective.panelUrl ?? null },
    delivery: smtp ? 'smtp' : effective.outbox ? 'outbox' : 'none',
    updated_at: panel.updated_at || null,
  }
}

export interface MailSettingsPatch {
  /** null: no SMTP server saved in the panel. */
  smtp?: {
    host: string
    port?: number | null
    tls?: SmtpTls
    user?: string | null
    /** Omitted: the stored password stays; null or empty: none. */
    password?: string | null
    from?: string | null
  } | null
  /** null: none saved in the panel. */
  panel_url?: string | null
}

interface Issue {
  field: string
  code: string
  message_pl: string
  message_en: string
}

const issue = (field: string, code: string, pl: string, en: string): Issue => ({
  field,
  code,
  message_pl: pl,
  message_en: en,
})

function smtpIssues(smtp: StoredSmtp): Issue[] {
  const issues: Issue[] = []
  if (!/^[A-Za-z0-9.-]{1,253}$/.test(smtp.host))
    issues.push(
      issue(
        'smtp.host',
        'invalid_host',
        'Podaj nazwę serwera poczty wychodzącej, np. smtp.example.pl.',
        'Give the outgoing mail server’s name, e.g. smtp.example.pl.',
      ),
    )
  if (!Number.isInteger(smtp.port) || smtp.port < 1 || smtp.port > 65535)
    issues.push(
      issue(
        'smtp.port',
        'invalid_port',
        'Port to liczba od 1 do 65535 (zwykle 587 albo 465).',
        'The port is a number from 1 to 65535 (usually 587 or 465).',
      ),
    )
  if (!EMAIL_ADDRESS.test(smtp.from.replace(/^.*<([^>]*)>\s*$/, '$1')))
    issues.push(
      issue(
        'smtp.from',
        'invalid_email',
        'Podaj adres nadawcy (zwykle ten sam co login do serwera poczty).',
        'Give the sender address (usually the same as the mail server login).',
      ),
    )
  if (smtp.password !== null && smtp.user === null)
    issues.push(
      issue(
        'smtp.user',
        'required',
        'Hasło bez loginu: podaj login do serwera poczty.',
        'A password without a login: give the mail server login.',
      ),
    )
  return issues
}

/** The panel's address as DG_PANEL_URL would take it (scheme, host, optional path), or an issue. */
function normalisePanelUrl(raw: string, production: boolean): string | Issue {
  let url: URL | undefined
  try {
    url = new URL(raw)
  } catch {
    url = undefined
  }
  const schemes = production ? ['https:'] : ['https:', 'http:']
  if (!url || !schemes.includes(url.protocol) || url.search || url.hash || url.username || url.password)
    return issue(
      'panel_url',
      'invalid_url',
      production
        ? 'Podaj adres panelu zaczynający się od https://, bez części po # i ? (np. https://ceny.example.pl).'
        : 'Podaj adres panelu zaczynający się od https:// albo http://, bez części po # i ? (np. https://ceny.example.pl).',
      production
        ? 'Give the panel’s address starting with https://, without a # or ? part (e.g. https://ceny.example.pl).'
        : 'Give the panel’s address starting with https:// or http://, without a # or ? part (e.g. https://ceny.example.pl).',
    )
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/dg-admin$/, '')}`
}

const nullIfBlank = (value: string | null | undefined) => {
  const trimmed = value?.trim()
  return trimmed ? trimmed : null
}

const setByEnvironment = (field: string, variables: string) =>
  issue(
    field,
    'set_by_environment',
    `Ustawione przez środowisko administratora serwera (${variables}); nie można tego zmienić tutaj.`,
    `Set by the server administrator’s environment (${variables}); it cannot be changed here.`,
  )

/**
 * Saves the parts sent. A part the environment sets is refused (it would have no effect): 422
 * `invalid_mail_settings` with `issues` at their fields, nothing written then.
 */
export async function saveMailSettings(
  ctx: HostContext,
  patch: MailSettingsPatch,
  actor: Actor,
): Promise<MailSettingsView> {
  const current = await stored(ctx)
  const next: StoredMailSettings = { ...current, updated_at: ctx.now().toISOString() }
  const issues: Issue[] = []
  const changed: string[] = []
  if (patch.smtp !== undefined) {
    changed.push('smtp')
    if (ctx.config.alerts.smtp) issues.push(setByEnvironment('smtp', 'DG_ALERT_SMTP_*'))
    else if (patch.smtp === null) next.smtp = null
    else {
      const tls = patch.smtp.tls ?? 'starttls'
      const user = nullIfBlank(patch.smtp.user)
      // the password saved with the alerts' server stays too, until this server replaces it
      const kept = (current.smtp === undefined ? await alertsPanelSmtp(ctx) : current.smtp)?.password ?? null
      const password = patch.smtp.password === undefined ? kept : patch.smtp.password || null
      next.smtp = {
        host: patch.smtp.host.trim(),
        port: patch.smtp.port ?? (tls === 'implicit' ? 465 : 587),
        tls,
        user,
        // a stored password goes with its login; one typed without a login is reported below
        password: user === null && patch.smtp.password === undefined ? null : password,
        from: nullIfBlank(patch.smtp.from) ?? (user !== null && EMAIL_ADDRESS.test(user) ? user : ''),
      }
      issues.push(...smtpIssues(next.smtp))
    }
  }
  if (patch.panel_url !== undefined) {
    changed.push('panel_url')
    const raw = nullIfBlank(patch.panel_url)
    if (ctx.config.panelUrl) issues.push(setByEnvironment('panel_url', 'DG_PANEL_URL'))
    else if (raw === null) next.panel_url = null
    else {
      const url = normalisePanelUrl(raw, ctx.config.env === 'production')
      if (typeof url === 'string') next.panel_url = url
      else issues.push(url)
    }
  }
  if (issues.length > 0) throw new PluginError('invalid_mail_settings', 422, { issues })
  await ctx.db.transaction().execute(async (trx) => {
    // never autoloaded: it holds the SMTP password
    await setOption(ctx, MAIL_SETTINGS_OPTION, next, { autoload: false, db: trx })
    await recordAudit(
      ctx,
      {
        actor,
        action: 'mail.settings',
        objectType: 'mail',
        outcome: 'success',
        // what changed and to where, never the password (only whether one is set)
        details: {
          changed,
          smtp: next.smtp
            ? {
                host: next.smtp.host,
                port: next.smtp.port,
                tls: next.smtp.tls,
                user: next.smtp.user,
                password_set: next.smtp.password !== null,
                from: next.smtp.from,
              }
            : null,
          panel_url: next.panel_url,
        },
      },
      trx,
    )
  })
  return mailSettingsView(ctx)
}
