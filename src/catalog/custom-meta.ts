/*
 * What site data may leave through the catalog (contract 2.8). Meta reaches `custom_meta` only
 * when code registered it for REST or the `dg_rest_business_meta_keys` filter names it, and even
 * then never when its key looks like a credential or belongs to a technical prefix. Only scalars
 * and short lists of scalars are serialized.
 */
import type { HostContext } from '../host/context.js'
import type { PostType } from '../host/meta/meta-registry.js'
import { getOption } from '../host/options/options.js'

const DENIED_KEY = /pass(word|wd)?|pwd|token|nonce|secret|licen[cs]e[_-]?key|api[_-]?key|private[_-]?key|salt|auth/i
const DENIED_PREFIXES = ['_edit_', '_wp_', '_oembed_', '_elementor_', '_transient_', '_esticrm_']
const MAX_STRING_LENGTH = 2000
const MAX_LIST_ITEMS = 50
const MAX_SERIALIZED_BYTES = 8192

export type MetaValue = string | number | boolean | null | Array<string | number | boolean | null>

export function isDeniedKey(key: string): boolean {
  return DENIED_KEY.test(key) || DENIED_PREFIXES.some((prefix) => key.startsWith(prefix))
}

function isScalar(value: unknown): value is string | number | boolean | null {
  return (
    value === null ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    (typeof value === 'string' && value.length <= MAX_STRING_LENGTH)
  )
}

/** The value as it may be exposed, or undefined when it must not be serialized. */
export function exposableValue(value: unknown): MetaValue | undefined {
  if (isScalar(value)) return value
  if (Array.isArray(value) && value.length <= MAX_LIST_ITEMS && value.every(isScalar)) {
    return JSON.stringify(value).length <= MAX_SERIALIZED_BYTES ? value : undefined
  }
  return undefined
}

export async function exposeCustomMeta(
  ctx: HostContext,
  postType: PostType,
  storedJson: string,
): Promise<Record<string, MetaValue>> {
  let stored: unknown
  try {
    stored = JSON.parse(storedJson)
  } catch {
    return {}
  }
  if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return {}
  const keys = await ctx.hooks.applyFilters('dg_rest_business_meta_keys', ctx.meta.restKeys(postType), postType)
  const out: Record<string, MetaValue> = {}
  for (const key of new Set(Array.isArray(keys) ? keys : [])) {
    if (typeof key !== 'string' || isDeniedKey(key) || !Object.hasOwn(stored, key)) continue
    const value = exposableValue((stored as Record<string, unknown>)[key])
    if (value !== undefined) out[key] = value
  }
  return out
}

export const EXTENSION_OPTION_PREFIX = 'dg_ext_'

function coerce(type: string, value: unknown): unknown {
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

/** Site-defined options marked `expose_in_catalog`, with their sanitizer applied. */
export async function exposedExtensionOptions(ctx: HostContext): Promise<Record<string, MetaValue>> {
  const fields = await ctx.hooks.applyFilters('dg_extension_settings_fields', {})
  const out: Record<string, MetaValue> = {}
  for (const [name, field] of Object.entries(fields ?? {})) {
    if (!field?.expose_in_catalog || isDeniedKey(name)) continue
    const stored = await getOption<unknown>(ctx, `${EXTENSION_OPTION_PREFIX}${name}`)
    const raw = stored === undefined ? field.default : stored
    let value: unknown
    try {
      value = field.sanitizer ? field.sanitizer(raw) : coerce(field.type, raw)
    } catch (error) {
      ctx.log.warn({ option: name, err: error }, 'extension option sanitizer failed; option left out')
      continue
    }
    const exposable = exposableValue(value)
    if (exposable !== undefined) out[name] = exposable
  }
  return out
}
