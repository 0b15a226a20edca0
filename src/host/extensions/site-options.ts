/*
 * Site options that extensions define through `dg_extension_settings_fields`: their
 * current values and how one is changed. A value is kept as the option `dg_ext_<name>`; until one
 * is stored the definition's default applies. Every read goes through the definition's type and
 * sanitizer, so `/catalog`'s `extension_options`, `dg site-options` and (later) the admin panel's
 * settings show the same value. Used by the CLI now and by the panel's settings endpoint next.
 */
import { type Actor, recordAudit } from '../audit/audit.js'
import type { HostContext } from '../context.js'
import { HostError } from '../errors.js'
import type { ExtensionSettingField } from '../hooks/hooks.js'
import { getOption, setOption } from '../options/options.js'

export const EXTENSION_OPTION_PREFIX = 'dg_ext_'

export type SiteOptionValue = string | number | boolean | null

/** A stored or default value as the definition's type, before its sanitizer. */
function coerce(type: string, value: unknown): SiteOptionValue {
  if (value === null || value === undefined) return null
  switch (type) {
    case 'integer': {
      const n = typeof value === 'number' ? value : Number(value)
      return Number.isInteger(n) ? n : null
    }
    case 'number': {
      const n = typeof value === 'number' ? value : Number(value)
      return Number.isFinite(n) ? n : null
    }
    case 'boolean':
      return value === true || value === 'true' || value === 1 || value === '1'
    default:
      return typeof value === 'string'
        ? value
        : typeof value === 'number' || typeof value === 'boolean'
          ? String(value)
          : null
  }
}

/**
 * The value an option has with `stored` (undefined: nothing stored, the default applies): typed,
 * then sanitized. Throws what the sanitizer throws.
 */
export function effectiveValue(field: ExtensionSettingField, stored: unknown): unknown {
  const typed = coerce(field.type, stored === undefined ? field.default : stored)
  return field.sanitizer ? field.sanitizer(typed) : typed
}

export interface SiteOptionView {
  name: string
  type: ExtensionSettingField['type']
  label: string
  description: string
  default: SiteOptionValue
  /** The value in force (typed and sanitized), as `/catalog` would expose it. */
  value: unknown
  /** Whether a value is stored (otherwise the default applies). */
  stored: boolean
  expose_in_catalog: boolean
}

export async function listSiteOptions(ctx: HostContext): Promise<SiteOptionView[]> {
  const fields = await ctx.hooks.applyFilters('dg_extension_settings_fields', {})
  const out: SiteOptionView[] = []
  for (const [name, field] of Object.entries(fields)) {
    const stored = await getOption<unknown>(ctx, `${EXTENSION_OPTION_PREFIX}${name}`)
    let value: unknown
    try {
      value = effectiveValue(field, stored)
    } catch {
      value = null
    }
    out.push({
      name,
      type: field.type,
      label: field.label,
      description: field.description ?? '',
      default: field.default,
      value,
      stored: stored !== undefined,
      expose_in_catalog: field.expose_in_catalog,
    })
  }
  return out
}

/**
 * Reads a value typed by a person (the CLI, a form field) as the option's type: an integer, a
 * decimal number (comma or dot), a yes/no word, or text as it is.
 */
export function parseSiteOptionText(field: Pick<ExtensionSettingField, 'type'>, text: string): SiteOptionValue {
  const trimmed = text.trim()
  switch (field.type) {
    case 'integer':
      return /^-?\d{1,15}$/.test(trimmed) ? Number(trimmed) : Number.NaN
    case 'number':
      return /^-?\d{1,15}([.,]\d+)?$/.test(trimmed) ? Number(trimmed.replace(',', '.')) : Number.NaN
    case 'boolean': {
      const word = trimmed.toLowerCase()
      if (['true', 'yes', 'tak', 'on', '1'].includes(word)) return true
      if (['false', 'no', 'nie', 'off', '0'].includes(word)) return false
      return null
    }
    default:
      return text
  }
}

/**
 * Stores a new value of a registered option: checked against its type, passed through its
 * sanitizer (what is kept is what it returns), audited. 404 `unknown_site_option` for a name no
 * extension defines, 400 `invalid_site_option_value` for a value of another type.
 */
export async function setSiteOption(
  ctx: HostContext,
  name: string,
  value: SiteOptionValue,
  actor: Actor,
): Promise<SiteOptionView> {
  const fields = await ctx.hooks.applyFilters('dg_extension_settings_fields', {})
  const field = Object.hasOwn(fields, name) ? fields[name] : undefined
  if (!field) {
    const known = Object.keys(fields)
    throw new HostError(
      'unknown_site_option',
      404,
      `No loaded extension defines the site option ${JSON.stringify(name)}${known.length ? ` (defined: ${known.join(', ')})` : ' (no extension defines any; see DG_EXTENSIONS)'}.`,
    )
  }
  const fits =
    value === null ||
    (field.type === 'string' && typeof value === 'string') ||
    (field.type === 'integer' && Number.isInteger(value)) ||
    (field.type === 'number' && typeof value === 'number' && Number.isFinite(value)) ||
    (field.type === 'boolean' && typeof value === 'boolean')
  if (!fits)
    throw new HostError(
      'invalid_site_option_value',
      400,
      `The site option ${name} takes ${field.type === 'integer' ? 'an integer' : field.type === 'boolean' ? 'true or false' : `a ${field.type}`}.`,
    )
  let kept: unknown
  try {
    kept = field.sanitizer ? field.sanitizer(value) : value
  } catch (error) {
    throw new HostError(
      'invalid_site_option_value',
      400,
      `The site option ${name} refused this value: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  await ctx.db.transaction().execute(async (trx) => {
    await setOption(ctx, `${EXTENSION_OPTION_PREFIX}${name}`, kept, { autoload: true, db: trx })
    // the value itself is left out: an option that is not exposed may hold something private
    await recordAudit(
      ctx,
      { actor, action: 'site_option.set', objectType: 'site_option', objectId: name, outcome: 'success' },
      trx,
    )
  })
  const view = (await listSiteOptions(ctx)).find((option) => option.name === name)
  if (!view) throw new Error(`site option ${name} disappeared while it was set`)
  return view
}
