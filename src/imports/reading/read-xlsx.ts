/*
 * Streaming XLSX reading for the offer import.
 *
 * The uploaded file is never handed whole to a library: the ZIP central directory is read here,
 * the sizes are checked, and each part needed is inflated here, counted against the size its
 * directory entry declares (a lying header cannot smuggle a ZIP bomb through). No temporary files,
 * no other sheet decompressed, nothing held in memory but the shared strings.
 *
 * The workbook and its relationships (sheet names, order, visibility, the 1904 date system) are
 * read by exceljs's streaming WorkbookReader from a ZIP stream assembled here in the order it needs
 * (it parses in stored order, and `xl/workbook.xml` stored last made it fail at random, exceljs#3064).
 * The sheet itself, its shared strings and styles are read by read-xlsx-cells.ts with saxes, the XML
 * parser exceljs uses: exceljs's row objects made a 100,000-row sheet take four times as long.
 */
import { createReadStream } from 'node:fs'
import { type FileHandle, open } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { createInflateRaw } from 'node:zlib'

import ExcelJS from 'exceljs'

import { FileReadError, formatBytes } from './file-errors.js'
import { type RawCell, readCellFormats, readSharedStrings, readSheetRows } from './read-xlsx-cells.js'

export interface ZipLimits {
  /** Sum of the declared uncompressed sizes of all parts. */
  maxUncompressedBytes: number
  /** Uncompressed ÷ compressed size of one part, checked for parts above `ratioCheckMinBytes`. */
  maxCompressionRatio: number
  ratioCheckMinBytes: number
  maxEntries: number
}

export const DEFAULT_ZIP_LIMITS: Readonly<ZipLimits> = {
  maxUncompressedBytes: 300 * 1024 * 1024,
  maxCompressionRatio: 200,
  ratioCheckMinBytes: 10 * 1024 * 1024,
  maxEntries: 10_000,
}

export interface ZipEntry {
  name: string
  flags: number
  method: number
  compressedSize: number
  uncompressedSize: number
  localHeaderOffset: number
}

export interface XlsxSheet {
  name: string
  /** `visible`, `hidden` or `veryHidden`. */
  state: string
  entry: ZipEntry
}

export interface XlsxWorkbook {
  path: string
  /** Worksheets in tab order; chart sheets are left out, they hold no cells. */
  sheets: readonly XlsxSheet[]
  /** Mac Excel's date system, where serial 0 is 1904-01-01. */
  date1904: boolean
  parts: { workbook: ZipEntry; relationships: ZipEntry; styles?: ZipEntry; sharedStrings?: ZipEntry }
}

export interface XlsxRecord {
  /** The row number Excel shows. */
  row: number
  /** Cell texts by column index (0 = column A); empty cells are holes. */
  cells: string[]
}

const READER_OPTIONS = {
  entries: 'emit',
  sharedStrings: 'cache',
  worksheets: 'emit',
  hyperlinks: 'ignore',
  styles: 'cache',
} as const

const LOCAL_HEADER = 0x04034b50
const CENTRAL_HEADER = 0x02014b50
const END_OF_DIRECTORY = 0x06054b50
const ZIP64_LOCATOR = 0x07064b50
const ZIP64_END_OF_DIRECTORY = 0x06064b50
const END_OF_DIRECTORY_SIZE = 22
const MAX_COMMENT_SIZE = 0xffff
const STORED = 0
const DEFLATED = 8
const CHUNK_BYTES = 64 * 1024

/** exceljs only recognises these paths, so parts are renamed to them whatever the file calls them. */
const FEED_PATHS = {
  workbook: 'xl/workbook.xml',
  relationships: 'xl/_rels/workbook.xml.rels',
  styles: 'xl/styles.xml',
  sharedStrings: 'xl/sharedStrings.xml',
}

const RESAVE_HINT = 'Open it in Excel or LibreOffice and save it again as .xlsx, or export the offers as CSV.'

function corrupt(reason: string, details?: Record<string, unknown>, cause?: unknown): FileReadError {
  return new FileReadError('xlsx_corrupt', `The XLSX file is damaged: ${reason}. ${RESAVE_HINT}`, details, { cause })
}

// ---------------------------------------------------------------------------------------------
// ZIP structure

