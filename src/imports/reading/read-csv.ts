/*
 * Streaming CSV reading for the offer import: bytes → text (UTF-8 or Windows-1250) → records of
 * cell texts. Values are never cast: `02-495` and `007` must reach the validator as typed.
 */
import { isAscii } from 'node:buffer'
import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { Readable } from 'node:stream'

import { CsvError, type Options, parse, type Parser } from 'csv-parse'
import iconv from 'iconv-lite'

import { FileReadError, formatBytes } from './file-errors.js'

export type CsvEncoding = 'utf-8' | 'windows-1250'

/** In order of preference when two of them fit the file equally well: `;` is what Polish Excel writes. */
export const CSV_DELIMITERS = [';', ',', '\t'] as const

export interface CsvDialect {
  encoding: CsvEncoding
  delimiter: string
  /**
   * Whether the file holds a quote (") anywhere. A file without one has no CSV grammar beyond line
   * breaks and delimiters, and is split without csv-parse (see `splitQuoteFreeRecords`).
   */
  quotes: boolean
}

export interface CsvRecord {
  /** 1-based record number, empty lines included: the row a spreadsheet program shows for it. */
  row: number
  cells: string[]
}

const CHUNK_BYTES = 64 * 1024
/** Bytes judged, from the first non-ASCII byte on, to tell UTF-8 from Windows-1250. */
const ENCODING_SAMPLE_BYTES = 64 * 1024
const DELIMITER_SAMPLE_BYTES = 64 * 1024
const DELIMITER_SAMPLE_LINES = 50
/** An offer row is a few hundred characters; a record this long means a quote was never closed. */
const MAX_RECORD_BYTES = 1024 * 1024

export async function detectCsvDialect(path: string): Promise<CsvDialect> {
  const encoding = await detectCsvEncoding(path)
  const sample = await readTextSample(path, encoding)
  return { encoding, delimiter: detectDelimiter(sample.text, sample.complete), quotes: await holdsQuote(path) }
}

/** `"` is the byte 0x22 in both encodings, and UTF-8 never uses it inside a multi-byte character. */
async function holdsQuote(path: string): Promise<boolean> {
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 })
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) if (chunk.includes(0x22)) return true
    return false
  } finally {
    stream.destroy()
  }
}

/**
 * The decision is taken on a window that starts at the file's first non-ASCII byte, wherever it is:
 * up to there both encodings read the same, and Polish Windows-1250 text is practically never valid
 * UTF-8 (its letters are lone bytes ≥ 0x80, which UTF-8 only allows in fixed multi-byte patterns).
 * Sampling only the start of the file would misjudge an export whose first thousand rows happen to
 * be ASCII. Should the file later stop being UTF-8, it mixes encodings, and reading fails with the
 * line (see `decodeFile`) instead of guessing.
 */
export async function detectCsvEncoding(path: string): Promise<CsvEncoding> {
  const handle = await open(path, 'r')
  try {
    const buffer = Buffer.alloc(CHUNK_BYTES)
    let position = 0
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position)
      if (bytesRead === 0) return 'utf-8'
      const chunk = buffer.subarray(0, bytesRead)
      if (position === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) return 'utf-8'
      if (!isAscii(chunk)) {
        const start = position + chunk.findIndex((byte) => byte >= 0x80)
        const sample = Buffer.alloc(ENCODING_SAMPLE_BYTES)
        const read = await handle.read(sample, 0, sample.length, start)
        const reachedEnd = read.bytesRead < sample.length
        return isUtf8(sample.subarray(0, read.bytesRead), !reachedEnd) ? 'utf-8' : 'windows-1250'
      }
      position += bytesRead
    }
  } finally {
    await handle.close()
  }
}

/** `cut`: the bytes end mid-file, so a character split at the end is not an error. */
function isUtf8(bytes: Uint8Array, cut: boolean): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: cut })
    return true
  } catch {
    return false
  }
}

async function readTextSample(path: string, encoding: CsvEncoding): Promise<{ text: string; complete: boolean }> {
  const handle = await open(path, 'r')
  try {
    const buffer = Buffer.alloc(DELIMITER_SAMPLE_BYTES)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    const bytes = buffer.subarray(0, bytesRead)
    const complete = bytesRead < buffer.length
    const text =
      encoding === 'utf-8'
        ? new TextDecoder('utf-8').decode(bytes, { stream: !complete })
        : iconv.decode(bytes, 'windows-1250')
    return { text, complete }
  } finally {
    await handle.close()
  }
}

