/*
 * The cells of one worksheet, read straight from the sheet's XML with saxes (the XML parser exceljs
 * itself uses). exceljs's own streaming reader builds a Row, Cell and Address object per cell and
 * re-decodes every chunk; on a 100,000-row offer sheet that was four fifths of the import's time
 * and most of its memory. Here each XML event goes straight to the cell's text: shared strings,
 * inline strings, numbers, booleans, errors, formula results, and dates told by their number format
 * exactly as `cellText` tells them. The bytes come from `entryContent`, which enforces the ZIP
 * limits; a streaming UTF-8 decoder keeps a letter split between two chunks whole.
 */
import { SaxesParser, type SaxesTagPlain } from 'saxes'

import { FileReadError } from './file-errors.js'

/** The number formats Excel does not write into styles.xml (ECMA-376 part 1, 18.8.30). */
const BUILT_IN_FORMATS: Readonly<Record<number, string>> = {
  0: 'General',
  1: '0',
  2: '0.00',
  3: '#,##0',
  4: '#,##0.00',
  9: '0%',
  10: '0.00%',
  11: '0.00E+00',
  12: '# ?/?',
  13: '# ??/??',
  14: 'mm-dd-yy',
  15: 'd-mmm-yy',
  16: 'd-mmm',
  17: 'mmm-yy',
  18: 'h:mm AM/PM',
  19: 'h:mm:ss AM/PM',
  20: 'h:mm',
  21: 'h:mm:ss',
  22: 'm/d/yy h:mm',
  37: '#,##0 ;(#,##0)',
  38: '#,##0 ;[Red](#,##0)',
  39: '#,##0.00;(#,##0.00)',
  40: '#,##0.00;[Red](#,##0.00)',
  45: 'mm:ss',
  46: '[h]:mm:ss',
  47: 'mmss.0',
  48: '##0.0E+0',
  49: '@',
}

/** Ids 27–36 and 50–58 are locale date formats (East Asian Excel) that styles.xml does not spell out. */
function builtInFormat(id: number): string | undefined {
  if ((id >= 27 && id <= 36) || (id >= 50 && id <= 58)) return 'yyyy-mm-dd'
  return BUILT_IN_FORMATS[id]
}

/*
 * The parser keeps a text node (or a tag) whole until it ends, and Excel holds at most 32,767
 * characters in a cell: a run of more than this many characters without a `<` is no spreadsheet.
 * A 250 MB cell (32 MB of workbook, inside the ZIP limits) grew the process by 290 MB before its
 * end was reached (found by the fuzz suite). The chunks fed are far smaller than this, so
 * looking at the run that ends each chunk is enough.
 */
export const MAX_XML_TEXT_RUN = 1024 * 1024

function parseXml(
  onTag: (tag: SaxesTagPlain) => void,
  onText: (text: string) => void,
  onClose: (name: string) => void,
) {
  const parser = new SaxesParser({ xmlns: false, position: false })
  let failure: Error | undefined
  let run = 0
  parser.on('opentag', onTag)
  parser.on('text', onText)
  parser.on('cdata', onText)
  parser.on('closetag', (tag) => onClose(tag.name))
  parser.on('error', (error) => {
    failure ??= error
  })
  return {
    write(text: string) {
      const markup = text.lastIndexOf('<')
      run = markup < 0 ? run + text.length : text.length - markup - 1
      if (run > MAX_XML_TEXT_RUN)
        throw new FileReadError(
          'xlsx_corrupt',
          `The XLSX file holds a text of more than ${MAX_XML_TEXT_RUN} characters, where a spreadsheet cell ` +
            'holds at most 32,767; the file was not written by a spreadsheet program.',
          { limit: MAX_XML_TEXT_RUN },
        )
      parser.write(text)
      if (failure) throw failure
    },
    close() {
      parser.close()
      if (failure) throw failure
    },
  }
}

/** Local name of a tag: `x:row` → `row` (some writers prefix the main namespace). */
function local(name: string): string {
  const colon = name.indexOf(':')
  return colon < 0 ? name : name.slice(colon + 1)
}

/** A decoding failure as a plain error: the caller says which part of which file it was. */
function notUtf8(error: unknown): unknown {
  return error instanceof TypeError && !(error instanceof FileReadError) ? new Error('text that is not UTF-8') : error
}

