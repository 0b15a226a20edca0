/*
 * Parsers for single canonical values. Inputs are `unknown` because they come from file cells
 * (always text) and from webhook JSON (string, number, boolean or null).
 *
 * Every parser answers `{ ok: true, value: null }` for a blank input (undefined, null, or a string
 * of whitespace only): whether "not sent" is acceptable is the caller's decision, not the parser's.
 * A failure says why in English (`message`) and in Polish (`message_pl`), naming the bad value but
 * not the field; the row validator prefixes the field's name (English) or label (Polish).
 */
import {
  type EditorTypeCode,
  isNotAllowedTypeWord,
  lookupEditorPropertyType,
  lookupPropertyType,
  lookupStatus,
  lookupVoivodeship,
  OFFER_STATUSES,
  type OfferStatus,
  type OfferTypeCode,
  type Voivodeship,
} from '../canonical-fields.js'

export const VALUE_ERROR_CODES = [
  'invalid_type',
  'invalid_text',
  'formula_text',
  'too_long',
  'invalid_decimal',
  'invalid_integer',
  'invalid_date',
  'invalid_enum',
  'prop_type_not_allowed',
  'invalid_postal_code',
  'negative_not_allowed',
  'out_of_range',
] as const
export type ValueErrorCode = (typeof VALUE_ERROR_CODES)[number]

export interface ParseFailure {
  ok: false
  code: ValueErrorCode
  /** Why, in English, naming the value but not the field. */
  message: string
  /** The same in Polish, for the operators (sales staff) who read a preview. */
  message_pl: string
}
export type ParseResult<T> = { ok: true; value: T } | ParseFailure

/** Largest accepted amount: 10^13 grosze = 100 000 000 000,00 zł, far above any offer and safe as a JS number. */
export const MAX_AMOUNT_CENTS = 10_000_000_000_000
/** Areas carry 2 decimals (0.01 m²), the precision floor areas are stated in; a third one is usually a `.` meant as thousands. */
export const AREA_DECIMALS = 2
/** Above this the value is a mapping mistake (a price in the area column), not a dwelling or a parking space. */
export const MAX_AREA = '1000000.00'
/** Years outside this window are typing errors (2206, 1026), not price dates. */
export const MIN_YEAR = 1900
export const MAX_YEAR = 2199
/** Bounds of a 32-bit integer column, the narrowest the storage layer has. */
export const INT32_MIN = -2_147_483_648
export const INT32_MAX = 2_147_483_647

const MAX_AMOUNT_CENTS_BIGINT = BigInt(MAX_AMOUNT_CENTS)
const MAX_AREA_HUNDREDTHS = BigInt(MAX_AREA.replace('.', ''))
const VALUE_PREVIEW_LENGTH = 40

const ok = <T>(value: T): { ok: true; value: T } => ({ ok: true, value })
const fail = (code: ValueErrorCode, message: string, message_pl: string): ParseFailure => ({
  ok: false,
  code,
  message,
  message_pl,
})
const BLANK = ok(null)

/** Undefined, null and whitespace-only strings all mean "not sent". */
export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
}

/** A short, escaped rendering of a bad value for messages: strings quoted and cut to 40 code points. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    let preview = ''
    let count = 0
    for (const char of value) {
      if (count === VALUE_PREVIEW_LENGTH) {
        preview += '…'
        break
      }
      preview += char
      count += 1
    }
    return JSON.stringify(preview)
  }
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : typeof value
}

/**
 * `describeValue` as a Polish text shows it: a string in Polish quotation marks („…”), escaped as
 * JSON escapes it (so an invisible character stays visible), other values alike.
 */
export function describeValuePl(value: unknown): string {
  if (typeof value === 'string') return `„${describeValue(value).slice(1, -1)}”`
  if (Array.isArray(value)) return 'tablica'
  if (value !== null && typeof value === 'object') return 'obiekt'
  return describeValue(value)
}

/** What a field expects, in both languages, for `wrongType`. */
interface Expected {
  en: string
  pl: string
}

