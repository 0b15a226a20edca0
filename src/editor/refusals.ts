/*
 * The editor's refusal of an input: 422 with every problem, shaped as the webhook's
 * `validation_failed` (`issues`, each with its field, a stable code and both texts).
 */
import { PluginError } from '../host/errors.js'
import type { RowError } from '../offers/validation/row-errors.js'

/** 422 with every problem of the input, as the webhook's `validation_failed`; nothing is written. */
export function validationFailed(errors: readonly RowError[]): PluginError {
  const en = 'Nothing was saved: correct the fields listed in "issues".'
  const pl = 'Niczego nie zapisano: popraw pola wymienione w "issues".'
  return new PluginError('validation_failed', 422, {
    message: en,
    message_en: en,
    message_pl: pl,
    issues: errors.map(({ field, code, message, message_pl, message_en }) => ({
      field,
      code,
      message,
      message_pl,
      message_en,
    })),
  })
}
