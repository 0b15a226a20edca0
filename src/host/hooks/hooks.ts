/*
 * Typed filters and actions with the names docs/integration/extensions.md lists. A filter receives the current value
 * plus its arguments and must return the (possibly replaced) value; an action only observes.
 * Callbacks run by ascending priority (default 10), then in registration order, as in the CMS.
 *
 * A callback that throws, or a filter that returns a value of the wrong shape, is a failure of
 * that callback only: it is reported (with the extension that registered it) and skipped, so the
 * value it received goes on to the next callback (each filter gets a shallow copy, so a change it
 * made in place before failing is dropped too). An extension's bug then costs its own change,
 * never the request; what leaves the catalog is held to the contract's rules afterwards anyway
 * (catalog/custom-meta.ts), whatever the callbacks did.
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

/** The names as values, for code that registers by a name it was given (extensions). */
export const FILTER_NAMES = [
  'dg_frontend_property_data',
  'dg_rest_business_meta_keys',
  'dg_extension_settings_fields',
] as const satisfies readonly FilterName[]
export const ACTION_NAMES = [
  'dg_before_listing',
  'dg_after_listing',
  'dg_before_investment',
  'dg_after_investment',
  'dg_before_property',
  'dg_after_property',
  'dg_before_details',
  'dg_after_details',
  'dg_before_price_history',
  'dg_after_price_history',
  'dg_before_documents',
  'dg_after_documents',
  'dg_before_contact',
  'dg_after_contact',
  'dg_after_property_details',
] as const satisfies readonly ActionName[]

export function isFilterName(name: unknown): name is FilterName {
  return (FILTER_NAMES as readonly unknown[]).includes(name)
}

export function isActionName(name: unknown): name is ActionName {
  return (ACTION_NAMES as readonly unknown[]).includes(name)
}

const isPlainObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value)

function shallowCopy<T>(value: T): T {
  if (Array.isArray(value)) return [...(value as unknown[])] as T
  if (typeof value === 'object' && value !== null) return { ...value }
  return value
}

/** What each filter must return; anything else is the callback's failure. */
const FILTER_RESULT: Readonly<Record<FilterName, { check: (value: unknown) => boolean; expected: string }>> = {
  dg_frontend_property_data: { check: isPlainObject, expected: 'an object' },
  dg_rest_business_meta_keys: { check: Array.isArray, expected: 'an array of keys' },
  dg_extension_settings_fields: { check: isPlainObject, expected: 'an object of option definitions' },
}

export interface HookFailure {
  kind: 'filter' | 'action'
  hook: FilterName | ActionName
  /** Who registered the callback (an extension's path), when known. */
  owner: string | undefined
  error: unknown
  /** The hook's arguments after the value (an entry id, a post type, a listing query). */
  args: readonly unknown[]
}

export interface HookOptions {
  priority?: number
  /** Named in the report of the callback's failures (the extension that registered it). */
  owner?: string
}
export type FilterCallback<N extends FilterName> = (
  value: FilterMap[N]['value'],
  ...args: FilterMap[N]['args']
) => FilterMap[N]['value'] | Promise<FilterMap[N]['value']>
export type ActionCallback<N extends ActionName> = (...args: ActionMap[N]) => void | Promise<void>

interface Registered<F> {
  callback: F
  priority: number
  order: number
  owner: string | undefined
}

export const DEFAULT_PRIORITY = 10

export class HookRegistry {
  readonly #filters = new Map<string, Registered<(...args: never[]) => unknown>[]>()
  readonly #actions = new Map<string, Registered<(...args: never[]) => unknown>[]>()
  #order = 0
  #failures = 0
  #onFailure: (failure: HookFailure) => void = () => undefined

  /** A priority, or the priority and the owner named when the callback fails. */
  addFilter<N extends FilterName>(
    name: N,
    callback: FilterCallback<N>,
    options: number | HookOptions = DEFAULT_PRIORITY,
  ): () => void {
    return this.#add(this.#filters, name, callback as (...args: never[]) => unknown, options)
  }

  addAction<N extends ActionName>(
    name: N,
    callback: ActionCallback<N>,
    options: number | HookOptions = DEFAULT_PRIORITY,
  ): () => void {
    return this.#add(this.#actions, name, callback as (...args: never[]) => unknown, options)
  }

  /** Where failures of callbacks are reported (the host's logger); they are counted either way. */
  reportFailuresTo(handler: (failure: HookFailure) => void): void {
    this.#onFailure = handler
  }

  /**
   * How many callbacks have failed since the registry was made. A caller that keeps what a
   * request produced (the catalog's response cache) compares it before and after, so that an
   * answer missing an extension's change is not kept once the extension works again.
   */
  get failures(): number {
    return this.#failures
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
    for (const { callback, owner } of this.#filters.get(name) ?? []) {
      let next: unknown
      try {
        // a copy, so that a callback that changes its value in place and then fails changes nothing
        next = await (callback as FilterCallback<N>)(shallowCopy(current), ...args)
      } catch (error) {
        this.#fail({ kind: 'filter', hook: name, owner, error, args })
        continue
      }
      // a callback that forgets to return keeps the value it was given, as a defensive default
      if (next === undefined) continue
      const { check, expected } = FILTER_RESULT[name]
      if (!check(next)) {
        const got = next === null ? 'null' : Array.isArray(next) ? 'an array' : typeof next
        this.#fail({
          kind: 'filter',
          hook: name,
          owner,
          error: new TypeError(`returned ${got}, not ${expected}`),
          args,
        })
        continue
      }
      current = next as FilterMap[N]['value']
    }
    return current
  }

  async doAction<N extends ActionName>(name: N, ...args: ActionMap[N]): Promise<void> {
    for (const { callback, owner } of this.#actions.get(name) ?? []) {
      try {
        await (callback as ActionCallback<N>)(...args)
      } catch (error) {
        this.#fail({ kind: 'action', hook: name, owner, error, args })
      }
    }
  }

  #fail(failure: HookFailure): void {
    this.#failures++
    try {
      this.#onFailure(failure)
    } catch {
      // reporting must not turn a skipped callback into a failed request
    }
  }

  #add(
    table: Map<string, Registered<(...args: never[]) => unknown>[]>,
    name: string,
    callback: (...args: never[]) => unknown,
    options: number | HookOptions,
  ): () => void {
    const { priority = DEFAULT_PRIORITY, owner } =
      typeof options === 'number' ? { priority: options, owner: undefined } : options
    if (!Number.isInteger(priority)) throw new TypeError(`hook priority must be an integer, got ${priority}`)
    if (typeof callback !== 'function') throw new TypeError(`the callback of ${name} must be a function`)
    const entry = { callback, priority, order: this.#order++, owner }
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