function wrongType(value: unknown, expected: Expected): ParseFailure {
  return fail(
    'invalid_type',
    `${describeValue(value)} is not accepted; send ${expected.en}`,
    `${describeValuePl(value)} nie jest tu przyjmowane; podaj ${expected.pl}`,
  )
}

// ---------------------------------------------------------------------------------------------
// Decimals

interface DecimalParts {
  /** ASCII digits without leading zeros (`0` for zero). */
  integer: string
  /** ASCII digits, right-padded with zeros to the requested number of decimals. */
  fraction: string
}

/*
 * Grammar: digits, optionally grouped by 3 with a space, a no-break space (U+00A0) or a narrow
 * no-break space (U+202F) as Polish spreadsheets write them, then optionally `.` or `,` and the
 * decimals. `.` and `,` together are refused rather than interpreted: `1.234,56` and `1,234.56`
 * mean the same to a human but opposite things to a parser, and a wrong guess would publish a
 * price 1000 times off. For the same reason `1,234` and `1.234` are refused (3 decimals) instead of
 * being read as thousands.
 */
const GROUP_SEPARATORS = '[ \\u00A0\\u202F]'
const GROUPED_DECIMAL = new RegExp(`^([0-9]{1,3}(?:${GROUP_SEPARATORS}[0-9]{3})+)(?:[.,]([0-9]+))?$`)
const PLAIN_DECIMAL = /^([0-9]+)(?:[.,]([0-9]+))?$/
const EXPONENT = /^[0-9., \u00A0\u202F]*[0-9][eE][+-]?[0-9]+$/
const NOT_A_NUMBER = /^[+-]?(?:nan|inf|infinity)$/i
const MINUS = /^[-\u2212]/
/** More integer digits than this is out of range for every decimal field; checked before BigInt sees the text. */
const MAX_INTEGER_DIGITS = 16

/** Which decimal is parsed: an amount or an area (the Polish messages name what was expected). */
type DecimalKind = 'amount' | 'area'

/** `sent` is the value as sent, for messages: `text` has already lost its padding and unit. */
function parseDecimalParts(
  text: string,
  decimals: number,
  sent: unknown,
  kind: DecimalKind,
): ParseResult<DecimalParts> {
  const match = PLAIN_DECIMAL.exec(text) ?? GROUPED_DECIMAL.exec(text)
  if (match === null) return diagnoseDecimal(text, decimals, sent, kind)
  const fraction = match[2] ?? ''
  if (fraction.length > decimals) {
    return fail(
      'invalid_decimal',
      `${describeValue(sent)} has more than ${decimals} decimal places; to separate thousands use a space, not "." or ","`,
      `${describeValuePl(sent)} ma więcej niż ${decimals} miejsca po przecinku; tysiące oddziel spacją, nie kropką ani przecinkiem`,
    )
  }
  const integer = (match[1] ?? '').replace(/[^0-9]/g, '').replace(/^0+(?=[0-9])/, '')
  if (integer.length > MAX_INTEGER_DIGITS)
    return fail('out_of_range', `${describeValue(sent)} is too large`, `${describeValuePl(sent)} jest za duże`)
  return ok({ integer, fraction: fraction.padEnd(decimals, '0') })
}

const DECIMAL_EXAMPLES_PL: Readonly<Record<DecimalKind, string>> = {
  amount: 'nie jest kwotą; wpisz np. 123456.78 lub 123 456,78',
  area: 'nie jest powierzchnią; wpisz np. 54.30 lub 54,3',
}