async function eachText(chunks: AsyncIterable<Buffer>, write: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder('utf-8', { fatal: true })
  try {
    for await (const chunk of chunks) write(decoder.decode(chunk, { stream: true }))
    write(decoder.decode())
  } catch (error) {
    throw notUtf8(error)
  }
}

/*
 * The shared strings are the one part held in memory whole, and the ZIP limits do not bound what
 * they cost there: 14 MB of workbook (280 MB of XML at a ratio the ZIP check allows) held 14.7
 * million short strings and grew the process by 550 MB (found by the fuzz suite). An offer file of
 * the largest size allowed (200,000 rows) has far fewer distinct texts, since spreadsheet programs
 * store each distinct text once; beyond these limits the file is refused as a bomb.
 */
export const MAX_SHARED_STRINGS = 2_000_000
export const MAX_SHARED_STRING_CHARS = 64 * 1024 * 1024

function tooManySharedStrings(count: number, chars: number): FileReadError {
  return new FileReadError(
    'xlsx_zip_bomb',
    `The shared string table of the XLSX file holds more than ${MAX_SHARED_STRINGS.toLocaleString('en')} texts or ` +
      `${MAX_SHARED_STRING_CHARS / (1024 * 1024)} million characters (${count} texts, ${chars} characters so far); ` +
      'no offer file needs that many, so it is refused as a ZIP bomb. Export the offers as CSV instead.',
    { sharedStrings: count, characters: chars, limit: MAX_SHARED_STRINGS, characterLimit: MAX_SHARED_STRING_CHARS },
  )
}

/** The shared string table: the plain text of every `<si>`, rich-text runs joined, phonetic runs left out. */
export async function readSharedStrings(chunks: AsyncIterable<Buffer>): Promise<string[]> {
  const strings: string[] = []
  let chars = 0
  let current: string | undefined
  let inText = false
  let phonetic = 0
  const xml = parseXml(
    (tag) => {
      const name = local(tag.name)
      if (name === 'si') current = ''
      else if (name === 't') inText = true
      else if (name === 'rPh') phonetic++
    },
    (text) => {
      if (inText && phonetic === 0 && current !== undefined) current += text
    },
    (raw) => {
      const name = local(raw)
      if (name === 't') inText = false
      else if (name === 'rPh') phonetic--
      else if (name === 'si') {
        chars += current?.length ?? 0
        if (strings.length >= MAX_SHARED_STRINGS || chars > MAX_SHARED_STRING_CHARS)
          throw tooManySharedStrings(strings.length + 1, chars)
        strings.push(current ?? '')
        current = undefined
      }
    },
  )
  await eachText(chunks, (text) => xml.write(text))
  xml.close()
  return strings
}

/** The number format code of every cell style (`s` attribute of a cell), by style index. */
export async function readCellFormats(chunks: AsyncIterable<Buffer>): Promise<Array<string | undefined>> {
  const custom = new Map<number, string>()
  const formats: Array<string | undefined> = []
  let inCellXfs = false
  const xml = parseXml(
    (tag) => {
      const name = local(tag.name)
      if (name === 'numFmt') {
        const id = Number(tag.attributes.numFmtId)
        if (Number.isInteger(id) && typeof tag.attributes.formatCode === 'string')
          custom.set(id, tag.attributes.formatCode)
      } else if (name === 'cellXfs') inCellXfs = true
      else if (name === 'xf' && inCellXfs) {
        const id = Number(tag.attributes.numFmtId ?? 0)
        formats.push(Number.isInteger(id) ? (custom.get(id) ?? builtInFormat(id)) : undefined)
      }
    },
    () => undefined,
    (raw) => {
      if (local(raw) === 'cellXfs') inCellXfs = false
    },
  )
  await eachText(chunks, (text) => xml.write(text))
  xml.close()
  return formats
}

/** A cell as the sheet stores it, before it becomes text. */
export interface RawCell {
  /** The `t` attribute: `s`, `str`, `inlineStr`, `b`, `e`, `n`, `d`, or '' (a number). */
  type: string
  /** `<v>` text, or the inline string. */
  value: string
  /** Number format of its style, if any. */
  format: string | undefined
}

