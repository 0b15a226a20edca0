/*
 * Loads the extension modules a deployment names in `DG_EXTENSIONS`, before the service opens its
 * database or listens. Each module exports one `register(api)` function (extension-api.ts).
 *
 * All or nothing: what the extensions register is staged and checked, and reaches the service's
 * registries only when every extension has registered without error. A module that is missing,
 * does not load, exports no `register`, throws or times out in it, names a hook that does not
 * exist, or declares a meta key or a site option the service cannot honour stops the start with
 * an `ExtensionLoadError` naming the module; the service never runs with part of its extensions.
 * Once started, an extension can register nothing more.
 */
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

import type { Logger } from 'pino'

import { type AppConfig, ConfigError } from '../../config.js'
import {
  type ActionName,
  type ExtensionSettingField,
  type FilterName,
  HookRegistry,
  isActionName,
  isFilterName,
} from '../hooks/hooks.js'
import { isDeniedKey } from '../meta/exposure-rules.js'
import { type MetaDefinition, MetaRegistry, type PostType } from '../meta/meta-registry.js'
import type { ExtensionApi, RegisterExtension } from './extension-api.js'

export class ExtensionLoadError extends ConfigError {
  readonly code = 'extension_failed'
}

export interface LoadedExtension {
  name: string
  filters: FilterName[]
  actions: ActionName[]
  meta: Array<{ postType: PostType; key: string }>
  settings: string[]
}

interface StagedHook {
  kind: 'filter' | 'action'
  name: FilterName | ActionName
  callback: (...args: never[]) => unknown
  priority: number
}

const SETTING_NAME = /^[a-z][a-z0-9_]{0,63}$/
const SETTING_TYPES = ['string', 'integer', 'number', 'boolean'] as const

/** How long one module may take to load and register. */
export const EXTENSION_TIMEOUT_MS = 10_000

/** The name an extension goes by: its path relative to the working directory when it is inside it. */
export function extensionName(modulePath: string, cwd = process.cwd()): string {
  const relative = path.relative(cwd, modulePath)
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : modulePath
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message
  return typeof error === 'string' ? error : (JSON.stringify(error) ?? String(error))
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms)
  })
  try {
    return await Promise.race([work, timeout])
  } finally {
    clearTimeout(timer)
  }
}

function registerFunctionOf(module: Record<string, unknown>): RegisterExtension | undefined {
  if (typeof module.register === 'function') return module.register as RegisterExtension
  const fallback = module.default
  if (typeof fallback === 'function') return fallback as RegisterExtension
  if (
    typeof fallback === 'object' &&
    fallback !== null &&
    typeof (fallback as { register?: unknown }).register === 'function'
  )
    return (fallback as { register: RegisterExtension }).register
  return undefined
}

/** The problem of one site-option definition, or undefined when it is usable. */
function settingProblem(name: string, field: unknown): string | undefined {
  if (!SETTING_NAME.test(name)) return 'its name must be 1–64 lowercase letters, digits or _, starting with a letter'
  if (typeof field !== 'object' || field === null || Array.isArray(field)) return 'its definition must be an object'
  const f = field as Partial<Record<keyof ExtensionSettingField, unknown>>
  if (!SETTING_TYPES.includes(f.type as (typeof SETTING_TYPES)[number]))
    return `type must be one of ${SETTING_TYPES.join(', ')}`
  if (typeof f.label !== 'string' || f.label.trim() === '') return 'label must be a non-empty text'
  if (f.description !== undefined && typeof f.description !== 'string') return 'description must be a text'
  if (f.sanitizer !== undefined && typeof f.sanitizer !== 'function') return 'sanitizer must be a function'
  if (typeof f.expose_in_catalog !== 'boolean') return 'expose_in_catalog must be true or false'
  if (f.expose_in_catalog && isDeniedKey(name))
    return 'its name looks like a credential or a technical key, which the catalog never exposes'
  if (!('default' in f)) return 'default is missing (null for none)'
  const fits =
    f.default === null ||
    (f.type === 'string' && typeof f.default === 'string') ||
    (f.type === 'integer' && Number.isInteger(f.default)) ||
    (f.type === 'number' && typeof f.default === 'number' && Number.isFinite(f.default)) ||
    (f.type === 'boolean' && typeof f.default === 'boolean')
  if (!fits) return `default must be a ${String(f.type)} or null`
  if (typeof f.sanitizer === 'function') {
    try {
      ;(f.sanitizer as (value: unknown) => unknown)(f.default)
    } catch (error) {
      return `its sanitizer throws on the default value: ${describe(error)}`
    }
  }
  return undefined
}

/** Runs an extension's own settings filters on nothing, so that its definitions are checked at start. */
async function checkSettings(name: string, staged: readonly StagedHook[]): Promise<string[]> {
  const own = new HookRegistry()
  let failure: unknown
  own.reportFailuresTo((reported) => (failure ??= reported.error))
  for (const hook of staged)
    if (hook.kind === 'filter' && hook.name === 'dg_extension_settings_fields')
      own.addFilter('dg_extension_settings_fields', hook.callback as never, hook.priority)
  if (!own.hasFilter('dg_extension_settings_fields')) return []
  const fields = await own.applyFilters('dg_extension_settings_fields', {})
  if (failure !== undefined)
    throw new ExtensionLoadError(
      `Extension ${name} (DG_EXTENSIONS): its dg_extension_settings_fields filter failed: ${describe(failure)}`,
    )
  for (const [option, field] of Object.entries(fields)) {
    const problem = settingProblem(option, field)
    if (problem !== undefined)
      throw new ExtensionLoadError(`Extension ${name} (DG_EXTENSIONS): site option ${option}: ${problem}`)
  }
  return Object.keys(fields)
}

