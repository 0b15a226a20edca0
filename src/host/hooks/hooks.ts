/*
 * Typed filters and actions with the names of contract 4.9. A filter receives the current value
 * plus its arguments and must return the (possibly replaced) value; an action only observes.
 * Callbacks run by ascending priority (default 10), then in registration order, as in the CMS.
 */

export interface ExtensionSettingField {
  type: 'string' | 'integer' | 'number' | 'boolean'
  label: string
  description?: string
  default: string | number | boolean | null
  /** Turns a stored or submitted value into the value that is kept and exposed. */
  sanitizer?: (value: unknown) => string | number | boolean | null
  expose_in_catalog: boolean
}

export interface FilterMap {
  /** Offer data about to be returned by the catalog; argument: offer id. */
  dg_frontend_property_data: { value: Record<string, unknown>; args: [entryId: number] }
  /** Meta keys exposed in `custom_meta`; argument: post type (`dg_property` or `dg_investment`). */
  dg_rest_business_meta_keys: { value: string[]; args: [postType: string] }
  /** Site-defined global options, by option name. */
  dg_extension_settings_fields: { value: Record<string, ExtensionSettingField>; args: [] }
}

type EntryAction = [entryId: number]
type ListingAction = [query: Record<string, unknown>]

export interface ActionMap {
  dg_before_listing: ListingAction
  dg_after_listing: ListingAction
  dg_before_investment: EntryAction
  dg_after_investment: EntryAction
  dg_before_property: EntryAction
  dg_after_property: EntryAction
  dg_before_details: EntryAction
  dg_after_details: EntryAction
  dg_before_price_history: EntryAction
  dg_after_price_history: EntryAction
  dg_before_documents: EntryAction
  dg_after_documents: EntryAction
  dg_before_contact: EntryAction
  dg_after_contact: EntryAction
  dg_after_property_details: EntryAction
}

export type FilterName = keyof FilterMap
export type ActionName = keyof ActionMap
export type FilterCallback<N extends FilterName> = (
  value: FilterMap[N]['value'],
  ...args: FilterMap[N]['args']
) => FilterMap[N]['value'] | Promise<FilterMap[N]['value']>
export type ActionCallback<N extends ActionName> = (...args: ActionMap[N]) => void | Promise<void>

interface Registered<F> {
  callback: F
  priority: number
  order: number
}

export const DEFAULT_PRIORITY = 10

export class HookRegistry {
  readonly #filters = new Map<string, Registered<(...args: never[]) => unknown>[]>()
  readonly #actions = new Map<string, Registered<(...args: never[]) => unknown>[]>()
  #order = 0

  addFilter<N extends FilterName>(name: N, callback: FilterCallback<N>, priority = DEFAULT_PRIORITY): () => void {
    return this.#add(this.#filters, name, callback as (...args: never[]) => unknown, priority)
  }

  addAction<N extends ActionName>(name: N, callback: ActionCallback<N>, priority = DEFAULT_PRIORITY): () => void {
    return this.#add(this.#actions, name, callback as (...args: never[]) => unknown, priority)
  }

  hasFilter(name: FilterName): boolean {
    return (this.#filters.get(name)?.length ?? 0) > 0
  }

  hasAction(name: ActionName): boolean {
    return (this.#actions.get(name)?.length ?? 0) > 0
  }

  async applyFilters<N extends FilterName>(
    name: N,
    value: FilterMap[N]['value'],
    ...args: FilterMap[N]['args']
  ): Promise<FilterMap[N]['value']> {
    let current = value
    for (const { callback } of this.#filters.get(name) ?? []) {
      const next = await (callback as FilterCallback<N>)(current, ...args)
      // a callback that forgets to return keeps the value it was given, as a defensive default
      if (next !== undefined) current = next
    }
    return current
  }

  async doAction<N extends ActionName>(name: N, ...args: ActionMap[N]): Promise<void> {
    for (const { callback } of this.#actions.get(name) ?? []) {
      await (callback as ActionCallback<N>)(...args)
    }
  }

  #add(
    table: Map<string, Registered<(...args: never[]) => unknown>[]>,
    name: string,
    callback: (...args: never[]) => unknown,
    priority: number,
  ): () => void {
    if (!Number.isInteger(priority)) throw new TypeError(`hook priority must be an integer, got ${priority}`)
    const entry = { callback, priority, order: this.#order++ }
    const list = [...(table.get(name) ?? []), entry].sort((a, b) => a.priority - b.priority || a.order - b.order)
    table.set(name, list)
    return () => {
      table.set(
        name,
        (table.get(name) ?? []).filter((registered) => registered !== entry),
      )
    }
  }
}
