/*
 * The daily file of the official publication: one CSV per day in the ministry's 58-column layout.
 * This module is pure (no database, no clock, no file system): the pipeline maps catalog rows to
 * DailyCsvInput and writes the returned bytes. Same input → same bytes, because the file is
 * compared byte for byte with golden files and its MD5 is recorded with the publication.
 */
import {
  OFFICIAL_COLUMN_COUNT,
  OFFICIAL_COLUMN_INDEX,
  OFFICIAL_HEADER_LINE,
  type OfficialColumnKey,
} from './official-columns.js'
import { slugify } from '../../catalog/presentation.js'

/** The template's sign for "filling the position is impossible or pointless"; never an empty cell. */
export const NOT_APPLICABLE = 'X'

/*
 * The official template (Wcorcowy_zakres_danych_dotyczących_cen_mieszkań.csv) has LF line ends, no
 * CR anywhere, and an LF after its last row; its bytes are authoritative, so LF it is.
 */
const LINE_END = '\n'
const SEPARATOR = ';'

/** Calendar date `YYYY-MM-DD`. */
export type IsoDate = string

export interface DailyCsvAddress {
  voivodeship: string | null
  powiat: string | null
  gmina: string | null
  city: string | null
  street: string | null
  buildingNo: string | null
  localNo: string | null
  postalCode: string | null
}

/** Official columns 1–28. */
export interface DailyCsvDeveloper {
  name: string
  legalForm: string | null
  krs: string | null
  ceidg: string | null
  nip: string | null
  regon: string | null
  phone: string | null
  email: string | null
  fax: string | null
  website: string | null
  seat: DailyCsvAddress
  salesOffice: DailyCsvAddress
  additionalSalesLocations: string | null
  contactMethod: string | null
}

/** Official columns 29–35: the template has no unit number in this block. */
export type DailyCsvLocation = Omit<DailyCsvAddress, 'localNo'>

export interface DailyCsvInvestment {
  /** Sort key only; never written. */
  id: number
  location: DailyCsvLocation
  /** Official column 58. */
  prospectusUrl: string | null
}

export type ComponentGroupKind = 'part' | 'appurtenant_room' | 'right' | 'other_payment'

export interface DailyCsvComponent {
  groupKind: ComponentGroupKind
  kindLabel: string
  designation: string | null
  priceCents: number | null
  priceFrom: IsoDate | null
  /** Written only for rights and other payments, whose block has no designation column. */
  description: string | null
  /** Order within the offer; when absent the array order is kept. */
  position?: number
}

export type DwellingType = 'mieszkanie' | 'dom'
export type StandalonePartType = 'parking_space' | 'garage' | 'storage_room' | 'other'

export interface DailyCsvOffer {
  /** Last sort key only; never written. */
  id: number
  investment: DailyCsvInvestment
  offerKind: 'property' | 'standalone_part'
  propertyType: DwellingType | StandalonePartType
  code: string
  /** Written as the kind of a standalone part (44 or 48); defaults to STANDALONE_PART_LABELS. */
  kindLabel?: string | null
  /** For a standalone part only the total price (46 or 50) is written; m² and combined prices do not apply. */
  priceM2Cents: number | null
  priceM2From: IsoDate | null
  priceTotalCents: number | null
  priceTotalFrom: IsoDate | null
  priceCombinedCents: number | null
  priceCombinedFrom: IsoDate | null
  components: readonly DailyCsvComponent[]
}

export interface DailyCsvInput {
  date: IsoDate
  companySlug: string
  investmentSlug?: string | null
  developer: DailyCsvDeveloper
  offers: readonly DailyCsvOffer[]
}

export interface DailyCsvFile {
  fileName: string
  content: Buffer
  /** Data rows, header excluded. */
  rowCount: number
}

export type DailyCsvErrorCode =
  | 'invalid_date'
  | 'invalid_money'
  | 'missing_price_date'
  | 'unknown_offer_kind'
  | 'unknown_property_type'
  | 'unknown_component_group'
  | 'invalid_slug'
  | 'column_count'
  | 'empty_cell'

/** Input the official file cannot represent truthfully; the pipeline turns it into a 422 issue. */
export class DailyCsvError extends Error {
  readonly code: DailyCsvErrorCode
  readonly offerId: number | null

  constructor(code: DailyCsvErrorCode, message: string, offerId: number | null = null) {
    super(message)
    this.name = 'DailyCsvError'
    this.code = code
    this.offerId = offerId
  }
}

