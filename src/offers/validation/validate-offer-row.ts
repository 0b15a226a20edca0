/*
 * The one validator of canonical offer rows (docs/reference/import-format.md), used by the file import, the webhook
 * and the admin editor before the planner. It is pure: it knows nothing of the catalog, so rules
 * that need the stored offer (e.g. a new offer must have a type) belong to the planner.
 *
 * Decisions where the contract is silent:
 * - Blank values (undefined, null, whitespace) mean "not sent" in both modes and never produce an
 *   error other than `required` for the two ids. Whether "not sent" clears anything is the
 *   planner's decision (it never does in patch mode).
 * - A price without its date is valid: the planner dates it today in Europe/Warsaw, which is what
 *   an operator typing a new price means. A date without its price is valid too (a patch may
 *   correct only the date).
 * - Every problem of a row is reported, not only the first, so a file is fixed in one pass.
 * - `prop_type`, when sent, is `mieszkanie` or `dom`; standalone parts and
 *   appurtenant rooms are entered in the editor, so their words are refused like any other.
 * - Every error says why in Polish and in English (row-errors.ts).
 */
import {
  CANONICAL_FIELDS,
  type CanonicalField,
  isCanonicalField,
  type OfferKind,
  type OfferStatus,
  type PropertyType,
  type Voivodeship,
} from '../canonical-fields.js'
import type { MetaType } from '../../host/meta/meta-registry.js'
import { META_FIELD_PREFIX, type MetaScalar, parseMetaValue } from './meta-values.js'
import { checkPriceConsistency, combinedBelowTotal } from './price-consistency.js'
import { fieldError, type RowError, rowError } from './row-errors.js'
import {
  describeValue,
  describeValuePl,
  isBlank,
  parseArea,
  parseCalendarDate,
  parseEditorPropertyType,
  parseInteger,
  parseMoney,
  parsePostalCode,
  parsePropertyType,
  parseStatus,
  parseOfficialText,
  parseText,
  parseVoivodeship,
  type ParseFailure,
  type ParseResult,
  VALUE_ERROR_CODES,
} from './parse-values.js'

export const ROW_ERROR_CODES = [
  ...VALUE_ERROR_CODES,
  'required',
  'unknown_field',
  'inconsistent_price',
  'combined_below_total',
  'price_before_first_record',
  'price_date_published',
  'inconsistent_price_dates',
  'part_already_listed',
  'duplicate_key',
] as const
export type RowErrorCode = (typeof ROW_ERROR_CODES)[number]

export type { RowError } from './row-errors.js'

export type ImportMode = 'patch' | 'snapshot'

export interface OfferRowOptions {
  row: number
  /** Both modes validate alike today; the mode is passed so that a rule can depend on it without changing callers. */
  mode: ImportMode
  /**
   * `editor`: the offer editor's rules (docs/decisions/editor.md): `prop_type` may also name a standalone
   * part, and the two source ids are optional, since the editor names offers by their id.
   */
  channel?: 'editor'
}

export interface NormalizedLocation {
  voivodeship?: Voivodeship
  powiat?: string
  gmina?: string
  city?: string
  street?: string
  buildingNo?: string
  localNo?: string
  postalCode?: string
}

/** Only fields that were sent and valid are present; an absent key means "not sent" (or invalid, see errors). */
export interface NormalizedOfferValues {
  sourceInvestmentId?: string
  sourcePropertyId?: string
  code?: string
  /** Always `property` when the import or the webhook sent it (flats and houses only); the editor may send a standalone part. */
  offerKind?: OfferKind
  propertyType?: PropertyType
  status?: OfferStatus
  /** Decimal text with exactly 2 decimals, e.g. `54.30`. */
  area?: string
  rooms?: number
  floor?: number
  priceM2Cents?: number
  priceM2From?: string
  priceTotalCents?: number
  priceTotalFrom?: string
  priceCombinedCents?: number
  priceCombinedFrom?: string
  priceCombinedVariant?: string
  priceCombinedStatus?: string
  location?: NormalizedLocation
  /** Custom fields of the offer by registered key (an import's `meta:<key>` columns), merged into `custom_meta`. */
  meta?: Record<string, MetaScalar>
}