/**
 * Picks the candidate that occurs in the header line (outside quotes) and occurs the same number of
 * times in most of the following lines. Counting the header alone is not enough: a Polish header
 * such as `Cena, zł;Powierzchnia, m2` has more commas than semicolons, but the data lines agree on
 * the semicolons only. A file with a single column has no delimiter; `,` is then as good as any.
 */
export function detectDelimiter(sample: string, complete: boolean): string {
  const lines: number[][] = []
  let counts = CSV_DELIMITERS.map(() => 0)
  let inQuotes = false
  let hasContent = false
  for (let index = 0; index < sample.length && lines.length < DELIMITER_SAMPLE_LINES; index += 1) {
    const char = sample[index] ?? ''
    if (char === '"') {
      inQuotes = !inQuotes
      hasContent = true
    } else if (inQuotes) {
      continue
    } else if (char === '\n' || char === '\r') {
      if (hasContent) lines.push(counts)
      counts = CSV_DELIMITERS.map(() => 0)
      hasContent = false
    } else {
      const candidate = (CSV_DELIMITERS as readonly string[]).indexOf(char)
      if (candidate >= 0) counts[candidate] = (counts[candidate] ?? 0) + 1
      if (char.trim() !== '' || candidate >= 0) hasContent = true
    }
  }
  // the last line of a cut sample may be incomplete, so its counts would mislead
  if (hasContent && complete && lines.length < DELIMITER_SAMPLE_LINES) lines.push(counts)

  const [header, ...rest] = lines
  if (header === undefined) return ','
  let best: string = ','
  let bestAgreeing = -1
  let bestInHeader = 0
  CSV_DELIMITERS.forEach((delimiter, candidate) => {
    const inHeader = header[candidate] ?? 0
    if (inHeader === 0) return
    const agreeing = rest.filter((line) => line[candidate] === inHeader).length
    if (agreeing > bestAgreeing || (agreeing === bestAgreeing && inHeader > bestInHeader)) {
      best = delimiter
      bestAgreeing = agreeing
      bestInHeader = inHeader
    }
  })
  return best
}

function parserOptions(dialect: CsvDialect): Options {
  return {
    delimiter: dialect.delimiter,
    quote: '"',
    escape: '"',
    // also when a file mixes line endings, as files edited on two systems do
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    skip_empty_lines: false,
    max_record_size: MAX_RECORD_BYTES,
  }
}

/** The parser fed with the decoded file; destroying the parser closes the file. */
function parseFile(path: string, dialect: CsvDialect, options: Options = {}): Parser {
  const parser = parse({ ...parserOptions(dialect), ...options })
  const source = Readable.from(decodeFile(path, dialect.encoding))
  // the reader listens while it reads; an error after it stopped (it broke off early) is no one's
  parser.on('error', () => undefined)
  source.on('error', (error) => parser.destroy(error))
  parser.on('close', () => source.destroy())
  source.pipe(parser)
  return parser
}

/**
 * Records of the file, every one of them (empty lines come as `['']`), so that `row` stays the
 * spreadsheet row number; skipping empty rows is the caller's business. They come in the batches
 * the parser has ready: one wait per batch, not one per record, which on a 100,000-row file was a
 * good part of the reading time.
 */
export async function* readCsvRecordBatches(path: string, dialect: CsvDialect): AsyncGenerator<CsvRecord[]> {
  if (!dialect.quotes) {
    yield* splitQuoteFreeRecords(decodeFile(path, dialect.encoding), dialect.delimiter)
    return
  }
  const parser = parseFile(path, dialect)
  let row = 0
  try {
    for await (const batch of readyBatches<string[]>(parser)) {
      const records: CsvRecord[] = []
      for (const cells of batch) records.push({ row: ++row, cells })
      yield records
    }
  } catch (error) {
    throw error instanceof CsvError ? await malformed(error, path, dialect) : error
  } finally {
    parser.destroy()
  }
}

/** A record break as csv-parse is told them (`parserOptions`): CRLF, LF or CR, mixed in one file too. */
const RECORD_BREAK = /\r\n|\n|\r/

