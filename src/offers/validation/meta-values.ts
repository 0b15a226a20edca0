/*
 * Values of custom fields (registered meta keys, docs/integration/extensions.md) as a file or a form sends them,
 * read by the key's registered type: text, a whole number, a decimal number (comma or dot, spaces
 * between thousands) or a yes/no word. The same error codes as the canonical fields' values, so a
 * preview reads alike whichever column is wrong.
 */
import type { MetaType } from '../../host/meta/meta-registry.js'
import {
  describeValue,
  describeValuePl,
  isBlank,
  parseInteger,
  parseText,
  type ParseFailure,
  type ParseResult,
} from './parse-values.js'

export type MetaScalar = string | number | boolean

/** The mapping name of a custom field in an import (`meta:energy_class`). */
export const META_FIELD_PREFIX = 'meta:'

/** Texts of custom fields are held to the catalog's exposure limit. */
export const META_TEXT_MAX_LENGTH = 2000

const YES = new Set(['tak', 'true', 'yes', 't', 'y', '1'])
const NO = new Set(['nie', 'false', 'no', 'n', '0'])

function failure(code: ParseFailure['code'], en: string, pl: string): ParseFailure {
  return { ok: false, code, message: en, message_pl: pl }
}

export function parseMetaValue(type: MetaType, value: unknown): ParseResult<MetaScalar | null> {
  if (isBlank(value)) return { ok: true, value: null }
  switch (type) {
    case 'string':
      return parseText(value, { maxLength: META_TEXT_MAX_LENGTH })
    case 'integer':
      return parseInteger(value, { min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER })
    case 'number': {
      if (typeof value === 'number' && Number.isFinite(value)) return { ok: true, value }
      const text = typeof value === 'string' ? value.trim().replace(/[\s\u00a0]/g, '') : ''
      if (/^-?\d{1,15}([.,]\d{1,15})?$/.test(text)) return { ok: true, value: Number(text.replace(',', '.')) }
      return failure(
        'invalid_decimal',
        `${describeValue(value)} is not a number (e.g. 12.5 or 12,5)`,
        `${describeValuePl(value)} nie jest liczbą (np. 12,5)`,
      )
    }
    case 'boolean': {
      if (typeof value === 'boolean') return { ok: true, value }
      const word = typeof value === 'string' || typeof value === 'number' ? String(value).trim().toLowerCase() : ''
      if (YES.has(word)) return { ok: true, value: true }
      if (NO.has(word)) return { ok: true, value: false }
      return failure(
        'invalid_enum',
        `${describeValue(value)} is not yes or no (tak/nie, true/false, 1/0)`,
        `${describeValuePl(value)} nie jest odpowiedzią tak/nie (tak/nie, true/false, 1/0)`,
      )
    }
  }
}