/** Explains why text that is not a decimal was refused, most specific reason first. */
function diagnoseDecimal(text: string, decimals: number, sent: unknown, kind: DecimalKind): ParseFailure {
  const shown = describeValue(sent)
  const pl = describeValuePl(sent)
  if (MINUS.test(text)) {
    const rest = parseDecimalParts(text.slice(1).trim(), decimals, sent, kind)
    if (rest.ok || rest.code === 'out_of_range') return negative(sent)
  } else if (NOT_A_NUMBER.test(text)) {
    return fail('invalid_decimal', `${shown} is not a number`, `${pl} nie jest liczbą`)
  } else if (EXPONENT.test(text)) {
    return fail(
      'invalid_decimal',
      `${shown} uses exponent notation; write all digits, e.g. 100000`,
      `${pl} jest zapisane w notacji wykładniczej; wpisz wszystkie cyfry, np. 100000`,
    )
  } else if (text.includes('.') && text.includes(',')) {
    return fail(
      'invalid_decimal',
      `${shown} mixes "." and "," so its thousands separator is ambiguous; write 1234.56, 1234,56 or 1 234,56`,
      `${pl} zawiera i kropkę, i przecinek, więc nie wiadomo, który oddziela tysiące; wpisz 1234.56, 1234,56 lub 1 234,56`,
    )
  }
  return fail(
    'invalid_decimal',
    `${shown} is not a decimal number (expected e.g. 1234.56 or 1 234,56)`,
    `${pl} ${DECIMAL_EXAMPLES_PL[kind]}`,
  )
}

function negative(value: unknown): ParseFailure {
  return fail(
    'negative_not_allowed',
    `${describeValue(value)} is negative; only values of 0 or more are accepted`,
    `${describeValuePl(value)} jest wartością ujemną; wpisz 0 lub więcej`,
  )
}

const MONEY_SUFFIX = /\s*(?:zł|zl|pln)$/iu

/**
 * Decimal text → integer grosze, e.g. `"123 456,78"` → `12345678`. Conversion is done on the digit
 * strings with BigInt so that no binary floating-point rounding can creep in. JSON numbers are
 * refused (amounts are sent as text, docs/integration/webhook.md): by the time a float reaches us, `0.1 + 0.2`-style artefacts may
 * already have changed the amount, and we cannot tell.
 */
export function parseMoney(value: unknown): ParseResult<number | null> {
  if (isBlank(value)) return BLANK
  if (typeof value === 'number') {
    return fail(
      'invalid_decimal',
      `${describeValue(value)} was sent as a number; amounts must be sent as strings of decimal text, e.g. "123456.78"`,
      `${describeValuePl(value)} przesłano jako liczbę; kwotę przesyła się jako tekst, np. "123456.78"`,
    )
  }
  if (typeof value !== 'string')
    return wrongType(value, {
      en: 'an amount as decimal text, e.g. "123456.78"',
      pl: 'kwotę jako tekst, np. "123456.78"',
    })
  const text = value.trim().replace(MONEY_SUFFIX, '')
  const parts = parseDecimalParts(text, 2, value, 'amount')
  if (!parts.ok) return parts.code === 'out_of_range' ? outOfRangeAmount(value) : parts
  const cents = BigInt(parts.value.integer + parts.value.fraction)
  if (cents > MAX_AMOUNT_CENTS_BIGINT) return outOfRangeAmount(value)
  return ok(Number(cents))
}

function outOfRangeAmount(value: string): ParseFailure {
  return fail(
    'out_of_range',
    `${describeValue(value)} exceeds the maximum amount of 100 000 000 000,00 zł`,
    `${describeValuePl(value)} przekracza największą dopuszczalną kwotę 100 000 000 000,00 zł`,
  )
}

const AREA_SUFFIX = /\s*(?:m2|m²)$/iu

/**
 * Decimal text → canonical text with a dot and exactly 2 decimals (`54,3` → `54.30`), kept as text
 * so that the stored area is exactly what the source said. Zero is refused: an offer without an
 * area is sent without one, a `0` is almost always a filler from an export.
 */
