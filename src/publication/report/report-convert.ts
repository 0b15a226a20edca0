/*
 * Official report import, conversion step (docs/decisions/report-import-and-legacy.md): a developer's 58-column report, read by
 * the offer-file readers (CSV or XLSX, header → cell text), becomes the canonical daily CSV: the
 * official headers verbatim and in order, `;`, UTF-8 without BOM, LF, `X` for every empty or
 * not-applicable cell, money `1234.50`, dates `YYYY-MM-DD`. Every cell is checked against the rules
 * the daily file and the developer settings follow; a problem is an error (the preview is invalid)
 * or, where the official template itself does it, a warning. Pure apart from reading the rows.
 */
import type { OfferFileReader } from '../../imports/reading/read-offer-file.js'
import {
  looksLikeFormula,
  parseCalendarDate,
  parseMoney,
  parsePostalCode,
  parseVoivodeship,
} from '../../offers/validation/parse-values.js'
import { csvEscape, DWELLING_TYPE_LABELS, formatMoney, NOT_APPLICABLE } from '../daily-file/daily-csv.js'
import {
  OFFICIAL_COLUMNS,
  OFFICIAL_HEADER_LINE,
  type OfficialColumn,
  type OfficialColumnKey,
} from '../daily-file/official-columns.js'

/** One problem of the file: `row` is the spreadsheet row (the header row for column problems). */
export interface ReportError {
  row: number
  /** The official column key (e.g. `price_m2`), or `file`. */
  field: string
  /** 1-based official column number, when the problem is in a column. */
  column?: number
  code: string
  /** Polish (message_pl), until an answer is localized for its request (Accept-Language: en). */
  message: string
  message_pl?: string
  message_en?: string
}

/** A finding that does not stop the publication; one entry per code, with the rows it concerns. */
export interface ReportWarning {
  code: string
  /** Polish (message_pl), until an answer is localized for its request (Accept-Language: en). */
  message: string
  message_pl?: string
  message_en?: string
  /** How many cells or rows it concerns. */
  count: number
  /** The first rows concerned (at most 20). */
  rows: number[]
}

/** A value found in the report with the spreadsheet rows that carry it (the first 20) and how many do. */
export interface ValueRows {
  value: string
  count: number
  rows: number[]
}

export interface ConvertedReport {
  /** The one developer entity's NIP the report names, when the entities' NIPs were given. */
  developerNip?: string | null
  /**
   * Every "valid from" date the converted file carries, with its rows, latest first: the file
   * proves the prices of a day only from the latest of them on.
   */
  priceDates?: ValueRows[]
  /** The developer names (column 1) and KRS numbers (column 3) the rows carry. */
  developerNames?: ValueRows[]
  developerKrs?: ValueRows[]
  /** The canonical CSV; null when there are errors. */
  content: Buffer | null
  /** Data rows converted (header excluded; rows of only not-applicable signs are skipped). */
  rowCount: number
  errors: ReportError[]
  errorsTotal: number
  warnings: ReportWarning[]
}

export interface ConvertOptions {
  /** Today in Europe/Warsaw: dates after it are reported as warnings. */
  today: string
  /** Errors kept (the total is always counted). */
  maxErrors: number
  /**
   * The NIPs of the developer entities: a report is published under the dataset of the entity it
   * names, so a NIP that is none of theirs is refused, as is a report naming two of them.
   */
  developerNips?: readonly string[] | null
}

const LINE_END = '\n'
const SEPARATOR = ';'
const WARNING_ROWS_KEPT = 20

/*
 * What developers write instead of the official `X` ("nie dotyczy", "brak", dashes). Compared
 * case-insensitively on the trimmed cell; an empty cell is not applicable too.
 */
const NOT_APPLICABLE_SIGNS = new Set(['x', '-', '–', '—', 'n.d.', 'n/d', 'nie dotyczy', 'brak'])

export function isNotApplicable(text: string): boolean {
  const trimmed = text.trim()
  return trimmed === '' || NOT_APPLICABLE_SIGNS.has(trimmed.toLowerCase())
}

type ColumnKind =
  | 'text'
  | 'name'
  | 'krs'
  | 'nip'
  | 'regon'
  | 'phone'
  | 'voivodeship'
  | 'postal_code'
  | 'dwelling_type'
  | 'money'
  | 'date'

