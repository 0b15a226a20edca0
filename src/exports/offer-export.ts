/*
 * The offers as a file in the import's own columns, so a file exported, edited in a spreadsheet and
 * imported again changes exactly what was edited: an untouched export imports as "unchanged" for
 * every offer. An operator's file speaks Polish: the fields' Polish labels (as the import's row
 * errors name them) for headers, STATUS_WORDS_PL for statuses, both read back by the import. An
 * integration asks for the technical names instead (the canonical field names and status codes).
 * Only what the import can address is exported: offers of the kind the file import writes (flats
 * and houses, not standalone parts) whose offer and investment carry import identifiers; the others
 * are counted, never dropped silently. Values are written as the import reads them: amounts with a
 * dot and two decimals, dates YYYY-MM-DD, types by their code.
 */
import ExcelJS from 'exceljs'
import { sql } from 'kysely'

import type { HostContext } from '../host/context.js'
import { listedTotal, type OfferFilters, pricesDayOf } from '../editor/editor-repository.js'
import { CANONICAL_FIELDS, type CanonicalField, type OfferStatus, STATUS_WORDS_PL } from '../offers/canonical-fields.js'
import { FIELD_LABELS_PL } from '../offers/validation/row-errors.js'
import { warsawDate } from '../host/warsaw-day.js'

/** Canonical fields the store does not keep, so an export cannot fill them. */
export const NOT_EXPORTED_FIELDS = ['proj_local_no'] as const satisfies readonly CanonicalField[]

/**
 * A column of an export and of the template: every canonical field the store keeps. A field added to
 * the vocabulary is a column at once, and the type check asks for its description and its value below.
 */
export type ExportColumn = Exclude<CanonicalField, (typeof NOT_EXPORTED_FIELDS)[number]>

const notExported: ReadonlySet<CanonicalField> = new Set(NOT_EXPORTED_FIELDS)
const isExportColumn = (field: CanonicalField): field is ExportColumn => !notExported.has(field)

/** The columns of an export and of the template, in the canonical fields' order. */
export const EXPORT_COLUMNS: readonly ExportColumn[] = CANONICAL_FIELDS.filter(isExportColumn)

/** `polish`: headers and statuses as an operator reads them (the default); `technical`: field names and status codes. */
export const COLUMN_NAMINGS = ['polish', 'technical'] as const
export type ColumnNaming = (typeof COLUMN_NAMINGS)[number]

/** A column's header in a file of this naming. */
export function columnHeader(column: ExportColumn, naming: ColumnNaming): string {
  return naming === 'polish' ? FIELD_LABELS_PL[column] : column
}

const isOfferStatus = (value: string): value is OfferStatus => Object.hasOwn(STATUS_WORDS_PL, value)

/** A cell as the file of this naming writes it: a status by its Polish word, everything else as it is. */
function cellOf(row: ExportRow, column: ExportColumn, naming: ColumnNaming): string {
  const value = row[column]
  if (naming === 'polish' && column === 'property_status' && isOfferStatus(value)) return STATUS_WORDS_PL[value]
  return value
}

export interface FileOptions {
  columns?: readonly ExportColumn[]
  naming?: ColumnNaming
}

