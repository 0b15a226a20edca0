/*
 * What site data may never leave through the catalog (docs/integration/extensions.md), whoever asks: keys that look
 * like credentials or belong to a technical prefix, and values that are not scalars or short lists
 * of scalars. The catalog applies them to `custom_meta`, `extension_options` and whatever the
 * extension filters add to an offer; meta registration refuses to promise exposure of such a key.
 */
const DENIED_KEY = /pass(word|wd)?|pwd|token|nonce|secret|licen[cs]e[_-]?key|api[_-]?key|private[_-]?key|salt|auth/i
export const DENIED_PREFIXES = ['_edit_', '_wp_', '_oembed_', '_elementor_', '_transient_', '_esticrm_'] as const
const MAX_STRING_LENGTH = 2000
const MAX_LIST_ITEMS = 50
const MAX_SERIALIZED_BYTES = 8192

export type MetaScalar = string | number | boolean | null
export type MetaValue = MetaScalar | MetaScalar[]

export function isDeniedKey(key: string): boolean {
  return DENIED_KEY.test(key) || DENIED_PREFIXES.some((prefix) => key.startsWith(prefix))
}

export function isScalar(value: unknown): value is MetaScalar {
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