/** Column 36, spelled as in the official sample rows. */
export const DWELLING_TYPE_LABELS: Readonly<Record<DwellingType, string>> = Object.freeze({
  mieszkanie: 'Lokal mieszkalny',
  dom: 'Dom jednorodzinny',
})

export const STANDALONE_PART_LABELS: Readonly<Record<StandalonePartType, string>> = Object.freeze({
  parking_space: 'Miejsce postojowe',
  garage: 'Garaż',
  storage_room: 'Komórka lokatorska',
  other: 'Inna część nieruchomości',
})

/*
 * The official sample puts parking spaces in the "parts of the property" block and storage rooms in
 * the "appurtenant rooms" block; a garage or another part sold alone follows the parking space.
 */
const STANDALONE_GROUP: Readonly<Record<StandalonePartType, 'part' | 'appurtenant_room'>> = Object.freeze({
  parking_space: 'part',
  garage: 'part',
  storage_room: 'appurtenant_room',
  other: 'part',
})

const GROUP_ORDER: readonly ComponentGroupKind[] = ['part', 'appurtenant_room', 'right', 'other_payment']

/**
 * Amount in grosze as `1234.50`: dot, two decimals, no thousands separator, no currency (the unit
 * is in the header). Built from the digits, so no binary floating point is involved.
 */
export function formatMoney(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) {
    throw new DailyCsvError('invalid_money', `amount must be a non-negative integer number of grosze, got ${cents}`)
  }
  // exact: the remainder and the difference of safe integers are exact, and so is the division
  const grosze = cents % 100
  return `${(cents - grosze) / 100}.${grosze < 10 ? '0' : ''}${grosze}`
}

/** A CSV field: quoted (quotes doubled) only when it holds the separator, a quote, CR or LF. */
export function csvEscape(value: string): string {
  return /[;"\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value
}

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/

/*
 * Every price of a catalog tends to carry one of a few "valid from" dates, so each distinct valid
 * date is proven once; the set is bounded and only ever holds strings that passed the full check.
 */
const PROVEN_DATES = new Set<string>()

export function isIsoDate(value: string): boolean {
  if (PROVEN_DATES.has(value)) return true
  const match = DATE_PATTERN.exec(value)
  if (!match) return false
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const parsed = new Date(Date.UTC(year, month - 1, day))
  const valid = parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day
  if (valid) {
    if (PROVEN_DATES.size >= 4096) PROVEN_DATES.clear()
    PROVEN_DATES.add(value)
  }
  return valid
}

function requireDate(value: string, what: string | (() => string), offerId: number | null): string {
  if (!isIsoDate(value)) {
    const subject = typeof what === 'string' ? what : what()
    throw new DailyCsvError('invalid_date', `${subject}: "${value}" is not a YYYY-MM-DD date`, offerId)
  }
  return value
}

// one transliteration for permalinks and official file names
export { slugify }

/** `ceny-ofertowe-mieszkan-dewelopera-{company}[-{investment}]-{YYYY-MM-DD}.csv` (instruction 1.0.6). */
export function dailyCsvFileName(date: IsoDate, companySlug: string, investmentSlug?: string | null): string {
  requireDate(date, 'publication date', null)
  const company = slugify(companySlug)
  if (company === '') throw new DailyCsvError('invalid_slug', `company name "${companySlug}" has no letters or digits`)
  const investment = investmentSlug == null ? '' : slugify(investmentSlug)
  if (investmentSlug != null && investmentSlug.trim() !== '' && investment === '') {
    throw new DailyCsvError('invalid_slug', `investment name "${investmentSlug}" has no letters or digits`)
  }
  return (
    ['ceny-ofertowe-mieszkan-dewelopera', company, investment, date].filter((part) => part !== '').join('-') + '.csv'
  )
}

/*
 * Codes compare digit runs by value ("A/2" before "A/10") and everything else by UTF-16 code
 * units, so the order never depends on the ICU data of the Node build. The chunks of a code are
 * computed once per offer (codeSortKey), not on every comparison of the sort.
 */
export interface CodeSortKey {
  readonly code: string
  /** Digit runs without their leading zeros, and the runs of everything else, in order. */
  readonly chunks: readonly string[]
}

export function codeSortKey(code: string): CodeSortKey {
  const chunks = code.match(/\d+|\D+/g) ?? []
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i] as string
    if (isDigit(chunk.charCodeAt(0))) chunks[i] = chunk.replace(/^0+(?=\d)/, '')
  }
  return { code, chunks }
}

function isDigit(unit: number): boolean {
  return unit >= 0x30 && unit <= 0x39
}