/** What each column holds, in Polish and English: the template's second sheet. */
export const COLUMN_DESCRIPTIONS: Readonly<Record<ExportColumn, [string, string]>> = {
  source_investment_id: [
    'Identyfikator inwestycji (z CRM); wymagany',
    'Investment identifier (from the CRM); required',
  ],
  source_property_id: ['Identyfikator lokalu (z CRM); wymagany', 'Unit identifier (from the CRM); required'],
  prop_no: ['Oznaczenie lokalu, np. A/12', 'Unit designation, e.g. A/12'],
  prop_type: ['Rodzaj: mieszkanie albo dom', 'Type: mieszkanie (flat) or dom (house)'],
  property_status: [
    'Status: wolne, zarezerwowane, sprzedane, niedostępne (albo available, reserved, sold, unavailable)',
    'Status: wolne (available), zarezerwowane (reserved), sprzedane (sold), niedostępne (unavailable)',
  ],
  prop_area: ['Powierzchnia użytkowa w m², np. 54.30', 'Usable area in m², e.g. 54.30'],
  prop_rooms: ['Liczba pokoi', 'Number of rooms'],
  prop_floor: ['Piętro (0 = parter)', 'Floor (0 = ground floor)'],
  price_m2: ['Cena za m² w zł, np. 12500.00', 'Price per m² in PLN, e.g. 12500.00'],
  price_m2_from: ['Cena za m² obowiązuje od (RRRR-MM-DD)', 'Price per m² valid from (YYYY-MM-DD)'],
  price_total: ['Cena całkowita w zł', 'Total price in PLN'],
  price_total_from: ['Cena całkowita obowiązuje od (RRRR-MM-DD)', 'Total price valid from (YYYY-MM-DD)'],
  price_combined: ['Cena łączna z częściami (kolumna 42) w zł', 'Combined price with parts (column 42) in PLN'],
  price_combined_from: ['Cena łączna obowiązuje od (RRRR-MM-DD)', 'Combined price valid from (YYYY-MM-DD)'],
  price_combined_variant: ['Wariant ceny łącznej', 'Variant of the combined price'],
  price_combined_status: ['Stan ceny łącznej', 'State of the combined price'],
  proj_voivod: ['Województwo inwestycji', 'Voivodeship of the investment'],
  proj_powiat: ['Powiat', 'County (powiat)'],
  proj_gmina: ['Gmina', 'Municipality (gmina)'],
  proj_city: ['Miejscowość', 'Town'],
  proj_street: ['Ulica', 'Street'],
  proj_build_no: ['Numer budynku', 'Building number'],
  proj_zip: ['Kod pocztowy, np. 00-950', 'Postal code, e.g. 00-950'],
}

export type ExportRow = Record<ExportColumn, string>

export interface OfferExport {
  rows: ExportRow[]
  /** Offers the filters matched that the import cannot address (standalone parts, no identifiers). */
  left_out: number
}

const cents = (value: number | null): string => {
  if (value === null) return ''
  const sign = value < 0 ? '-' : ''
  const abs = Math.abs(value)
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
}
const text = (value: string | number | null | undefined): string =>
  value === null || value === undefined ? '' : String(value)

