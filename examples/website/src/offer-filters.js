// @ts-check
/*
 * The offer list's filters as the visitor types them (Polish parameter names, prices in złoty,
 * areas with a comma) turned into the catalog's query (prices in grosze, areas as
 * decimal text). A value that is not understood is left out and named to the visitor, so the
 * catalog is never asked with a value it would refuse.
 */

export const STATUS_OPTIONS = [
  ['available', 'Dostępne'],
  ['reserved', 'Zarezerwowane'],
  ['sold', 'Sprzedane'],
  ['unavailable', 'Niedostępne'],
]

export const TYPE_OPTIONS = [
  ['mieszkanie', 'Mieszkanie'],
  ['dom', 'Dom'],
  ['parking_space', 'Miejsce postojowe'],
  ['garage', 'Garaż'],
  ['storage_room', 'Komórka lokatorska'],
  ['other', 'Inne'],
]

export const SORT_OPTIONS = [
  ['price', 'Cena'],
  ['area', 'Powierzchnia'],
  ['title', 'Nazwa'],
  ['modified', 'Data zmiany'],
]

/** The query parameters the offer list reads (and keeps in its links). */
export const FILTER_FIELDS = /** @type {const} */ ([
  'inwestycja',
  'typ',
  'status',
  'pokoje',
  'pietro',
  'pow_od',
  'pow_do',
  'cena_od',
  'cena_do',
  'szukaj',
  'sortuj',
  'kolejnosc',
  'widok',
])

/**
 * Złoty as typed (`450 000`, `450000,50`, `450.000`?) → grosze; undefined when not a plain amount.
 * @param {string} text
 */
export function zlotyToGrosze(text) {
  const compact = text.replace(/[\s\u00a0]/g, '').replace(/zł$/i, '')
  const match = /^(\d{1,9})(?:[.,](\d{1,2}))?$/.exec(compact)
  if (!match) return undefined
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'))
}

/** @param {string} text */
function wholeNumber(text, min = -20, max = 300) {
  if (!/^-?\d{1,9}$/.test(text.trim())) return undefined
  const value = Number(text.trim())
  return value >= min && value <= max ? value : undefined
}

/** @param {string} text */
function areaText(text) {
  const compact = text.replace(/\s/g, '').replace(/m2$|m²$/i, '')
  return /^\d{1,7}([.,]\d{1,2})?$/.test(compact) ? compact.replace(',', '.') : undefined
}

/**
 * @typedef {object} OfferFilters
 * @property {import('dg-offers/client').PropertyQuery} query what the catalog is asked
 * @property {Record<string, string>} form the values as typed, to show them again
 * @property {string[]} problems what was not understood, in Polish
 * @property {'tabela' | 'siatka'} view
 * @property {number} page
 */

/**
 * @param {URLSearchParams} params
 * @param {{ perPage: number, investment?: number }} options
 * @returns {OfferFilters}
 */
export function readOfferFilters(params, options) {
  /** @type {Record<string, string>} */
  const form = {}
  for (const field of FILTER_FIELDS) form[field] = (params.get(field) ?? '').slice(0, 100)
  /** @type {string[]} */
  const problems = []
  /** @type {import('dg-offers/client').PropertyQuery} */
  const query = { per_page: options.perPage }

  const investment = options.investment ?? wholeNumber(form.inwestycja ?? '', 1, 1_000_000)
  if (investment !== undefined) query.investment = investment
  else if (form.inwestycja) problems.push('Nie ma takiej inwestycji.')

  if (TYPE_OPTIONS.some(([code]) => code === form.typ)) query.type = form.typ
  if (STATUS_OPTIONS.some(([code]) => code === form.status))
    query.status = /** @type {import('dg-offers/client').PropertyQuery['status']} */ (form.status)

  if (form.pokoje) {
    const rooms = wholeNumber(form.pokoje, 0, 100)
    if (rooms === undefined) problems.push('Liczba pokoi musi być liczbą całkowitą.')
    else query.rooms = rooms
  }
  if (form.pietro) {
    const floor = wholeNumber(form.pietro, -20, 300)
    if (floor === undefined) problems.push('Piętro musi być liczbą całkowitą (parter to 0).')
    else query.floor = floor
  }
  for (const [field, key, label] of /** @type {const} */ ([
    ['pow_od', 'area_min', 'Powierzchnia od'],
    ['pow_do', 'area_max', 'Powierzchnia do'],
  ])) {
    if (!form[field]) continue
    const area = areaText(form[field] ?? '')
    if (area === undefined) problems.push(`${label}: podaj liczbę metrów, np. 45,5.`)
    else query[key] = area
  }
  for (const [field, key, label] of /** @type {const} */ ([
    ['cena_od', 'price_min', 'Cena od'],
    ['cena_do', 'price_max', 'Cena do'],
  ])) {
    if (!form[field]) continue
    const grosze = zlotyToGrosze(form[field] ?? '')
    if (grosze === undefined) problems.push(`${label}: podaj kwotę w złotych, np. 450 000.`)
    else query[key] = grosze
  }
  const search = (form.szukaj ?? '').trim()
  if (search) query.search = search.slice(0, 100)

  const sort = SORT_OPTIONS.some(([code]) => code === form.sortuj) ? form.sortuj : 'price'
  query.orderby = /** @type {import('dg-offers/client').PropertyQuery['orderby']} */ (sort)
  query.order = form.kolejnosc === 'malejaco' ? 'DESC' : 'ASC'

  const page = wholeNumber(params.get('strona') ?? '1', 1, 100_000) ?? 1
  query.page = page
  return { query, form, problems, view: form.widok === 'siatka' ? 'siatka' : 'tabela', page }
}

/**
 * This page's address with some parameters changed (empty values dropped).
 * @param {string} path
 * @param {Record<string, string>} form
 * @param {Record<string, string | number>} changes
 */
export function filterLink(path, form, changes) {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries({ ...form, ...changes }))
    if (value !== '' && value !== undefined) params.set(name, String(value))
  const text = params.toString()
  return text ? `${path}?${text}` : path
}
