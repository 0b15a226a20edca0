// What the catalog editor's views call things, in Polish and English: the operator sees "Cena za
// m²" and "zarezerwowane", never price_m2 or reserved. The API's codes stay the values sent.
import { badge, h } from '../dom.js'
import { language, tr } from '../i18n.js'

const pick = (table, code, fallback = code) => {
  const pair = table[code]
  return pair ? tr(pair[0], pair[1]) : (fallback ?? '—')
}

export const OFFER_STATUSES = {
  available: ['wolne', 'available'],
  reserved: ['zarezerwowane', 'reserved'],
  sold: ['sprzedane', 'sold'],
  unavailable: ['niedostępne', 'unavailable'],
  archived: ['zarchiwizowane', 'archived'],
}
const OFFER_STATUS_TONES = { available: 'ok', reserved: 'warn', sold: 'info', archived: 'neutral' }

export const HOST_STATUSES = {
  publish: ['opublikowana', 'published'],
  draft: ['szkic', 'draft'],
  private: ['prywatna', 'private'],
  trash: ['w koszu', 'in the trash'],
}
/** An investment's: also `pending`, one an import made without its location (off the website until published). */
export const INVESTMENT_HOST_STATUSES = {
  ...HOST_STATUSES,
  pending: ['czeka na lokalizację', 'awaiting its location'],
}
const HOST_STATUS_TONES = { publish: 'ok', draft: 'info', trash: 'error', pending: 'warn' }

export const VISIBILITIES = {
  public: ['publiczna', 'public'],
  private: ['prywatna', 'private'],
}

/** Types of an offer: a flat or a house (with components), or a part sold on its own. */
export const PROPERTY_TYPES = {
  mieszkanie: ['Mieszkanie', 'Flat'],
  dom: ['Dom', 'House'],
  parking_space: ['Miejsce postojowe (sprzedawane osobno)', 'Parking space (sold on its own)'],
  garage: ['Garaż (sprzedawany osobno)', 'Garage (sold on its own)'],
  storage_room: ['Komórka lokatorska (sprzedawana osobno)', 'Storage room (sold on its own)'],
  other: ['Inna część (sprzedawana osobno)', 'Other part (sold on its own)'],
}

/** Components of a flat or a house; `custom` names its own kind (group and kind_label). */
export const COMPONENT_KINDS = {
  parking_space: ['Miejsce postojowe', 'Parking space'],
  garage: ['Garaż', 'Garage'],
  storage_room: ['Komórka lokatorska', 'Storage room'],
  other_room: ['Inne pomieszczenie przynależne', 'Other appurtenant room'],
  custom: ['Inny rodzaj (własna nazwa)', 'Another kind (own name)'],
}

export const COMPONENT_GROUPS = {
  part: ['część nieruchomości (kolumny 44–47)', 'part of the property (columns 44–47)'],
  appurtenant_room: ['pomieszczenie przynależne (kolumny 48–51)', 'appurtenant room (columns 48–51)'],
  right: ['prawo (kolumny 52–54)', 'right (columns 52–54)'],
  other_payment: ['inne świadczenie (kolumny 55–57)', 'other payment (columns 55–57)'],
}

export const RECORD_TYPES = {
  first: ['pierwsza cena', 'first price'],
  change: ['zmiana ceny', 'price change'],
  withdrawal: ['wycofanie ceny', 'price withdrawn'],
  correction: ['korekta ceny', 'price correction'],
}

export const PRICE_TYPES = {
  total: ['Cena całkowita', 'Total price'],
  m2: ['Cena za m²', 'Price per m²'],
  combined: ['Cena z elementami dodatkowymi', 'Price with parts and rooms'],
  component: ['Cena elementu', 'Component price'],
}

export const CHANNELS = {
  editor: ['panel (edytor)', 'panel (editor)'],
  import: ['import pliku', 'file import'],
  webhook: ['webhook', 'webhook'],
}