async function readAt(handle: FileHandle, length: number, position: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length)
  let filled = 0
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled)
    if (bytesRead === 0) throw corrupt('it ends in the middle of its ZIP structure (the upload may be truncated)')
    filled += bytesRead
  }
  return buffer
}

function safeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw corrupt('its ZIP directory holds impossible sizes')
  return Number(value)
}

/** Reads the end-of-central-directory record (ZIP64 included) and every central directory entry. */
async function readCentralDirectory(handle: FileHandle, fileSize: number, maxEntries: number): Promise<ZipEntry[]> {
  if (fileSize < END_OF_DIRECTORY_SIZE) throw corrupt('it is too short to be a ZIP archive')
  const tailSize = Math.min(fileSize, END_OF_DIRECTORY_SIZE + MAX_COMMENT_SIZE)
  const tail = await readAt(handle, tailSize, fileSize - tailSize)
  let end = -1
  for (let index = tail.length - END_OF_DIRECTORY_SIZE; index >= 0; index -= 1) {
    if (tail.readUInt32LE(index) === END_OF_DIRECTORY) {
      end = index
      break
    }
  }
  if (end < 0) throw corrupt('the end of its ZIP directory is missing (the upload may be truncated)')
  let count = tail.readUInt16LE(end + 10)
  let directorySize = tail.readUInt32LE(end + 12)
  let directoryOffset = tail.readUInt32LE(end + 16)
  if (count === 0xffff || directorySize === 0xffffffff || directoryOffset === 0xffffffff) {
    const locator = end - 20
    if (locator < 0 || tail.readUInt32LE(locator) !== ZIP64_LOCATOR) throw corrupt('its ZIP64 directory is missing')
    const zip64End = safeNumber(tail.readBigUInt64LE(locator + 8))
    const record = await readAt(handle, 56, zip64End)
    if (record.readUInt32LE(0) !== ZIP64_END_OF_DIRECTORY) throw corrupt('its ZIP64 directory is damaged')
    count = safeNumber(record.readBigUInt64LE(32))
    directorySize = safeNumber(record.readBigUInt64LE(40))
    directoryOffset = safeNumber(record.readBigUInt64LE(48))
  }
  if (count > maxEntries) {
    throw new FileReadError(
      'xlsx_zip_bomb',
      `The XLSX file holds ${count} parts; a workbook has far fewer than ${maxEntries}, so it is refused as a ZIP bomb.`,
      { entries: count, limit: maxEntries },
    )
  }
  if (directoryOffset + directorySize > fileSize) throw corrupt('its ZIP directory lies beyond the end of the file')

  const directory = await readAt(handle, directorySize, directoryOffset)
  const entries: ZipEntry[] = []
  let position = 0
  for (let index = 0; index < count; index += 1) {
    if (position + 46 > directory.length || directory.readUInt32LE(position) !== CENTRAL_HEADER) {
      throw corrupt('its ZIP directory is damaged')
    }
    const nameLength = directory.readUInt16LE(position + 28)
    const extraLength = directory.readUInt16LE(position + 30)
    const commentLength = directory.readUInt16LE(position + 32)
    const nameStart = position + 46
    const entry: ZipEntry = {
      name: directory.toString('utf8', nameStart, nameStart + nameLength),
      flags: directory.readUInt16LE(position + 8),
      method: directory.readUInt16LE(position + 10),
      compressedSize: directory.readUInt32LE(position + 20),
      uncompressedSize: directory.readUInt32LE(position + 24),
      localHeaderOffset: directory.readUInt32LE(position + 42),
    }
    applyZip64Sizes(entry, directory.subarray(nameStart + nameLength, nameStart + nameLength + extraLength))
    entries.push(entry)
    position = nameStart + nameLength + extraLength + commentLength
  }
  return entries
}

