/*
 * The switch of legacy generate's `key` query parameter (docs/integration/publication.md). The secret in a URL ends up
 * in proxy and browser histories, so the parameter is off unless an operator turns it on for the
 * time it takes to move a client to the X-DG-Webhook-Key header. DG_LEGACY_KEY_PARAM gives the
 * default; a value set over REST (the admin panel) is kept as a site option, shared by every
 * instance, and wins until it is reset to the default (null).
 */
import { recordAudit, type Actor } from '../../host/audit/audit.js'
import type { HostContext } from '../../host/context.js'
import { deleteOption, getOption, setOption } from '../../host/options/options.js'

/** RFC 9745 `Deprecation`: the key parameter is deprecated since 2026-01-01T00:00:00Z (the 2.1 line). */
export const KEY_PARAM_DEPRECATED_AT = Date.UTC(2026, 0, 1) / 1000
/** RFC 8594 `Sunset`: no 2.x release removes it; 3.0.0 ships no earlier than this. */
export const KEY_PARAM_SUNSET = new Date(Date.UTC(2027, 5, 30, 23, 59, 59)).toUTCString()
export const KEY_PARAM_WARNING =
  '299 - "The key query parameter is deprecated and removed in 3.0.0; send X-DG-Webhook-Key"'

/** The headers of every answer to a request that used the enabled `key` query parameter. */
export const KEY_PARAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  Deprecation: `@${KEY_PARAM_DEPRECATED_AT}`,
  Sunset: KEY_PARAM_SUNSET,
  Warning: KEY_PARAM_WARNING,
})

const OPTION = 'dg_legacy_key_param'

export async function legacyKeyParamEnabled(ctx: Pick<HostContext, 'db' | 'config'>): Promise<boolean> {
  const stored = await getOption<boolean>(ctx, OPTION)
  return typeof stored === 'boolean' ? stored : ctx.config.legacyKeyParam
}

export interface LegacyKeyParamView {
  enabled: boolean
  /** `setting` when set over REST, `environment` when DG_LEGACY_KEY_PARAM (or its default, off) applies. */
  source: 'setting' | 'environment'
  environment_default: boolean
  deprecated_since: string
  sunset: string
  removed_in: string
  warning: string
}

export async function legacyKeyParamView(ctx: Pick<HostContext, 'db' | 'config'>): Promise<LegacyKeyParamView> {
  const stored = await getOption<boolean>(ctx, OPTION)
  return {
    enabled: typeof stored === 'boolean' ? stored : ctx.config.legacyKeyParam,
    source: typeof stored === 'boolean' ? 'setting' : 'environment',
    environment_default: ctx.config.legacyKeyParam,
    deprecated_since: new Date(KEY_PARAM_DEPRECATED_AT * 1000).toISOString(),
    sunset: new Date(KEY_PARAM_SUNSET).toISOString(),
    removed_in: '3.0.0',
    warning: KEY_PARAM_WARNING,
  }
}

/** `enabled` null goes back to the default of DG_LEGACY_KEY_PARAM. Audited. */
export async function setLegacyKeyParam(
  ctx: HostContext,
  enabled: boolean | null,
  actor: Actor,
): Promise<LegacyKeyParamView> {
  const before = await legacyKeyParamEnabled(ctx)
  if (enabled === null) await deleteOption(ctx, OPTION)
  else await setOption(ctx, OPTION, enabled, { autoload: true })
  const after = await legacyKeyParamView(ctx)
  await recordAudit(ctx, {
    actor,
    action: 'legacy_generate.key_param_setting',
    objectType: 'setting',
    objectId: OPTION,
    outcome: 'success',
    details: { from: before, to: after.enabled, source: after.source },
  })
  return after
}
