/*
 * Parsers for single canonical values. Inputs are `unknown` because they come from file cells
 * (always text) and from webhook JSON (string, number, boolean or null).
 *
 * Every parser answers `{ ok: true, value: null }` for a blank input (undefined, null, or a string
 * of whitespace only): whether "not sent" is acceptable is the caller's decision, not the parser's.
 * Messages name the bad value but not the field; the row validator prefixes the field name.
 */
import {
  lookupPropertyType,
  lookupStatus,
  lookupVoivodeship,
  OFFER_STATUSES,
  type OfferStatus,
  type OfferTypeCode,
  PROPERTY_TYPES,
  STANDALONE_PART_TYPES,
  type Voivodeship,
} from './canonical-fields.js'

export const VALUE_ERROR_CODES = [
  'invalid_type',
  'invalid_text',
  'too_long',
  'invalid_decimal',
  'invalid_integer',
  'invalid_date',
  'invalid_enum',
  'invalid_postal_code',
  'negative_not_allowed',
  'out_of_range',
] as const
export type ValueErrorCode = (typeof VALUE_ERROR_CODES)[number]

export interface ParseFailure {
  ok: false
  code: ValueErrorCode
  message: string
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
const fail = (code: ValueErrorCode, message: string): ParseFailure => ({ ok: false, code, message })
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

function wrongType(value: unknown, expected: string): ParseFailure {
  return fail('invalid_type', `${describeValue(value)} is not accepted; send ${expected}`)
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

/** `sent` is the value as sent, for messages: `text` has already lost its padding and unit. */
function parseDecimalParts(text: string, decimals: number, sent: unknown): ParseResult<DecimalParts> {
  const match = PLAIN_DECIMAL.exec(text) ?? GROUPED_DECIMAL.exec(text)
  if (match === null) return diagnoseDecimal(text, decimals, sent)
  const fraction = match[2] ?? ''
  if (fraction.length > decimals) {
    return fail(
      'invalid_decimal',
      `${describeValue(sent)} has more than ${decimals} decimal places; to separate thousands use a space, not "." or ","`,
    )
  }
  const integer = (match[1] ?? '').replace(/[^0-9]/g, '').replace(/^0+(?=[0-9])/, '')
  if (integer.length > MAX_INTEGER_DIGITS) return fail('out_of_range', `${describeValue(sent)} is too large`)
  return ok({ integer, fraction: fraction.padEnd(decimals, '0') })
}

/** Explains why text that is not a decimal was refused, most specific reason first. */
function diagnoseDecimal(text: string, decimals: number, sent: unknown): ParseFailure {
  const shown = describeValue(sent)
  if (MINUS.test(text)) {
    const rest = parseDecimalParts(text.slice(1).trim(), decimals, sent)
    if (rest.ok || rest.code === 'out_of_range') {
      return fail('negative_not_allowed', `${shown} is negative; only values of 0 or more are accepted`)
    }
  } else if (NOT_A_NUMBER.test(text)) {
    return fail('invalid_decimal', `${shown} is not a number`)
  } else if (EXPONENT.test(text)) {
    return fail('invalid_decimal', `${shown} uses exponent notation; write all digits, e.g. 100000`)
  } else if (text.includes('.') && text.includes(',')) {
    return fail(
      'invalid_decimal',
      `${shown} mixes "." and "," so its thousands separator is ambiguous; write 1234.56, 1234,56 or 1 234,56`,
    )
  }
  return fail('invalid_decimal', `${shown} is not a decimal number (expected e.g. 1234.56 or 1 234,56)`)
}

const MONEY_SUFFIX = /\s*(?:zł|zl|pln)$/iu

/**
 * Decimal text → integer grosze, e.g. `"123 456,78"` → `12345678`. Conversion is done on the digit
 * strings with BigInt so that no binary floating-point rounding can creep in. JSON numbers are
 * refused (contract 4.7 rule 4): by the time a float reaches us, `0.1 + 0.2`-style artefacts may
 * already have changed the amount, and we cannot tell.
 */
export function parseMoney(value: unknown): ParseResult<number | null> {
  if (isBlank(value)) return BLANK
  if (typeof value === 'number') {
    return fail(
      'invalid_decimal',
      `${describeValue(value)} was sent as a number; amounts must be sent as strings of decimal text, e.g. "123456.78"`,
    )
  }
  if (typeof value !== 'string') return wrongType(value, 'an amount as decimal text, e.g. "123456.78"')
  const text = value.trim().replace(MONEY_SUFFIX, '')
  const parts = parseDecimalParts(text, 2, value)
  if (!parts.ok) return parts.code === 'out_of_range' ? outOfRangeAmount(value) : parts
  const cents = BigInt(parts.value.integer + parts.value.fraction)
  if (cents > MAX_AMOUNT_CENTS_BIGINT) return outOfRangeAmount(value)
  return ok(Number(cents))
}

function outOfRangeAmount(value: string): ParseFailure {
  return fail('out_of_range', `${describeValue(value)} exceeds the maximum amount of 100 000 000 000,00 zł`)
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
    )
  }
  if (typeof value !== 'string') return wrongType(value, 'an area as decimal text, e.g. "54.30"')
  const text = value.trim().replace(AREA_SUFFIX, '')
  const parts = parseDecimalParts(text, AREA_DECIMALS, value)
  if (!parts.ok) return parts.code === 'out_of_range' ? outOfRangeArea(value) : parts
  const { integer, fraction } = parts.value
  if (integer === '0' && /^0*$/.test(fraction)) {
    return fail('out_of_range', `${describeValue(value)} is not a valid area; it must be greater than 0`)
  }
  const hundredths = BigInt(integer + fraction)
  if (hundredths > MAX_AREA_HUNDREDTHS) return outOfRangeArea(value)
  return ok(`${integer}.${fraction}`)
}

