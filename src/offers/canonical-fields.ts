/*
 * The vocabulary of canonical offer rows (docs/reference/import-format.md is generated from it), shared by the file
 * import, the webhook and the admin editor so that all three accept exactly the same words.
 */

export const CANONICAL_FIELDS = [
  'source_investment_id',
  'source_property_id',
  'prop_no',
  'prop_type',
  'property_status',
  'prop_area',
  'prop_rooms',
  'prop_floor',
  'price_m2',
  'price_m2_from',
  'price_total',
  'price_total_from',
  'price_combined',
  'price_combined_from',
  'price_combined_variant',
  'price_combined_status',
  'proj_voivod',
  'proj_powiat',
  'proj_gmina',
  'proj_city',
  'proj_street',
  'proj_build_no',
  'proj_local_no',
  'proj_zip',
] as const

export type CanonicalField = (typeof CANONICAL_FIELDS)[number]

const CANONICAL_FIELD_SET: ReadonlySet<string> = new Set(CANONICAL_FIELDS)

export function isCanonicalField(name: string): name is CanonicalField {
  return CANONICAL_FIELD_SET.has(name)
}

/**
 * What each field means, for `dg import --help` and the generated import-format reference. Keyed by
 * CanonicalField so that a field added to the vocabulary without a description fails the type check.
 */
export const FIELD_DESCRIPTIONS: Readonly<Record<CanonicalField, string>> = {
  source_investment_id: 'required: the investment’s id in your CRM (the rows of one investment share it)',
  source_property_id: 'required: the offer’s id in your CRM, unique within its investment',
  prop_no: 'designation shown to buyers, e.g. A/1.01',
  prop_type: 'mieszkanie or dom (also lokal mieszkalny, flat, dom jednorodzinny, house)',
  property_status: 'status word, Polish or English: wolne/available, rezerwacja/reserved, sprzedane/sold, …',
  prop_area: 'usable area in m², decimal text: 54,30 or 54.30',
  prop_rooms: 'number of rooms, a whole number ≥ 0',
  prop_floor: 'floor, a whole number, may be negative',
  price_m2: 'gross price per m² in zł, decimal text: 12 000,00 or 12000.00 (never 1.2E4)',
  price_m2_from: 'date the price per m² applies from, YYYY-MM-DD or DD.MM.YYYY (today when left out)',
  price_total: 'gross total price in zł, decimal text; must equal price_m2 × area within rounding',
  price_total_from: 'date the total price applies from (today when left out)',
  price_combined: 'explicit gross price of a configuration (e.g. the flat with a parking space)',
  price_combined_from: 'date the configuration price applies from',
  price_combined_variant: 'id of the configuration variant',
  price_combined_status: 'approval state of the configuration price',
  proj_voivod: 'investment location: voivodeship, e.g. mazowieckie',
  proj_powiat: 'investment location: county (powiat)',
  proj_gmina: 'investment location: municipality (gmina)',
  proj_city: 'investment location: city',
  proj_street: 'investment location: street',
  proj_build_no: 'investment location: building number',
  proj_local_no: 'unit number: checked as text, not stored (the official location has none)',
  proj_zip: 'investment location: postal code NN-NNN',
}

/**
 * What kind of value each field holds. File readers need it to turn typed spreadsheet cells
 * (Excel dates, numeric cells) into the canonical text before validation.
 */
export type FieldFormat =
  | 'identifier'
  | 'text'
  | 'property_type'
  | 'status'
  | 'area'
  | 'integer'
  | 'amount'
  | 'date'
  | 'voivodeship'
  | 'postal_code'

export const FIELD_FORMATS: Readonly<Record<CanonicalField, FieldFormat>> = {
  source_investment_id: 'identifier',
  source_property_id: 'identifier',
  prop_no: 'text',
  prop_type: 'property_type',
  property_status: 'status',
  prop_area: 'area',
  prop_rooms: 'integer',
  prop_floor: 'integer',
  price_m2: 'amount',
  price_m2_from: 'date',
  price_total: 'amount',
  price_total_from: 'date',
  price_combined: 'amount',
  price_combined_from: 'date',
  price_combined_variant: 'text',
  price_combined_status: 'text',
  proj_voivod: 'voivodeship',
  proj_powiat: 'text',
  proj_gmina: 'text',
  proj_city: 'text',
  proj_street: 'text',
  proj_build_no: 'text',
  proj_local_no: 'text',
  proj_zip: 'postal_code',
}

export const OFFER_STATUSES = ['available', 'reserved', 'sold', 'unavailable', 'archived'] as const
export type OfferStatus = (typeof OFFER_STATUSES)[number]

/** The word a file for operators writes for each status; each is among STATUS_SYNONYMS, so the import reads it back. */
export const STATUS_WORDS_PL: Readonly<Record<OfferStatus, string>> = {
  available: 'wolne',
  reserved: 'zarezerwowane',
  sold: 'sprzedane',
  unavailable: 'niedostępne',
  archived: 'archiwalne',
}