export interface LoadExtensionsOptions {
  hooks: HookRegistry
  meta: MetaRegistry
  log: Logger
  config: Pick<AppConfig, 'env' | 'siteUrl'>
  timeoutMs?: number
}

/** Loads and registers every module of `paths`, in order; throws `ExtensionLoadError` naming the first that fails. */
export async function loadExtensions(
  paths: readonly string[],
  options: LoadExtensionsOptions,
): Promise<LoadedExtension[]> {
  if (paths.length === 0) return []
  const timeoutMs = options.timeoutMs ?? EXTENSION_TIMEOUT_MS
  // the meta keys registered so far, and those staged: a later registration must agree with both
  const trialMeta = new MetaRegistry()
  for (const postType of ['dg_property', 'dg_investment'] as const)
    for (const registered of options.meta.list(postType))
      trialMeta.register(postType, registered.key, {
        type: registered.type,
        showInRest: registered.showInRest,
        label: registered.label,
        description: registered.description,
      })
  const staged: Array<{ name: string; hooks: StagedHook[]; meta: Array<[PostType, string, MetaDefinition]> }> = []
  const loaded: LoadedExtension[] = []
  let open = true

  for (const modulePath of paths) {
    const name = extensionName(modulePath)
    const fail = (what: string, error?: unknown): never => {
      throw new ExtensionLoadError(
        `Extension ${name} (DG_EXTENSIONS) ${what}${error === undefined ? '' : `: ${describe(error)}`}`,
        error === undefined ? undefined : { cause: error },
      )
    }
    if (!fs.existsSync(modulePath)) fail(`cannot be loaded: there is no file ${modulePath}`)
    let module: Record<string, unknown> = {}
    try {
      module = await withTimeout(
        import(pathToFileURL(modulePath).href) as Promise<Record<string, unknown>>,
        timeoutMs,
        'loading the module',
      )
    } catch (error) {
      fail('cannot be loaded', error)
    }
    const register = registerFunctionOf(module)
    if (register === undefined)
      fail('exports no register function (export function register({ hooks, meta, log, site }) { … })')

    const own = { name, hooks: [] as StagedHook[], meta: [] as Array<[PostType, string, MetaDefinition]> }
    const closed = () => {
      if (!open) throw new Error(`extension ${name} registered after the start; register everything in register()`)
    }
    const api: ExtensionApi = Object.freeze({
      name,
      hooks: Object.freeze({
        addFilter(hook: string, callback: unknown, priority: number = 10) {
          closed()
          if (!isFilterName(hook))
            throw new TypeError(
              `there is no filter ${String(hook)}; filters: dg_frontend_property_data, dg_rest_business_meta_keys, dg_extension_settings_fields`,
            )
          if (typeof callback !== 'function') throw new TypeError(`the callback of ${hook} must be a function`)
          if (!Number.isInteger(priority)) throw new TypeError(`the priority of ${hook} must be an integer`)
          own.hooks.push({ kind: 'filter', name: hook, callback: callback as StagedHook['callback'], priority })
        },
        addAction(hook: string, callback: unknown, priority: number = 10) {
          closed()
          if (!isActionName(hook))
            throw new TypeError(
              `there is no action ${String(hook)} (the actions are dg_before_*/dg_after_* and dg_after_property_details)`,
            )
          if (typeof callback !== 'function') throw new TypeError(`the callback of ${hook} must be a function`)
          if (!Number.isInteger(priority)) throw new TypeError(`the priority of ${hook} must be an integer`)
          own.hooks.push({ kind: 'action', name: hook, callback: callback as StagedHook['callback'], priority })
        },
      }) as ExtensionApi['hooks'],
      meta: Object.freeze({
        register(postType: PostType, key: string, definition: MetaDefinition) {
          closed()
          const registered = trialMeta.register(postType, key, definition ?? ({} as MetaDefinition))
          own.meta.push([postType, key, { ...definition }])
          return registered
        },
      }),
      log: options.log.child({ extension: name }),
      site: Object.freeze({ env: options.config.env, siteUrl: options.config.siteUrl }),
    })
    try {
      await withTimeout(
        Promise.resolve().then(() => register?.(api)),
        timeoutMs,
        'register()',
      )
    } catch (error) {
      fail('failed in register()', error)
    }
    let settings: string[] = []
    try {
      settings = await checkSettings(name, own.hooks)
    } catch (error) {
      if (error instanceof ExtensionLoadError) throw error
      fail('failed while its site options were checked', error)
    }
    staged.push(own)
    loaded.push({
      name,
      filters: own.hooks.filter((h) => h.kind === 'filter').map((h) => h.name as FilterName),
      actions: own.hooks.filter((h) => h.kind === 'action').map((h) => h.name as ActionName),
      meta: own.meta.map(([postType, key]) => ({ postType, key })),
      settings,
    })
  }

  open = false
  for (const extension of staged) {
    for (const [postType, key, definition] of extension.meta) options.meta.register(postType, key, definition)
    for (const hook of extension.hooks) {
      const registration = { priority: hook.priority, owner: extension.name }
      if (hook.kind === 'filter') options.hooks.addFilter(hook.name as FilterName, hook.callback as never, registration)
      else options.hooks.addAction(hook.name as ActionName, hook.callback as never, registration)
    }
  }
  for (const extension of loaded) options.log.info(extension, 'extension loaded')
  return loaded
}