const KIND_BY_KEY: Partial<Record<OfficialColumnKey, ColumnKind>> = {
  developer_name: 'name',
  krs: 'krs',
  nip: 'nip',
  regon: 'regon',
  phone: 'phone',
  seat_voivodeship: 'voivodeship',
  sales_voivodeship: 'voivodeship',
  loc_voivodeship: 'voivodeship',
  seat_postal_code: 'postal_code',
  sales_postal_code: 'postal_code',
  loc_postal_code: 'postal_code',
  property_type: 'dwelling_type',
  price_m2: 'money',
  price_total: 'money',
  price_combined: 'money',
  part_price: 'money',
  room_price: 'money',
  right_value: 'money',
  other_payment_value: 'money',
  price_m2_from: 'date',
  price_total_from: 'date',
  price_combined_from: 'date',
  part_price_from: 'date',
  room_price_from: 'date',
  right_value_from: 'date',
  other_payment_value_from: 'date',
}

/** Each price with its "valid from" date: a price without its date is incomplete. */
const PRICE_DATE_PAIRS: ReadonlyArray<readonly [OfficialColumnKey, OfficialColumnKey]> = [
  ['price_m2', 'price_m2_from'],
  ['price_total', 'price_total_from'],
  ['price_combined', 'price_combined_from'],
  ['part_price', 'part_price_from'],
  ['room_price', 'room_price_from'],
  ['right_value', 'right_value_from'],
  ['other_payment_value', 'other_payment_value_from'],
]

const UNIT_COLUMNS: readonly OfficialColumnKey[] = [
  'property_code',
  'price_m2',
  'price_m2_from',
  'price_total',
  'price_total_from',
  'price_combined',
  'price_combined_from',
]

const INDEX = Object.fromEntries(OFFICIAL_COLUMNS.map((column) => [column.key, column.number - 1])) as Record<
  OfficialColumnKey,
  number
>

/** Columns 1–28: the developer's data, the same on every row of one developer. */
const DEVELOPER_COLUMNS = OFFICIAL_COLUMNS.slice(0, 28)
/** Columns 29–34 name an investment's address; its postal code (35) should not vary under it. */
const LOCATION_KEY_COLUMNS = OFFICIAL_COLUMNS.slice(28, 34)

/** `A`, …, `Z`, `AA`: the column letters a spreadsheet shows for the official layout. */
export function columnLetter(number: number): string {
  let name = ''
  for (let rest = number; rest > 0; rest = Math.floor((rest - 1) / 26))
    name = String.fromCharCode(65 + ((rest - 1) % 26)) + name
  return name
}

function short(text: string, length = 60): string {
  return text.length > length ? `${text.slice(0, length).trimEnd()}…` : text
}

function describeColumn(column: OfficialColumn): string {
  return `column ${column.number} (${columnLetter(column.number)}, "${short(column.header.trim())}")`
}

function quoted(text: string): string {
  return JSON.stringify(short(text, 40))
}

/*
 * Header comparison: case, surrounding and repeated whitespace (spaces, no-break spaces, line
 * breaks inside a wrapped header cell) and the spelling of "m²" ("m 2", "m2", "m²") do not matter;
 * any other difference is another column.
 */
export function foldHeader(header: string): string {
  return header
    .normalize('NFC')
    .replace(/[\s\u00a0\u202f]+/gu, ' ')
    .trim()
    .toLowerCase()
    .replace(/(^|\s)m ?[2²](?![\p{L}\p{N}])/gu, '$1m2')
}

const FOLDED_OFFICIAL = new Map(OFFICIAL_COLUMNS.map((column) => [foldHeader(column.header), column]))

// ---------------------------------------------------------------------------------------------
// Cells

type CellResult =
  | { ok: true; value: string; note?: 'rounded' | 'padded' }
  | { ok: false; code: string; message: string; message_pl?: string }

const ok = (value: string, note?: 'rounded' | 'padded'): CellResult =>
  note === undefined ? { ok: true, value } : { ok: true, value, note }
const fail = (code: string, message: string, message_pl?: string): CellResult =>
  message_pl === undefined ? { ok: false, code, message } : { ok: false, code, message, message_pl }

const MONEY_SUFFIX = /\s*(?:zł|zl|pln)$/iu
/*
 * A plain decimal with four or more decimals cannot be a thousands grouping (groups have three
 * digits): it is a computed value, typically a formula such as total ÷ area kept unrounded in a
 * sheet that only displays it rounded. It is rounded half-up to grosze and reported as a warning.
 * Three decimals stay refused (`1.234` may mean 1234 zł), as the offer import refuses them.
 */
const UNROUNDED = /^([0-9]+)[.,]([0-9]{4,})$/

function roundToGrosze(integer: string, fraction: string): string {
  const cents = BigInt(integer + fraction.slice(0, 2)) + (Number(fraction[2]) >= 5 ? 1n : 0n)
  return formatMoney(Number(cents))
}