export function parseArea(value: unknown): ParseResult<string | null> {
  if (isBlank(value)) return BLANK
  if (typeof value === 'number') {
    return fail(
      'invalid_decimal',
      `${describeValue(value)} was sent as a number; areas must be sent as strings of decimal text, e.g. "54.30"`,
      `${describeValuePl(value)} przesłano jako liczbę; powierzchnię przesyła się jako tekst, np. "54.30"`,
    )
  }
  if (typeof value !== 'string')
    return wrongType(value, {
      en: 'an area as decimal text, e.g. "54.30"',
      pl: 'powierzchnię jako tekst, np. "54.30"',
    })
  const text = value.trim().replace(AREA_SUFFIX, '')
  const parts = parseDecimalParts(text, AREA_DECIMALS, value, 'area')
  if (!parts.ok) return parts.code === 'out_of_range' ? outOfRangeArea(value) : parts
  const { integer, fraction } = parts.value
  if (integer === '0' && /^0*$/.test(fraction)) {
    return fail(
      'out_of_range',
      `${describeValue(value)} is not a valid area; it must be greater than 0`,
      `${describeValuePl(value)} nie jest poprawną powierzchnią; musi być większa od 0`,
    )
  }
  const hundredths = BigInt(integer + fraction)
  if (hundredths > MAX_AREA_HUNDREDTHS) return outOfRangeArea(value)
  return ok(`${integer}.${fraction}`)
}

function outOfRangeArea(value: string): ParseFailure {
  return fail(
    'out_of_range',
    `${describeValue(value)} exceeds the maximum area of ${MAX_AREA} m²`,
    `${describeValuePl(value)} przekracza największą dopuszczalną powierzchnię ${MAX_AREA.replace('.', ',')} m²`,
  )
}

// ---------------------------------------------------------------------------------------------
// Dates

const ISO_DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/
/** `DD.MM.YYYY` (also `D.M.YYYY`) is how Polish spreadsheets display dates exported as text. */
const POLISH_DATE = /^([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{4})$/

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

/**
 * `YYYY-MM-DD` or `DD.MM.YYYY` → `YYYY-MM-DD`, refusing dates that do not exist (`2026-02-30`).
 * Date-times and other orders (`MM/DD/YYYY`) are refused: they are ambiguous or carry a time zone.
 */
export function parseCalendarDate(value: unknown): ParseResult<string | null> {
  if (isBlank(value)) return BLANK
  if (typeof value === 'number') {
    return fail(
      'invalid_date',
      `${describeValue(value)} was sent as a number; send dates as text YYYY-MM-DD`,
      `${describeValuePl(value)} przesłano jako liczbę; datę przesyła się jako tekst RRRR-MM-DD`,
    )
  }
  if (typeof value !== 'string')
    return wrongType(value, { en: 'a date as text YYYY-MM-DD', pl: 'datę jako tekst RRRR-MM-DD' })
  const text = value.trim()
  const iso = ISO_DATE.exec(text)
  const parts = iso ?? POLISH_DATE.exec(text)
  if (parts === null) {
    return fail(
      'invalid_date',
      `${describeValue(value)} is not a date; use YYYY-MM-DD (or DD.MM.YYYY)`,
      `${describeValuePl(value)} nie jest datą; wpisz datę jako RRRR-MM-DD (lub DD.MM.RRRR), np. 2026-03-01`,
    )
  }
  const year = Number(iso ? parts[1] : parts[3])
  const month = Number(parts[2])
  const day = Number(iso ? parts[3] : parts[1])
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return fail(
      'invalid_date',
      `${describeValue(value)} is not a real calendar date`,
      `${describeValuePl(value)} nie jest istniejącą datą (takiego dnia nie ma w kalendarzu)`,
    )
  }
  if (year < MIN_YEAR || year > MAX_YEAR) {
    return fail(
      'invalid_date',
      `${describeValue(value)} has a year outside ${MIN_YEAR}–${MAX_YEAR}`,
      `${describeValuePl(value)} ma rok spoza zakresu ${MIN_YEAR}–${MAX_YEAR}`,
    )
  }
  if (iso !== null) return ok(text)
  return ok(`${String(year)}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`)
}

// ---------------------------------------------------------------------------------------------
// Integers

export interface IntegerBounds {
  /** Inclusive; with `min: 0` a negative value is reported as `negative_not_allowed`. */
  min?: number
  /** Inclusive. */
  max?: number
}

const INTEGER_TEXT = /^-?[0-9]+$/

