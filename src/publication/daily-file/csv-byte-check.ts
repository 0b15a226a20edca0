/*
 * Byte rules of the official daily file, checked on the exact bytes that are served: no BOM, the
 * official header line byte for byte, valid UTF-8, and every record with 58 cells, none empty,
 * quoting well formed (a quote opens a field, doubled inside it, and closes it right before a `;`
 * or a line end; no CR outside quotes). One pass over the bytes, fed in pieces, so the pipeline
 * checks the file while it is written instead of parsing it into cells again; the report import
 * checks its converted file with the same rules (checkCsvBytes).
 */
import { isUtf8 } from 'node:buffer'

import { OFFICIAL_COLUMN_COUNT, OFFICIAL_HEADER_LINE } from './official-columns.js'
import { issue, type PublicationIssue } from '../publication-issue.js'

const SEMICOLON = 0x3b
const QUOTE = 0x22
const LF = 0x0a
const CR = 0x0d

const HEADER = Buffer.from(OFFICIAL_HEADER_LINE, 'utf8')
/** The bytes that end or open a cell or a record, or are refused outside quotes. */
const SPECIAL = new Uint8Array(256)
for (const byte of [SEMICOLON, QUOTE, LF, CR]) SPECIAL[byte] = 1
const MAX_ISSUES = 50

// where the scanner is inside a record
const FIELD_START = 0
const UNQUOTED = 1
const QUOTED = 2
const QUOTE_IN_QUOTED = 3

export class CsvByteChecker {
  private readonly issues: PublicationIssue[] = []
  private offset = 0
  private header: Buffer[] = []
  private headerBytes = 0
  private inHeader = true
  private utf8Carry: Buffer | undefined
  private utf8Failed = false
  private broken = false
  private state = FIELD_START
  private cells = 0
  private emptyCell = false
  private cellHasText = false
  /** 1-based number of the record being read; the header is record 1. */
  private record = 2

  feed(chunk: Uint8Array): void {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    this.checkUtf8(bytes)
    let start = 0
    if (this.inHeader) {
      const end = bytes.indexOf(LF)
      this.keepHeader(end === -1 ? bytes : bytes.subarray(0, end))
      if (end !== -1) {
        this.endHeader()
        start = end + 1
      }
    }
    if (!this.inHeader && !this.broken) this.scan(bytes, start)
    this.offset += bytes.length
  }

  /** The issues of the whole file (at most 50); call once, after the last piece. */
  finish(): PublicationIssue[] {
    if (this.inHeader) this.endHeader()
    if (this.utf8Carry && !this.utf8Failed) this.notUtf8(this.offset - this.utf8Carry.length)
    if (!this.broken) {
      if (this.state === QUOTED) this.unparseable('a quoted cell is not closed at the end of the file')
      else if (this.state !== FIELD_START || this.cells > 0) {
        // a last record without its line end still counts, as a CSV reader would read it
        this.endCell(this.state === FIELD_START || (this.state === QUOTE_IN_QUOTED && !this.cellHasText))
        this.endRecord()
      }
    }
    return this.issues.slice(0, MAX_ISSUES)
  }

  private add(found: PublicationIssue): void {
    if (this.issues.length < MAX_ISSUES) this.issues.push(found)
  }

  private keepHeader(part: Buffer): void {
    // anything longer than the official line differs from it; no need to keep more
    const room = HEADER.length + 1 - this.headerBytes
    if (room > 0) this.header.push(Buffer.from(part.subarray(0, room)))
    this.headerBytes += part.length
  }

  private endHeader(): void {
    this.inHeader = false
    const header = Buffer.concat(this.header)
    this.header = []
    if (header[0] === 0xef && header[1] === 0xbb && header[2] === 0xbf) {
      this.add(
        issue(
          'csv_bom',
          'Plik CSV nie może zaczynać się od znacznika BOM.',
          'The CSV must not start with a byte-order mark.',
        ),
      )
    }
    if (!header.equals(HEADER)) {
      this.add(
        issue(
          'csv_header_mismatch',
          'Nagłówki pliku różnią się od wzorcowego zakresu danych (58 kolumn).',
          'The header line differs from the official 58-column template.',
        ),
      )
    }
  }

