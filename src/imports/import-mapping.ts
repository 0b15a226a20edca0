/*
 * The mapping of an import's columns to canonical fields and offer custom fields, and its mode.
 */
import { isDeniedKey } from '../host/meta/exposure-rules.js'
import type { MetaRegistry, MetaType } from '../host/meta/meta-registry.js'
import { PluginError } from '../host/errors.js'
import { CANONICAL_FIELDS, isCanonicalField } from '../offers/canonical-fields.js'
import { META_FIELD_PREFIX } from '../offers/validation/meta-values.js'
import type { ImportMode } from '../offers/validation/validate-offer-row.js'

/** Whether a mapping (as given, or as a job keeps it) fills custom fields. */
export function mapsCustomFields(mapping: Record<string, string> | string): boolean {
  const fields = typeof mapping === 'string' ? (JSON.parse(mapping) as Record<string, string>) : mapping
  return Object.keys(fields).some((field) => field.startsWith(META_FIELD_PREFIX))
}

/** The registered type of each custom field the mapping fills (what the file's validator needs). */
export function mappedMetaTypes(mapping: Record<string, string>, meta: MetaRegistry): Record<string, MetaType> {
  const types: Record<string, MetaType> = {}
  for (const field of Object.keys(mapping)) {
    if (!field.startsWith(META_FIELD_PREFIX)) continue
    const key = field.slice(META_FIELD_PREFIX.length)
    const registered = meta.get('dg_property', key)
    if (registered) types[key] = registered.type
  }
  return types
}

/**
 * The mapping of an import: canonical field → column header, and `meta:<key>` → column header for
 * an offer custom field registered by code or an extension (`meta`; docs/decisions/extensions.md). Keys nobody
 * registered, and keys the catalog never exposes, are refused like unknown fields.
 */
export function parseMapping(raw: unknown, meta?: MetaRegistry): Record<string, string> {
  let value = raw
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw)
    } catch {
      throw new PluginError('invalid_mapping', 400, {
        message: 'mapping must be a JSON object: canonical field name → column header',
      })
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new PluginError('invalid_mapping', 400, {
      message: 'mapping must be a JSON object: canonical field name → column header',
    })
  }
  const mapping: Record<string, string> = {}
  const problems: string[] = []
  for (const [field, header] of Object.entries(value)) {
    if (field.startsWith(META_FIELD_PREFIX)) {
      const key = field.slice(META_FIELD_PREFIX.length)
      if (!meta?.get('dg_property', key) || isDeniedKey(key)) {
        const registered = (meta?.list('dg_property') ?? []).map((m) => m.key).filter((k) => !isDeniedKey(k))
        problems.push(
          `"${field}" names no registered custom field of offers (registered: ${registered.length > 0 ? registered.join(', ') : 'none; see DG_EXTENSIONS'})`,
        )
        continue
      }
    } else if (!isCanonicalField(field)) {
      problems.push(
        `"${field}" is not a canonical field (known: ${CANONICAL_FIELDS.join(', ')}) nor a custom field (meta:<key>)`,
      )
      continue
    }
    if (typeof header !== 'string' || header.trim() === '') problems.push(`"${field}" must name a column header`)
    else mapping[field] = header
  }
  for (const required of ['source_investment_id', 'source_property_id']) {
    if (!(required in mapping)) problems.push(`"${required}" must be mapped`)
  }
  if (problems.length > 0) throw new PluginError('invalid_mapping', 400, { message: problems.join('; '), problems })
  return mapping
}

export function parseMode(raw: unknown): ImportMode {
  if (raw === undefined || raw === '' || raw === 'patch') return 'patch'
  if (raw === 'snapshot') return 'snapshot'
  throw new PluginError('invalid_mode', 400, { message: 'mode must be patch or snapshot' })
}