/** Fields of an offer and an investment as the forms name them. */
export const FIELD_LABELS = {
  prop_no: ['Oznaczenie lokalu', 'Designation'],
  title: ['Tytuł', 'Title'],
  prop_type: ['Rodzaj oferty', 'Type of offer'],
  property_status: ['Status oferty', 'Offer status'],
  host_status: ['Status publikacji', 'Publication status'],
  prop_area: ['Powierzchnia (m²)', 'Area (m²)'],
  prop_rooms: ['Liczba pokoi', 'Rooms'],
  prop_floor: ['Piętro', 'Floor'],
  building: ['Budynek', 'Building'],
  variant: ['Wariant', 'Variant'],
  price_total: ['Cena całkowita', 'Total price'],
  price_total_from: ['Cena całkowita obowiązuje od', 'Total price valid from'],
  price_m2: ['Cena za m²', 'Price per m²'],
  price_m2_from: ['Cena za m² obowiązuje od', 'Price per m² valid from'],
  price_combined: ['Cena z elementami dodatkowymi', 'Price with parts and rooms'],
  price_combined_from: ['Cena z elementami obowiązuje od', 'Price with parts valid from'],
  price_combined_variant: ['Wariant ceny z elementami', 'Variant of the price with parts'],
  price_combined_status: ['Status ceny z elementami', 'State of the price with parts'],
  source_property_id: ['Identyfikator w systemie źródłowym', 'Id in the source system'],
  investment_id: ['Inwestycja', 'Investment'],
  reason: ['Powód zmiany ceny', 'Reason for the price change'],
  correction: ['Korekta błędnej ceny', 'Correction of a wrong price'],
  slug: ['Adres (slug)', 'Address part (slug)'],
  content: ['Opis', 'Description'],
  excerpt: ['Zajawka', 'Excerpt'],
  visibility: ['Widoczność', 'Visibility'],
  developer_id: ['Deweloper (podmiot publikujący)', 'Developer (publishing entity)'],
  source_id: ['Identyfikator w systemie źródłowym', 'Id in the source system'],
  prospectus_url: ['Adres prospektu informacyjnego', 'Prospectus address'],
  'location.voivodeship': ['Województwo', 'Voivodeship'],
  'location.powiat': ['Powiat', 'County (powiat)'],
  'location.gmina': ['Gmina', 'Municipality (gmina)'],
  'location.city': ['Miejscowość', 'City'],
  'location.street': ['Ulica', 'Street'],
  'location.building_no': ['Numer budynku', 'Building number'],
  'location.postal_code': ['Kod pocztowy', 'Postal code'],
  kind: ['Rodzaj elementu', 'Kind'],
  group: ['Grupa w pliku urzędowym', 'Block of the official file'],
  kind_label: ['Nazwa rodzaju', 'Name of the kind'],
  designation: ['Oznaczenie', 'Designation'],
  description: ['Opis', 'Description'],
  price: ['Cena', 'Price'],
  price_from: ['Cena obowiązuje od', 'Price valid from'],
  relation: ['Związek z lokalem', 'Relation to the flat'],
  requirement: ['Wymóg nabycia', 'Purchase requirement'],
  legal_title: ['Tytuł prawny', 'Legal title'],
}

export const VOIVODESHIPS = [
  'dolnośląskie',
  'kujawsko-pomorskie',
  'lubelskie',
  'lubuskie',
  'łódzkie',
  'małopolskie',
  'mazowieckie',
  'opolskie',
  'podkarpackie',
  'podlaskie',
  'pomorskie',
  'śląskie',
  'świętokrzyskie',
  'warmińsko-mazurskie',
  'wielkopolskie',
  'zachodniopomorskie',
]

/** The grammatical gender of each kind of unit: "Dom … zarezerwowany", "Komórka … zarezerwowana". */
const MASCULINE = new Set(['dom', 'garage'])
const FEMININE = new Set(['storage_room', 'other'])

/**
 * An offer's status in words. Without a kind: the neuter (also the plural) Polish form, as for a
 * flat or a count of offers ("wolne"); with one, agreeing with it ("Dom: wolny").
 */
export const offerStatusLabel = (code, propertyType) => {
  const label = pick(OFFER_STATUSES, code)
  if (language() === 'en' || !Object.hasOwn(OFFER_STATUSES, code) || !label.endsWith('e')) return label
  if (MASCULINE.has(propertyType)) return `${label.slice(0, -1)}y`
  if (FEMININE.has(propertyType)) return `${label.slice(0, -1)}a`
  return label
}
export const hostStatusLabel = (code) => pick(INVESTMENT_HOST_STATUSES, code)
export const visibilityLabel = (code) => pick(VISIBILITIES, code)
/** `short`: without "(sold on its own)", for tables where the row is the part itself. */
export const propertyTypeLabel = (code, { short = false } = {}) => {
  if (!code) return tr('bez rodzaju', 'without type')
  const label = pick(PROPERTY_TYPES, code)
  return short ? label.replace(/ \(.*\)$/, '') : label
}
export const componentKindLabel = (code) => pick(COMPONENT_KINDS, code)
export const componentGroupLabel = (code) => pick(COMPONENT_GROUPS, code)
export const recordTypeLabel = (code) => pick(RECORD_TYPES, code)
export const priceTypeLabel = (code) => pick(PRICE_TYPES, code)
export const channelLabel = (code) => (code ? pick(CHANNELS, code) : tr('dane początkowe', 'initial data'))
export const fieldLabel = (field) => pick(FIELD_LABELS, field)

/** Badges keep their code in data-* (for support and tests). */
export function offerStatusBadge(code, propertyType) {
  const element = badge(offerStatusLabel(code, propertyType), OFFER_STATUS_TONES[code] ?? 'neutral')
  element.dataset.status = code
  return element
}

export function hostStatusBadge(code) {
  const element = badge(hostStatusLabel(code), HOST_STATUS_TONES[code] ?? 'neutral')
  element.dataset.hostStatus = code
  return element
}

/**
 * <option>s of a label table, the current language's words.
 * @param {Record<string, string[]>} table
 * @param {{ selected?: string, blank?: string }} [options]
 */
export function optionsOf(table, { selected, blank } = {}) {
  const options = blank === undefined ? [] : [h('option', { value: '' }, blank)]
  for (const [code, pair] of Object.entries(table))
    options.push(h('option', { value: code, selected: code === selected }, tr(pair[0], pair[1])))
  return options
}

/** The address's part after "#/section" as path segments and query: #/oferty/12?x=1 → (['oferty','12'], {x:'1'}). */
export function hashRoute() {
  const [path, query = ''] = location.hash.replace(/^#\/?/, '').split('?')
  return { segments: path.split('/').filter(Boolean), params: new URLSearchParams(query) }
}

/** Keeps a list's filters and page in the address without drawing the view again (no hashchange). */
export function replaceHashQuery(section, params) {
  const query = params.toString()
  history.replaceState(null, '', `#/${section}${query ? `?${query}` : ''}`)
}
