// What the editor's forms share: a write that names the version it edits (If-Match), the answers
// an operator must understand (422 issues at their fields, 409 with the values stored meanwhile and
// a way to save the change again over them), and the editor of registered custom fields.
import { formatMoney, h, replaceChildren } from '../dom.js'
import { fieldLabel, hostStatusLabel, offerStatusLabel, propertyTypeLabel, visibilityLabel } from './editor-labels.js'
import { tr } from '../i18n.js'
import { conflictBox, errorBox, formField, showFieldErrors, withBusy } from '../ui.js'

const MONEY_FIELDS = new Set(['price_total', 'price_m2', 'price_combined', 'price'])

/** A value as the conflict table shows it: what was typed for the operator's side, labels for codes. */
export function displayValue(field, value, { typed = false } = {}) {
  if (value === null) return tr('— (usunięte)', '— (removed)')
  if (value === undefined || value === '') return '—'
  if (MONEY_FIELDS.has(field)) return typed ? `${value} zł` : formatMoney(value)
  if (field === 'property_status') return offerStatusLabel(value)
  if (field === 'host_status') return hostStatusLabel(value)
  if (field === 'prop_type') return propertyTypeLabel(value)
  if (field === 'visibility') return visibilityLabel(value)
  if (field === 'correction') return value ? tr('tak', 'yes') : tr('nie', 'no')
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/**
 * Rows of the conflict table: each field sent beside the value stored now. `currentOf(field)` reads
 * the stored value (nested fields such as location.city and custom_meta.key included).
 */
export function conflictRowsOf(body, currentOf, labelOf = fieldLabel) {
  const rows = []
  for (const [field, value] of Object.entries(body)) {
    if (field === 'version' || field === 'reason' || field === 'correction') continue
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) {
        const name = `${field}.${key}`
        rows.push({
          label: field === 'custom_meta' ? `${tr('Pole dodatkowe', 'Custom field')} ${key}` : labelOf(name),
          mine: displayValue(name, inner, { typed: true }),
          current: displayValue(name, currentOf(name)),
        })
      }
      continue
    }
    rows.push({
      label: labelOf(field),
      mine: displayValue(field, value, { typed: true }),
      current: displayValue(field, currentOf(field)),
    })
  }
  return rows
}

/**
 * Fields the operator did not touch but someone else changed meanwhile: the form showed their old
 * values, so they are named too (saving again keeps the new ones).
 */
function changedMeanwhile(before, current, watch, body) {
  if (!before) return []
  const sent = new Set(Object.keys(body))
  const rows = []
  for (const field of watch) {
    if (sent.has(field) || sent.has(field.split('.')[0])) continue
    const was = displayValue(field, readField(before, field) ?? undefined)
    const now = displayValue(field, readField(current, field) ?? undefined)
    if (was === now) continue
    rows.push({
      label: fieldLabel(field),
      mine: tr(`bez zmian (było: ${was})`, `not changed by you (was: ${was})`),
      current: now,
    })
  }
  return rows
}

/** Reads a field of an entity, "location.city" and "custom_meta.key" included. */
export function readField(entity, field) {
  if (!entity) return undefined
  const dot = field.indexOf('.')
  if (dot < 0) return entity[field]
  return entity[field.slice(0, dot)]?.[field.slice(dot + 1)]
}

/** Issues no field shows, listed under the error. */
export function issueLines(issues) {
  if (!issues || issues.length === 0) return null
  return h(
    'ul',
    { class: 'issues' },
    issues.map((issue) =>
      h(
        'li',
        { dataset: { code: issue.code ?? '' } },
        h('span', { class: 'issue-pl' }, tr(issue.message_pl ?? issue.message, issue.message_en ?? issue.message)),
      ),
    ),
  )
}

/**
 * Sends a change of an offer or an investment with the version it edits. On success `onSaved(entity)`
 * gets what the server stores now. A 422 shows each issue at its field of `form` (the rest in
 * `message`); a 409 shows the stored values beside the ones sent, to send again over them
 * (`onCurrent` first shows what is stored) or to drop.
 * @param {{
 *   api: any, method: string, path: string, body?: object, version: string, form: HTMLElement,
 *   message: HTMLElement, button?: HTMLButtonElement, onSaved: (entity: any) => unknown,
 *   onCurrent: (entity: any) => unknown, currentOf?: (current: any) => (field: string) => unknown,
 *   rowsOf?: (body: object, current: any) => {label: string, mine: string, current: string}[],
 *   before?: any, watch?: string[],
 * }} options
 * `before` is the entity as the form showed it and `watch` the fields to compare with the stored ones.
 */
