/*
 * Meta keys registered by code with `showInRest`, as the CMS's register_meta does. Only these,
 * plus the keys named by the `dg_rest_business_meta_keys` filter, may reach `custom_meta`.
 */
export type PostType = 'dg_property' | 'dg_investment'

export class MetaRegistry {
  readonly #restKeys = new Map<PostType, Set<string>>()

  register(postType: PostType, key: string, options: { showInRest: boolean }): void {
    if (!options.showInRest) return
    const keys = this.#restKeys.get(postType) ?? new Set<string>()
    keys.add(key)
    this.#restKeys.set(postType, keys)
  }

  restKeys(postType: PostType): string[] {
    return [...(this.#restKeys.get(postType) ?? [])]
  }
}