/**
 * ASCII digits with an optional leading `-`, or a JSON integer. `1.0`, `1e2` and non-ASCII digits
 * (`١٢`) are refused: an integer column that receives them was most likely mapped to the wrong data.
 */
export function parseInteger(value: unknown, bounds: IntegerBounds = {}): ParseResult<number | null> {
  if (isBlank(value)) return BLANK
  const min = bounds.min ?? INT32_MIN
  const max = bounds.max ?? INT32_MAX
  let parsed: number
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return notWhole(value)
    parsed = value
  } else if (typeof value === 'string') {
    const text = value.trim()
    if (!INTEGER_TEXT.test(text)) return notWhole(value)
    const digits = text.replace(/^-?0*/, '')
    // past 15 digits Number() starts rounding; such values are out of range for every field anyway
    parsed = digits.length > 15 ? (text.startsWith('-') ? -Infinity : Infinity) : Number(text)
  } else {
    return wrongType(value, { en: 'a whole number, e.g. "3" or 3', pl: 'liczbę całkowitą, np. "3" lub 3' })
  }
  if (parsed < min) {
    return min === 0
      ? negative(value)
      : fail(
          'out_of_range',
          `${describeValue(value)} is below the minimum of ${min}`,
          `${describeValuePl(value)} jest poza dopuszczalnym zakresem (najmniej ${min})`,
        )
  }
  if (parsed > max)
    return fail(
      'out_of_range',
      `${describeValue(value)} is above the maximum of ${max}`,
      `${describeValuePl(value)} jest poza dopuszczalnym zakresem (najwięcej ${max})`,
    )
  // -0 would survive JSON as 0 anyway, but Object.is comparisons in the planner must not see it
  return ok(parsed === 0 ? 0 : parsed)
}

function notWhole(value: unknown): ParseFailure {
  return fail(
    'invalid_integer',
    `${describeValue(value)} is not a whole number`,
    `${describeValuePl(value)} nie jest liczbą całkowitą`,
  )
}

// ---------------------------------------------------------------------------------------------
// Words

export function parseStatus(value: unknown): ParseResult<OfferStatus | null> {
  if (isBlank(value)) return BLANK
  const status = typeof value === 'string' ? lookupStatus(value) : undefined
  if (status !== undefined) return ok(status)
  if (typeof value !== 'string' && typeof value !== 'number')
    return wrongType(value, { en: 'a status as text', pl: 'status jako tekst' })
  return fail(
    'invalid_enum',
    `${describeValue(value)} is not a known status; use one of ${OFFER_STATUSES.join(', ')} ` +
      '(Polish words such as wolne, rezerwacja, sprzedane are accepted)',
    `${describeValuePl(value)} nie jest znanym statusem; wpisz np. wolne, rezerwacja, sprzedane, niedostępne ` +
      'lub archiwalne',
  )
}

/** Where the types the import and the webhook refuse are entered (docs/decisions/editor.md). */
const EDITOR_HINT_EN =
  'standalone parts (parking spaces, garages, storage rooms) and appurtenant rooms are entered in the ' +
  'offer editor (admin panel or REST API)'
const EDITOR_HINT_PL =
  'miejsca postojowe, garaże i komórki lokatorskie (części samodzielne i pomieszczenia przynależne) dodaje się ' +
  'w edytorze oferty (panel administracyjny lub REST API)'

/**
 * `mieszkanie` or `dom` (docs/reference/import-format.md), in any case and with surrounding spaces, or one of their
 * unambiguous synonyms. Any other word is refused: `prop_type_not_allowed` for a standalone part,
 * an appurtenant room or a non-residential unit (the editor's business), `invalid_enum` for a word
 * not known at all. Legal qualification is never guessed (docs/integration/import.md).
 */