/**
 * The records of a text without a single quote, as csv-parse reads it with `parserOptions` (a
 * property test holds the two to the same records): every line break ends a record, every
 * delimiter ends a cell, and nothing else means anything. csv-parse spends most of a preview's
 * reading time on the quoting rules such a file never uses (~0.45 s of a 100,000-row file, against
 * ~0.08 s for this). A record longer than MAX_RECORD_BYTES is refused as csv-parse refuses it.
 */
export async function* splitQuoteFreeRecords(
  texts: AsyncIterable<string>,
  delimiter: string,
): AsyncGenerator<CsvRecord[]> {
  let row = 0
  let rest = ''
  const tooLong = () =>
    new FileReadError(
      'csv_malformed',
      `Row ${row + 1} (from line ${row + 1}) is longer than ${formatBytes(MAX_RECORD_BYTES)}, the limit of one row; ` +
        'check that the file is a CSV and that its lines end where its rows do.',
      { row: row + 1, line: row + 1, reason: 'record_too_long', limit_bytes: MAX_RECORD_BYTES, quoted: false },
    )
  for await (const text of texts) {
    let joined = rest + text
    // a CR at the end may be the first half of a CRLF: it waits for the next text
    const heldCr = joined.endsWith('\r')
    if (heldCr) joined = joined.slice(0, -1)
    const lines = joined.split(RECORD_BREAK)
    rest = (lines.pop() as string) + (heldCr ? '\r' : '')
    const records: CsvRecord[] = []
    for (const line of lines) {
      if (line.length > MAX_RECORD_BYTES) throw tooLong()
      records.push({ row: ++row, cells: line.split(delimiter) })
    }
    if (rest.length > MAX_RECORD_BYTES) throw tooLong()
    if (records.length > 0) yield records
  }
  // the last record has no break after it, or ends with a CR that had nothing after it
  if (rest.endsWith('\r')) rest = rest.slice(0, -1)
  else if (rest === '') return
  yield [{ row: ++row, cells: rest.split(delimiter) }]
}

/** The records one by one (the header row, tests). */
export async function* readCsvRecords(path: string, dialect: CsvDialect): AsyncGenerator<CsvRecord> {
  for await (const batch of readCsvRecordBatches(path, dialect)) yield* batch
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value))
}

/** Everything an object stream has buffered, each time it has something, until it ends or fails. */
async function* readyBatches<T>(stream: Readable): AsyncGenerator<T[]> {
  let failure: unknown
  let wake: (() => void) | undefined
  const onError = (error: unknown) => {
    failure ??= error
    wake?.()
  }
  const onEvent = () => wake?.()
  stream.on('error', onError)
  stream.on('readable', onEvent)
  stream.on('end', onEvent)
  stream.on('close', onEvent)
  try {
    for (;;) {
      if (failure !== undefined) throw asError(failure)
      const batch: T[] = []
      for (let item = stream.read() as T | null; item !== null; item = stream.read() as T | null) batch.push(item)
      if (batch.length > 0) {
        yield batch
        continue
      }
      if (stream.readableEnded) return
      if (stream.destroyed) throw asError(failure ?? stream.errored ?? 'the CSV parser closed early')
      await new Promise<void>((resolve) => (wake = resolve))
      wake = undefined
    }
  } finally {
    stream.off('error', onError)
    stream.off('readable', onEvent)
    stream.off('end', onEvent)
    stream.off('close', onEvent)
  }
}

/**
 * The line a record starts on, which is where an unclosed quote opened. csv-parse reports the line
 * it had reached when it gave up; tracking every record's line during the read would cost a sixth
 * of the parsing time, so the records before the broken one are parsed again, on failure only.
 */
async function lineWhereRecordStarts(path: string, dialect: CsvDialect, row: number): Promise<number> {
  if (row <= 1) return 1
  let linesBefore = 0
  const parser = parseFile(path, dialect, { info: true, to: row - 1 })
  try {
    for await (const record of parser as AsyncIterable<{ info: { lines: number } }>) linesBefore = record.info.lines
  } catch {
    // cannot happen before `to` is reached, and the count so far is the best answer anyway
  } finally {
    parser.destroy()
  }
  return linesBefore + 1
}