/** A 0xFFFFFFFF size or offset means the real value is in the ZIP64 extra field (id 1), in this order. */
function applyZip64Sizes(entry: ZipEntry, extra: Buffer): void {
  let position = 0
  while (position + 4 <= extra.length) {
    const id = extra.readUInt16LE(position)
    const size = extra.readUInt16LE(position + 2)
    if (id === 1) {
      let field = position + 4
      const next = (): number => {
        if (field + 8 > position + 4 + size || field + 8 > extra.length) throw corrupt('its ZIP64 sizes are damaged')
        const value = safeNumber(extra.readBigUInt64LE(field))
        field += 8
        return value
      }
      if (entry.uncompressedSize === 0xffffffff) entry.uncompressedSize = next()
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next()
      if (entry.localHeaderOffset === 0xffffffff) entry.localHeaderOffset = next()
      return
    }
    position += 4 + size
  }
}

/** Reads the directory and refuses archives that would unpack to too much, before anything is inflated. */
export async function inspectZip(path: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<ZipEntry[]> {
  const handle = await open(path, 'r')
  let entries: ZipEntry[]
  try {
    const { size } = await handle.stat()
    entries = await readCentralDirectory(handle, size, limits.maxEntries)
  } finally {
    await handle.close()
  }
  let total = 0
  for (const entry of entries) {
    if ((entry.flags & 1) !== 0) {
      throw new FileReadError(
        'xlsx_encrypted',
        'The XLSX file is a password-protected ZIP archive. Remove the password and upload the workbook itself.',
        { entry: entry.name },
      )
    }
    total += entry.uncompressedSize
    const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1)
    if (entry.uncompressedSize > limits.ratioCheckMinBytes && ratio > limits.maxCompressionRatio) {
      throw new FileReadError(
        'xlsx_zip_bomb',
        `The part "${entry.name}" of the XLSX file would unpack from ${formatBytes(entry.compressedSize)} to ` +
          `${formatBytes(entry.uncompressedSize)} (${Math.round(ratio)}:1, the limit is ` +
          `${limits.maxCompressionRatio}:1 above ${formatBytes(limits.ratioCheckMinBytes)}); such files are ZIP bombs, ` +
          'not spreadsheets.',
        {
          entry: entry.name,
          compressedBytes: entry.compressedSize,
          uncompressedBytes: entry.uncompressedSize,
          maxCompressionRatio: limits.maxCompressionRatio,
        },
      )
    }
  }
  if (total > limits.maxUncompressedBytes) {
    throw new FileReadError(
      'xlsx_zip_bomb',
      `The XLSX file would unpack to ${formatBytes(total)}, more than the ${formatBytes(limits.maxUncompressedBytes)} ` +
        'allowed. Remove images and unused sheets, or export the offers as CSV.',
      { uncompressedBytes: total, limit: limits.maxUncompressedBytes },
    )
  }
  return entries
}

/** The part's bytes, inflated, and never more than its directory entry declares. */
async function* entryContent(path: string, entry: ZipEntry): AsyncGenerator<Buffer> {
  if (entry.method !== STORED && entry.method !== DEFLATED) {
    throw corrupt(
      `the part "${entry.name}" uses compression method ${entry.method}, which no spreadsheet program writes`,
    )
  }
  const handle = await open(path, 'r')
  let dataStart: number
  try {
    const header = await readAt(handle, 30, entry.localHeaderOffset)
    if (header.readUInt32LE(0) !== LOCAL_HEADER) {
      throw corrupt(`the part "${entry.name}" is not where its directory says`)
    }
    dataStart = entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28)
  } finally {
    await handle.close()
  }
  if (entry.compressedSize === 0) {
    if (entry.uncompressedSize !== 0) throw corrupt(`the part "${entry.name}" has no data`)
    return
  }
  const source = createReadStream(path, {
    start: dataStart,
    end: dataStart + entry.compressedSize - 1,
    highWaterMark: CHUNK_BYTES,
  })
  const inflater = entry.method === DEFLATED ? createInflateRaw({ chunkSize: CHUNK_BYTES }) : undefined
  if (inflater !== undefined) {
    source.on('error', (error) => inflater.destroy(error))
    source.pipe(inflater)
  }
  let produced = 0
  try {
    for await (const chunk of (inflater ?? source) as AsyncIterable<Buffer>) {
      produced += chunk.length
      if (produced > entry.uncompressedSize) {
        throw new FileReadError(
          'xlsx_zip_bomb',
          `The part "${entry.name}" of the XLSX file unpacks to more than the ${formatBytes(entry.uncompressedSize)} ` +
            'its ZIP header declares; the file was crafted to hide its real size and is refused.',
          { entry: entry.name, declaredBytes: entry.uncompressedSize },
        )
      }
      yield chunk
    }
  } catch (error) {
    if (error instanceof FileReadError) throw error
    throw corrupt(`the part "${entry.name}" cannot be unpacked (${describeError(error)})`, { entry: entry.name }, error)
  } finally {
    source.destroy()
    inflater?.destroy()
  }
  if (produced !== entry.uncompressedSize) {
    throw corrupt(`the part "${entry.name}" is shorter than its ZIP header declares`, { entry: entry.name })
  }
}

