/*
 * Raising an alert: claim its row (once per cause, day and dataset, across instances), audit it,
 * then tell the operators through every configured channel, each retried with back-off, and
 * record each channel's outcome. Nothing here throws into a publication or a request: a channel
 * that fails is logged (without secrets) and recorded, and the caller's work goes on.
 */
import { randomBytes } from 'node:crypto'

import { recordAudit } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { explainNetworkError } from '../host/http/network-errors.js'
import { configuredServiceBase } from '../host/http/service-origin.js'
import { effectiveMailSettings } from '../mail/mail-settings.js'
import { SERVICE_VERSION } from '../version.js'
import { ALERT_TITLES, type AlertCause, type AlertInput } from './alert-causes.js'
import { alertLetter } from './alert-letter.js'
import {
  type AlertRow,
  claimAlert,
  recordAlertDelivery,
  selectRecentAlerts,
  selectStaleAlerts,
  takeOverStaleAlert,
} from './alerts-repository.js'
import { effectiveAlertChannels, type EffectiveAlertChannels } from './alert-settings.js'
import { type ChannelName, type ChannelOutcome, deliverWithRetries } from './channel-attempts.js'
import { sendAlertEmail } from './email-channel.js'
import { postAlertWebhook, webhookOrigin } from './webhook-channel.js'

export type AlertState = 'sending' | 'delivered' | 'failed' | 'not_configured'

export interface AlertView {
  id: number
  cause: string
  day: string
  severity: string
  developer_id: number | null
  raised_at: string
  message_pl: string
  message_en: string
  details: Record<string, unknown>
  state: AlertState
  channels: Array<{
    channel: ChannelName
    status: 'sent' | 'failed' | 'pending'
    attempts: number
    at: string | null
    error?: string
  }>
}

/** A channel's outcome as stored: `pending` from the claim until its attempts end. */
type StoredChannel = ChannelOutcome | { status: 'pending'; attempts: 0; at: null; error?: undefined }
type ChannelRecord = Partial<Record<ChannelName, StoredChannel>>

/** The channels in force now: the environment's, or the panel's (read on every alert, so a change applies at once). */
export async function configuredChannels(ctx: Pick<HostContext, 'config' | 'db'>): Promise<ChannelName[]> {
  return channelNames(await effectiveAlertChannels(ctx))
}

function channelNames(channels: EffectiveAlertChannels): ChannelName[] {
  return [...(channels.smtp ? (['email'] as const) : []), ...(channels.webhook ? (['webhook'] as const) : [])]
}

function scopeOf(input: AlertInput, unique: string | undefined): string {
  if (unique !== undefined) return unique
  return input.dataset ? `developer:${input.dataset.id}` : ''
}

/**
 * Raises the alert unless its cause, day and dataset were already alerted (by this instance or
 * another). Resolves once every channel has delivered or given up; the view of the stored alert,
 * or undefined when it had been raised before.
 */
export async function raiseAlert(
  ctx: HostContext,
  input: AlertInput,
  options: { unique?: string; maxAttempts?: number } = {},
): Promise<AlertView | undefined> {
  const effective = await effectiveAlertChannels(ctx)
  const channels = channelNames(effective)
  const raisedAt = ctx.now().toISOString()
  const id = await claimAlert(ctx.db, {
    cause: input.cause,
    day: input.day,
    scope: scopeOf(input, options.unique),
    developer_id: input.dataset?.id ?? null,
    severity: input.severity,
    message_pl: input.message_pl,
    message_en: input.message_en,
    details: JSON.stringify({ ...input.details, ...(input.dataset ? { developer_name: input.dataset.name } : {}) }),
    raised_at: raisedAt,
    state: channels.length > 0 ? 'sending' : 'not_configured',
    channels: JSON.stringify(
      Object.fromEntries(channels.map((name) => [name, { status: 'pending', attempts: 0, at: null }])),
    ),
  })
  if (id === undefined) return undefined
  ctx.log.warn(
    { alert: id, cause: input.cause, day: input.day, developer_id: input.dataset?.id ?? null, channels },
    `alert: ${input.message_en}`,
  )
  await recordAudit(ctx, {
    actor: { type: 'system' },
    action: 'alert.raise',
    objectType: 'alert',
    objectId: id,
    outcome: 'success',
    details: {
      cause: input.cause,
      day: input.day,
      developer_id: input.dataset?.id ?? null,
      severity: input.severity,
      channels,
    },
  })
  const row = await ctx.db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  if (channels.length === 0) return viewOf(row)
  return viewOf(await deliverAlert(ctx, row, effective, options.maxAttempts))
}

