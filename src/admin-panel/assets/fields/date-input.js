// A date field in dd.mm.rrrr whatever the browser's locale: a browser's own date input follows its
// language (MM/DD/YYYY in one without Polish locale data), so the panel types dates as text. The
// ISO day (RRRR-MM-DD) the API wants is read with isoDate(); '' when empty, null when not a day.
import { h } from '../dom.js'
import { tr } from '../i18n.js'

/** "2026-01-01" → "01.01.2026". */
export function polishDate(iso) {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(iso ?? ''))
  return match ? `${match[3]}.${match[2]}.${match[1]}` : ''
}

/** "1.1.2026", "01.01.2026" or "2026-01-01" → "2026-01-01"; '' for blank; null when not a real day. */
export function parsePolishDate(text) {
  const value = String(text ?? '').trim()
  if (value === '') return ''
  let year, month, day
  let match = /^(\d{1,2})[.\-/ ](\d{1,2})[.\-/ ](\d{4})$/.exec(value)
  if (match) [, day, month, year] = match
  else {
    match = /^(\d{4})-(\d{1,2})-(\d{1,2})$/.exec(value)
    if (!match) return null
    ;[, year, month, day] = match
  }
  const iso = `${year}-${month.padStart(2, '0')}-${day.padStart(2, '0')}`
  const parsed = new Date(`${iso}T00:00:00Z`)
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === iso ? iso : null
}

/**
 * A text field for a day in dd.mm.rrrr. A text that is not a day is refused by the browser's own
 * form check (the form is not sent) with the format named; `min`/`max` (RRRR-MM-DD) bound it.
 * @param {{ id: string, name?: string, value?: string, required?: boolean, min?: string, max?: string }} options
 */
export function dateInput({ id, name, value = '', required = false, min, max }) {
  const input = h('input', {
    id,
    name,
    type: 'text',
    inputmode: 'numeric',
    autocomplete: 'off',
    placeholder: tr('dd.mm.rrrr', 'dd.mm.yyyy'),
    value: polishDate(value),
    required,
    class: 'date-text',
    size: 10,
    maxlength: 10,
  })
  const check = () => {
    const day = parsePolishDate(input.value)
    input.setCustomValidity(
      day === null
        ? tr('Podaj dzień jako dd.mm.rrrr, np. 31.12.2026.', 'Give the day as dd.mm.yyyy, e.g. 31.12.2026.')
        : day && min && day < min
          ? tr(`Najwcześniej ${polishDate(min)}.`, `${polishDate(min)} at the earliest.`)
          : day && max && day > max
            ? tr(`Najpóźniej ${polishDate(max)}.`, `${polishDate(max)} at the latest.`)
            : '',
    )
  }
  input.addEventListener('input', check)
  input.addEventListener('change', check)
  check()
  return input
}

/** The input's day as RRRR-MM-DD; '' when empty, null when it is not a real day. */
export function isoDate(input) {
  return parsePolishDate(input.value)
}

/**
 * The day to send: RRRR-MM-DD, or the text as typed when it is not a day, so the API's own field
 * error ("invalid_date" at that field) says what is wrong.
 */
export function dayOf(input) {
  return isoDate(input) ?? input.value.trim()
}
