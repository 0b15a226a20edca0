// The column assignment of an offer file (offer field → the file's column header), as the offer
// import and a scheduled source both edit it: a field per canonical column with the file's headers
// offered as suggestions, each assignment to a column the file lacks marked beside its field, and
// the fields matched from a header row by name. The header row comes from the caller (a CSV read in
// the browser, a workbook read by the server, a source's file fetched by the server).
import { h } from '../dom.js'
import { tr } from '../i18n.js'

/**
 * The canonical fields of an offer row (src/offers/canonical-fields.ts): [field, Polish, English, required].
 * @type {[field: string, pl: string, en: string, required?: boolean][]}
 */
export const FIELDS = [
  ['source_investment_id', 'Identyfikator inwestycji', 'Investment id', true],
  ['source_property_id', 'Identyfikator lokalu', 'Unit id', true],
  ['prop_no', 'Numer lokalu', 'Unit number'],
  ['prop_type', 'Rodzaj (mieszkanie albo dom)', 'Type (flat or house)'],
  ['property_status', 'Status (wolne, zarezerwowane, sprzedane…)', 'Status (available, reserved, sold…)'],
  ['prop_area', 'Powierzchnia [m²]', 'Area [m²]'],
  ['prop_rooms', 'Liczba pokoi', 'Rooms'],
  ['prop_floor', 'Piętro', 'Floor'],
  ['price_m2', 'Cena za m²', 'Price per m²'],
  ['price_m2_from', 'Cena za m² obowiązuje od', 'Price per m² valid from'],
  ['price_total', 'Cena całkowita', 'Total price'],
  ['price_total_from', 'Cena całkowita obowiązuje od', 'Total price valid from'],
  ['price_combined', 'Cena z elementami dodatkowymi', 'Price with parts and rooms'],
  ['price_combined_from', 'Cena z elementami obowiązuje od', 'Price with parts valid from'],
  ['price_combined_variant', 'Wariant ceny z elementami', 'Variant of the price with parts'],
  ['price_combined_status', 'Status ceny z elementami', 'State of the price with parts'],
  ['proj_voivod', 'Województwo', 'Voivodeship'],
  ['proj_powiat', 'Powiat', 'County (powiat)'],
  ['proj_gmina', 'Gmina', 'Municipality (gmina)'],
  ['proj_city', 'Miejscowość', 'City'],
  ['proj_street', 'Ulica', 'Street'],
  ['proj_build_no', 'Numer budynku', 'Building number'],
  ['proj_local_no', 'Numer lokalu w adresie', 'Unit number in the address'],
  ['proj_zip', 'Kod pocztowy', 'Postal code'],
]

const FIELD_NAMES = new Map(FIELDS.map(([field, pl, en]) => [field, [pl, en]]))

/** Column headers commonly used in Polish price lists, matched after lower-casing. */
export const HEADER_GUESSES = {
  inwestycja: 'source_investment_id',
  'id inwestycji': 'source_investment_id',
  'id lokalu': 'source_property_id',
  numer: 'prop_no',
  'numer lokalu': 'prop_no',
  rodzaj: 'prop_type',
  status: 'property_status',
  powierzchnia: 'prop_area',
  pokoje: 'prop_rooms',
  'liczba pokoi': 'prop_rooms',
  piętro: 'prop_floor',
  'cena m2': 'price_m2',
  'cena za m2': 'price_m2',
  'cena m2 od': 'price_m2_from',
  cena: 'price_total',
  'cena całkowita': 'price_total',
  'cena od': 'price_total_from',
  miasto: 'proj_city',
  miejscowość: 'proj_city',
  województwo: 'proj_voivod',
  'kod pocztowy': 'proj_zip',
  // the headers of the panel's own export and template (FIELD_LABELS_PL in src/offers/validation/row-errors.ts)
  'identyfikator inwestycji': 'source_investment_id',
  'identyfikator oferty': 'source_property_id',
  'oznaczenie lokalu': 'prop_no',
  'rodzaj oferty': 'prop_type',
  'status oferty': 'property_status',
  'cena za m²': 'price_m2',
  'data obowiązywania ceny za m²': 'price_m2_from',
  'data obowiązywania ceny całkowitej': 'price_total_from',
  'cena z elementami dodatkowymi': 'price_combined',
  'data obowiązywania ceny z elementami dodatkowymi': 'price_combined_from',
  'wariant ceny z elementami dodatkowymi': 'price_combined_variant',
  'status ceny z elementami dodatkowymi': 'price_combined_status',
  powiat: 'proj_powiat',
  gmina: 'proj_gmina',
  ulica: 'proj_street',
  'numer budynku': 'proj_build_no',
}

