/*
 * Entry point of the offer-file readers: recognises the format from the file's bytes, enforces the
 * size and row limits, finds the header row and turns every following non-empty row into
 * header → cell text. Mapping and validation are the import service's work.
 */
import { createReadStream } from 'node:fs'
import { open, stat } from 'node:fs/promises'

import { FileReadError, formatBytes } from './file-errors.js'
import { type CsvEncoding, detectCsvDialect, readCsvRecordBatches, readCsvRecords } from './read-csv.js'

export interface FileLimits {
  /** Largest accepted upload, in bytes. */
  maxBytes: number
  /** Largest number of data rows (non-empty rows below the header). */
  maxRows: number
}

export const DEFAULT_FILE_LIMITS: Readonly<FileLimits> = { maxBytes: 50 * 1024 * 1024, maxRows: 200_000 }

export interface OfferFileRow {
  /**
   * The row number the user sees for this row in Excel or LibreOffice, used in every error report:
   * the header is row 1 and the first data row is row 2 in the usual layout. Rows above the header
   * (empty or title rows in a sheet) and skipped empty rows keep their place in the count, so the
   * number always points at the right row when the file is opened. In a CSV file a row is a record:
   * a quoted value with line breaks makes one row span several text lines.
   */
  row: number
  /** Header text → cell text, for every header; '' for an empty or missing cell. */
  values: Record<string, string>
}

export interface OfferFileReader {
  format: 'csv' | 'xlsx'
  /** CSV only. */
  encoding?: CsvEncoding
  /** CSV only: `;`, `,` or a tab. */
  delimiter?: string
  /** XLSX only: the name of the sheet read. */
  sheet?: string
  /** XLSX only: the names of the workbook's worksheets, in tab order. */
  sheets?: string[]
  /** Header texts in column order, trimmed, otherwise verbatim; none empty, no duplicates. */
  headers: string[]
  /** The row number of the header row (see `OfferFileRow.row`). */
  headerRow: number
  /**
   * The data rows; rows whose cells are all empty are skipped. Each iteration reads the file again
   * from disk and holds it open only while iterating, so a reader that is never iterated (the
   * mapping was refused) needs no closing. Iteration throws `FileReadError` (`too_many_rows` as soon
   * as row `maxRows + 1` is read, `csv_malformed`, `xlsx_corrupt`, …).
   *
   * Cells beyond the last header column are ignored when empty. Otherwise a CSV row is refused
   * (`csv_malformed`: most likely a value holding the delimiter without quotes, which shifts every
   * following value), while in a sheet they are ignored: notes next to the table are common there,
   * and a sheet's columns cannot shift.
   */
  rows: AsyncIterable<OfferFileRow>
  /** The same rows in the batches the reader has ready (a large file's rows without a wait each). */
  batches: AsyncIterable<OfferFileRow[]>
  /**
   * The same batches with each row's cells in `headers` order instead of an object keyed by header,
   * for a reader that looks cells up by position (a 100,000-row file need not build its rows twice).
   */
  cellBatches: AsyncIterable<OfferFileCells[]>
}

export interface OfferFileCells {
  row: number
  /** Cell text per header, in `headers` order; '' for an empty or missing cell. */
  cells: string[]
}

export interface ReadOfferFileArgs {
  /** The uploaded file, already on disk. */
  path: string
  /** The name the user gave the file, for messages; the format is recognised from the content. */
  fileName: string
  /** XLSX only: the sheet to read; when absent or blank, the first worksheet in tab order, hidden or not. */
  sheet?: string
  limits: FileLimits
}