export async function sendVersioned(options) {
  const { api, method, path, body, version, form, message, button, onSaved, onCurrent } = options
  replaceChildren(message)
  const request = () =>
    api.request(method, path, {
      ...(body === undefined ? {} : { json: body }),
      headers: { 'If-Match': version },
    })
  try {
    const { body: saved } = button ? await withBusy(button, tr('Zapisywanie…', 'Saving…'), request) : await request()
    await onSaved(saved)
    return saved
  } catch (error) {
    if (error?.name === 'AbortError') return undefined
    if (error?.code === 'edit_conflict' && error.body?.current) {
      const current = error.body.current
      const rows = options.rowsOf
        ? options.rowsOf(body ?? {}, current)
        : conflictRowsOf(body ?? {}, (field) => readField(current, field))
      rows.push(...changedMeanwhile(options.before, current, options.watch ?? [], body ?? {}))
      replaceChildren(
        message,
        conflictBox({
          rows,
          onReapply: () => sendVersioned({ ...options, version: error.body.version ?? current.version }),
          onDiscard: () => onCurrent(current),
        }),
      )
      message.scrollIntoView({ block: 'nearest' })
      return undefined
    }
    const unplaced = showFieldErrors(form, error?.body?.issues)
    replaceChildren(message, errorBox(error, issueLines(unplaced)))
    return undefined
  }
}

/**
 * The custom fields of an offer or an investment (docs/integration/extensions.md), one input per field an extension
 * registered (GET {base}/custom-fields: key, type, label, description), by its type; a stored key
 * no longer registered is shown to be removed. An emptied field is removed (null).
 * @param {Record<string, unknown>} stored
 * @param {{key: string, type: string, label: string, description: string}[]} definitions
 */
export function customMetaEditor(stored, definitions, idPrefix) {
  const rows = []
  const container = h('div', { class: 'field meta-editor', dataset: { field: 'custom_meta' } })
  const registered = new Set(definitions.map((d) => d.key))
  const has = (key) => Object.hasOwn(stored ?? {}, key)

  for (const definition of definitions) {
    const { key, type } = definition
    const value = has(key) ? stored[key] : undefined
    const id = `${idPrefix}-meta-${key.replace(/[^a-zA-Z0-9_-]/g, '_')}`
    let input
    if (type === 'boolean') {
      input = h(
        'select',
        { id },
        h('option', { value: '' }, tr('— nie podano —', '— not given —')),
        h('option', { value: 'true' }, tr('tak', 'yes')),
        h('option', { value: 'false' }, tr('nie', 'no')),
      )
      input.value = value === true ? 'true' : value === false ? 'false' : ''
    } else
      input = h('input', {
        id,
        autocomplete: 'off',
        inputmode: type === 'string' ? null : type === 'integer' ? 'numeric' : 'decimal',
        value:
          value === undefined || value === null
            ? ''
            : typeof value === 'object'
              ? JSON.stringify(value)
              : String(value),
      })
    const read = () => {
      if (type === 'boolean') return input.value === '' ? null : input.value === 'true'
      const text = input.value.trim()
      if (text === '') return null
      if (type === 'string') return input.value
      const number = Number(text.replace(/\s/g, '').replace(',', '.'))
      // an unreadable number goes as typed: the server says what is wrong with it
      return Number.isFinite(number) ? number : text
    }
    rows.push({ key, changed: () => (read() ?? undefined) !== (value ?? undefined), value: read })
    container.append(
      formField({
        label: definition.label || key,
        input,
        names: `custom_meta.${key}`,
        hint: definition.description || undefined,
        className: 'meta-row',
      }),
    )
  }

  // keys stored but registered no more (an extension removed): they can only be removed
  for (const key of Object.keys(stored ?? {}).filter((k) => !registered.has(k))) {
    const remove = h('input', {
      type: 'checkbox',
      id: `${idPrefix}-meta-remove-${key.replace(/[^a-zA-Z0-9_-]/g, '_')}`,
    })
    rows.push({ key, changed: () => remove.checked, value: () => null })
    container.append(
      formField({
        // the field's key is its only name (no extension registers a label for it): shown as code
        label: [
          tr('Usuń pole ', 'Remove the field '),
          h('code', {}, key),
          tr(
            ` (${displayValue(key, stored[key])}): żadne rozszerzenie tego wdrożenia go nie rejestruje`,
            ` (${displayValue(key, stored[key])}): no extension of this deployment registers it`,
          ),
        ],
        input: remove,
        names: `custom_meta.${key}`,
        className: 'meta-row',
      }),
    )
  }

  if (rows.length === 0)
    container.append(
      h(
        'p',
        { class: 'hint meta-empty' },
        tr(
          'Brak pól dodatkowych: to wdrożenie nie rejestruje żadnych (rozszerzenia w DG_EXTENSIONS).',
          'No custom fields: this deployment registers none (extensions in DG_EXTENSIONS).',
        ),
      ),
    )

  return {
    element: container,
    /** The fields changed (null: removed), or undefined when none. */
    changes() {
      const out = {}
      for (const row of rows) if (row.changed()) out[row.key] = row.value()
      return Object.keys(out).length > 0 ? out : undefined
    },
  }
}