function outOfRangeArea(value: string): ParseFailure {
  return fail('out_of_range', `${describeValue(value)} exceeds the maximum area of ${MAX_AREA} m²`)
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
    return fail('invalid_date', `${describeValue(value)} was sent as a number; send dates as text YYYY-MM-DD`)
  }
  if (typeof value !== 'string') return wrongType(value, 'a date as text YYYY-MM-DD')
  const text = value.trim()
  const iso = ISO_DATE.exec(text)
  const parts = iso ?? POLISH_DATE.exec(text)
  if (parts === null) {
    return fail('invalid_date', `${describeValue(value)} is not a date; use YYYY-MM-DD (or DD.MM.YYYY)`)
  }
  const year = Number(iso ? parts[1] : parts[3])
  const month = Number(parts[2])
  const day = Number(iso ? parts[3] : parts[1])
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return fail('invalid_date', `${describeValue(value)} is not a real calendar date`)
  }
  if (year < MIN_YEAR || year > MAX_YEAR) {
    return fail('invalid_date', `${describeValue(value)} has a year outside ${MIN_YEAR}–${MAX_YEAR}`)
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
    if (!Number.isInteger(value)) return fail('invalid_integer', `${describeValue(value)} is not a whole number`)
    parsed = value
  } else if (typeof value === 'string') {
    const text = value.trim()
    if (!INTEGER_TEXT.test(text)) return fail('invalid_integer', `${describeValue(value)} is not a whole number`)
    const digits = text.replace(/^-?0*/, '')
    // past 15 digits Number() starts rounding; such values are out of range for every field anyway
    parsed = digits.length > 15 ? (text.startsWith('-') ? -Infinity : Infinity) : Number(text)
  } else {
    return wrongType(value, 'a whole number, e.g. "3" or 3')
  }
  if (parsed < min) {
    return min === 0
      ? fail('negative_not_allowed', `${describeValue(value)} is negative; only values of 0 or more are accepted`)
      : fail('out_of_range', `${describeValue(value)} is below the minimum of ${min}`)
  }
  if (parsed > max) return fail('out_of_range', `${describeValue(value)} is above the maximum of ${max}`)
  // -0 would survive JSON as 0 anyway, but Object.is comparisons in the planner must not see it
  return ok(parsed === 0 ? 0 : parsed)
}

