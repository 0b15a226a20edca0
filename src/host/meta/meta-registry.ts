/*
 * Meta keys registered by code, as the CMS's register_meta does: the one list of custom fields the
 * service knows. A key registered with `showInRest` may reach `custom_meta` (with the keys named by
 * the `dg_rest_business_meta_keys` filter); any registered key may be written by the import's
 * mapping (`meta:<key>`) and, later, by the editor, both checked against its type here.
 */
import { isDeniedKey } from './exposure-rules.js'

export type PostType = 'dg_property' | 'dg_investment'
export const POST_TYPES: readonly PostType[] = ['dg_property', 'dg_investment']

export type MetaType = 'string' | 'integer' | 'number' | 'boolean'
export const META_TYPES: readonly MetaType[] = ['string', 'integer', 'number', 'boolean']

export interface MetaDefinition {
  /** What a written value must be (default `string`). */
  type?: MetaType
  showInRest: boolean
  /** For people: the editor's label, the documentation. */
  label?: string
  description?: string
}

export interface RegisteredMeta {
  postType: PostType
  key: string
  type: MetaType
  showInRest: boolean
  label: string
  description: string
}

/** Letters, digits, `_` and `-`, starting with a letter or `_`: a JSON key and a mapping name alike. */
const META_KEY = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

export class MetaRegistryError extends Error {}

export class MetaRegistry {
  readonly #keys = new Map<PostType, Map<string, RegisteredMeta>>()

  /**
   * Registers a key, or confirms an identical registration. Throws `MetaRegistryError` for a post
   * type or key the service cannot hold, a key that the contract never lets out promised to REST,
   * and a second registration that disagrees with the first.
   */
  register(postType: PostType, key: string, definition: MetaDefinition): RegisteredMeta {
    if (!POST_TYPES.includes(postType))
      throw new MetaRegistryError(`post type ${String(postType)} is not one of ${POST_TYPES.join(', ')}`)
    if (typeof key !== 'string' || !META_KEY.test(key))
      throw new MetaRegistryError(
        `meta key ${JSON.stringify(key)} must be 1–64 letters, digits, _ or -, starting with a letter or _`,
      )
    const type = definition.type ?? 'string'
    if (!META_TYPES.includes(type))
      throw new MetaRegistryError(`meta key ${key}: type ${String(type)} is not one of ${META_TYPES.join(', ')}`)
    if (typeof definition.showInRest !== 'boolean')
      throw new MetaRegistryError(`meta key ${key}: showInRest must be true or false`)
    if (definition.showInRest && isDeniedKey(key))
      throw new MetaRegistryError(
        `meta key ${key} looks like a credential or a technical key, which the catalog never exposes; ` +
          'register it with showInRest: false or rename it',
      )
    const registered: RegisteredMeta = {
      postType,
      key,
      type,
      showInRest: definition.showInRest,
      label: typeof definition.label === 'string' ? definition.label : '',
      description: typeof definition.description === 'string' ? definition.description : '',
    }
    const keys = this.#keys.get(postType) ?? new Map<string, RegisteredMeta>()
    const earlier = keys.get(key)
    if (earlier && (earlier.type !== type || earlier.showInRest !== registered.showInRest))
      throw new MetaRegistryError(
        `meta key ${key} of ${postType} is registered already as ${earlier.type}` +
          `${earlier.showInRest ? ' shown in REST' : ''}; a second registration must agree with it`,
      )
    keys.set(key, earlier ?? registered)
    this.#keys.set(postType, keys)
    return earlier ?? registered
  }

  /** The registration of a key, or undefined for a key nobody registered. */
  get(postType: PostType, key: string): RegisteredMeta | undefined {
    return this.#keys.get(postType)?.get(key)
  }

  /** Every registered key of a post type, in registration order. */
  list(postType: PostType): RegisteredMeta[] {
    return [...(this.#keys.get(postType)?.values() ?? [])]
  }

  restKeys(postType: PostType): string[] {
    return this.list(postType)
      .filter((meta) => meta.showInRest)
      .map((meta) => meta.key)
  }
}
