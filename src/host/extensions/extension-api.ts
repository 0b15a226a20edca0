/*
 * What an extension module sees (`DG_EXTENSIONS`): the one function it exports receives this
 * object once, at start, and registers everything through it. Types only, for extension authors
 * who write TypeScript or check their JavaScript (`import type { RegisterExtension } from
 * 'dg-offers/extensions'`).
 */
import type { Logger } from 'pino'

import type { Environment } from '../../config.js'
import type { ActionCallback, ActionName, ExtensionSettingField, FilterCallback, FilterName } from '../hooks/hooks.js'
import type { MetaDefinition, MetaType, PostType, RegisteredMeta } from '../meta/meta-registry.js'

export interface ExtensionApi {
  /** The module's path, as the service names it in logs and error messages. */
  readonly name: string
  /** Filters and actions (docs/integration/extensions.md; priority: lower runs first, default 10). */
  readonly hooks: {
    addFilter<N extends FilterName>(name: N, callback: FilterCallback<N>, priority?: number): void
    addAction<N extends ActionName>(name: N, callback: ActionCallback<N>, priority?: number): void
  }
  /**
   * Custom fields: `showInRest: true` exposes the key in `custom_meta`; any
   * registered key can be written by the import (mapping `meta:<key>`).
   */
  readonly meta: {
    register(postType: PostType, key: string, definition: MetaDefinition): RegisteredMeta
  }
  /** A logger that names the extension in every line. */
  readonly log: Logger
  /** What an extension may know of the service: never a secret. */
  readonly site: { readonly env: Environment; readonly siteUrl: string }
}

/** The function an extension module exports as `register` (or as its default export). */
export type RegisterExtension = (api: ExtensionApi) => void | Promise<void>

export type {
  ActionCallback,
  ActionName,
  ExtensionSettingField,
  FilterCallback,
  FilterName,
  MetaDefinition,
  MetaType,
  PostType,
  RegisteredMeta,
}