function money(text: string): CellResult {
  const parsed = parseMoney(text)
  if (parsed.ok) return ok(formatMoney(parsed.value ?? 0))
  const unrounded = UNROUNDED.exec(text.trim().replace(MONEY_SUFFIX, ''))
  if (unrounded) return ok(roundToGrosze(unrounded[1] ?? '0', unrounded[2] ?? ''), 'rounded')
  return fail(
    parsed.code === 'negative_not_allowed' ? 'negative_amount' : 'invalid_money',
    parsed.message,
    parsed.message_pl,
  )
}

/** `YYYY-MM-DD` or `DD.MM.YYYY`, optionally with a time of day (dropped); no time zones. */
const DATE_TIME =
  /^([0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{1,2}\.[0-9]{1,2}\.[0-9]{4})(?:[ T][0-9]{1,2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)?$/

function date(text: string): CellResult {
  const trimmed = text.trim()
  const match = DATE_TIME.exec(trimmed)
  if (match === null) {
    if (/^[0-9]{5}(?:\.[0-9]+)?$/.test(trimmed))
      return fail(
        'invalid_date',
        `${quoted(trimmed)} looks like a spreadsheet date serial number; format the cell as a date (YYYY-MM-DD)`,
      )
    return fail('invalid_date', `${quoted(trimmed)} is not a date; use YYYY-MM-DD (a time of day may follow)`)
  }
  const parsed = parseCalendarDate(match[1])
  if (!parsed.ok) return fail('invalid_date', parsed.message, parsed.message_pl)
  return ok(parsed.value ?? '')
}

function digitsOnly(text: string): string {
  return text.replace(/[\s\u00a0\u202f-]+/gu, '')
}

const NIP_WEIGHTS = [6, 5, 7, 2, 3, 4, 5, 6, 7]
const REGON9_WEIGHTS = [8, 9, 2, 3, 4, 5, 6, 7]
const REGON14_WEIGHTS = [2, 4, 8, 5, 0, 9, 7, 3, 6, 1, 2, 4, 8]

function checksumOk(digits: string, weights: readonly number[]): boolean {
  const sum = weights.reduce((acc, weight, i) => acc + weight * Number(digits[i]), 0)
  return (sum % 11 === 10 ? 0 : sum % 11) === Number(digits[weights.length])
}

function identifier(kind: 'krs' | 'nip' | 'regon', text: string): CellResult {
  const value = digitsOnly(text)
  if (kind === 'nip') {
    const nip = value.replace(/^PL/i, '')
    return /^[0-9]{10}$/.test(nip)
      ? ok(nip)
      : fail('invalid_nip', `${quoted(text)} is not a NIP: 10 digits, without dashes`)
  }
  if (kind === 'regon') {
    return /^(?:[0-9]{9}|[0-9]{14})$/.test(value)
      ? ok(value)
      : fail('invalid_regon', `${quoted(text)} is not a REGON: 9 or 14 digits`)
  }
  // a KRS number typed into a number cell loses its leading zeros; they are restored
  if (/^[0-9]{10}$/.test(value)) return ok(value)
  if (/^[0-9]{1,9}$/.test(value) && !/^0+$/.test(value)) return ok(value.padStart(10, '0'), 'padded')
  return fail('invalid_krs', `${quoted(text)} is not a KRS number: 10 digits (with the leading zeros)`)
}

function phone(text: string): CellResult {
  const value = text.replace(/[\s\u00a0\u202f().-]+/gu, '')
  return /^(?:\+[0-9]{2,3})?[0-9]{9}$/.test(value)
    ? ok(value)
    : fail('invalid_phone', `${quoted(text)} is not a phone number: 9 digits, optionally after +48`)
}

function postalCode(text: string): CellResult {
  // 02-776 kept in a number cell arrives as 2776
  const padded = /^[0-9]{4}$/.test(text.trim()) ? `0${text.trim()}` : text
  const parsed = parsePostalCode(padded)
  return parsed.ok ? ok(parsed.value ?? '') : fail('invalid_postal_code', parsed.message, parsed.message_pl)
}

function voivodeship(text: string): CellResult {
  const parsed = parseVoivodeship(text)
  return parsed.ok ? ok(parsed.value ?? '') : fail('invalid_voivodeship', parsed.message, parsed.message_pl)
}

const DWELLING_SYNONYMS: Readonly<Record<string, string>> = {
  'lokal mieszkalny': DWELLING_TYPE_LABELS.mieszkanie,
  mieszkanie: DWELLING_TYPE_LABELS.mieszkanie,
  'dom jednorodzinny': DWELLING_TYPE_LABELS.dom,
  dom: DWELLING_TYPE_LABELS.dom,
}

function dwellingType(text: string): CellResult {
  const label = DWELLING_SYNONYMS[text.trim().replace(/\s+/g, ' ').toLowerCase()]
  return label === undefined
    ? fail(
        'invalid_property_type',
        `${quoted(text)} is not a type of the official layout: "Lokal mieszkalny" or "Dom jednorodzinny" (X for a row of a part or a room only)`,
      )
    : ok(label)
}

function convertCell(kind: ColumnKind, text: string): CellResult {
  switch (kind) {
    case 'money':
      return money(text)
    case 'date':
      return date(text)
    case 'krs':
    case 'nip':
    case 'regon':
      return identifier(kind, text)
    case 'phone':
      return phone(text)
    case 'postal_code':
      return postalCode(text)
    case 'voivodeship':
      return voivodeship(text)
    case 'dwelling_type':
      return dwellingType(text)
    case 'name':
    case 'text':
      return officialText(text.trim())
  }
}

/** A text cell, refused when a spreadsheet opening the published file would run it as a formula. */
function officialText(text: string): CellResult {
  return looksLikeFormula(text)
    ? fail(
        'formula_text',
        `${quoted(text)} starts like a spreadsheet formula (=, +, - or @), which a program opening the official file would run`,
        `${quoted(text)} zaczyna się jak formuła arkusza (=, +, - lub @), którą program otwierający plik urzędowy by wykonał; usuń ten znak z początku`,
      )
    : ok(text)
}

// ---------------------------------------------------------------------------------------------
// Findings

class Findings {
  readonly errors: ReportError[] = []
  errorsTotal = 0
  private readonly warnings = new Map<string, ReportWarning>()

  constructor(private readonly maxErrors: number) {}

  error(error: ReportError): void {
    this.errorsTotal += 1
    if (this.errors.length >= this.maxErrors) return
    const pl = error.message_pl ?? REPORT_TEXTS_PL[error.code] ?? error.message
    this.errors.push({ ...error, message: pl, message_pl: pl, message_en: error.message_en ?? error.message })
  }

  cellError(row: number, column: OfficialColumn, code: string, message: string, messagePl?: string): void {
    const pl = messagePl ?? REPORT_TEXTS_PL[code] ?? message
    this.error({
      row,
      field: column.key,
      column: column.number,
      code,
      message: `Row ${row}, ${describeColumn(column)}: ${message}.`,
      message_pl: `Wiersz ${row}, kolumna ${column.number} („${short(column.header.trim())}”): ${pl}.`,
    })
  }

  /** Counts a warning; the message is built once, from the rows and count, when the list is read. */
  warn(code: string, row: number | null, message: string): void {
    const existing = this.warnings.get(code)
    const entry = existing ?? { code, message, count: 0, rows: [] }
    entry.count += 1
    if (row !== null) {
      // rows arrive in increasing order, so a new row is one greater than the last one counted
      const seen = this.rowsSeen.get(code) ?? { last: -1, distinct: 0 }
      if (row !== seen.last) this.rowsSeen.set(code, { last: row, distinct: seen.distinct + 1 })
      if (entry.rows.length < WARNING_ROWS_KEPT && !entry.rows.includes(row)) entry.rows.push(row)
    }
    if (!existing) this.warnings.set(code, entry)
  }

  private readonly rowsSeen = new Map<string, { last: number; distinct: number }>()

  /** A warning whose message already names its rows. */
  set(warning: ReportWarning): void {
    this.warnings.set(warning.code, warning)
    this.complete.add(warning.code)
  }

  private readonly complete = new Set<string>()

  /** The warnings, each counted one ends with the rows it concerns; Polish and English. */
  list(): ReportWarning[] {
    return [...this.warnings.values()].map((warning) => {
      const withRows = !this.complete.has(warning.code) && warning.rows.length > 0
      const distinct = this.rowsSeen.get(warning.code)?.distinct ?? 0
      const en = withRows ? `${warning.message} Rows: ${rowList(warning.rows, distinct)}.` : warning.message
      const base = REPORT_TEXTS_PL[warning.code] ?? warning.message
      const pl = withRows ? `${base} Wiersze: ${rowList(warning.rows, distinct, 'i')}.` : base
      return { ...warning, message: pl, message_pl: pl, message_en: en }
    })
  }
}

function rowList(rows: readonly number[], distinctRows: number, and = 'and'): string {
  const shown = rows.join(', ')
  const more = and === 'and' ? 'more' : 'innych'
  return distinctRows > rows.length ? `${shown} ${and} ${distinctRows - rows.length} ${more}` : shown
}

/*
 * The Polish texts of the report's findings, by code, for office staff who correct a spreadsheet;
 * a value parser's own Polish text (naming the value) is used where there is one.
 */
const REPORT_TEXTS_PL: Readonly<Record<string, string>> = {
  required: 'nazwa dewelopera jest wymagana',
  invalid_money: 'to nie jest kwota; wpisz np. 1234.50 albo 1 234,50',
  negative_amount: 'kwota nie może być ujemna',
  invalid_date: 'to nie jest data; wpisz RRRR-MM-DD (może po niej być godzina)',
  invalid_nip: 'to nie jest NIP: 10 cyfr, bez kresek',
  invalid_regon: 'to nie jest REGON: 9 lub 14 cyfr',
  invalid_krs: 'to nie jest numer KRS: 10 cyfr (z zerami na początku)',
  invalid_phone: 'to nie jest numer telefonu: 9 cyfr, opcjonalnie po +48',
  invalid_postal_code: 'to nie jest kod pocztowy; wpisz 00-000',
  invalid_voivodeship: 'to nie jest nazwa województwa, np. mazowieckie',
  invalid_property_type:
    'rodzaj musi być „Lokal mieszkalny” albo „Dom jednorodzinny” (X w wierszu samej części lub pomieszczenia)',
  missing_price_date: 'cena nie ma daty, od której obowiązuje',
  missing_unit_number: 'lokal lub dom musi mieć swój numer',
  missing_property_type: 'te kolumny opisują lokal lub dom, więc kolumna 36 musi podać jego rodzaj',
  row_without_unit:
    'wiersz nie opisuje lokalu ani domu (36), części nieruchomości (44) ani pomieszczenia przynależnego (48)',
  other_developer:
    'raport podaje NIP dewelopera, którego nie ma wśród podmiotów w ustawieniach; dodaj ten podmiot albo popraw NIP (raport nigdy nie jest publikowany w zbiorze innego dewelopera)',
  several_developers:
    'Raport podaje kilku deweloperów (różne NIP); każdy podmiot publikuje własny zbiór, więc podziel raport według dewelopera.',
  missing_column: 'W pliku brakuje jednej z 58 kolumn urzędowego wzoru.',
  unexpected_column: 'Kolumna spoza 58 kolumn urzędowego wzoru; usuń ją (raport ma dokładnie 58 kolumn).',
  column_count: 'Wiersz nagłówka nie ma 58 kolumn urzędowego wzoru.',
  money_rounded:
    'Kwoty z więcej niż dwoma miejscami po przecinku (niezaokrąglone wyniki formuł) zaokrąglono do groszy.',
  krs_padded: 'Numerom KRS krótszym niż 10 cyfr przywrócono zera na początku.',
  date_in_future:
    'Niektóre daty „od której obowiązuje” są późniejsze niż dzisiaj; raport można opublikować tylko za dzień nie wcześniejszy niż najpóźniejsza z nich.',
  nip_checksum: 'NIP ma błędną cyfrę kontrolną.',
  regon_checksum: 'REGON ma błędną cyfrę kontrolną.',
  no_rows: 'Plik nie ma wierszy z danymi: opublikowany plik będzie zawierał tylko nagłówek.',
  not_applicable_rows_skipped: 'Pominięto wiersze zawierające same znaki X.',
  date_without_value: 'Daty „od której obowiązuje” bez ceny lub wartości pominięto (X): sama data nie podaje ceny.',
  missing_price:
    'Lokale lub domy bez żadnej ceny (X w kolumnach 38, 40 i 42) zostaną opublikowane bez ceny; ustawa wymaga ceny każdego oferowanego lokalu.',
  developer_data_inconsistent:
    'Wiersze tego samego dewelopera mają różne dane w kolumnach 1–28 (często seria przeciągnięta w arkuszu); sprawdź je.',
  investment_data_inconsistent:
    'Wiersze pod tym samym adresem inwestycji mają różne kody pocztowe (często seria przeciągnięta w arkuszu); sprawdź je.',
}

/*
 * Rows of one developer (same NIP, else same name) should repeat the same columns 1–28, and rows
 * at one investment address (29–34) the same postal code (35). Differing values are most often a
 * spreadsheet fill-down series (dragging "0000942937" down makes …938, …939), so each difference is
 * reported with its values and rows. Not an error: the official template itself varies them.
 */
class ConsistencyCheck {
  private readonly groups = new Map<string, { label: string; columns: Map<number, Map<string, number[]>> }>()

  add(
    groupKey: string,
    label: string,
    row: number,
    cells: readonly string[],
    columns: readonly OfficialColumn[],
  ): void {
    let group = this.groups.get(groupKey)
    if (!group) {
      group = { label, columns: new Map() }
      this.groups.set(groupKey, group)
    }
    for (const column of columns) {
      const value = cells[column.number - 1] ?? NOT_APPLICABLE
      let values = group.columns.get(column.number)
      if (!values) {
        values = new Map()
        group.columns.set(column.number, values)
      }
      const rows = values.get(value)
      if (rows) {
        if (rows.length < 5) rows.push(row)
      } else if (values.size < 20) values.set(value, [row])
    }
  }

  report(findings: Findings, code: string, subject: string): void {
    const differences: string[] = []
    const rows: number[] = []
    for (const group of this.groups.values()) {
      for (const [number, values] of group.columns) {
        if (values.size < 2) continue
        const column = OFFICIAL_COLUMNS[number - 1] as OfficialColumn
        const listed = [...values].map(
          ([value, at]) => `${quoted(value)} (row${at.length > 1 ? 's' : ''} ${at.join(', ')})`,
        )
        differences.push(`${group.label}: ${describeColumn(column)} differs: ${listed.join(', ')}`)
        for (const at of values.values()) for (const row of at) if (!rows.includes(row)) rows.push(row)
      }
    }
    if (differences.length === 0) return
    rows.sort((a, b) => a - b)
    findings.set({
      code,
      count: differences.length,
      rows: rows.slice(0, WARNING_ROWS_KEPT),
      message:
        `Rows of the same ${subject} carry different values, which often comes from a spreadsheet fill-down ` +
        `series; check them before publishing. ${differences.slice(0, 10).join('; ')}${differences.length > 10 ? `; and ${differences.length - 10} more` : ''}.`,
    })
  }
}

/**
 * Distinct values with their rows (at most 200 values, 20 rows each: enough to name them). `count`
 * is the number of rows, not of cells: a row carries a price date in several columns, and a count
 * of cells above the rows kept made a refusal end its complete list of rows with "…".
 */
class ValueTally {
  private readonly values = new Map<string, ValueRows>()
  private readonly lastRow = new Map<string, number>()

  add(value: string, row: number): void {
    let entry = this.values.get(value)
    if (!entry) {
      if (this.values.size >= 200) return
      entry = { value, count: 0, rows: [] }
      this.values.set(value, entry)
    }
    if (this.lastRow.get(value) === row) return
    this.lastRow.set(value, row)
    entry.count += 1
    if (entry.rows.length < WARNING_ROWS_KEPT) entry.rows.push(row)
  }

  list(): ValueRows[] {
    return [...this.values.values()]
  }
}

// ---------------------------------------------------------------------------------------------
// Conversion

interface HeaderMap {
  /** Reader header text of each official column, in official order. */
  sources: string[]
  reordered: boolean
}

function matchHeaders(reader: OfferFileReader, findings: Findings): HeaderMap | undefined {
  const found = new Map<number, string>()
  const unexpected: string[] = []
  reader.headers.forEach((header) => {
    const column = FOLDED_OFFICIAL.get(foldHeader(header))
    if (column && !found.has(column.number)) found.set(column.number, header)
    else unexpected.push(header)
  })
  for (const column of OFFICIAL_COLUMNS) {
    if (found.has(column.number)) continue
    findings.error({
      row: reader.headerRow,
      field: column.key,
      column: column.number,
      code: 'missing_column',
      message: `The file has no column ${column.number} "${column.header.trim()}" of the official 58-column layout.`,
      message_pl: `W pliku brakuje kolumny ${column.number} „${column.header.trim()}” urzędowego wzoru (58 kolumn).`,
    })
  }
  for (const header of unexpected) {
    findings.error({
      row: reader.headerRow,
      field: 'file',
      code: 'unexpected_column',
      message: `The column "${short(header)}" is not one of the 58 official columns; remove it (the official report has exactly 58).`,
      message_pl: `Kolumna „${short(header)}” nie należy do 58 kolumn urzędowego wzoru; usuń ją (raport ma dokładnie 58 kolumn).`,
    })
  }
  if (findings.errorsTotal > 0) {
    findings.error({
      row: reader.headerRow,
      field: 'file',
      code: 'column_count',
      message: `The header row has ${reader.headers.length} columns, ${found.size} of them official; the official report has exactly 58.`,
    })
    return undefined
  }
  const sources = OFFICIAL_COLUMNS.map((column) => found.get(column.number) ?? '')
  return { sources, reordered: sources.some((header, index) => reader.headers[index] !== header) }
}

export async function convertReport(reader: OfferFileReader, options: ConvertOptions): Promise<ConvertedReport> {
  const findings = new Findings(options.maxErrors)
  const headers = matchHeaders(reader, findings)
  if (!headers)
    return { content: null, rowCount: 0, errors: findings.errors, errorsTotal: findings.errorsTotal, warnings: [] }
  if (headers.reordered)
    findings.warn(
      'columns_reordered',
      null,
      'The columns are not in the official order; the published file puts them in the official order.',
    )

  const chunks: Buffer[] = [Buffer.from(OFFICIAL_HEADER_LINE + LINE_END, 'utf8')]
  const developers = new ConsistencyCheck()
  const namedNips = new Set<string>()
  const mainRows = new Set<string>()
  const locations = new ConsistencyCheck()
  const priceDates = new ValueTally()
  const names = new ValueTally()
  const krsNumbers = new ValueTally()
  let rowCount = 0

  for await (const { row, values } of reader.rows) {
    const texts = headers.sources.map((header) => values[header] ?? '')
    if (texts.every(isNotApplicable)) {
      findings.warn('not_applicable_rows_skipped', row, 'Rows holding only not-applicable signs (X) were skipped.')
      continue
    }
    rowCount += 1
    const errorsBefore = findings.errorsTotal
    const cells: string[] = new Array<string>(OFFICIAL_COLUMNS.length).fill(NOT_APPLICABLE)
    for (const column of OFFICIAL_COLUMNS) {
      const text = texts[column.number - 1] ?? ''
      const kind = KIND_BY_KEY[column.key] ?? 'text'
      if (isNotApplicable(text)) {
        if (kind === 'name') findings.cellError(row, column, 'required', 'the developer name is required')
        continue
      }
      const result = convertCell(kind, text)
      if (!result.ok) {
        findings.cellError(row, column, result.code, result.message, result.message_pl)
        continue
      }
      cells[column.number - 1] = result.value
      if (result.note === 'rounded')
        findings.warn(
          'money_rounded',
          row,
          'Amounts with more than two decimals (unrounded formula results) were rounded half-up to grosze.',
        )
      if (result.note === 'padded')
        findings.warn('krs_padded', row, 'KRS numbers shorter than 10 digits got their leading zeros back.')
      if (kind === 'date' && result.value > options.today)
        findings.warn('date_in_future', row, `Some "valid from" dates are later than today (${options.today}).`)
      if (kind === 'nip' && !checksumOk(result.value, NIP_WEIGHTS))
        findings.warn('nip_checksum', row, 'A NIP has a wrong check digit.')
      if (kind === 'regon' && !checksumOk(result.value, result.value.length === 9 ? REGON9_WEIGHTS : REGON14_WEIGHTS))
        findings.warn('regon_checksum', row, 'A REGON has a wrong check digit.')
      // a report is published under the dataset of the entity it names: never under another's
      if (kind === 'nip' && options.developerNips) {
        if (!options.developerNips.includes(result.value))
          findings.cellError(
            row,
            column,
            'other_developer',
            `the report names the developer with NIP ${result.value}, which is none of the developer entities (${options.developerNips.join(', ') || 'none set up'}); add that developer entity or correct the NIP`,
            `raport podaje dewelopera o NIP ${result.value}, którego nie ma wśród podmiotów w ustawieniach (${options.developerNips.join(', ') || 'brak'}); dodaj ten podmiot albo popraw NIP — raport nigdy nie jest publikowany w zbiorze innego dewelopera`,
          )
        else namedNips.add(result.value)
      }
    }
    checkRow(row, cells, findings, mainRows)
    if (findings.errorsTotal > errorsBefore) continue

    const nip = cells[INDEX.nip] ?? NOT_APPLICABLE
    const name = cells[INDEX.developer_name] ?? NOT_APPLICABLE
    for (const [, dateKey] of PRICE_DATE_PAIRS) {
      const priceDate = cells[INDEX[dateKey]] ?? NOT_APPLICABLE
      if (priceDate !== NOT_APPLICABLE) priceDates.add(priceDate, row)
    }
    if (name !== NOT_APPLICABLE) names.add(name, row)
    const krs = cells[INDEX.krs] ?? NOT_APPLICABLE
    if (krs !== NOT_APPLICABLE) krsNumbers.add(krs, row)
    developers.add(
      nip === NOT_APPLICABLE ? `name:${name}` : `nip:${nip}`,
      nip === NOT_APPLICABLE ? `developer ${quoted(name)}` : `developer NIP ${nip}`,
      row,
      cells,
      DEVELOPER_COLUMNS,
    )
    const address = LOCATION_KEY_COLUMNS.map((column) => cells[column.number - 1] ?? NOT_APPLICABLE)
    if (address.some((cell) => cell !== NOT_APPLICABLE))
      locations.add(
        address.join('\u0000'),
        `investment at ${quoted(address.filter((cell) => cell !== NOT_APPLICABLE).join(', '))}`,
        row,
        cells,
        [OFFICIAL_COLUMNS[INDEX.loc_postal_code] as OfficialColumn],
      )
    if (findings.errorsTotal === 0) chunks.push(Buffer.from(cells.map(csvEscape).join(SEPARATOR) + LINE_END, 'utf8'))
  }

  if (namedNips.size > 1)
    findings.error({
      row: 1,
      field: 'nip',
      column: INDEX.nip + 1,
      code: 'several_developers',
      message: `The report names several developers (NIP ${[...namedNips].join(', ')}); each developer entity publishes its own dataset, so split the report by developer.`,
    })
  if (rowCount === 0)
    findings.warn('no_rows', null, 'The file has no data rows: the published file will hold the header row only.')
  developers.report(findings, 'developer_data_inconsistent', 'developer')
  locations.report(findings, 'investment_data_inconsistent', 'investment address')

  const warnings = findings.list()
  const valid = findings.errorsTotal === 0
  return {
    developerNip: namedNips.size === 1 ? ([...namedNips][0] as string) : null,
    priceDates: priceDates.list().sort((a, b) => (a.value < b.value ? 1 : a.value > b.value ? -1 : 0)),
    developerNames: names.list(),
    developerKrs: krsNumbers.list(),
    content: valid ? Buffer.concat(chunks) : null,
    rowCount,
    errors: findings.errors,
    errorsTotal: findings.errorsTotal,
    warnings,
  }
}

/** Rules between the cells of one row. */
/** Columns 44–57: the parts, appurtenant rooms, rights and other payments of a row. */
const COMPONENT_KEYS: readonly OfficialColumnKey[] = [
  'part_kind',
  'room_kind',
  'right_description',
  'other_payment_description',
]

/**
 * `mainRows` holds the flats and houses (type, number and location) already given with a price:
 * a further row of the same flat or house that carries only a part, room, right or payment (X in
 * 38–43) is its continuation, exactly as the daily file writes several parking spaces of one flat.
 */
function checkRow(row: number, cells: string[], findings: Findings, mainRows: Set<string>): void {
  const cell = (key: OfficialColumnKey) => cells[INDEX[key]] ?? NOT_APPLICABLE
  const column = (key: OfficialColumnKey) => OFFICIAL_COLUMNS[INDEX[key]] as OfficialColumn
  for (const [priceKey, dateKey] of PRICE_DATE_PAIRS) {
    if (cell(priceKey) !== NOT_APPLICABLE && cell(dateKey) === NOT_APPLICABLE)
      findings.cellError(
        row,
        column(dateKey),
        'missing_price_date',
        `the price in column ${column(priceKey).number} has no "valid from" date`,
      )
    // a "valid from" date of no value says nothing: it is not kept
    if (cell(priceKey) === NOT_APPLICABLE && cell(dateKey) !== NOT_APPLICABLE) {
      cells[INDEX[dateKey]] = NOT_APPLICABLE
      findings.warn(
        'date_without_value',
        row,
        'Dates "valid from" without their price or value were left out (X): a date alone states no price.',
      )
    }
  }
  const isDwelling = cell('property_type') !== NOT_APPLICABLE
  if (isDwelling) {
    if (cell('property_code') === NOT_APPLICABLE)
      findings.cellError(row, column('property_code'), 'missing_unit_number', 'a flat or house needs its number')
    const key = [
      cell('property_type'),
      cell('property_code'),
      ...LOCATION_KEY_COLUMNS.map((c) => cells[c.number - 1]),
    ].join('\u0000')
    const priced = ['price_m2', 'price_total', 'price_combined'].some(
      (k) => cell(k as OfficialColumnKey) !== NOT_APPLICABLE,
    )
    if (priced) mainRows.add(key)
    else if (!(mainRows.has(key) && COMPONENT_KEYS.some((k) => cell(k) !== NOT_APPLICABLE)))
      // the daily file itself shows such a flat with X (warning offer_price_missing): published, never silently
      findings.warn(
        'missing_price',
        row,
        'Flats or houses without any price (X in columns 38, 40 and 42) are published as such; the act requires the price of every offered unit.',
      )
    return
  }
  const filled = UNIT_COLUMNS.filter((key) => cell(key) !== NOT_APPLICABLE)
  if (filled.length > 0) {
    findings.cellError(
      row,
      column('property_type'),
      'missing_property_type',
      `columns ${filled.map((key) => column(key).number).join(', ')} describe a flat or house, so column 36 must name its type`,
    )
  } else if (cell('part_kind') === NOT_APPLICABLE && cell('room_kind') === NOT_APPLICABLE) {
    findings.cellError(
      row,
      column('property_type'),
      'row_without_unit',
      'the row describes no flat or house (36), no part of the property (44) and no appurtenant room (48)',
    )
  }
}