export const OFFER_KINDS = ['property', 'standalone_part'] as const
export type OfferKind = (typeof OFFER_KINDS)[number]

export const PROPERTY_TYPES = ['mieszkanie', 'dom'] as const
/** The two types the import and the webhook accept: a flat or a house. */
export type DwellingType = (typeof PROPERTY_TYPES)[number]
export const STANDALONE_PART_TYPES = ['parking_space', 'garage', 'storage_room', 'other'] as const
/** Types of standalone parts: entered in the editor; earlier releases also took them from files. */
export type StandalonePartType = (typeof STANDALONE_PART_TYPES)[number]

export function isStandalonePart(type: string): boolean {
  return (STANDALONE_PART_TYPES as readonly string[]).includes(type)
}
export type PropertyType = DwellingType | StandalonePartType
/**
 * The stored `property_type` of an offer that has no legal qualification yet: a new offer sent
 * without a type, never given one by guessing (docs/integration/import.md). The column is NOT NULL.
 */
export const UNQUALIFIED_PROPERTY_TYPE = ''

/** What the validator makes of a `prop_type` it accepts: always a flat or a house. */
export interface OfferTypeCode {
  offerKind: 'property'
  propertyType: DwellingType
}

/**
 * Words as operators and CRMs write them. Matching ignores case, diacritics, `_`/`-` and repeated
 * spaces (see `normalizeWord`), so each entry covers `Wolne`, `WOLNE` and `wolne` alike.
 * Words whose meaning is not certain are left out on purpose: an unknown word is a row error the
 * operator fixes once, a wrong guess is a wrong public offer.
 */
export const STATUS_SYNONYMS: Readonly<Record<OfferStatus, readonly string[]>> = {
  available: [
    'available',
    'free',
    'for sale',
    'wolne',
    'wolny',
    'wolna',
    'dostępne',
    'dostępny',
    'dostępna',
    'w sprzedaży',
    'na sprzedaż',
  ],
  reserved: ['reserved', 'rezerwacja', 'w rezerwacji', 'zarezerwowane', 'zarezerwowany', 'zarezerwowana'],
  sold: ['sold', 'sprzedane', 'sprzedany', 'sprzedana'],
  unavailable: [
    'unavailable',
    'not available',
    'withdrawn',
    'niedostępne',
    'niedostępny',
    'niedostępna',
    'wycofane',
    'wycofany',
    'wycofana',
  ],
  archived: ['archived', 'archiwalne', 'archiwalny', 'archiwalna', 'zarchiwizowane', 'zarchiwizowany'],
}

/*
 * The types the import and the webhook accept, in the words operators and CRMs use.
 * Only unambiguous names: "apartament" is left out because in Polish sales it also names
 * non-residential units (lokal użytkowy), and legal qualification is never guessed. "lokal
 * mieszkalny" and "dom jednorodzinny" are the official dataset's own words.
 */
export const PROPERTY_TYPE_SYNONYMS: Readonly<Record<DwellingType, readonly string[]>> = {
  mieszkanie: ['mieszkanie', 'lokal mieszkalny', 'flat'],
  dom: ['dom', 'dom jednorodzinny', 'house'],
}

/*
 * Words that name what the import and the webhook do not accept as a type: standalone parts,
 * appurtenant rooms and non-residential units (docs/reference/import-format.md: they are entered in the
 * editor). They are refused like any other word other than a flat or a house; knowing them only
 * gives the refusal its own code (`prop_type_not_allowed` instead of `invalid_enum`), so a sender
 * can tell "send this through the editor" from "a typing mistake". The stored codes of standalone
 * parts (`parking_space`, …) are among them.
 */
export const NOT_ALLOWED_TYPE_WORDS: readonly string[] = [
  ...STANDALONE_PART_TYPES,
  'standalone part',
  'część samodzielna',
  'parking space',
  'parking',
  'miejsce postojowe',
  'miejsce parkingowe',
  'miejsce garażowe',
  'stanowisko postojowe',
  'garaż',
  'komórka lokatorska',
  'komórka',
  'storage room',
  'piwnica',
  'pomieszczenie przynależne',
  'pomieszczenie gospodarcze',
  'pomieszczenie pomocnicze',
  'lokal użytkowy',
  'lokal usługowy',
  'inne',
  'inny',
  'inna',
]

/** The 16 voivodeships, in the lowercase form the official dataset uses. */
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
] as const
export type Voivodeship = (typeof VOIVODESHIPS)[number]

/**
 * Folds a word to the form synonym tables are keyed by: lowercase, no diacritics (`ł` has no
 * decomposition, so it is mapped by hand), `_` and `-` read as spaces, whitespace collapsed.
 */