// ---------------------------------------------------------------------------------------------
// Words

export function parseStatus(value: unknown): ParseResult<OfferStatus | null> {
  if (isBlank(value)) return BLANK
  const status = typeof value === 'string' ? lookupStatus(value) : undefined
  if (status !== undefined) return ok(status)
  if (typeof value !== 'string' && typeof value !== 'number') return wrongType(value, 'a status as text')
  return fail(
    'invalid_enum',
    `${describeValue(value)} is not a known status; use one of ${OFFER_STATUSES.join(', ')} ` +
      '(Polish words such as wolne, rezerwacja, sprzedane are accepted)',
  )
}

export function parsePropertyType(value: unknown): ParseResult<OfferTypeCode | null> {
  if (isBlank(value)) return BLANK
  const type = typeof value === 'string' ? lookupPropertyType(value) : undefined
  if (type !== undefined) return ok(type)
  if (typeof value !== 'string' && typeof value !== 'number') return wrongType(value, 'a property type as text')
  return fail(
    'invalid_enum',
    `${describeValue(value)} is not a known property type; use ${PROPERTY_TYPES.join(' or ')}, ` +
      `or for a standalone part ${STANDALONE_PART_TYPES.join(', ')}`,
  )
}

export function parseVoivodeship(value: unknown): ParseResult<Voivodeship | null> {
  if (isBlank(value)) return BLANK
  const name = typeof value === 'string' ? lookupVoivodeship(value) : undefined
  if (name !== undefined) return ok(name)
  if (typeof value !== 'string' && typeof value !== 'number') return wrongType(value, 'a voivodeship name as text')
  return fail('invalid_enum', `${describeValue(value)} is not a Polish voivodeship, e.g. mazowieckie`)
}

const POSTAL_CODE = /^([0-9]{2})-?([0-9]{3})$/

/** `NN-NNN`; `NNNNN` is accepted and gets its dash. Numbers are refused because `00-950` would arrive as 950. */
export function parsePostalCode(value: unknown): ParseResult<string | null> {
  if (isBlank(value)) return BLANK
  if (typeof value === 'number') {
    return fail('invalid_postal_code', `${describeValue(value)} was sent as a number; send postal codes as text NN-NNN`)
  }
  if (typeof value !== 'string') return wrongType(value, 'a postal code as text NN-NNN')
  const match = POSTAL_CODE.exec(value.trim())
  if (match === null) return fail('invalid_postal_code', `${describeValue(value)} is not a postal code NN-NNN`)
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
      return fail('invalid_type', `${describeValue(value)} is not accepted as a number; send it as a string`)
    }
    text = String(value)
  } else if (typeof value === 'string') {
    text = value.trim()
  } else {
    return wrongType(value, 'text')
  }
  // most values are printable ASCII, already normalized and one code unit per character
  if (PRINTABLE_ASCII.test(text)) {
    return text.length > options.maxLength ? tooLong(value, options.maxLength) : ok(text)
  }
  text = text.normalize('NFC')
  if (UNPRINTABLE.test(text)) {
    return fail('invalid_text', `${describeValue(value)} contains control or invisible characters`)
  }
  // code points, not UTF-16 units: a character outside the BMP counts once
  let length = text.length
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff) length -= 1
  }
  return length > options.maxLength ? tooLong(value, options.maxLength) : ok(text)
}

function tooLong(value: unknown, maxLength: number): ParseFailure {
  return fail('too_long', `${describeValue(value)} is longer than ${maxLength} characters`)
}
