// What the editor's forms share: a write that names the version it edits (If-Match), the answers
// an operator must understand (422 issues at their fields, 409 with the values stored meanwhile and
// a way to save the change again over them), and the editor of registered custom fields.
import { formatMoney, h, replaceChildren } from './dom.js'
import { fieldLabel, hostStatusLabel, offerStatusLabel, propertyTypeLabel, visibilityLabel } from './editor-labels.js'
import { tr } from './i18n.js'
import { conflictBox, errorBox, showFieldErrors, withBusy } from './ui.js'

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

let metaRowCount = 0

const META_TYPES = {
  string: ['tekst', 'text'],
  number: ['liczba', 'number'],
  boolean: ['tak / nie', 'yes / no'],
}

function metaTypeOf(value) {
  if (typeof value === 'boolean') return 'boolean'
  if (typeof value === 'number') return 'number'
  return 'string'
}

/**
 * The registered custom fields of an offer or an investment (contract 2.8): the stored ones to
 * change or remove, new ones to add. Which keys exist and their types is the server's to say: an
 * unknown key comes back as an issue at its row, naming the registered ones.
 * @param {Record<string, unknown>} stored
 */
export function customMetaEditor(stored, idPrefix) {
  const rows = []
  const body = h('div', { class: 'meta-rows' })
  const container = h(
    'div',
    { class: 'field meta-editor', dataset: { field: 'custom_meta' }, id: `${idPrefix}-custom-meta` },
    body,
    h('p', { class: 'field-error', id: `${idPrefix}-custom-meta-error`, hidden: true }),
  )

  function addRow(key, value, isStored) {
    const keyInput = h('input', {
      class: 'meta-key',
      value: key,
      readonly: isStored,
      maxlength: 100,
      'aria-label': tr('Nazwa pola', 'Field name'),
      placeholder: tr('nazwa pola', 'field name'),
    })
    const type = h(
      'select',
      { class: 'meta-type', 'aria-label': tr('Rodzaj wartości', 'Kind of value') },
      Object.entries(META_TYPES).map(([code, pair]) => h('option', { value: code }, tr(pair[0], pair[1]))),
    )
    type.value = metaTypeOf(value)
    const textValue = h('input', {
      class: 'meta-value',
      value: typeof value === 'boolean' || value === undefined || value === null ? '' : String(value),
      'aria-label': tr('Wartość', 'Value'),
    })
    const boolValue = h(
      'select',
      { class: 'meta-value-bool', 'aria-label': tr('Wartość', 'Value') },
      h('option', { value: 'true' }, tr('tak', 'yes')),
      h('option', { value: 'false' }, tr('nie', 'no')),
    )
    boolValue.value = value === false ? 'false' : 'true'
    const showValue = () => {
      textValue.hidden = type.value === 'boolean'
      boolValue.hidden = type.value !== 'boolean'
    }
    type.addEventListener('change', showValue)
    showValue()
    const row = {
      stored: isStored,
      removed: false,
      original: value,
      keyInput,
      value() {
        if (type.value === 'boolean') return boolValue.value === 'true'
        const text = textValue.value.trim()
        if (type.value === 'number') {
          const number = Number(text.replace(/\s/g, '').replace(',', '.'))
          // an unreadable number goes as typed: the server says what is wrong with it
          return text !== '' && Number.isFinite(number) ? number : text
        }
        return textValue.value
      },
    }
    const remove = h('button', { type: 'button', class: 'button button-quiet meta-remove' }, tr('Usuń', 'Remove'))
    const field = h(
      'div',
      { class: 'field meta-row', dataset: { field: isStored ? `custom_meta.${key}` : '' } },
      h('div', { class: 'meta-inputs' }, keyInput, type, textValue, boolValue, remove),
      h('p', { class: 'field-error', id: `${idPrefix}-meta-${++metaRowCount}-error`, hidden: true }),
    )
    remove.addEventListener('click', () => {
      if (!isStored) {
        field.remove()
        rows.splice(rows.indexOf(row), 1)
        return
      }
      row.removed = !row.removed
      field.classList.toggle('meta-removed', row.removed)
      remove.textContent = row.removed ? tr('Przywróć', 'Keep') : tr('Usuń', 'Remove')
    })
    keyInput.addEventListener('input', () => {
      field.dataset.field = `custom_meta.${keyInput.value.trim()}`
    })
    row.field = field
    rows.push(row)
    body.querySelector('.meta-empty')?.remove()
    body.append(field)
  }

  for (const [key, value] of Object.entries(stored ?? {})) addRow(key, value, true)
  const add = h(
    'button',
    { type: 'button', class: 'button button-quiet', id: `${idPrefix}-add-meta`, onclick: () => addRow('', '', false) },
    tr('+ Dodaj pole dodatkowe', '+ Add a custom field'),
  )
  container.insertBefore(add, container.querySelector(':scope > .field-error'))
  if (rows.length === 0)
    body.append(
      h(
        'p',
        { class: 'hint meta-empty' },
        tr(
          'Brak pól dodatkowych. Dostępne pola rejestruje rozszerzenie wdrożenia.',
          'No custom fields. The fields available are registered by an extension of the deployment.',
        ),
      ),
    )

  return {
    element: container,
    /** The fields changed, added or removed (null), or undefined when none. */
    changes() {
      const out = {}
      for (const row of rows) {
        const key = row.keyInput.value.trim()
        if (!key) continue
        if (row.removed) out[key] = null
        else {
          const value = row.value()
          if (!row.stored || value !== row.original) out[key] = value
        }
      }
      return Object.keys(out).length > 0 ? out : undefined
    },
  }
}