export function parsePropertyType(value: unknown): ParseResult<OfferTypeCode | null> {
  if (isBlank(value)) return BLANK
  const type = typeof value === 'string' ? lookupPropertyType(value) : undefined
  if (type !== undefined) return ok(type)
  if (typeof value !== 'string' && typeof value !== 'number')
    return wrongType(value, { en: 'mieszkanie or dom as text', pl: 'tekst „mieszkanie” lub „dom”' })
  if (typeof value === 'string' && isNotAllowedTypeWord(value)) {
    return fail(
      'prop_type_not_allowed',
      `only mieszkanie or dom (a flat or a house) can be sent here, not ${describeValue(value)}; ${EDITOR_HINT_EN}`,
      `dozwolone są tylko „mieszkanie” lub „dom”, a przesłano ${describeValuePl(value)}; ${EDITOR_HINT_PL}`,
    )
  }
  return fail(
    'invalid_enum',
    `${describeValue(value)} is not a known type; only mieszkanie or dom (a flat or a house) are accepted; ${EDITOR_HINT_EN}`,
    `${describeValuePl(value)} nie jest znanym rodzajem; dozwolone są tylko „mieszkanie” lub „dom”; ${EDITOR_HINT_PL}`,
  )
}

/**
 * The editor's types (docs/decisions/editor.md): a flat or a house as the import takes them, or a
 * standalone part sold on its own (`parking_space`, `garage`, `storage_room`, `other`, or their
 * names). Appurtenant rooms and parts of a flat are its components, not offers of their own.
 */
export function parseEditorPropertyType(value: unknown): ParseResult<EditorTypeCode | null> {
  if (isBlank(value)) return BLANK
  const type = typeof value === 'string' ? lookupEditorPropertyType(value) : undefined
  if (type !== undefined) return ok(type)
  if (typeof value !== 'string')
    return wrongType(value, { en: 'a type as text, e.g. mieszkanie', pl: 'rodzaj jako tekst, np. mieszkanie' })
  return fail(
    'invalid_enum',
    `${describeValue(value)} is not a known type; use mieszkanie, dom (a flat or a house), or parking_space, ` +
      'garage, storage_room, other (a standalone part sold on its own)',
    `${describeValuePl(value)} nie jest znanym rodzajem; wpisz mieszkanie, dom albo — dla części sprzedawanej ` +
      'samodzielnie — parking_space (miejsce postojowe), garage (garaż), storage_room (komórka lokatorska), other',
  )
}

export function parseVoivodeship(value: unknown): ParseResult<Voivodeship | null> {
  if (isBlank(value)) return BLANK
  const name = typeof value === 'string' ? lookupVoivodeship(value) : undefined
  if (name !== undefined) return ok(name)
  if (typeof value !== 'string' && typeof value !== 'number')
    return wrongType(value, { en: 'a voivodeship name as text', pl: 'nazwę województwa jako tekst' })
  return fail(
    'invalid_enum',
    `${describeValue(value)} is not a Polish voivodeship, e.g. mazowieckie`,
    `${describeValuePl(value)} nie jest nazwą województwa; wpisz np. mazowieckie`,
  )
}

const POSTAL_CODE = /^([0-9]{2})-?([0-9]{3})$/

/** `NN-NNN`; `NNNNN` is accepted and gets its dash. Numbers are refused because `00-950` would arrive as 950. */
export function parsePostalCode(value: unknown): ParseResult<string | null> {
  if (isBlank(value)) return BLANK
  if (typeof value === 'number') {
    return fail(
      'invalid_postal_code',
      `${describeValue(value)} was sent as a number; send postal codes as text NN-NNN`,
      `${describeValuePl(value)} przesłano jako liczbę; kod pocztowy przesyła się jako tekst NN-NNN`,
    )
  }
  if (typeof value !== 'string')
    return wrongType(value, { en: 'a postal code as text NN-NNN', pl: 'kod pocztowy jako tekst NN-NNN' })
  const match = POSTAL_CODE.exec(value.trim())
  if (match === null)
    return fail(
      'invalid_postal_code',
      `${describeValue(value)} is not a postal code NN-NNN`,
      `${describeValuePl(value)} nie jest kodem pocztowym w formacie NN-NNN, np. 60-001`,
    )
  return ok(`${match[1] ?? ''}-${match[2] ?? ''}`)
}