/** Sends the alert through every configured channel that has not delivered it yet, and records how each did. */
async function deliverAlert(
  ctx: HostContext,
  row: AlertRow,
  effective: EffectiveAlertChannels,
  maxAttempts = ctx.config.alerts.maxAttempts,
): Promise<AlertRow> {
  const alerts = { ...ctx.config.alerts, smtp: effective.smtp, webhook: effective.webhook }
  const recorded = JSON.parse(row.channels) as ChannelRecord
  const details = JSON.parse(row.details) as Record<string, unknown>
  const policy = { maxAttempts, retryBaseMs: alerts.retryBaseMs, now: () => ctx.now() }
  const logFailure =
    (channel: ChannelName, target: string) =>
    (failure: { attempt: number; error: string; transient: boolean; waitMs: number | undefined }) =>
      ctx.log.warn(
        {
          alert: row.id,
          channel,
          target,
          attempt: failure.attempt,
          retry_in_ms: failure.waitMs ?? null,
          error: failure.error,
        },
        failure.waitMs === undefined ? 'alert channel gave up' : 'alert channel attempt failed; retrying',
      )
  const work: Array<Promise<[ChannelName, ChannelOutcome]>> = []
  if (alerts.smtp && recorded.email?.status !== 'sent') {
    const smtp = alerts.smtp
    // the panel's address the mail settings put in force (environment, else the panel), else the service's own
    const panelBase = (await effectiveMailSettings(ctx)).panelUrl ?? configuredServiceBase(ctx.config)
    const links = { panelBase, handbookBase: ctx.config.handbookUrl ?? `${panelBase}/dg-admin/podrecznik/` }
    const email = alertEmail(row, details, alerts.language, smtp.from, links)
    work.push(
      deliverWithRetries(
        () => sendAlertEmail(smtp, email),
        policy,
        logFailure('email', `${smtp.host}:${smtp.port}`),
      ).then((outcome) => ['email', outcome]),
    )
  }
  if (alerts.webhook && recorded.webhook?.status !== 'sent') {
    const webhook = alerts.webhook
    const body = Buffer.from(JSON.stringify(webhookPayload(row, details, alerts.language)), 'utf8')
    const key = `dg-alert.${row.day}.${row.cause}.${row.id}`
    work.push(
      deliverWithRetries(
        () => postAlertWebhook(webhook, body, key, () => ctx.now()),
        policy,
        logFailure('webhook', webhookOrigin(webhook.url)),
      ).then((outcome) => ['webhook', outcome]),
    )
  }
  const outcomes: ChannelRecord = { ...recorded, ...Object.fromEntries(await Promise.all(work)) }
  const state: AlertState = Object.values(outcomes).every((o) => o.status === 'sent') ? 'delivered' : 'failed'
  const finishedAt = ctx.now().toISOString()
  const channels = JSON.stringify(outcomes)
  await recordAlertDelivery(ctx.db, row.id, { state, channels, finishedAt })
  const summary = Object.fromEntries(Object.entries(outcomes).map(([name, o]) => [name, o.status]))
  ctx.log[state === 'delivered' ? 'info' : 'error'](
    { alert: row.id, cause: row.cause, channels: summary },
    `alert ${state}`,
  )
  await recordAudit(ctx, {
    actor: { type: 'system' },
    action: 'alert.deliver',
    objectType: 'alert',
    objectId: row.id,
    outcome: state === 'delivered' ? 'success' : 'failure',
    details: {
      cause: row.cause,
      day: row.day,
      channels: Object.fromEntries(
        Object.entries(outcomes).map(([name, o]) => [
          name,
          { status: o.status, attempts: o.attempts, error: o.error ?? null },
        ]),
      ),
    },
  })
  return { ...row, state, channels, finished_at: finishedAt }
}

/**
 * How long an instance may take to send one alert (every attempt and wait): a `sending` alert
 * claimed longer ago than this lost its instance and is taken over.
 */
export function staleAfterMs(ctx: Pick<HostContext, 'config'>): number {
  const { maxAttempts, retryBaseMs } = ctx.config.alerts
  let total = 15 * 60_000
  for (let i = 0; i < maxAttempts; i++) total += 60_000 + Math.min(retryBaseMs * 2 ** i * 1.2, 5 * 60_000)
  return total
}

/** Finishes sending alerts whose instance stopped before it was done; each is taken over by one instance only. */
export async function resendStaleAlerts(ctx: HostContext): Promise<number> {
  const effective = await effectiveAlertChannels(ctx)
  if (channelNames(effective).length === 0) return 0
  const before = new Date(ctx.now().getTime() - staleAfterMs(ctx)).toISOString()
  let resent = 0
  for (const row of await selectStaleAlerts(ctx.db, before)) {
    const now = ctx.now().toISOString()
    if (!(await takeOverStaleAlert(ctx.db, row, now))) continue
    await deliverAlert(ctx, { ...row, claimed_at: now }, effective)
    resent++
  }
  return resent
}