async function* decodeFile(path: string, encoding: CsvEncoding): AsyncGenerator<string> {
  const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES })
  try {
    if (encoding === 'windows-1250') {
      // a single-byte encoding: a chunk boundary can never split a character
      for await (const chunk of stream as AsyncIterable<Buffer>) yield iconv.decode(chunk, 'windows-1250')
      return
    }
    // fatal: a byte that is not UTF-8 must stop the import, not become U+FFFD in a stored value
    const decoder = new TextDecoder('utf-8', { fatal: true })
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let text: string
      try {
        text = decoder.decode(chunk, { stream: true })
      } catch {
        throw await mixedEncodingError(path)
      }
      if (text !== '') yield text
    }
    let rest: string
    try {
      rest = decoder.decode()
    } catch {
      throw await mixedEncodingError(path)
    }
    if (rest !== '') yield rest
  } finally {
    stream.destroy()
  }
}

async function mixedEncodingError(path: string): Promise<FileReadError> {
  const line = await lineOfInvalidUtf8(path)
  const where = line === undefined ? 'Part of the file' : `Line ${line}`
  return new FileReadError(
    'csv_malformed',
    `${where} is not valid UTF-8, although the text before it is: the file mixes two encodings. ` +
      'Open it in a spreadsheet program and save it again as "CSV UTF-8".',
    { line, encoding: 'utf-8' },
  )
}

/**
 * Rereads the file to find the line of the first byte that is not UTF-8: TextDecoder reports that a
 * chunk failed but not where. Follows the well-formed byte sequences of RFC 3629 (no overlong forms,
 * no surrogates, nothing above U+10FFFF), as TextDecoder does.
 */
async function lineOfInvalidUtf8(path: string): Promise<number | undefined> {
  let line = 1
  let pending = 0
  let lower = 0x80
  let upper = 0xbf
  const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES })
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      for (const byte of chunk) {
        if (pending > 0) {
          if (byte < lower || byte > upper) return line
          pending -= 1
          lower = 0x80
          upper = 0xbf
        } else if (byte < 0x80) {
          if (byte === 0x0a) line += 1
        } else if (byte >= 0xc2 && byte <= 0xdf) {
          pending = 1
        } else if (byte >= 0xe0 && byte <= 0xef) {
          pending = 2
          if (byte === 0xe0) lower = 0xa0
          if (byte === 0xed) upper = 0x9f
        } else if (byte >= 0xf0 && byte <= 0xf4) {
          pending = 3
          if (byte === 0xf0) lower = 0x90
          if (byte === 0xf4) upper = 0x8f
        } else {
          return line
        }
      }
    }
  } finally {
    stream.destroy()
  }
  return pending > 0 ? line : undefined
}

async function malformed(error: CsvError, path: string, dialect: CsvDialect): Promise<FileReadError> {
  const row = (typeof error.records === 'number' ? error.records : 0) + 1
  const line = typeof error.lines === 'number' ? error.lines : row
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED': {
      const startLine = await lineWhereRecordStarts(path, dialect, row)
      return new FileReadError(
        'csv_malformed',
        `Row ${row} (line ${startLine}) opens a quoted value that is never closed, so the rest of the file ` +
          'would be read as one value. Add the missing closing quote (").',
        { row, line: startLine, reason: 'quote_not_closed' },
      )
    }
    case 'CSV_MAX_RECORD_SIZE': {
      const startLine = await lineWhereRecordStarts(path, dialect, row)
      return new FileReadError(
        'csv_malformed',
        `Row ${row} (from line ${startLine}) is longer than ${formatBytes(MAX_RECORD_BYTES)}; a quote (") ` +
          'is probably not closed.',
        { row, line: startLine, reason: 'record_too_long', limit_bytes: MAX_RECORD_BYTES, quoted: true },
      )
    }
    case 'CSV_INVALID_CLOSING_QUOTE':
    case 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE':
      return new FileReadError(
        'csv_malformed',
        `Line ${line}: a quoted value is followed by other characters before the next delimiter. ` +
          'Inside a quoted value write a quote as two quotes (""), e.g. "Apartament ""Słoneczny""".',
        { row, line, reason: 'invalid_closing_quote' },
      )
    case 'INVALID_OPENING_QUOTE':
      return new FileReadError(
        'csv_malformed',
        `Line ${line}: a quote (") appears inside a value that does not start with one. Put the whole value ` +
          'in quotes and double the quotes inside it, e.g. "Apartament ""Słoneczny""".',
        { row, line, reason: 'invalid_opening_quote' },
      )
    default:
      return new FileReadError('csv_malformed', `Line ${line} cannot be read as CSV: ${error.message}`, {
        row,
        line,
        reason: error.code,
      })
  }
}