/** Opens the file and reads its header row; the rows are read when `rows` is iterated. */
export async function readOfferFile(args: ReadOfferFileArgs): Promise<OfferFileReader> {
  const { path, fileName, limits } = args
  const { size } = await stat(path)
  if (size === 0) throw new FileReadError('file_empty', `The file "${fileName}" is empty (0 bytes).`, { size })
  if (size > limits.maxBytes) {
    throw new FileReadError(
      'file_too_large',
      `The file "${fileName}" is ${formatBytes(size)}; the limit is ${formatBytes(limits.maxBytes)}. ` +
        'Split the offers into smaller files.',
      { size, limit: limits.maxBytes },
    )
  }

  if ((await detectFormat(path, fileName, size)) === 'xlsx') {
    // loaded on first use: exceljs is a large module that a CSV import (or its worker) never needs
    const { openXlsx, readXlsxRecordBatches, readXlsxRecords, selectSheet } = await import('./read-xlsx.js')
    const workbook = await openXlsx(path)
    const sheet = selectSheet(workbook, args.sheet?.trim() === '' ? undefined : args.sheet)
    const table = await readHeader(readXlsxRecords(workbook, sheet), 'xlsx')
    if (table === undefined) {
      throw new FileReadError(
        'file_empty',
        `The sheet "${sheet.name}" of "${fileName}" is empty: there is no header row to read.`,
        { sheet: sheet.name },
      )
    }
    return {
      format: 'xlsx',
      sheet: sheet.name,
      sheets: workbook.sheets.map((candidate) => candidate.name),
      headers: [...table.headers],
      headerRow: table.row,
      ...rowsOf(() => dataRowBatches(readXlsxRecordBatches(workbook, sheet), table, limits.maxRows), table.headers),
    }
  }

  const dialect = await detectCsvDialect(path)
  const table = await readHeader(readCsvRecords(path, dialect), 'csv')
  if (table === undefined) {
    throw new FileReadError('file_empty', `The file "${fileName}" has only empty lines: there is no header row.`, {})
  }
  return {
    format: 'csv',
    encoding: dialect.encoding,
    delimiter: dialect.delimiter,
    headers: [...table.headers],
    headerRow: table.row,
    ...rowsOf(
      () => dataRowBatches(readCsvRecordBatches(path, dialect), table, limits.maxRows, dialect.delimiter),
      table.headers,
    ),
  }
}

function reiterable<T>(open: () => AsyncGenerator<T>): AsyncIterable<T> {
  return { [Symbol.asyncIterator]: open }
}

function rowsOf(
  cellBatches: () => AsyncGenerator<OfferFileCells[]>,
  headers: readonly string[],
): Pick<OfferFileReader, 'rows' | 'batches' | 'cellBatches'> {
  const batches = async function* () {
    for await (const batch of cellBatches()) yield batch.map((row) => keyedByHeader(row, headers))
  }
  return {
    cellBatches: reiterable(cellBatches),
    batches: reiterable(batches),
    rows: reiterable(async function* () {
      for await (const batch of batches()) yield* batch
    }),
  }
}

function keyedByHeader({ row, cells }: OfferFileCells, headers: readonly string[]): OfferFileRow {
  const values: Record<string, string> = {}
  for (let index = 0; index < headers.length; index += 1) {
    const header = headers[index] as string
    // a header named __proto__ must become a key, not replace the object's prototype
    if (header === '__proto__') {
      Object.defineProperty(values, header, {
        value: cells[index],
        enumerable: true,
        writable: true,
        configurable: true,
      })
    } else {
      values[header] = cells[index] as string
    }
  }
  return { row, values }
}

// ---------------------------------------------------------------------------------------------
// Format recognition

const SNIFF_BYTES = 64 * 1024
const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04]
const EMPTY_ZIP_MAGIC = [0x50, 0x4b, 0x05, 0x06]
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]
/** The stream an encrypted OOXML package (a password-protected .xlsx) holds inside its OLE container. */
const ENCRYPTION_INFO = Buffer.from('EncryptionInfo', 'utf16le')

const KNOWN_BINARIES: readonly { magic: readonly number[]; name: string }[] = [
  { magic: [0x25, 0x50, 0x44, 0x46], name: 'a PDF document' },
  { magic: [0x89, 0x50, 0x4e, 0x47], name: 'a PNG image' },
  { magic: [0xff, 0xd8, 0xff], name: 'a JPEG image' },
  { magic: [0x47, 0x49, 0x46, 0x38], name: 'a GIF image' },
  { magic: [0x1f, 0x8b], name: 'a gzip archive' },
  { magic: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c], name: 'a 7-Zip archive' },
  { magic: [0x52, 0x61, 0x72, 0x21], name: 'a RAR archive' },
  { magic: [0x7b, 0x5c, 0x72, 0x74, 0x66], name: 'an RTF document' },
]

const SAVE_AS_HINT = 'Save it from a spreadsheet program as "Excel Workbook (.xlsx)" or as CSV and upload that.'

function startsWith(bytes: Uint8Array, magic: readonly number[]): boolean {
  return magic.every((byte, index) => bytes[index] === byte)
}

function unsupported(what: string, detected: string): FileReadError {
  return new FileReadError(
    'unsupported_format',
    `The file is ${what}, not a CSV or XLSX spreadsheet. ${SAVE_AS_HINT}`,
    { detected },
  )
}

