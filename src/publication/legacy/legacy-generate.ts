/*
 * Legacy generate (docs/decisions/report-import-and-legacy.md), the transitional v1 entry point of integrations written for the
 * CMS-hosted original: it authenticates with the webhook secret and runs the one publication
 * pipeline for a date. The secret travels in the header `X-DG-Webhook-Key`; the `key` query
 * parameter (a secret in a URL ends up in proxy and browser histories) is refused unless the
 * operator enabled it (legacy-key-setting.ts), and then every answer carries the deprecation
 * headers and each authenticated use is audited. The parameter is removed in 3.0.0.
 */
import { createHash, timingSafeEqual } from 'node:crypto'

import { recordAudit } from '../../host/audit/audit.js'
import type { HostContext } from '../../host/context.js'
import { PluginError } from '../../host/errors.js'
import { requires } from '../../licensing/license.js'
import { isCalendarDate } from '../../host/warsaw-day.js'
import { getWebhookSecret } from '../../webhook/webhook-secret.js'
import { KEY_PARAM_SUNSET, legacyKeyParamEnabled } from './legacy-key-setting.js'
import type { PublicationOutcome } from '../publishing/publication-outcome.js'
import { publish } from '../publishing/publish.js'

export interface LegacyGenerateArgs {
  /** The `X-DG-Webhook-Key` header (an array when sent twice). */
  headerKey: string | string[] | undefined
  /** The `key` query parameter, when present. */
  queryKey: unknown
  /** The `date` query parameter. */
  date: unknown
  /** For the audit entry of a key-parameter use. */
  remoteAddress: string
}

const invalidAuth = (message: string) => new PluginError('invalid_auth', 401, { message })

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}

/** Equal-length digests, so the comparison takes the same time whatever was sent. */
function sameSecret(given: string, secret: string): boolean {
  return timingSafeEqual(digest(given), digest(secret))
}

/**
 * Order: authentication (401 invalid_auth) → entitlement (403 pro_feature_required) → date (400
 * invalid_date) → the pipeline (200 outcome, 409 publication_in_progress, 422 publication_failed).
 */
export async function legacyGenerate(ctx: HostContext, args: LegacyGenerateArgs): Promise<PublicationOutcome> {
  const queryKeySent = args.queryKey !== undefined
  if (queryKeySent && !(await legacyKeyParamEnabled(ctx)))
    throw invalidAuth(
      'The key query parameter is disabled; send the webhook key in the X-DG-Webhook-Key header ' +
        '(an administrator can enable the parameter temporarily in the admin panel settings or with DG_LEGACY_KEY_PARAM=on; it is removed in 3.0.0).',
    )
  if (Array.isArray(args.headerKey)) throw invalidAuth('Send the X-DG-Webhook-Key header once.')
  const given = args.headerKey ?? (queryKeySent ? args.queryKey : undefined)
  if (given === undefined || given === '')
    throw invalidAuth('Send the webhook key (shown in the admin panel) in the X-DG-Webhook-Key header.')
  if (typeof given !== 'string') throw invalidAuth('Send the webhook key once.')
  const stored = await getWebhookSecret(ctx)
  if (!stored) throw invalidAuth('No webhook key is configured on this service yet.')
  if (!sameSecret(given, stored.secret)) throw invalidAuth('The webhook key does not match.')

  const date = typeof args.date === 'string' ? args.date : ''
  if (queryKeySent) {
    await recordAudit(ctx, {
      actor: { type: 'webhook' },
      action: 'legacy_generate.key_param',
      objectType: 'publication',
      ...(isCalendarDate(date) ? { objectId: date } : {}),
      outcome: 'success',
      details: {
        deprecated: 'key query parameter',
        removed_in: '3.0.0',
        sunset: KEY_PARAM_SUNSET,
        remote_address: args.remoteAddress,
      },
    })
  }

  await requires(ctx, 'api_webhooks')
  if (!isCalendarDate(date))
    throw new PluginError('invalid_date', 400, {
      message: 'The query parameter date is required: a real calendar date YYYY-MM-DD.',
    })
  return publish(ctx, { date, trigger: 'legacy_generate', actor: { type: 'webhook' } })
}