  /** A multi-byte character split between two pieces is checked when its end arrives. */
  private checkUtf8(bytes: Buffer): void {
    if (this.utf8Failed) return
    let data = bytes
    let base = this.offset
    if (this.utf8Carry) {
      base -= this.utf8Carry.length
      data = Buffer.concat([this.utf8Carry, bytes])
      this.utf8Carry = undefined
    }
    let cut = data.length
    for (let i = data.length - 1; i >= 0 && i >= data.length - 3; i--) {
      const byte = data[i] as number
      if ((byte & 0xc0) === 0x80) continue
      if (byte >= 0xc0) {
        const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2
        if (data.length - i < length) cut = i
      }
      break
    }
    if (!isUtf8(data.subarray(0, cut))) {
      this.notUtf8(base)
      return
    }
    if (cut < data.length) this.utf8Carry = Buffer.from(data.subarray(cut))
  }

  private notUtf8(near: number): void {
    this.utf8Failed = true
    this.add(
      issue('csv_not_utf8', 'Plik CSV nie jest poprawnie zakodowany w UTF-8.', 'The CSV is not valid UTF-8.', {
        near_byte: near,
      }),
    )
  }

  private unparseable(reason: string): void {
    this.broken = true
    this.add(
      issue('csv_unparseable', 'Pliku CSV nie da się odczytać.', 'The CSV cannot be parsed.', {
        reason: `record ${this.record}: ${reason}`,
      }),
    )
  }

  private endCell(empty: boolean): void {
    this.cells++
    if (empty) this.emptyCell = true
  }

  private endRecord(): void {
    this.recordEnded(this.cells, this.emptyCell)
    this.cells = 0
    this.emptyCell = false
    this.state = FIELD_START
  }

  private recordEnded(cells: number, emptyCell: boolean): void {
    if (cells !== OFFICIAL_COLUMN_COUNT) {
      this.add(
        issue(
          'csv_column_count',
          `Wiersz ${this.record} ma ${cells} kolumn zamiast 58.`,
          `Row ${this.record} has ${cells} columns instead of 58.`,
        ),
      )
    } else if (emptyCell) {
      this.add(
        issue(
          'csv_empty_cell',
          `Wiersz ${this.record} ma pustą komórkę; użyj znaku X.`,
          `Row ${this.record} has an empty cell; use X.`,
        ),
      )
    }
    this.record++
  }

  /* The hot loop of the check: state in locals, a table lookup to skip ordinary bytes. */
  private scan(bytes: Buffer, start: number): void {
    let state = this.state
    let cells = this.cells
    let emptyCell = this.emptyCell
    let cellHasText = this.cellHasText
    const length = bytes.length
    for (let i = start; i < length; i++) {
      const byte = bytes[i] as number
      if (state === UNQUOTED) {
        if (SPECIAL[byte] === 0) continue
        if (byte === SEMICOLON) {
          cells++
          state = FIELD_START
        } else if (byte === LF) {
          this.recordEnded(cells + 1, emptyCell)
          cells = 0
          emptyCell = false
          state = FIELD_START
        } else {
          this.state = state
          this.unparseable(byte === QUOTE ? 'a quote inside an unquoted cell' : 'a carriage return outside quotes')
          return
        }
      } else if (state === FIELD_START) {
        if (SPECIAL[byte] === 0) {
          state = UNQUOTED
        } else if (byte === SEMICOLON) {
          cells++
          emptyCell = true
        } else if (byte === LF) {
          this.recordEnded(cells + 1, true)
          cells = 0
          emptyCell = false
        } else if (byte === QUOTE) {
          state = QUOTED
          cellHasText = false
        } else {
          this.unparseable('a carriage return outside quotes')
          return
        }
      } else if (state === QUOTED) {
        if (byte === QUOTE) state = QUOTE_IN_QUOTED
        else cellHasText = true
      } else if (byte === QUOTE) {
        // a doubled quote inside a quoted cell
        cellHasText = true
        state = QUOTED
      } else if (byte === SEMICOLON) {
        cells++
        if (!cellHasText) emptyCell = true
        state = FIELD_START
      } else if (byte === LF) {
        this.recordEnded(cells + 1, emptyCell || !cellHasText)
        cells = 0
        emptyCell = false
        state = FIELD_START
      } else {
        this.unparseable('characters after the closing quote of a cell')
        return
      }
    }
    this.state = state
    this.cells = cells
    this.emptyCell = emptyCell
    this.cellHasText = cellHasText
  }
}

/** The byte rules on a whole file in memory (the report import's converted file). */
export function checkCsvBytes(content: Uint8Array): PublicationIssue[] {
  const checker = new CsvByteChecker()
  checker.feed(content)
  return checker.finish()
}