/**
 * By content: offer exports arrive as `.xls` that are HTML, `.csv` that are XLSX, and so on. The
 * name counts once: a file called `.xlsx` that is not a ZIP archive is refused rather than read as
 * CSV, since its owner believes it a workbook and a text file read with a guessed delimiter
 * would only fail later as "missing columns".
 */
async function detectFormat(path: string, fileName: string, size: number): Promise<'csv' | 'xlsx'> {
  const handle = await open(path, 'r')
  let head: Buffer
  try {
    const buffer = Buffer.alloc(Math.min(size, SNIFF_BYTES))
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    head = buffer.subarray(0, bytesRead)
  } finally {
    await handle.close()
  }

  if (startsWith(head, ZIP_MAGIC) || startsWith(head, EMPTY_ZIP_MAGIC)) return 'xlsx'
  if (startsWith(head, OLE_MAGIC)) {
    if (await fileContains(path, ENCRYPTION_INFO)) {
      throw new FileReadError(
        'xlsx_encrypted',
        `The workbook "${fileName}" is protected with a password, so it cannot be read. Open it in Excel, ` +
          'remove the password (File → Info → Protect Workbook → Encrypt with Password, clear it), save and upload it again.',
        {},
      )
    }
    throw new FileReadError(
      'unsupported_format',
      `The file "${fileName}" is in the old Excel 97-2003 format (.xls) or another legacy Office format, which is ` +
        'not supported. Open it in Excel or LibreOffice and save it as "Excel Workbook (.xlsx)" or as CSV.',
      { detected: 'ole' },
    )
  }
  const binary = KNOWN_BINARIES.find((candidate) => startsWith(head, candidate.magic))
  if (binary !== undefined) throw unsupported(binary.name, binary.name.replace(/^an? /, ''))
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) {
    throw new FileReadError(
      'unsupported_format',
      'The file is UTF-16 text (Excel\'s "Unicode Text"), which is not supported. Save it as "CSV UTF-8" ' +
        'or "CSV (separated by semicolons)" instead.',
      { detected: 'utf-16' },
    )
  }
  if (head.some(isBinaryControl)) throw unsupported('binary data', 'binary')
  const start = startsWith(head, [0xef, 0xbb, 0xbf]) ? 3 : 0
  const firstText = head.toString('latin1', start, Math.min(head.length, start + 512)).trimStart()
  if (firstText.startsWith('<')) {
    throw unsupported('HTML or XML (for example a web page or an "XML Spreadsheet 2003" named .xls)', 'markup')
  }
  if (/\.xlsx$/i.test(fileName.trim())) {
    throw new FileReadError(
      'unsupported_format',
      `The file "${fileName}" is not an Excel workbook: an .xlsx file is a ZIP archive, and this one is text ` +
        '(most likely a CSV export renamed to .xlsx). Save it from Excel or LibreOffice as "Excel Workbook (.xlsx)", ' +
        'or upload it with the .csv name it really has.',
      { detected: 'not_xlsx' },
    )
  }
  return 'csv'
}

/** Tab, line breaks, vertical tab, form feed and DOS end-of-file (0x1A) occur in text files; other controls do not. */
const TEXT_CONTROLS: ReadonlySet<number> = new Set([0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1a])

function isBinaryControl(byte: number): boolean {
  return byte < 0x20 && !TEXT_CONTROLS.has(byte)
}

async function fileContains(path: string, pattern: Buffer): Promise<boolean> {
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 })
  let carry = Buffer.alloc(0)
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const window = carry.length === 0 ? chunk : Buffer.concat([carry, chunk])
      if (window.includes(pattern)) return true
      // a match may straddle two chunks
      carry = Buffer.from(window.subarray(Math.max(0, window.length - pattern.length + 1)))
    }
    return false
  } finally {
    stream.destroy()
  }
}

// ---------------------------------------------------------------------------------------------
// Header and rows

interface SourceRecord {
  row: number
  /** Cell texts by column index; holes and missing trailing cells are empty cells. */
  cells: readonly (string | undefined)[]
}

interface Table {
  format: 'csv' | 'xlsx'
  row: number
  headers: readonly string[]
  /** Column index of each header. */
  columns: readonly number[]
}

function isBlank(text: string | undefined): boolean {
  return text === undefined || text.trim() === ''
}

function isEmptyRecord(record: SourceRecord): boolean {
  for (const cell of record.cells) if (!isBlank(cell)) return false
  return true
}