/** Alerts of the last `days` days, newest first (at most `limit`), as /status shows them. */
export async function recentAlerts(ctx: HostContext, days = 7, limit = 50): Promise<AlertView[]> {
  const since = new Date(ctx.now().getTime() - days * 24 * 3600 * 1000).toISOString()
  return (await selectRecentAlerts(ctx.db, since, limit)).map(viewOf)
}

function viewOf(row: AlertRow): AlertView {
  const recorded = JSON.parse(row.channels) as ChannelRecord
  return {
    id: Number(row.id),
    cause: row.cause,
    day: row.day,
    severity: row.severity,
    developer_id: row.developer_id === null ? null : Number(row.developer_id),
    raised_at: row.raised_at,
    message_pl: row.message_pl,
    message_en: row.message_en,
    details: JSON.parse(row.details) as Record<string, unknown>,
    state: row.state as AlertState,
    channels: (Object.entries(recorded) as Array<[ChannelName, StoredChannel]>).map(([channel, outcome]) => ({
      channel,
      status: outcome.status,
      attempts: outcome.attempts,
      at: outcome.at,
      ...(outcome.error === undefined ? {} : { error: outcome.error, ...explainedFailure(outcome.error) }),
    })),
  }
}

/** A channel's failure that is a network one, as an operator reads it (the raw text stays in `error`). */
function explainedFailure(error: string) {
  const explained = explainNetworkError(error)
  return explained ? { error_code: explained.code, error_pl: explained.message_pl, error_en: explained.message_en } : {}
}

const SEVERITY_LABEL = {
  critical: { pl: 'PILNE', en: 'CRITICAL' },
  warning: { pl: 'UWAGA', en: 'WARNING' },
  info: { pl: 'INFO', en: 'INFO' },
} as const

function titleOf(row: AlertRow, language: 'pl' | 'en'): string {
  const title = ALERT_TITLES[row.cause as AlertCause] ?? { pl: row.cause, en: row.cause }
  const severity = SEVERITY_LABEL[row.severity as keyof typeof SEVERITY_LABEL] ?? SEVERITY_LABEL.info
  return `[dg-offers] ${severity[language]}: ${title[language]} (${row.day})`
}

/** The alert as a letter to the operators (alert-letter.ts), with a Message-ID stable per alert. */
function alertEmail(
  row: AlertRow,
  details: Record<string, unknown>,
  language: 'pl' | 'en',
  from: string,
  links: { panelBase: string; handbookBase: string },
): { subject: string; text: string; messageId: string } {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'dg-offers.invalid'
  const letter = alertLetter(
    {
      id: Number(row.id),
      cause: row.cause,
      day: row.day,
      severity: row.severity,
      message_pl: row.message_pl,
      message_en: row.message_en,
      raised_at: row.raised_at,
      developer_name: typeof details.developer_name === 'string' ? details.developer_name : undefined,
    },
    language,
    links,
  )
  return { ...letter, messageId: `<dg-alert.${row.id}.${row.cause}.${row.day}@${domain}>` }
}

/** The webhook's JSON: `text` for Slack/Teams incoming webhooks, the structured fields for everything else. */
export function webhookPayload(
  row: AlertRow,
  details: Record<string, unknown>,
  language: 'pl' | 'en',
): Record<string, unknown> {
  return {
    text: `*${titleOf(row, language)}*\n${language === 'pl' ? row.message_pl : row.message_en}`,
    event: 'dg.alert',
    id: Number(row.id),
    cause: row.cause,
    day: row.day,
    severity: row.severity,
    developer_id: row.developer_id === null ? null : Number(row.developer_id),
    raised_at: row.raised_at,
    message_pl: row.message_pl,
    message_en: row.message_en,
    details,
    service: { name: 'dg-offers', version: SERVICE_VERSION },
  }
}

/**
 * Used by `dg alerts test` and the panel's button: a test alert through every configured channel,
 * never deduplicated. The panel asks for one attempt per channel, so its answer comes at once.
 */
export async function sendTestAlert(
  ctx: HostContext,
  input: AlertInput,
  options: { maxAttempts?: number } = {},
): Promise<AlertView> {
  const view = await raiseAlert(ctx, input, {
    unique: `test:${ctx.now().toISOString()}:${randomBytes(6).toString('hex')}`,
    ...options,
  })
  if (!view) throw new Error('the test alert could not be recorded')
  return view
}

export type { AlertCause }