export interface OfferRowResult {
  /** `offerKey(source_investment_id, source_property_id)`, or null when either id is missing or invalid. */
  key: string | null
  values: NormalizedOfferValues
  errors: RowError[]
}

export const ID_MAX_LENGTH = 100
export const TEXT_MAX_LENGTH = 255
/*
 * Sanity bounds rather than storage bounds: a 450000 in the rooms column means the mapping points
 * at the price column, and catching that here beats publishing it.
 */
export const ROOMS_BOUNDS = { min: 0, max: 100 }
export const FLOOR_BOUNDS = { min: -20, max: 200 }

/**
 * The offer key: both ids joined by `/`, with `%` and `/` inside each id percent-encoded
 * (`%25`, `%2F`). Ids keep their readable form in the common case, yet the key is unambiguous for
 * any ids: `a/b` + `c` gives `a%2Fb/c`, never the same key as `a` + `b/c` (`a/b%2Fc`). Ids
 * containing `/` are real (`INV/2024/01`), so refusing them was not an option.
 */
export function offerKey(sourceInvestmentId: string, sourcePropertyId: string): string {
  return `${escapeKeyPart(sourceInvestmentId)}/${escapeKeyPart(sourcePropertyId)}`
}

/** The inverse of `offerKey`; undefined for text that no `offerKey` call can produce. */
export function splitOfferKey(key: string): { sourceInvestmentId: string; sourcePropertyId: string } | undefined {
  const parts = key.split('/')
  if (parts.length !== 2) return undefined
  const [investment, property] = parts as [string, string]
  if (/%(?!25|2F)/.test(key)) return undefined
  return { sourceInvestmentId: unescapeKeyPart(investment), sourcePropertyId: unescapeKeyPart(property) }
}

