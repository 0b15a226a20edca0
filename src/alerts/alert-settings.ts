/*
 * The alert channels an operator sets in the panel (option `dg_alert_channels`): e-mail over SMTP
 * with its recipients, and the notification webhook. The SMTP server saved here is the service's
 * until one is saved under Settings → E-mail (src/mail/mail-settings.ts), which then serves the
 * alerts too. They are read on every alert, so a change
 * applies at once on every instance. The environment (DG_ALERT_*) still configures a channel;
 * where it does, it wins for that channel and the panel shows it as set by the server, read-only:
 * whoever runs the server keeps the last word. The SMTP password and the webhook's secret and
 * address (which may hold a token) are never answered back: only whether they are set.
 */
import type { AlertSmtpConfig } from '../config.js'
import { recordAudit } from '../host/audit/audit.js'
import type { Actor } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { getOption, setOption } from '../host/options/options.js'
import { effectiveMailSettings } from '../mail/mail-settings.js'
import { webhookOrigin } from './webhook-channel.js'

export const ALERT_CHANNELS_OPTION = 'dg_alert_channels'

const EMAIL_ADDRESS = /^[^\s@<>,;"]+@[^\s@<>,;"]+\.[^\s@<>,;"]+$/
export type SmtpTls = 'starttls' | 'implicit' | 'none'

interface StoredEmail {
  host: string
  port: number
  tls: SmtpTls
  user: string | null
  password: string | null
  from: string
  to: string[]
}

interface StoredWebhook {
  url: string
  secret: string
}

interface StoredAlertChannels {
  email: StoredEmail | null
  webhook: StoredWebhook | null
  updated_at: string
}

export type ChannelSource = 'environment' | 'panel' | null

/** The channels in force: the environment's where it sets one, the panel's otherwise. */
export interface EffectiveAlertChannels {
  smtp: AlertSmtpConfig | undefined
  webhook: { url: string; secret: string } | undefined
  source: { email: ChannelSource; webhook: ChannelSource }
}

async function stored(ctx: Pick<HostContext, 'db'>): Promise<StoredAlertChannels> {
  return (
    (await getOption<StoredAlertChannels>(ctx, ALERT_CHANNELS_OPTION)) ?? {
      email: null,
      webhook: null,
      updated_at: '',
    }
  )
}

export async function effectiveAlertChannels(ctx: Pick<HostContext, 'db' | 'config'>): Promise<EffectiveAlertChannels> {
  const { alerts } = ctx.config
  const panel = await stored(ctx)
  // the server is the service's one (Settings → E-mail, which falls back on the server saved here)
  const server = alerts.smtp || !panel.email ? undefined : (await effectiveMailSettings(ctx)).smtp
  const smtp: AlertSmtpConfig | undefined =
    alerts.smtp ?? (panel.email && server ? { ...server, to: panel.email.to } : undefined)
  const webhook = alerts.webhook ?? (panel.webhook ? { ...panel.webhook } : undefined)
  return {
    smtp,
    webhook,
    source: {
      email: alerts.smtp ? 'environment' : panel.email ? 'panel' : null,
      webhook: alerts.webhook ? 'environment' : panel.webhook ? 'panel' : null,
    },
  }
}

export interface AlertSettingsView {
  email: {
    source: ChannelSource
    host: string | null
    port: number | null
    tls: SmtpTls | null
    user: string | null
    password_set: boolean
    from: string | null
    to: string[]
  }
  webhook: {
    source: ChannelSource
    /** Scheme, host and port only: the path may hold a token. */
    origin: string | null
    secret_set: boolean
  }
  updated_at: string | null
}

export async function alertSettingsView(ctx: Pick<HostContext, 'db' | 'config'>): Promise<AlertSettingsView> {
  const effective = await effectiveAlertChannels(ctx)
  const panel = await stored(ctx)
  const smtp = effective.smtp
  return {
    email: {
      source: effective.source.email,
      host: smtp?.host ?? null,
      port: smtp?.port ?? null,
      tls: smtp?.tls ?? null,
      user: smtp?.user ?? null,
      password_set: smtp?.password !== undefined,
      from: smtp?.from ?? null,
      to: smtp ? [...smtp.to] : [],
    },
    webhook: {
      source: effective.source.webhook,
      origin: effective.webhook ? webhookOrigin(effective.webhook.url) : null,
      secret_set: effective.webhook !== undefined,
    },
    updated_at: panel.updated_at || null,
  }
}

export interface AlertSettingsPatch {
  /** null turns the panel's e-mail channel off. */
  email?: {
    host: string
    port?: number | null
    tls?: SmtpTls
    user?: string | null
    /** Omitted: the stored password stays; null: none. */
    password?: string | null
    from?: string | null
    to: string[]
  } | null
  /** null turns the panel's webhook off. */
  webhook?: {
    /** Omitted: the stored address stays. */
    url?: string
    /** Omitted: the stored secret stays. */
    secret?: string
  } | null
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

function emailIssues(email: StoredEmail): Issue[] {
  const issues: Issue[] = []
  if (!/^[A-Za-z0-9.-]{1,253}$/.test(email.host))
    issues.push(
      issue(
        'email.host',
        'invalid_host',
        'Podaj nazwę serwera poczty wychodzącej, np. smtp.example.pl.',
        'Give the outgoing mail server’s name, e.g. smtp.example.pl.',
      ),
    )
  if (!Number.isInteger(email.port) || email.port < 1 || email.port > 65535)
    issues.push(
      issue(
        'email.port',
        'invalid_port',
        'Port to liczba od 1 do 65535 (zwykle 587 albo 465).',
        'The port is a number from 1 to 65535 (usually 587 or 465).',
      ),
    )
  if (email.to.length === 0)
    issues.push(
      issue(
        'email.to',
        'required',
        'Podaj co najmniej jeden adres odbiorcy alertów.',
        'Give at least one recipient of the alerts.',
      ),
    )
  const wrong = email.to.find((address) => !EMAIL_ADDRESS.test(address))
  if (wrong !== undefined)
    issues.push(
      issue('email.to', 'invalid_email', `„${wrong}” nie jest adresem e-mail.`, `“${wrong}” is not an e-mail address.`),
    )
  if (email.to.length > 20)
    issues.push(issue('email.to', 'too_many', 'Najwyżej 20 odbiorców.', 'At most 20 recipients.'))
  if (!EMAIL_ADDRESS.test(email.from.replace(/^.*<([^>]*)>\s*$/, '$1')))
    issues.push(
      issue(
        'email.from',
        'invalid_email',
        'Podaj adres nadawcy alertów (zwykle ten sam co login do serwera poczty).',
        'Give the sender address of the alerts (usually the same as the mail server login).',
      ),
    )
  if (email.password !== null && email.user === null)
    issues.push(
      issue(
        'email.user',
        'required',
        'Hasło bez loginu: podaj login do serwera poczty.',
        'A password without a login: give the mail server login.',
      ),
    )
  return issues
}

function webhookIssues(webhook: StoredWebhook, production: boolean): Issue[] {
  const issues: Issue[] = []
  let url: URL | undefined
  try {
    url = new URL(webhook.url)
  } catch {
    url = undefined
  }
  const schemes = production ? ['https:'] : ['https:', 'http:']
  if (!url || !schemes.includes(url.protocol) || webhook.url.length > 2000)
    issues.push(
      issue(
        'webhook.url',
        'invalid_url',
        production
          ? 'Adres powiadomień musi zaczynać się od https://.'
          : 'Adres powiadomień musi zaczynać się od https:// (albo http:// poza produkcją).',
        production
          ? 'The notification address must start with https://.'
          : 'The notification address must start with https:// (or http:// outside production).',
      ),
    )
  if (webhook.secret.length < 32 || webhook.secret.length > 500)
    issues.push(
      issue(
        'webhook.secret',
        'secret_too_short',
        'Sekret podpisu musi mieć co najmniej 32 znaki (odbiorca sprawdza nim podpis każdego powiadomienia).',
        'The signing secret needs at least 32 characters (the receiver checks each notification’s signature with it).',
      ),
    )
  return issues
}

const nullIfBlank = (value: string | null | undefined) => {
  const trimmed = value?.trim()
  return trimmed ? trimmed : null
}

/**
 * Saves the panel's channels (the parts sent; a channel the environment sets is refused: it would
 * have no effect). 422 `invalid_alert_settings` with `issues` at their fields, nothing written.
 */
export async function saveAlertSettings(
  ctx: HostContext,
  patch: AlertSettingsPatch,
  actor: Actor,
): Promise<AlertSettingsView> {
  const current = await stored(ctx)
  const next: StoredAlertChannels = { ...current, updated_at: ctx.now().toISOString() }
  const issues: Issue[] = []
  const envSet = (channel: 'email' | 'webhook') =>
    issue(
      channel,
      'set_by_environment',
      'Ten kanał ustawia konfiguracja serwera (zmienne DG_ALERT_*), która ma pierwszeństwo; zmień ją tam albo usuń, aby ustawiać kanał w panelu.',
      'The server’s configuration (DG_ALERT_* variables) sets this channel and takes precedence; change it there, or remove it to set the channel in the panel.',
    )
  if (patch.email !== undefined) {
    if (ctx.config.alerts.smtp) issues.push(envSet('email'))
    else if (patch.email === null) next.email = null
    else {
      const tls = patch.email.tls ?? 'starttls'
      const user = nullIfBlank(patch.email.user)
      const password =
        patch.email.password === undefined ? (current.email?.password ?? null) : patch.email.password || null
      const from = nullIfBlank(patch.email.from) ?? (user !== null && EMAIL_ADDRESS.test(user) ? user : '')
      next.email = {
        host: patch.email.host.trim(),
        port: patch.email.port ?? (tls === 'implicit' ? 465 : 587),
        tls,
        user,
        password: user === null ? null : password,
        from,
        to: [...new Set(patch.email.to.map((address) => address.trim()).filter(Boolean))],
      }
      if (patch.email.password && user === null) next.email.password = patch.email.password
      issues.push(...emailIssues(next.email))
    }
  }
  if (patch.webhook !== undefined) {
    if (ctx.config.alerts.webhook) issues.push(envSet('webhook'))
    else if (patch.webhook === null) next.webhook = null
    else {
      const url = patch.webhook.url?.trim() || current.webhook?.url || ''
      const secret = patch.webhook.secret ?? current.webhook?.secret ?? ''
      next.webhook = { url, secret }
      issues.push(...webhookIssues(next.webhook, ctx.config.env === 'production'))
    }
  }
  if (issues.length > 0) throw new PluginError('invalid_alert_settings', 422, { issues })
  await ctx.db.transaction().execute(async (trx) => {
    await setOption(ctx, ALERT_CHANNELS_OPTION, next, { autoload: false, db: trx })
    await recordAudit(
      ctx,
      {
        actor,
        action: 'alerts.settings',
        objectType: 'alerts',
        outcome: 'success',
        // which channels and where to, never a password, secret or the webhook's path
        details: {
          email: next.email ? { host: next.email.host, port: next.email.port, to: next.email.to } : null,
          webhook: next.webhook ? { origin: webhookOrigin(next.webhook.url) } : null,
        },
      },
      trx,
    )
  })
  return alertSettingsView(ctx)
}
