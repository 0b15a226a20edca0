/*
 * Optimistic concurrency of the editor (docs/decisions/editor.md: no lost updates). Every answer names
 * the version of what it shows (`ETag`, and `version` in the body); every write names the version
 * it edits (`If-Match`, or `version` in the body for clients that cannot set headers) and is
 * refused with 409 and the current values when that version is no longer current. A version is a
 * strong tag over the stored row (its modification time included) and, for an offer, its
 * components: any write by any channel (import, webhook, editor) changes it.
 */
import { hash } from 'node:crypto'

import { parseEntityTags } from '../host/http/responses/conditional.js'
import { HostError, PluginError } from '../host/errors.js'

/** The version of a stored row and what belongs to it, as a quoted strong entity tag. */
export function versionOf(kind: 'offer' | 'investment', ...parts: unknown[]): string {
  // rows come with their columns in one order (the same selects everywhere), so their JSON is
  // stable as it is; a list page makes fifty of these, so the one-shot hash (the same digest as
  // update(kind).update(json), without a Hash object per row)
  const digest = hash('sha256', kind + JSON.stringify(parts), 'base64url')
  return `"${kind[0]}${digest.slice(0, 26)}"`
}

/**
 * The version a write names: `If-Match` (one entity tag, or `*` for "whatever is current"), else
 * `version` from the body. A weak tag never matches (RFC 9110 13.1.1 compares If-Match strongly).
 */
export function expectedVersion(
  header: string | string[] | undefined,
  bodyVersion: unknown,
): { any: true } | { tags: string[] } | undefined {
  const text = Array.isArray(header) ? header.join(',') : header
  if (text !== undefined && text.trim() !== '') {
    const tags = parseEntityTags(text)
    if (tags.length === 0)
      throw new HostError('rest_invalid_param', 400, 'Invalid parameter(s): if-match', {
        params: { 'if-match': 'If-Match must be an entity tag in quotes, as the ETag header gave it, or *.' },
      })
    if (tags.includes('*')) return { any: true }
    return { tags }
  }
  if (typeof bodyVersion === 'string' && bodyVersion !== '') {
    const tag = bodyVersion.startsWith('"') ? bodyVersion : `"${bodyVersion}"`
    return { tags: [tag] }
  }
  return undefined
}

export function versionRequired(what: string): PluginError {
  const en = `Name the version of the ${what} you edit: send If-Match with its ETag (or "version" in the body), so that a change made meanwhile is never overwritten.`
  const pl = `Podaj wersję, którą zmieniasz: nagłówek If-Match z wartością ETag (albo pole "version"), aby nie nadpisać zmiany wprowadzonej w międzyczasie.`
  return new PluginError('precondition_required', 428, { message: en, message_en: en, message_pl: pl })
}

export function versionMatches(expected: { any: true } | { tags: string[] }, current: string): boolean {
  return 'any' in expected || expected.tags.includes(current)
}

/** 409 with the current values, so that the client can show them and let the operator decide. */
export function editConflict(what: string, current: Record<string, unknown>, version: string): PluginError {
  const en = `The ${what} was changed meanwhile (by another operator, an import or the webhook); nothing was written. The current values are in "current": apply your change to them and send it with their version.`
  const pl = `W międzyczasie ktoś zmienił te dane (inny operator, import lub webhook); nic nie zapisano. Aktualne wartości są w polu "current": nanieś na nie swoją zmianę i wyślij ją z ich wersją.`
  return new PluginError(
    'edit_conflict',
    409,
    { message: en, message_en: en, message_pl: pl, version, current },
    { ETag: version },
  )
}