/** Column index (0 = A) of a cell reference such as `AB12`; -1 when it has no letters. */
function columnOf(reference: string): number {
  let column = 0
  let i = 0
  for (; i < reference.length; i++) {
    const code = reference.charCodeAt(i)
    if (code >= 65 && code <= 90) column = column * 26 + (code - 64)
    else if (code >= 97 && code <= 122) column = column * 26 + (code - 96)
    else break
  }
  return i === 0 ? -1 : column - 1
}

/*
 * Excel's last column is XFD. A sheet cannot hold a cell beyond it, and a row of millions of
 * unreferenced `<c/>` (9.6 MB of XML, below the size where the ZIP ratio is checked) grew the
 * process by over 300 MB, while a reference such as `ZZZZZZ2` made a row's cell array
 * hundreds of millions long (found by the fuzz suite).
 */
export const MAX_SHEET_COLUMNS = 16_384

function cellBeyondLastColumn(row: number): FileReadError {
  return new FileReadError(
    'xlsx_corrupt',
    `Row ${row} of the sheet has a cell beyond column XFD, the last column a spreadsheet can have; ` +
      'the file was not written by a spreadsheet program.',
    { row, limit: MAX_SHEET_COLUMNS },
  )
}

/**
 * Streams the rows of a sheet, in the batches each piece of XML completes: for every `<row>`, its
 * number and its cells by column index. Rows and cells without a reference take the next position,
 * as Excel does.
 */
export async function* readSheetRows(
  chunks: AsyncIterable<Buffer>,
  formats: ReadonlyArray<string | undefined>,
): AsyncGenerator<Array<{ row: number; cells: Map<number, RawCell> }>> {
  let rowNumber = 0
  let cells: Map<number, RawCell> | undefined
  // a row's cells are made with its first cell: a sheet of a million empty `<row/>` made a million
  // maps the readers then skipped, growing the process by 100 MB and more (found by the fuzz suite)
  let inRow = false
  let column = -1
  let cell: RawCell | undefined
  let capture: 'v' | 't' | undefined
  let inInline = false
  let phonetic = 0
  let ready: Array<{ row: number; cells: Map<number, RawCell> }> = []

  const xml = parseXml(
    (tag) => {
      switch (local(tag.name)) {
        case 'row': {
          const r = Number(tag.attributes.r)
          rowNumber = Number.isInteger(r) && r > 0 ? r : rowNumber + 1
          cells = undefined
          inRow = true
          column = -1
          break
        }
        case 'c': {
          const reference = tag.attributes.r
          const at = typeof reference === 'string' ? columnOf(reference) : -1
          column = at >= 0 ? at : column + 1
          if (column >= MAX_SHEET_COLUMNS) throw cellBeyondLastColumn(rowNumber)
          const style = Number(tag.attributes.s ?? 0)
          cell = {
            type: typeof tag.attributes.t === 'string' ? tag.attributes.t : '',
            value: '',
            format: Number.isInteger(style) ? formats[style] : undefined,
          }
          break
        }
        case 'v':
          if (cell) capture = 'v'
          break
        case 'is':
          inInline = true
          break
        case 't':
          if (cell && inInline) capture = 't'
          break
        case 'rPh':
          phonetic++
          break
      }
    },
    (text) => {
      if (capture !== undefined && cell && phonetic === 0) cell.value += text
    },
    (raw) => {
      switch (local(raw)) {
        case 'v':
        case 't':
          capture = undefined
          break
        case 'is':
          inInline = false
          break
        case 'rPh':
          phonetic--
          break
        case 'c':
          if (cell && inRow) (cells ??= new Map()).set(column, cell)
          cell = undefined
          break
        case 'row':
          if (cells) ready.push({ row: rowNumber, cells })
          cells = undefined
          inRow = false
          break
      }
    },
  )
  const decoder = new TextDecoder('utf-8', { fatal: true })
  try {
    for await (const chunk of chunks) {
      xml.write(decoder.decode(chunk, { stream: true }))
      if (ready.length > 0) {
        const batch = ready
        ready = []
        yield batch
      }
    }
    xml.write(decoder.decode())
    xml.close()
  } catch (error) {
    throw notUtf8(error)
  }
  if (ready.length > 0) yield ready
}
