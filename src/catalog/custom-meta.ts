/*
 * What site data may leave through the catalog (docs/integration/extensions.md). Meta reaches `custom_meta` only
 * when code registered it for REST or the `dg_rest_business_meta_keys` filter names it, and even
 * then never when its key looks like a credential or belongs to a technical prefix. Only scalars
 * and short lists of scalars are serialized.
 */
import type { HostContext } from '../host/context.js'
import { EXTENSION_OPTION_PREFIX, effectiveValue } from '../host/extensions/site-options.js'
import { exposableValue, isDeniedKey, isScalar, type MetaValue } from '../host/meta/exposure-rules.js'
import type { PostType } from '../host/meta/meta-registry.js'
import { getOption } from '../host/options/options.js'

export { exposableValue, isDeniedKey, type MetaValue } from '../host/meta/exposure-rules.js'

/**
 * An offer after the `dg_frontend_property_data` filters, held to the catalog's exposure rules for
 * everything the filters added or replaced: a key that looks like a credential or a technical key
 * is dropped, and so is a value that is not a scalar or a short list of scalars (a field the
 * catalog built keeps its built value instead). What the catalog built and the filters left as it
 * was goes out as it is; a field a filter removed stays removed. `built` is the offer as it was
 * before the filters ran.
 */
export function exposableOffer(
  built: Record<string, unknown>,
  filtered: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(filtered)) {
    if (isDeniedKey(key)) continue
    const original = Object.hasOwn(built, key) ? built[key] : undefined
    if (value === original && (isScalar(value) || (Array.isArray(value) && value.every(isScalar)))) {
      out[key] = value
      continue
    }
    const exposable = exposableValue(value)
    if (exposable !== undefined) out[key] = exposable
    else if (original !== undefined) out[key] = original
  }
  return out
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

export { EXTENSION_OPTION_PREFIX } from '../host/extensions/site-options.js'

/** Site-defined options marked `expose_in_catalog`, with their sanitizer applied. */
export async function exposedExtensionOptions(ctx: HostContext): Promise<Record<string, MetaValue>> {
  const fields = await ctx.hooks.applyFilters('dg_extension_settings_fields', {})
  const out: Record<string, MetaValue> = {}
  for (const [name, field] of Object.entries(fields ?? {})) {
    if (!field?.expose_in_catalog || isDeniedKey(name)) continue
    const stored = await getOption<unknown>(ctx, `${EXTENSION_OPTION_PREFIX}${name}`)
    let value: unknown
    try {
      value = effectiveValue(field, stored)
    } catch (error) {
      ctx.log.warn({ option: name, err: error }, 'extension option sanitizer failed; option left out')
      continue
    }
    const exposable = exposableValue(value)
    if (exposable !== undefined) out[name] = exposable
  }
  return out
}