/*
 * A digit run meeting another kind of run is decided by their first code units, which are a digit
 * and a non-digit, so comparing the run without its leading zeros gives the same answer.
 */
export function compareCodeSortKeys(a: CodeSortKey, b: CodeSortKey): number {
  const shorter = Math.min(a.chunks.length, b.chunks.length)
  for (let i = 0; i < shorter; i++) {
    const x = a.chunks[i] as string
    const y = b.chunks[i] as string
    if (x === y) continue
    const order =
      isDigit(x.charCodeAt(0)) && isDigit(y.charCodeAt(0))
        ? x.length - y.length || compareCodeUnits(x, y)
        : compareCodeUnits(x, y)
    if (order !== 0) return order
  }
  return a.chunks.length - b.chunks.length || compareCodeUnits(a.code, b.code)
}

export function compareOfferCodes(a: string, b: string): number {
  return compareCodeSortKeys(codeSortKey(a), codeSortKey(b))
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/*
 * Columns 1–35 (developer, sales office, investment location) are the same on every row of an
 * investment, so they are escaped, checked and joined once per investment; a row is built as its
 * columns 36–58 only.
 */
const ROW_START = OFFICIAL_COLUMN_INDEX.property_type
const ROW_LENGTH = OFFICIAL_COLUMN_COUNT - ROW_START

/** Columns 36–58 of one line of the file. */
type Row = string[]

function text(value: string | null | undefined): string {
  const trimmed = value?.trim() ?? ''
  return trimmed === '' ? NOT_APPLICABLE : csvEscape(trimmed)
}

function set(row: Row, key: OfficialColumnKey, value: string): void {
  row[OFFICIAL_COLUMN_INDEX[key] - ROW_START] = value
}

function get(row: Row, key: OfficialColumnKey): string {
  return row[OFFICIAL_COLUMN_INDEX[key] - ROW_START] as string
}

/** A price and its "valid from" date: both or neither, since a price without its date is incomplete. */
function setPrice(
  row: Row,
  priceKey: OfficialColumnKey,
  dateKey: OfficialColumnKey,
  cents: number | null,
  from: string | null,
  offer: DailyCsvOffer,
): void {
  if (cents === null) return
  if (!Number.isSafeInteger(cents) || cents < 0) {
    throw new DailyCsvError('invalid_money', `offer ${offer.code}: ${priceKey} is not a non-negative integer`, offer.id)
  }
  if (from === null || from.trim() === '') {
    throw new DailyCsvError('missing_price_date', `offer ${offer.code}: ${priceKey} has no "valid from" date`, offer.id)
  }
  set(row, priceKey, formatMoney(cents))
  set(
    row,
    dateKey,
    requireDate(from, () => `offer ${offer.code}: ${dateKey}`, offer.id),
  )
}

function developerCells(developer: DailyCsvDeveloper): string[] {
  const address = (a: DailyCsvAddress) => [
    a.voivodeship,
    a.powiat,
    a.gmina,
    a.city,
    a.street,
    a.buildingNo,
    a.localNo,
    a.postalCode,
  ]
  return [
    developer.name,
    developer.legalForm,
    developer.krs,
    developer.ceidg,
    developer.nip,
    developer.regon,
    developer.phone,
    developer.email,
    developer.fax,
    developer.website,
    ...address(developer.seat),
    ...address(developer.salesOffice),
    developer.additionalSalesLocations,
    developer.contactMethod,
  ].map(text)
}

function locationCells(location: DailyCsvLocation): string[] {
  return [
    location.voivodeship,
    location.powiat,
    location.gmina,
    location.city,
    location.street,
    location.buildingNo,
    location.postalCode,
  ].map(text)
}

const BLOCK_KEYS = {
  part: ['part_kind', 'part_designation', 'part_price', 'part_price_from'],
  appurtenant_room: ['room_kind', 'room_designation', 'room_price', 'room_price_from'],
  right: ['right_description', null, 'right_value', 'right_value_from'],
  other_payment: ['other_payment_description', null, 'other_payment_value', 'other_payment_value_from'],
} as const satisfies Record<
  ComponentGroupKind,
  readonly [OfficialColumnKey, OfficialColumnKey | null, OfficialColumnKey, OfficialColumnKey]
>

/*
 * Rights and other payments have no designation column: their one column (52, 55) names what the
 * right or payment is, its kind label, as one elementary value ("Wskazówki" point 8). A
 * designation or description stays in the catalog; the official file has no column for it.
 */
function specification(component: DailyCsvComponent): string {
  return component.kindLabel.trim()
}

function fillComponent(row: Row, component: DailyCsvComponent, offer: DailyCsvOffer): void {
  const [kindKey, designationKey, priceKey, dateKey] = BLOCK_KEYS[component.groupKind]
  if (designationKey === null) {
    set(row, kindKey, text(specification(component)))
  } else {
    set(row, kindKey, text(component.kindLabel))
    set(row, designationKey, text(component.designation))
  }
  setPrice(row, priceKey, dateKey, component.priceCents, component.priceFrom, offer)
}

function orderedComponents(offer: DailyCsvOffer): Map<ComponentGroupKind, DailyCsvComponent[]> {
  const indexed = offer.components.map((component, index) => ({ component, index }))
  indexed.sort((a, b) => (a.component.position ?? a.index) - (b.component.position ?? b.index) || a.index - b.index)
  const groups = new Map<ComponentGroupKind, DailyCsvComponent[]>(GROUP_ORDER.map((group) => [group, []]))
  for (const { component } of indexed) {
    const group = groups.get(component.groupKind)
    if (!group) {
      throw new DailyCsvError(
        'unknown_component_group',
        `offer ${offer.code}: unknown component group "${String(component.groupKind)}"`,
        offer.id,
      )
    }
    group.push(component)
  }
  return groups
}

function isStandalonePartType(type: string): type is StandalonePartType {
  return Object.hasOwn(STANDALONE_PART_LABELS, type)
}

function isDwellingType(type: string): type is DwellingType {
  return Object.hasOwn(DWELLING_TYPE_LABELS, type)
}

/**
 * The rows of one offer. The main row holds the offer and the first component of each group whose
 * block is still free; every further component gets a row of its own that repeats columns 1–37 and
 * 58, has `X` in 38–43 and fills only its own block, so no component is ever dropped or summed.
 */
function offerRows(offer: DailyCsvOffer, prospectusUrl: string): Row[] {
  const base = (): Row => {
    const row: Row = new Array<string>(ROW_LENGTH).fill(NOT_APPLICABLE)
    set(row, 'prospectus_url', prospectusUrl)
    return row
  }
  const main = base()
  const occupied = new Set<ComponentGroupKind>()

  if (offer.offerKind === 'property') {
    if (!isDwellingType(offer.propertyType)) {
      throw new DailyCsvError(
        'unknown_property_type',
        `offer ${offer.code}: "${offer.propertyType}" is not a flat or a house`,
        offer.id,
      )
    }
    set(main, 'property_type', DWELLING_TYPE_LABELS[offer.propertyType])
    set(main, 'property_code', text(offer.code))
    setPrice(main, 'price_m2', 'price_m2_from', offer.priceM2Cents, offer.priceM2From, offer)
    setPrice(main, 'price_total', 'price_total_from', offer.priceTotalCents, offer.priceTotalFrom, offer)
    setPrice(main, 'price_combined', 'price_combined_from', offer.priceCombinedCents, offer.priceCombinedFrom, offer)
  } else if (offer.offerKind === 'standalone_part') {
    if (!isStandalonePartType(offer.propertyType)) {
      throw new DailyCsvError(
        'unknown_property_type',
        `offer ${offer.code}: "${offer.propertyType}" is not a standalone part type`,
        offer.id,
      )
    }
    const group = STANDALONE_GROUP[offer.propertyType]
    const kindLabel = offer.kindLabel?.trim() || STANDALONE_PART_LABELS[offer.propertyType]
    fillComponent(
      main,
      {
        groupKind: group,
        kindLabel,
        designation: offer.code,
        priceCents: offer.priceTotalCents,
        priceFrom: offer.priceTotalFrom,
        description: null,
      },
      offer,
    )
    occupied.add(group)
  } else {
    throw new DailyCsvError(
      'unknown_offer_kind',
      `offer ${offer.code}: unknown offer kind "${String(offer.offerKind)}"`,
      offer.id,
    )
  }

  const extra: Row[] = []
  for (const [group, components] of orderedComponents(offer)) {
    components.forEach((component, index) => {
      if (index === 0 && !occupied.has(group)) {
        fillComponent(main, component, offer)
        return
      }
      const row = base()
      set(row, 'property_type', get(main, 'property_type'))
      set(row, 'property_code', get(main, 'property_code'))
      fillComponent(row, component, offer)
      extra.push(row)
    })
  }
  return [main, ...extra]
}

/** Sorted by investment id, then code (digit runs by value), then offer id; each code is split once. */
function sortOffers(offers: readonly DailyCsvOffer[]): DailyCsvOffer[] {
  const keyed = offers.map((offer) => ({ offer, code: codeSortKey(offer.code) }))
  keyed.sort(
    (a, b) =>
      a.offer.investment.id - b.offer.investment.id || compareCodeSortKeys(a.code, b.code) || a.offer.id - b.offer.id,
  )
  return keyed.map((entry) => entry.offer)
}

/*
 * The row rules of the official file, checked on the cells before they are serialized: 58 cells,
 * none empty (X where a value does not apply). The bytes written are checked again by
 * csv-byte-check.ts, so a builder bug is caught on both sides of the serialization.
 */
function checkCells(cells: readonly string[], expected: number, line: number, offer: DailyCsvOffer | null): void {
  if (cells.length !== expected) {
    throw new DailyCsvError(
      'column_count',
      `row ${line} would have ${cells.length - expected + OFFICIAL_COLUMN_COUNT} columns instead of ${OFFICIAL_COLUMN_COUNT}`,
      offer?.id ?? null,
    )
  }
  for (let i = 0; i < cells.length; i++) {
    if (cells[i] === '') {
      throw new DailyCsvError(
        'empty_cell',
        `row ${line} would have an empty cell; X is written instead`,
        offer?.id ?? null,
      )
    }
  }
}

/** Characters of text per piece: big enough for few writes, small enough to stay out of the way. */
const CHUNK_CHARS = 1 << 18

/**
 * Serializes the day's file piece by piece, so the pipeline can hash, check and write it while it
 * is built instead of holding it whole, and read the catalog one investment at a time. Offers are
 * sorted by investment id, then code (digit runs by value), then offer id, because database reads
 * have no guaranteed order; components keep their `position` (array order when absent). Each
 * add() must bring whole investments, in increasing id, after the ones of the previous add(), which
 * gives the same bytes as one add() of every offer. Throws DailyCsvError for data the file cannot
 * carry truthfully.
 */
export class DailyCsvSerializer {
  readonly fileName: string
  /** Data rows so far, header excluded. */
  rows = 0
  private readonly developer: string[]
  private readonly prefixes = new Map<DailyCsvInvestment, { cells: string; prospectusUrl: string }>()
  private pending = OFFICIAL_HEADER_LINE + LINE_END
  private lastInvestment = -Infinity

  constructor(input: Omit<DailyCsvInput, 'offers'>) {
    this.fileName = dailyCsvFileName(input.date, input.companySlug, input.investmentSlug)
    this.developer = developerCells(input.developer)
  }

  /** The rows of these offers; yields the pieces of text that are complete (each ends at a line end). */
  *add(offers: readonly DailyCsvOffer[]): Generator<string, void, undefined> {
    const sorted = sortOffers(offers)
    const first = sorted[0]
    if (!first) return
    if (first.investment.id <= this.lastInvestment) {
      throw new Error('DailyCsvSerializer.add() needs whole investments in increasing id')
    }
    this.lastInvestment = (sorted.at(-1) as DailyCsvOffer).investment.id
    for (const offer of sorted) {
      let prefix = this.prefixes.get(offer.investment)
      if (!prefix) {
        const cells = [...this.developer, ...locationCells(offer.investment.location)]
        checkCells(cells, ROW_START, this.rows + 2, offer)
        prefix = { cells: cells.join(SEPARATOR) + SEPARATOR, prospectusUrl: text(offer.investment.prospectusUrl) }
        this.prefixes.set(offer.investment, prefix)
      }
      for (const row of offerRows(offer, prefix.prospectusUrl)) {
        this.rows++
        checkCells(row, ROW_LENGTH, this.rows + 1, offer)
        this.pending += prefix.cells + row.join(SEPARATOR) + LINE_END
        if (this.pending.length >= CHUNK_CHARS) {
          yield this.pending
          this.pending = ''
        }
      }
    }
  }

  /** The rest of the file, after the last add(). */
  end(): string {
    const rest = this.pending
    this.pending = ''
    return rest
  }
}

/** Builds the day's file in memory (see DailyCsvSerializer for the order and the errors). */
export function buildDailyCsv(input: DailyCsvInput): DailyCsvFile {
  const serializer = new DailyCsvSerializer(input)
  const parts: Buffer[] = []
  for (const piece of serializer.add(input.offers)) parts.push(Buffer.from(piece, 'utf8'))
  parts.push(Buffer.from(serializer.end(), 'utf8'))
  return { fileName: serializer.fileName, content: Buffer.concat(parts), rowCount: serializer.rows }
}