/*
 * exceljs decodes every chunk of XML to text on its own (parse-sax.js, TextDecoder without
 * `stream: true`), so a Polish letter split between two chunks came out as two U+FFFD characters:
 * silently corrupted streets and cities, refused statuses and types. Every part is therefore fed
 * as pure ASCII: non-ASCII characters become XML character references (`&#322;`), which the XML
 * parser turns back into the same letters, and no chunk boundary can split a character. OOXML
 * puts non-ASCII only in text and attribute values, where references are allowed.
 */
function escapeText(text: string): string {
  return text.replace(/[^\p{ASCII}]/gu, (ch) => `&#${ch.codePointAt(0)};`)
}

async function* escapeNonAscii(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const decoder = new TextDecoder('utf-8')
  for await (const chunk of chunks) yield Buffer.from(escapeText(decoder.decode(chunk, { stream: true })), 'ascii')
  const rest = decoder.decode()
  if (rest) yield Buffer.from(escapeText(rest), 'ascii')
}

/** The escaped part's length, for the stored entry header written before its bytes. */
async function escapedLength(chunks: AsyncIterable<Buffer>): Promise<number> {
  let length = 0
  for await (const chunk of escapeNonAscii(chunks)) length += chunk.length
  return length
}

function asciiOnly(content: Buffer): Buffer {
  return Buffer.from(escapeText(content.toString('utf8')), 'ascii')
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

function storedEntryHeader(name: string, size: number): Buffer {
  const nameBytes = Buffer.from(name, 'utf8')
  const header = Buffer.alloc(30 + nameBytes.length)
  header.writeUInt32LE(LOCAL_HEADER, 0)
  header.writeUInt16LE(20, 4) // version needed to extract: 2.0
  header.writeUInt16LE(0x0800, 6) // names in UTF-8
  header.writeUInt16LE(STORED, 8)
  // time, date and CRC stay 0: unzipper's streaming parser checks none of them
  header.writeUInt32LE(size, 18)
  header.writeUInt32LE(size, 22)
  header.writeUInt16LE(nameBytes.length, 26)
  nameBytes.copy(header, 30)
  return header
}

const END_OF_DIRECTORY_RECORD = (() => {
  const record = Buffer.alloc(END_OF_DIRECTORY_SIZE)
  record.writeUInt32LE(END_OF_DIRECTORY, 0)
  return record
})()

interface FeedPart {
  name: string
  entry?: ZipEntry
  content?: Buffer
}

/**
 * The ZIP stream exceljs reads. exceljs pipes its input without listening for errors, so a failure
 * here (a bomb, a damaged part) would leave it waiting for bytes forever: the stream ends instead,
 * and every wait on exceljs goes through `guard`, which rejects with the failure.
 */
class ZipFeed {
  readonly stream: Readable
  failure: FileReadError | undefined
  /*
   * One waiter at a time rather than Promise.race against a shared "failed" promise: each race
   * would leave a reaction on that never-settled promise, keeping every row read alive.
   */
  private rejectWaiter: ((error: FileReadError) => void) | undefined

  constructor(path: string, parts: readonly FeedPart[]) {
    this.stream = Readable.from(this.generate(path, parts), { objectMode: false })
    this.stream.on('error', () => undefined)
  }

  private async *generate(path: string, parts: readonly FeedPart[]): AsyncGenerator<Buffer> {
    try {
      for (const part of parts) {
        if (part.entry !== undefined) {
          yield storedEntryHeader(part.name, await escapedLength(entryContent(path, part.entry)))
          yield* escapeNonAscii(entryContent(path, part.entry))
        } else {
          const content = asciiOnly(part.content ?? Buffer.alloc(0))
          yield storedEntryHeader(part.name, content.length)
          yield content
        }
      }
      yield END_OF_DIRECTORY_RECORD
    } catch (error) {
      this.failure =
        error instanceof FileReadError ? error : corrupt(`it cannot be read (${describeError(error)})`, {}, error)
      this.rejectWaiter?.(this.failure)
    }
  }

  guard<T>(promise: Promise<T>): Promise<T> {
    if (this.failure !== undefined) return Promise.reject(this.failure)
    return new Promise<T>((resolve, reject) => {
      this.rejectWaiter = reject
      promise.then(
        (value) => {
          this.rejectWaiter = undefined
          resolve(value)
        },
        (error: unknown) => {
          this.rejectWaiter = undefined
          reject(error instanceof Error ? error : new Error(String(error)))
        },
      )
    })
  }

  close(): void {
    this.stream.destroy()
  }
}

// ---------------------------------------------------------------------------------------------
// Workbook structure

interface ReaderInternals {
  model?: { sheets?: { name?: unknown; rId?: unknown; state?: unknown }[] }
  workbookRels?: { Id?: unknown; Type?: unknown; Target?: unknown }[]
  properties?: { model?: { date1904?: unknown } }
}

/** `worksheets/sheet1.xml` (relative to `xl/`) or `/xl/worksheets/sheet1.xml` → `xl/worksheets/sheet1.xml`. */
function partPath(target: string): string {
  const segments: string[] = []
  for (const segment of (target.startsWith('/') ? target : `xl/${target}`).split('/')) {
    if (segment === '..') segments.pop()
    else if (segment !== '.' && segment !== '') segments.push(segment)
  }
  return segments.join('/')
}

/**
 * Finds the parts of the workbook and its worksheets. The workbook XML and its relationships are
 * parsed by exceljs too (a first, small feed), so that names are read exactly as they will be later.
 */
export async function openXlsx(path: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<XlsxWorkbook> {
  const entries = await inspectZip(path, limits)
  const byName = new Map<string, ZipEntry>()
  const byFoldedName = new Map<string, ZipEntry>()
  for (const entry of entries) {
    if (!byName.has(entry.name)) byName.set(entry.name, entry)
    // part names are case-insensitive in Office packages
    if (!byFoldedName.has(entry.name.toLowerCase())) byFoldedName.set(entry.name.toLowerCase(), entry)
  }
  const find = (name: string): ZipEntry | undefined => byName.get(name) ?? byFoldedName.get(name.toLowerCase())

  const workbook = find(FEED_PATHS.workbook)
  if (workbook === undefined) {
    if (find('content.xml') !== undefined && find('mimetype') !== undefined) {
      throw new FileReadError(
        'unsupported_format',
        'The file is an OpenDocument spreadsheet (.ods), not XLSX. Save it as "Excel 2007-365 (.xlsx)" or as CSV.',
        { detected: 'ods' },
      )
    }
    throw corrupt('it is a ZIP archive without xl/workbook.xml, so not an Excel workbook or a broken one')
  }
  const relationships = find(FEED_PATHS.relationships)
  if (relationships === undefined) throw corrupt('xl/_rels/workbook.xml.rels is missing')

  const internals = await readWorkbookStructure(path, workbook, relationships)
  const rels = new Map<string, { type: string; target: string }>()
  for (const rel of internals.workbookRels ?? []) {
    if (typeof rel.Id === 'string' && typeof rel.Target === 'string') {
      rels.set(rel.Id, { type: typeof rel.Type === 'string' ? rel.Type : '', target: rel.Target })
    }
  }
  const partOfType = (type: string): ZipEntry | undefined => {
    for (const rel of rels.values()) if (rel.type.endsWith(`/${type}`)) return find(partPath(rel.target))
    return undefined
  }

  const sheets: XlsxSheet[] = []
  for (const sheet of internals.model?.sheets ?? []) {
    const rel = typeof sheet.rId === 'string' ? rels.get(sheet.rId) : undefined
    if (rel === undefined || !rel.type.endsWith('/worksheet')) continue
    const name = typeof sheet.name === 'string' ? sheet.name : ''
    const entry = find(partPath(rel.target))
    if (entry === undefined) throw corrupt(`the part of sheet "${name}" (${partPath(rel.target)}) is missing`)
    sheets.push({ name, state: typeof sheet.state === 'string' ? sheet.state : 'visible', entry })
  }
  if (sheets.length === 0) throw corrupt('it has no worksheet')

  const styles = partOfType('styles') ?? find(FEED_PATHS.styles)
  const sharedStrings = partOfType('sharedStrings') ?? find(FEED_PATHS.sharedStrings)
  return {
    path,
    sheets,
    date1904: internals.properties?.model?.date1904 === true,
    parts: {
      workbook,
      relationships,
      ...(styles === undefined ? {} : { styles }),
      ...(sharedStrings === undefined ? {} : { sharedStrings }),
    },
  }
}

async function readWorkbookStructure(path: string, workbook: ZipEntry, rels: ZipEntry): Promise<ReaderInternals> {
  const feed = new ZipFeed(path, [
    { name: FEED_PATHS.workbook, entry: workbook },
    { name: FEED_PATHS.relationships, entry: rels },
  ])
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(feed.stream, READER_OPTIONS)
  const worksheets = reader[Symbol.asyncIterator]()
  try {
    // no sheet in this feed: the iteration only parses the two parts
    await feed.guard(worksheets.next())
  } catch (error) {
    throw feed.failure ?? asCorrupt(error, 'its workbook part cannot be read')
  } finally {
    feed.close()
  }
  return reader as unknown as ReaderInternals
}

function asCorrupt(error: unknown, context: string): FileReadError {
  if (error instanceof FileReadError) return error
  return corrupt(`${context} (${describeError(error)})`, {}, error)
}

/** The sheet of that name (exactly, else ignoring case as Excel does), or the first worksheet. */
export function selectSheet(workbook: XlsxWorkbook, name?: string): XlsxSheet {
  const [first] = workbook.sheets
  if (name === undefined && first !== undefined) return first
  const wanted = (name ?? '').trim()
  const sheet =
    workbook.sheets.find((candidate) => candidate.name === wanted) ??
    workbook.sheets.find((candidate) => candidate.name.toLowerCase() === wanted.toLowerCase())
  if (sheet !== undefined) return sheet
  const available = workbook.sheets.map((candidate) => candidate.name)
  throw new FileReadError(
    'sheet_not_found',
    `The workbook has no sheet named "${wanted}". Its sheets are: ${available.map((n) => `"${n}"`).join(', ')}.`,
    { sheet: wanted, available },
  )
}

// ---------------------------------------------------------------------------------------------
// Rows

/*
 * The styles and shared strings of a workbook, read once: the header row and the data rows are two
 * passes over the sheet, and the shared strings of a large workbook are most of its text.
 */
const lookupsOf = new WeakMap<XlsxWorkbook, Promise<{ formats: Array<string | undefined>; shared: string[] }>>()

function cellLookups(
  workbook: XlsxWorkbook,
  reading: (context: string) => void,
): Promise<{ formats: Array<string | undefined>; shared: string[] }> {
  let lookups = lookupsOf.get(workbook)
  if (lookups === undefined) {
    const { parts, path } = workbook
    lookups = (async () => {
      reading('its styles cannot be read')
      const formats = parts.styles === undefined ? [] : await readCellFormats(entryContent(path, parts.styles))
      reading('its shared strings cannot be read')
      const shared =
        parts.sharedStrings === undefined ? [] : await readSharedStrings(entryContent(path, parts.sharedStrings))
      return { formats, shared }
    })()
    lookupsOf.set(workbook, lookups)
    // a failure is reported to this reader and not kept for the next one
    lookups.catch(() => lookupsOf.delete(workbook))
  }
  return lookups
}

/** Every row of the sheet that has a cell, as cell texts, in the batches each piece of the sheet gives. */
export async function* readXlsxRecordBatches(workbook: XlsxWorkbook, sheet: XlsxSheet): AsyncGenerator<XlsxRecord[]> {
  const { path, date1904 } = workbook
  let context = 'its styles cannot be read'
  try {
    const { formats, shared } = await cellLookups(workbook, (part) => (context = part))
    context = `the sheet "${sheet.name}" cannot be read`
    for await (const rows of readSheetRows(entryContent(path, sheet.entry), formats)) {
      const records: XlsxRecord[] = []
      for (const { row, cells } of rows) {
        const texts: string[] = []
        for (const [column, cell] of cells) {
          const text = rawCellText(cell, shared, date1904)
          if (text !== '') texts[column] = text
        }
        records.push({ row, cells: texts })
      }
      yield records
    }
  } catch (error) {
    throw asCorrupt(error, context)
  }
}

/** The sheet's XML as it is inflated, for a reader that only scans it (a row count for a progress bar). */
export function sheetXml(workbook: XlsxWorkbook, sheet: XlsxSheet): AsyncIterable<Buffer> {
  return entryContent(workbook.path, sheet.entry)
}

/** The rows one by one (the header row, tests). */
export async function* readXlsxRecords(workbook: XlsxWorkbook, sheet: XlsxSheet): AsyncGenerator<XlsxRecord> {
  for await (const batch of readXlsxRecordBatches(workbook, sheet)) yield* batch
}

const PLAIN_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d*[1-9])?$/

/** Text that formatNumber(Number(text)) gives back unchanged: at most 15 digits, no -0, no exponent. */
function isPlainNumber(text: string): boolean {
  if (!PLAIN_NUMBER.test(text) || text === '-0') return false
  const digits = text.length - (text.startsWith('-') ? 1 : 0) - (text.includes('.') ? 1 : 0)
  return digits <= 15
}

/** The text of a cell as the sheet stores it; the same text `cellText` gives for exceljs's value. */
function rawCellText(cell: RawCell, shared: readonly string[], date1904: boolean): string {
  const { type, value } = cell
  // a cell with a type but no value (a formula never calculated, an emptied cell) is empty
  if (value === '') return ''
  switch (type) {
    case 's': {
      const index = Number(value)
      const text = Number.isInteger(index) ? shared[index] : undefined
      if (text === undefined) throw new Error(`a cell refers to shared string ${value}, which the file does not have`)
      return decodeEscapes(text)
    }
    case 'str':
    case 'inlineStr':
      return decodeEscapes(value)
    case 'b':
      return value === '1' || value === 'true' ? 'true' : 'false'
    case 'e':
      return value
    case 'd':
      return /^\d{4}-\d{2}-\d{2}/.test(value) ? value.slice(0, 10) : value
    default: {
      // the usual stored number is already its own plain text (at most 15 digits, no exponent,
      // no trailing zero); anything else goes through formatNumber's rounding
      if (isPlainNumber(value) && !isDateFormat(cell.format)) return value
      const number = Number(value)
      if (Number.isNaN(number)) return FORMULA_ERROR_TEXT
      return cellText(number, cell.format, date1904)
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Cell values → text

/*
 * exceljs's streaming reader parses the cached result of a formula with parseFloat, so an error
 * result (#N/A, #DIV/0!) arrives as NaN and its code is lost; any error text makes the validator
 * report the cell, and this is Excel's own one for "not a number".
 */
const FORMULA_ERROR_TEXT = '#NUM!'
const DAY_MS = 86_400_000
/** Serial number of 1970-01-01 in Excel's 1900 date system. */
const UNIX_EPOCH_SERIAL = 25_569
/** Days between the 1900 and 1904 date systems' day 0. */
const DATE_1904_OFFSET = 1_462

/**
 * The text a cell shows, without its display format: numbers in plain decimal notation, dates as
 * YYYY-MM-DD, booleans as true/false, formulas as their cached result, errors as their code.
 */
export function cellText(value: unknown, numFmt: string | undefined, date1904: boolean): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return decodeEscapes(value)
  if (typeof value === 'number') {
    return isDateFormat(numFmt) ? dateText(serialToDate(value, date1904)) : formatNumber(value)
  }
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (value instanceof Date) {
    // exceljs took it for a date by a looser test than isDateFormat (see there)
    if (numFmt !== undefined && !isDateFormat(numFmt)) return formatNumber(dateToSerial(value, date1904))
    return dateText(value)
  }
  if (typeof value === 'object') {
    const object = value as Record<string, unknown>
    if ('error' in object) return String(object.error)
    if (Array.isArray(object.richText)) {
      return decodeEscapes(
        (object.richText as unknown[])
          .map((run) => {
            const text = typeof run === 'object' && run !== null ? (run as { text?: unknown }).text : undefined
            return typeof text === 'string' ? text : ''
          })
          .join(''),
      )
    }
    if ('formula' in object || 'sharedFormula' in object || 'result' in object) {
      const result = object.result
      if (typeof result === 'number' && Number.isNaN(result)) return FORMULA_ERROR_TEXT
      return cellText(result, numFmt, date1904)
    }
    if ('text' in object) return cellText(object.text, numFmt, date1904)
  }
  return ''
}

/**
 * Whether a number format displays a date or time. Quoted text, backslash-escaped characters,
 * `_x` spacers, `*x` fills and bracketed colours/locales are not format codes and are removed
 * first; only the first section (positive numbers) is judged. A digit placeholder (0 # ?) makes it
 * a number format whatever letters its unit has: exceljs drops the backslashes of `0.00\ \m\²` when
 * it reads the styles, and then sees a month in "0.00 m²".
 */
export function isDateFormat(format: string | undefined): boolean {
  if (format === undefined || format === '') return false
  // a sheet uses a handful of formats, for every cell
  let verdict = dateFormatVerdicts.get(format)
  if (verdict === undefined) {
    if (dateFormatVerdicts.size >= 1024) dateFormatVerdicts.clear()
    verdict = judgeDateFormat(format)
    dateFormatVerdicts.set(format, verdict)
  }
  return verdict
}

const dateFormatVerdicts = new Map<string, boolean>()

function judgeDateFormat(format: string): boolean {
  const codes = format
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/[_*]./g, '')
    .replace(/\[(?:h+|m+|s+)\]/gi, 'h')
    .replace(/\[[^\]]*\]/g, '')
  const section = codes.split(';')[0] ?? ''
  // fractions of a second (ss.000) are the one place a date format holds zeros
  if (/[0#?]/.test(section.replace(/s[.,]0+/gi, 's'))) return false
  return /[dmyhs]/i.test(section)
}

/** Excel dates carry no time zone; exceljs maps them onto UTC, so the UTC calendar date is the cell's date. */
function serialToDate(serial: number, date1904: boolean): Date {
  return new Date(Math.round((serial - UNIX_EPOCH_SERIAL + (date1904 ? DATE_1904_OFFSET : 0)) * DAY_MS))
}

/** Undoes exceljs's conversion; its rounding to whole milliseconds is undone by rounding to 6 decimals. */
function dateToSerial(date: Date, date1904: boolean): number {
  const serial = date.getTime() / DAY_MS + UNIX_EPOCH_SERIAL - (date1904 ? DATE_1904_OFFSET : 0)
  return Math.round(serial * 1e6) / 1e6
}

function dateText(date: Date): string {
  if (Number.isNaN(date.getTime())) return ''
  const year = String(date.getUTCFullYear()).padStart(4, '0')
  const month = String(date.getUTCMonth() + 1).padStart(2, '0')
  const day = String(date.getUTCDate()).padStart(2, '0')
  return `${year}-${month}-${day}`
}

/**
 * Plain decimal text of a cell number. Excel keeps 15 significant digits, so rounding to 15 removes
 * binary artefacts (0.1 + 0.2 → 0.3) without changing a value the user typed; exponent notation is
 * written out (1e21 → 1000000000000000000000), as the validator refuses exponents.
 */
export function formatNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return value === 0 ? '0' : String(value)
  if (!Number.isFinite(value)) return FORMULA_ERROR_TEXT
  const rounded = Number(value.toPrecision(15))
  if (rounded === 0) return '0'
  const text = String(rounded)
  if (!text.includes('e')) return text
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text)
  if (match === null) return text
  const sign = match[1] ?? ''
  const whole = match[2] ?? ''
  const digits = whole + (match[3] ?? '')
  const point = whole.length + Number(match[4])
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
}

const OOXML_ESCAPE = /_x([0-9A-Fa-f]{4})_/g

/** OOXML writes characters XML cannot hold as `_xHHHH_` (a carriage return is `_x000D_`). */
function decodeEscapes(text: string): string {
  if (!text.includes('_x')) return text
  return text.replace(OOXML_ESCAPE, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
}