// ---------------------------------------------------------------------------------------------
// Free text

/*
 * Control, format (zero-width, BOM, bidi overrides), lone surrogate and line/paragraph separator
 * characters: invisible in the admin panel, they make two ids that look equal differ and break
 * the published CSV.
 */
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u

/** The rule of every text field that reaches the official file or the export (a line break too). */
export function hasUnprintableCharacter(text: string): boolean {
  return UNPRINTABLE.test(text.normalize('NFC'))
}

/*
 * Texts reach the official daily CSV, which the public downloads and opens in spreadsheet
 * programs: a designation or a street such as `=cmd|' /C calc'!A0` or `=HYPERLINK(…)` was
 * imported and published verbatim (found by the fuzz suite), and Excel runs a cell that starts
 * with =, +, - or @ as a formula (CSV injection). Such a text is refused where it enters; a sign
 * before a plain number (`-1`, `+48`) and a lone dash are text to every spreadsheet.
 */
export function looksLikeFormula(text: string): boolean {
  const first = text.charCodeAt(0)
  // = and @
  if (first === 0x3d || first === 0x40) return text.length > 1
  // + and -
  if (first === 0x2b || first === 0x2d) return text.length > 1 && !/^[+-]\d+(?:[.,]\d+)?$/.test(text)
  return false
}
const PRINTABLE_ASCII = /^[\x20-\x7E]*$/

export interface TextOptions {
  /** In code points, after trimming. */
  maxLength: number
}

/**
 * Trimmed, NFC-normalized text (so that the same name typed on macOS and on Windows is one value).
 * A JSON integer is accepted and written in decimal, because CRMs send numeric ids and building
 * numbers as numbers; any other number is refused as its text form may be a float artefact.
 */
export function parseText(value: unknown, options: TextOptions): ParseResult<string | null> {
  if (isBlank(value)) return BLANK
  let text: string
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      return fail(
        'invalid_type',
        `${describeValue(value)} is not accepted as a number; send it as a string`,
        `${describeValuePl(value)} nie jest tu przyjmowane jako liczba; prześlij je jako tekst`,
      )
    }
    text = String(value)
  } else if (typeof value === 'string') {
    text = value.trim()
  } else {
    return wrongType(value, { en: 'text', pl: 'tekst' })
  }
  // most values are printable ASCII, already normalized and one code unit per character
  if (PRINTABLE_ASCII.test(text)) {
    return text.length > options.maxLength ? tooLong(value, options.maxLength) : ok(text)
  }
  text = text.normalize('NFC')
  if (UNPRINTABLE.test(text)) {
    return fail(
      'invalid_text',
      `${describeValue(value)} contains control or invisible characters`,
      `${describeValuePl(value)} zawiera znaki sterujące lub niewidoczne; usuń je`,
    )
  }
  // code points, not UTF-16 units: a character outside the BMP counts once
  let length = text.length
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) length -= 1
  }
  return length > options.maxLength ? tooLong(value, options.maxLength) : ok(text)
}

/** `parseText` for a text that reaches the official daily CSV: one that starts like a formula is refused. */
export function parseOfficialText(value: unknown, options: TextOptions): ParseResult<string | null> {
  const parsed = parseText(value, options)
  if (parsed.ok && parsed.value !== null && looksLikeFormula(parsed.value)) {
    return fail(
      'formula_text',
      `${describeValue(value)} starts like a spreadsheet formula (=, +, - or @), which a program opening the official file would run`,
      `${describeValuePl(value)} zaczyna się jak formuła arkusza (=, +, - lub @), którą program otwierający plik urzędowy by wykonał; usuń ten znak z początku`,
    )
  }
  return parsed
}

function tooLong(value: unknown, maxLength: number): ParseFailure {
  return fail(
    'too_long',
    `${describeValue(value)} is longer than ${maxLength} characters`,
    `${describeValuePl(value)} ma więcej niż ${maxLength} znaków`,
  )
}