/** `0` → `A`, `26` → `AA`: how spreadsheet programs name columns, also when they show a CSV file. */
function columnName(index: number): string {
  let name = ''
  for (let rest = index + 1; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    name = String.fromCharCode(65 + ((rest - 1) % 26)) + name
  }
  return name
}

/** The first non-empty row is the header. Leaving the loop closes the file. */
async function readHeader(records: AsyncIterable<SourceRecord>, format: 'csv' | 'xlsx'): Promise<Table | undefined> {
  for await (const record of records) {
    if (!isEmptyRecord(record)) return headerOf(record, format)
  }
  return undefined
}

/*
 * Trailing empty header cells are dropped: Excel's CSV export writes them for formatted but empty
 * columns. In a sheet, empty cells left of the table are dropped too (a table may start in column
 * B); in CSV there is no layout, so an empty first header cell is an unnamed column like any other.
 */
function headerOf(record: SourceRecord, format: 'csv' | 'xlsx'): Table {
  const { cells } = record
  let last = cells.length - 1
  while (last >= 0 && isBlank(cells[last])) last -= 1
  let first = 0
  if (format === 'xlsx') while (first < last && isBlank(cells[first])) first += 1

  const headers: string[] = []
  const columns: number[] = []
  const seen = new Map<string, number>()
  for (let column = first; column <= last; column += 1) {
    const header = (cells[column] ?? '').trim()
    if (header === '') {
      throw new FileReadError(
        'header_missing',
        `Column ${columnName(column)} of the header row (row ${record.row}) has no name. Every column between ` +
          `the first and the last named one needs a header: name it, or delete the column.`,
        { row: record.row, column: column + 1, columnName: columnName(column) },
      )
    }
    const earlier = seen.get(header)
    if (earlier !== undefined) {
      throw new FileReadError(
        'duplicate_header',
        `The header row (row ${record.row}) names two columns "${header}" (columns ${columnName(earlier)} and ` +
          `${columnName(column)}), so a mapping could not tell them apart. Rename or delete one of them.`,
        { row: record.row, header, columns: [earlier + 1, column + 1] },
      )
    }
    seen.set(header, column)
    headers.push(header)
    columns.push(column)
  }
  return { format, row: record.row, headers, columns }
}

async function* dataRowBatches(
  batches: AsyncIterable<SourceRecord[]>,
  table: Table,
  maxRows: number,
  delimiter?: string,
): AsyncGenerator<OfferFileCells[]> {
  const lastColumn = table.columns[table.columns.length - 1] ?? -1
  const width = table.headers.length
  let count = 0
  for await (const records of batches) {
    const rows: OfferFileCells[] = []
    for (const record of records) {
      if (record.row <= table.row) continue
      const { cells } = record
      if (table.format === 'csv') {
        for (let column = lastColumn + 1; column < cells.length; column += 1) {
          if (!isBlank(cells[column])) throw extraCell(record.row, column, cells[column] ?? '', table, delimiter)
        }
      }
      const texts: string[] = new Array<string>(width)
      let empty = true
      for (let index = 0; index < width; index += 1) {
        const text = cells[table.columns[index] ?? -1] ?? ''
        if (empty && text !== '') {
          // a printable ASCII first character settles it without trimming; anything else (a
          // no-break space, a BOM) is judged as trim() judges it
          const first = text.charCodeAt(0)
          if ((first > 32 && first < 127) || text.trim() !== '') empty = false
        }
        texts[index] = text
      }
      if (empty) continue
      count += 1
      if (count > maxRows) {
        // the rows before the limit are handed over first, whatever batch the reader made of them
        if (rows.length > 0) yield rows
        throw new FileReadError(
          'too_many_rows',
          `The file has more than ${maxRows} data rows, the limit (row ${record.row} is data row ${count}). ` +
            `Split the offers into files of at most ${maxRows} rows.`,
          { limit: maxRows, row: record.row },
        )
      }
      rows.push({ row: record.row, cells: texts })
    }
    if (rows.length > 0) yield rows
  }
}

function extraCell(row: number, column: number, text: string, table: Table, delimiter?: string): FileReadError {
  const preview = text.length > 40 ? `${text.slice(0, 40)}…` : text
  const shown = delimiter === '\t' ? 'tab' : `"${delimiter ?? ''}"`
  return new FileReadError(
    'csv_malformed',
    `Row ${row} has a value in column ${columnName(column)} ("${preview}"), beyond the ${table.headers.length} ` +
      `columns of the header row. A value probably contains the delimiter ${shown} without being quoted; ` +
      'put such values in quotes.',
    { row, column: column + 1, columns: table.headers.length },
  )
}