/** The offers the editor's table shows with these filters, as export rows (ordered by investment and identifier). */
export async function exportOffers(ctx: HostContext, asked: OfferFilters, limit = 200_000): Promise<OfferExport> {
  const filters = { ...asked, pricesOn: await pricesDayOf(ctx.db, asked, undefined, warsawDate(ctx.now())) }
  let q = ctx.db
    .selectFrom('offers as o')
    .innerJoin('investments as i', 'i.id', 'o.investment_id')
    .select([
      'o.id',
      'o.offer_kind',
      'o.source_property_id',
      'i.source_id',
      'o.code',
      'o.property_type',
      'o.status',
      'o.area',
      'o.rooms',
      'o.floor',
      'o.price_m2_cents',
      'o.price_m2_from',
      'o.price_total_cents',
      'o.price_total_from',
      'o.price_combined_cents',
      'o.price_combined_from',
      'o.price_combined_variant',
      'o.price_combined_status',
      'i.loc_voivodeship',
      'i.loc_powiat',
      'i.loc_gmina',
      'i.loc_city',
      'i.loc_street',
      'i.loc_building_no',
      'i.loc_postal_code',
    ])
  if (filters.investment !== undefined) q = q.where('o.investment_id', '=', filters.investment)
  if (filters.investments !== undefined)
    q =
      filters.investments.length > 0
        ? q.where('o.investment_id', 'in', filters.investments)
        : q.where(sql<boolean>`1 = 0`)
  if (filters.status !== undefined) q = q.where('o.status', '=', filters.status)
  if (filters.hostStatus !== undefined) q = q.where('o.host_status', '=', filters.hostStatus)
  if (filters.offerKind !== undefined) q = q.where('o.offer_kind', '=', filters.offerKind)
  if (filters.type !== undefined) q = q.where('o.property_type', '=', filters.type)
  if (filters.withoutType === true) q = q.where('o.property_type', '=', '')
  if (filters.rooms !== undefined) q = q.where('o.rooms', '=', filters.rooms)
  if (filters.floor !== undefined) q = q.where('o.floor', '=', filters.floor)
  if (filters.priceMin !== undefined) q = q.where(listedTotal('o', filters), '>=', filters.priceMin)
  if (filters.priceMax !== undefined) q = q.where(listedTotal('o', filters), '<=', filters.priceMax)
  if (filters.search) {
    const term = `%${filters.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    q = q.where((eb) =>
      eb.or([
        eb(sql`lower(o.title)`, 'like', sql`${term} escape '\\'`),
        eb(sql`lower(o.code)`, 'like', sql`${term} escape '\\'`),
        eb(sql`lower(o.source_property_id)`, 'like', sql`${term} escape '\\'`),
      ]),
    )
  }
  const found = await q.orderBy('i.source_id').orderBy('o.source_property_id').orderBy('o.id').limit(limit).execute()
  const area = (value: string | null) => {
    if (value === null) return ''
    const [whole, fraction = ''] = value.split('.')
    return `${whole}.${fraction.padEnd(2, '0')}`
  }
  const minMax = (value: string | null) => (value === null ? null : Number(value))
  const rows: ExportRow[] = []
  let leftOut = 0
  for (const o of found) {
    const numericArea = minMax(o.area)
    if (filters.areaMin !== undefined && (numericArea === null || numericArea < Number(filters.areaMin))) continue
    if (filters.areaMax !== undefined && (numericArea === null || numericArea > Number(filters.areaMax))) continue
    if (o.offer_kind !== 'property' || !o.source_property_id || !o.source_id) {
      leftOut++
      continue
    }
    rows.push({
      source_investment_id: o.source_id,
      source_property_id: o.source_property_id,
      prop_no: text(o.code),
      prop_type: text(o.property_type),
      property_status: text(o.status),
      prop_area: area(o.area),
      prop_rooms: text(o.rooms),
      prop_floor: text(o.floor),
      price_m2: cents(o.price_m2_cents),
      price_m2_from: text(o.price_m2_from),
      price_total: cents(o.price_total_cents),
      price_total_from: text(o.price_total_from),
      price_combined: cents(o.price_combined_cents),
      price_combined_from: text(o.price_combined_from),
      price_combined_variant: text(o.price_combined_variant),
      price_combined_status: text(o.price_combined_status),
      proj_voivod: text(o.loc_voivodeship),
      proj_powiat: text(o.loc_powiat),
      proj_gmina: text(o.loc_gmina),
      proj_city: text(o.loc_city),
      proj_street: text(o.loc_street),
      proj_build_no: text(o.loc_building_no),
      proj_zip: text(o.loc_postal_code),
    })
  }
  return { rows, left_out: leftOut }
}

const csvCell = (value: string) => {
  // a cell starting like a formula is quoted as text by a leading apostrophe in spreadsheets; the
  // import's own columns never hold one (amounts and dates are plain), so only quoting is needed
  return /[";\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value
}

/** UTF-8 with a byte-order mark (Excel opens it as UTF-8), `;` between cells, as Polish spreadsheets write. */
export function exportCsv(rows: readonly ExportRow[], options: FileOptions = {}): Buffer {
  const { columns = EXPORT_COLUMNS, naming = 'polish' } = options
  const lines = [
    columns.map((c) => csvCell(columnHeader(c, naming))).join(';'),
    ...rows.map((row) => columns.map((c) => csvCell(cellOf(row, c, naming))).join(';')),
  ]
  return Buffer.from(`\uFEFF${lines.join('\r\n')}\r\n`, 'utf8')
}

/** One sheet "Oferty" with every value as text (so a spreadsheet keeps 12500.00 and 2026-01-01 as written). */
export async function exportXlsx(
  rows: readonly ExportRow[],
  options: FileOptions & { describeColumns?: boolean } = {},
): Promise<Buffer> {
  const { columns = EXPORT_COLUMNS, naming = 'polish' } = options
  const workbook = new ExcelJS.Workbook()
  const sheet = workbook.addWorksheet('Oferty')
  sheet.columns = columns.map((c) => {
    const header = columnHeader(c, naming)
    return { header, key: c, width: Math.max(12, header.length + 2), style: { numFmt: '@' } }
  })
  for (const row of rows) sheet.addRow(columns.map((c) => cellOf(row, c, naming)))
  sheet.getRow(1).font = { bold: true }
  if (options.describeColumns) {
    const help = workbook.addWorksheet('Opis kolumn')
    help.columns = [
      { header: 'Kolumna / column', width: 32 },
      { header: 'Nazwa techniczna / technical name', width: 26 },
      { header: 'Opis', width: 60 },
      { header: 'Description', width: 60 },
    ]
    for (const c of columns)
      help.addRow([columnHeader(c, naming), c, COLUMN_DESCRIPTIONS[c][0], COLUMN_DESCRIPTIONS[c][1]])
    help.getRow(1).font = { bold: true }
  }
  return Buffer.from(await workbook.xlsx.writeBuffer())
}