/** The field a header names: the field itself, a common Polish header, or the field's label in the panel. */
export function guessedField(header) {
  const key = header.trim().toLowerCase()
  if (FIELD_NAMES.has(key)) return key
  if (HEADER_GUESSES[key]) return HEADER_GUESSES[key]
  for (const [field, pl, en] of FIELDS) if (pl.toLowerCase() === key || en.toLowerCase() === key) return field
  return undefined
}

/**
 * The assignment's fields. `present()` answers the file's headers now ([] while none is known: then
 * nothing is marked missing); `listId` names the datalist of those headers the caller keeps.
 * @param {{ initial?: Record<string, unknown>, listId: string, idPrefix?: string, present: () => string[] }} options
 */
export function columnAssignment({ initial = {}, listId, idPrefix = 'map-', present }) {
  const inputs = new Map(
    FIELDS.map(([field]) => [
      field,
      h('input', {
        id: `${idPrefix}${field}`,
        list: listId,
        value: typeof initial[field] === 'string' ? initial[field] : '',
        autocomplete: 'off',
        maxlength: 200,
      }),
    ]),
  )
  const marks = new Map(FIELDS.map(([field]) => [field, h('span', { class: 'mapping-mark' })]))

  function refreshMarks() {
    const headers = present()
    for (const [field, input] of inputs) {
      const value = input.value.trim()
      const missing = value !== '' && headers.length > 0 && !headers.includes(value)
      const mark = /** @type {HTMLElement} */ (marks.get(field))
      mark.textContent = missing ? tr('brak takiej kolumny w pliku', 'no such column in the file') : ''
      input.classList.toggle('invalid', missing)
    }
  }
  for (const input of inputs.values()) input.addEventListener('input', refreshMarks)

  const grid = h(
    'div',
    { class: 'mapping-grid' },
    FIELDS.map(([field, pl, en, required]) =>
      h(
        'div',
        { class: 'mapping-item' },
        h(
          'label',
          { for: `${idPrefix}${field}` },
          h(
            'span',
            {},
            tr(pl, en),
            required ? h('span', { class: 'required', title: tr('wymagane', 'required') }, ' *') : null,
          ),
          h('code', { class: 'mono', title: tr('nazwa pola w API', 'field name in the API') }, field),
        ),
        h('div', {}, inputs.get(field), marks.get(field)),
      ),
    ),
  )

  /** The assignment as the fields hold it. */
  const currentMapping = () => {
    /** @type {Record<string, string>} */
    const mapping = {}
    for (const [field, input] of inputs) if (input.value.trim()) mapping[field] = input.value.trim()
    return mapping
  }
  /** @param {Record<string, unknown>} mapping */
  const setMapping = (mapping) => {
    for (const [field, input] of inputs) input.value = typeof mapping[field] === 'string' ? mapping[field] : ''
    refreshMarks()
  }
  /** Fills the empty fields whose column the headers name; how many were filled. */
  const matchEmpty = (headers) => {
    const assigned = new Set(Object.values(currentMapping()))
    let guessed = 0
    for (const header of headers) {
      const field = guessedField(header)
      const input = field && inputs.get(field)
      if (input && !input.value.trim() && !assigned.has(header)) {
        input.value = header
        assigned.add(header)
        guessed++
      }
    }
    refreshMarks()
    return guessed
  }
  /** The names of the required fields left without a column. */
  const missingRequired = () => {
    const mapping = currentMapping()
    return FIELDS.filter(([field, , , required]) => required && !mapping[field]).map(([, pl, en]) => tr(pl, en))
  }
  return { grid, inputs, refreshMarks, currentMapping, setMapping, matchEmpty, missingRequired }
}