const escapeKeyPart = (part: string): string =>
  part.includes('%') || part.includes('/') ? part.replace(/%/g, '%25').replace(/\//g, '%2F') : part
const unescapeKeyPart = (part: string): string => part.replace(/%(25|2F)/g, (_match, hex) => (hex === '25' ? '%' : '/'))

type FieldHandler = (value: unknown, values: NormalizedOfferValues) => ParseFailure | undefined

/*
 * One handler per field, each storing under a fixed property name: rows are validated in a loop
 * over the keys that were sent, and 100 000-row files must validate in a fraction of the time it
 * takes to parse them, so the hot path avoids generic keyed reads and writes.
 */
function handler<T>(
  parse: (value: unknown) => ParseResult<T | null>,
  store: (values: NormalizedOfferValues, value: T) => void,
): FieldHandler {
  return (value, values) => {
    const result = parse(value)
    if (!result.ok) return result
    if (result.value !== null) store(values, result.value)
    return undefined
  }
}

const identifierText = (value: unknown): ParseResult<string | null> => parseText(value, { maxLength: ID_MAX_LENGTH })
// every canonical text but the source ids is written into the official daily CSV
const text = (value: unknown): ParseResult<string | null> => parseOfficialText(value, { maxLength: TEXT_MAX_LENGTH })
const location = (values: NormalizedOfferValues): NormalizedLocation => (values.location ??= {})

const FIELD_HANDLERS: Readonly<Record<CanonicalField, FieldHandler>> = {
  source_investment_id: handler(identifierText, (v, x) => (v.sourceInvestmentId = x)),
  source_property_id: handler(identifierText, (v, x) => (v.sourcePropertyId = x)),
  prop_no: handler(text, (v, x) => (v.code = x)),
  prop_type: handler(parsePropertyType, (v, x) => {
    v.offerKind = x.offerKind
    v.propertyType = x.propertyType
  }),
  property_status: handler(parseStatus, (v, x) => (v.status = x)),
  prop_area: handler(parseArea, (v, x) => (v.area = x)),
  prop_rooms: handler(
    (value) => parseInteger(value, ROOMS_BOUNDS),
    (v, x) => (v.rooms = x),
  ),
  prop_floor: handler(
    (value) => parseInteger(value, FLOOR_BOUNDS),
    (v, x) => (v.floor = x),
  ),
  price_m2: handler(parseMoney, (v, x) => (v.priceM2Cents = x)),
  price_m2_from: handler(parseCalendarDate, (v, x) => (v.priceM2From = x)),
  price_total: handler(parseMoney, (v, x) => (v.priceTotalCents = x)),
  price_total_from: handler(parseCalendarDate, (v, x) => (v.priceTotalFrom = x)),
  price_combined: handler(parseMoney, (v, x) => (v.priceCombinedCents = x)),
  price_combined_from: handler(parseCalendarDate, (v, x) => (v.priceCombinedFrom = x)),
  price_combined_variant: handler(text, (v, x) => (v.priceCombinedVariant = x)),
  price_combined_status: handler(text, (v, x) => (v.priceCombinedStatus = x)),
  proj_voivod: handler(parseVoivodeship, (v, x) => (location(v).voivodeship = x)),
  proj_powiat: handler(text, (v, x) => (location(v).powiat = x)),
  proj_gmina: handler(text, (v, x) => (location(v).gmina = x)),
  proj_city: handler(text, (v, x) => (location(v).city = x)),
  proj_street: handler(text, (v, x) => (location(v).street = x)),
  proj_build_no: handler(text, (v, x) => (location(v).buildingNo = x)),
  proj_local_no: handler(text, (v, x) => (location(v).localNo = x)),
  proj_zip: handler(parsePostalCode, (v, x) => (location(v).postalCode = x)),
}
const HANDLERS: ReadonlyMap<string, FieldHandler> = new Map(Object.entries(FIELD_HANDLERS))
const EDITOR_HANDLERS: ReadonlyMap<string, FieldHandler> = new Map([
  ...HANDLERS,
  [
    'prop_type',
    handler(parseEditorPropertyType, (v, x) => {
      v.offerKind = x.offerKind
      v.propertyType = x.propertyType
    }),
  ],
])

/** Errors are listed in canonical field order whatever the key order of the input, unknown fields last. */
const FIELD_RANK: ReadonlyMap<string, number> = new Map(CANONICAL_FIELDS.map((field, index) => [field, index]))
const byFieldRank = (a: RowError, b: RowError): number =>
  (FIELD_RANK.get(a.field) ?? CANONICAL_FIELDS.length) - (FIELD_RANK.get(b.field) ?? CANONICAL_FIELDS.length)

export function validateOfferRow(input: Record<string, unknown>, options: OfferRowOptions): OfferRowResult {
  const names = Object.keys(input)
  const editor = options.channel === 'editor'
  const handlers = editor ? EDITOR_HANDLERS : HANDLERS
  return validateCells(
    names,
    names.map((name) => handlers.get(name)),
    names.map((name) => input[name]),
    options.row,
    !editor,
  )
}

/** The rule of `validateOfferRow` for a row given as field names and their values by position. */
function validateCells(
  names: readonly string[],
  handlers: ReadonlyArray<FieldHandler | undefined>,
  cells: readonly unknown[],
  row: number,
  requireKeys = true,
): OfferRowResult {
  const errors: RowError[] = []
  const values: NormalizedOfferValues = {}

  for (let i = 0; i < names.length; i++) {
    const name = names[i] as string
    const fieldHandler = handlers[i]
    if (fieldHandler === undefined) {
      errors.push(rowError(row, name, 'unknown_field', unknownField(name)))
      continue
    }
    const value = cells[i]
    if (isBlank(value)) continue
    const failure = fieldHandler(value, values)
    if (failure !== undefined) errors.push(fieldError(row, name, failure.code, failure.message, failure.message_pl))
  }
  for (const field of requireKeys ? (['source_investment_id', 'source_property_id'] as const) : []) {
    const at = names.indexOf(field)
    if (isBlank(at < 0 ? undefined : cells[at])) {
      errors.push(
        fieldError(
          row,
          field,
          'required',
          'is required and was not sent or is empty',
          'to pole jest wymagane, a nie zostało wypełnione',
        ),
      )
    }
  }

  const inconsistency = checkPriceConsistency(values)
  if (inconsistency !== undefined) errors.push(rowError(row, 'price_total', 'inconsistent_price', inconsistency))
  const combined = combinedBelowTotal(values.priceCombinedCents, values.priceTotalCents)
  if (combined !== undefined) errors.push(rowError(row, 'price_combined', 'combined_below_total', combined))
  if (errors.length > 1) errors.sort(byFieldRank)

  const { sourceInvestmentId, sourcePropertyId } = values
  const key =
    sourceInvestmentId !== undefined && sourcePropertyId !== undefined
      ? offerKey(sourceInvestmentId, sourcePropertyId)
      : null
  return { key, values, errors }
}

function unknownField(name: string): { pl: string; en: string } {
  const folded = name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_')
  const near = isCanonicalField(folded)
  const fields = `${CANONICAL_FIELDS.slice(0, 4).join(', ')}, …`
  return {
    en: `${describeValue(name)} is not a canonical offer field; ${near ? `did you mean ${folded}?` : `canonical fields are ${fields}`}`,
    pl: `${describeValuePl(name)} nie jest polem oferty; ${near ? `czy chodziło o ${folded}?` : `pola oferty to ${fields}`}`,
  }
}

export interface OfferRowsOptions {
  mode: ImportMode
  /** Number given to the first row; rows are numbered consecutively from it. Default 1. */
  firstRow?: number
}

/**
 * A stateful validator for streamed rows: validates each row and reports `duplicate_key` on the
 * second and later occurrences of a key, naming the row where it was first seen. The first
 * occurrence stays valid because, without the rest of the file, it is indistinguishable from a
 * correct row.
 */
export function createOfferRowsValidator(
  mode: ImportMode,
): (input: Record<string, unknown>, row: number) => OfferRowResult {
  const reportDuplicates = duplicateKeyReporter()
  return (input, row) => reportDuplicates(validateOfferRow(input, { row, mode }), row)
}

/**
 * The rules of one row of a file whose columns are mapped once, without `duplicate_key`: each row
 * comes as its cells in the order of `fields` (100,000 rows need no object keyed by field and no
 * lookup per cell), and the caller, which sees the keys of the whole file (a file checked on two
 * threads), reports repeated keys with `duplicateKeyError`.
 */
export function createOfferCellsChecker(
  _mode: ImportMode,
  fields: readonly string[],
  /** The registered type of each custom field a `meta:<key>` field names (the mapping was checked against them). */
  metaTypes: Readonly<Record<string, MetaType>> = {},
): (cells: readonly unknown[], row: number) => OfferRowResult {
  const handlers = fields.map((field) => {
    if (!field.startsWith(META_FIELD_PREFIX)) return HANDLERS.get(field)
    const key = field.slice(META_FIELD_PREFIX.length)
    const type = Object.hasOwn(metaTypes, key) ? metaTypes[key] : undefined
    return type === undefined ? undefined : metaHandler(key, type)
  })
  return (cells, row) => validateCells(fields, handlers, cells, row)
}

/** A custom field's column: its value read by the key's registered type, kept under `meta`. */
function metaHandler(key: string, type: MetaType): FieldHandler {
  return handler(
    (value) => parseMetaValue(type, value),
    (values, value: MetaScalar) => ((values.meta ??= {})[key] = value),
  )
}

/** The error of a row whose key an earlier row (`firstRow`) has already. */
export function duplicateKeyError(row: number, key: string, firstRow: number): RowError {
  return fieldError(
    row,
    'source_property_id',
    'duplicate_key',
    `offer ${describeValue(key)} already appears in row ${firstRow}`,
    `oferta ${describeValuePl(key)} występuje już w wierszu ${firstRow}`,
  )
}

function duplicateKeyReporter(): (result: OfferRowResult, row: number) => OfferRowResult {
  const firstRows = new Map<string, number>()
  return (result, row) => {
    if (result.key === null) return result
    const first = firstRows.get(result.key)
    if (first === undefined) firstRows.set(result.key, row)
    else result.errors.push(duplicateKeyError(row, result.key, first))
    return result
  }
}

export function validateRows(rows: Iterable<Record<string, unknown>>, options: OfferRowsOptions): OfferRowResult[] {
  const validate = createOfferRowsValidator(options.mode)
  const results: OfferRowResult[] = []
  let row = options.firstRow ?? 1
  for (const input of rows) {
    results.push(validate(input, row))
    row += 1
  }
  return results
}