export function normalizeWord(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[łŁ]/g, 'l')
    .toLowerCase()
    .replace(/[_-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
}

function indexSynonyms<T extends string>(table: Readonly<Record<T, readonly string[]>>): ReadonlyMap<string, T> {
  const index = new Map<string, T>()
  for (const [code, words] of Object.entries(table) as [T, readonly string[]][]) {
    for (const word of [code, ...words]) {
      const key = normalizeWord(word)
      const existing = index.get(key)
      // a word that meant two things would make the result depend on table order
      if (existing !== undefined && existing !== code) throw new Error(`synonym "${word}" is ambiguous`)
      index.set(key, code)
    }
  }
  return index
}

const STATUS_INDEX = indexSynonyms(STATUS_SYNONYMS)
const PROPERTY_TYPE_INDEX = indexSynonyms(PROPERTY_TYPE_SYNONYMS)
const NOT_ALLOWED_TYPE_INDEX: ReadonlySet<string> = new Set(NOT_ALLOWED_TYPE_WORDS.map(normalizeWord))
// a word in both lists would be accepted and refused at once
for (const word of PROPERTY_TYPE_INDEX.keys())
  if (NOT_ALLOWED_TYPE_INDEX.has(word)) throw new Error(`type word "${word}" is both accepted and refused`)
const VOIVODESHIP_INDEX: ReadonlyMap<string, Voivodeship> = new Map(
  VOIVODESHIPS.map((name) => [normalizeWord(name), name]),
)

/*
 * Files repeat the same few words in every row, and folding a word (NFD, several regexes) costs
 * more than the rest of a cell's validation, so results are remembered per raw text. The cache is
 * dropped when full so that a file of random words cannot grow it without bound.
 */
function memoize<T>(lookup: (text: string) => T): (text: string) => T {
  const cache = new Map<string, T>()
  return (text) => {
    const cached = cache.get(text)
    if (cached !== undefined || cache.has(text)) return cached as T
    const result = lookup(text)
    if (cache.size >= 1024) cache.clear()
    cache.set(text, result)
    return result
  }
}

export const lookupStatus: (text: string) => OfferStatus | undefined = memoize((text) =>
  STATUS_INDEX.get(normalizeWord(text)),
)

/** A flat or a house (`mieszkanie`, `dom` or their synonyms), or undefined for any other word. */
export const lookupPropertyType: (text: string) => OfferTypeCode | undefined = memoize((text) => {
  const propertyType = PROPERTY_TYPE_INDEX.get(normalizeWord(text))
  // frozen because every caller receives the same cached object
  return propertyType === undefined ? undefined : Object.freeze({ offerKind: 'property', propertyType })
})

/*
 * The types only the editor takes (docs/reference/import-format.md): a standalone part sold on its own, by its
 * stored code or its name in the official file (`Miejsce postojowe`, …) or in English.
 */
export const STANDALONE_PART_TYPE_SYNONYMS: Readonly<Record<StandalonePartType, readonly string[]>> = {
  parking_space: ['miejsce postojowe', 'parking space'],
  garage: ['garaż', 'garage'],
  storage_room: ['komórka lokatorska', 'storage room'],
  other: ['inna część nieruchomości', 'other part'],
}
const STANDALONE_PART_TYPE_INDEX = indexSynonyms(STANDALONE_PART_TYPE_SYNONYMS)
for (const word of STANDALONE_PART_TYPE_INDEX.keys())
  if (PROPERTY_TYPE_INDEX.has(word)) throw new Error(`type word "${word}" names a dwelling and a part`)

/** What the editor makes of a type it accepts: a flat, a house, or a standalone part. */
export type EditorTypeCode = OfferTypeCode | { offerKind: 'standalone_part'; propertyType: StandalonePartType }

/** A flat, a house or a standalone part (the editor's types), or undefined for any other word. */
export const lookupEditorPropertyType: (text: string) => EditorTypeCode | undefined = memoize((text) => {
  const dwelling = lookupPropertyType(text)
  if (dwelling !== undefined) return dwelling
  const part = STANDALONE_PART_TYPE_INDEX.get(normalizeWord(text))
  return part === undefined ? undefined : Object.freeze({ offerKind: 'standalone_part', propertyType: part })
})

/** Whether a word names a standalone part, an appurtenant room or a non-residential unit (see NOT_ALLOWED_TYPE_WORDS). */
export const isNotAllowedTypeWord: (text: string) => boolean = memoize((text) =>
  NOT_ALLOWED_TYPE_INDEX.has(normalizeWord(text)),
)

/** A flat's or a house's stored type, as opposed to a standalone part's or an unqualified offer's. */
export function isDwellingType(type: string): type is DwellingType {
  return type === 'mieszkanie' || type === 'dom'
}

/** Accepts any case, with or without diacritics, optionally prefixed by `województwo` or `woj.`. */
export const lookupVoivodeship: (text: string) => Voivodeship | undefined = memoize((text) =>
  VOIVODESHIP_INDEX.get(normalizeWord(text).replace(/^(?:wojewodztwo|woj\.)\s*/, '')),
)
