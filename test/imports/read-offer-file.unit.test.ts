import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deflateRawSync } from 'node:zlib'

import ExcelJS from 'exceljs'
import iconv from 'iconv-lite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { FileReadError } from '../../src/imports/reading/file-errors.js'
import {
  DEFAULT_FILE_LIMITS,
  type FileLimits,
  type OfferFileReader,
  type OfferFileRow,
  readOfferFile,
} from '../../src/imports/reading/read-offer-file.js'
import { cellText, formatNumber, isDateFormat } from '../../src/imports/reading/read-xlsx.js'

let dir: string
let sequence = 0

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'offer-files-'))
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function fixture(content: string | Buffer, name = 'offers.csv'): Promise<string> {
  sequence += 1
  const path = join(dir, `${sequence}-${name}`)
  await writeFile(path, content)
  return path
}

function open(path: string, options: { sheet?: string; limits?: Partial<FileLimits> } = {}): Promise<OfferFileReader> {
  return readOfferFile({
    path,
    fileName: path.split('/').pop() ?? path,
    ...(options.sheet === undefined ? {} : { sheet: options.sheet }),
    limits: { ...DEFAULT_FILE_LIMITS, ...options.limits },
  })
}

async function collect(rows: AsyncIterable<OfferFileRow>): Promise<OfferFileRow[]> {
  const result: OfferFileRow[] = []
  for await (const row of rows) result.push(row)
  return result
}

async function read(content: string | Buffer, name?: string, options?: Parameters<typeof open>[1]) {
  const reader = await open(await fixture(content, name), options)
  return { reader, rows: await collect(reader.rows) }
}

async function failure(promise: Promise<unknown>): Promise<FileReadError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof FileReadError) return error
    throw error
  }
  throw new Error('expected a FileReadError')
}

const readFailure = async (content: string | Buffer, name?: string, options?: Parameters<typeof open>[1]) =>
  failure(read(content, name, options))

const POLISH = 'ą ć ę ł ń ó ś ź ż Ą Ł Ż'

describe('CSV', () => {
  it('reads UTF-8 with a BOM, comma separated', async () => {
    const { reader, rows } = await read('\uFEFFid,price,zip\r\nA-1,"123 456,78",02-495\r\n')
    expect(reader).toMatchObject({ format: 'csv', encoding: 'utf-8', delimiter: ',', headers: ['id', 'price', 'zip'] })
    expect(rows).toEqual([{ row: 2, values: { id: 'A-1', price: '123 456,78', zip: '02-495' } }])
  })

  it('reads UTF-8 without a BOM, semicolon separated', async () => {
    const { reader, rows } = await read(`Miasto;Ulica\nŁódź;${POLISH}\n`)
    expect(reader).toMatchObject({ encoding: 'utf-8', delimiter: ';', headers: ['Miasto', 'Ulica'] })
    expect(rows).toEqual([{ row: 2, values: { Miasto: 'Łódź', Ulica: POLISH } }])
  })

  it('reads Windows-1250 with Polish letters in headers and values', async () => {
    const text = `Województwo;Ulica;Status\r\nłódzkie;${POLISH};sprzedane\r\nśląskie;Żółwia;wolne\r\n`
    const { reader, rows } = await read(iconv.encode(text, 'windows-1250'))
    expect(reader).toMatchObject({ encoding: 'windows-1250', delimiter: ';' })
    expect(reader.headers).toEqual(['Województwo', 'Ulica', 'Status'])
    expect(rows.map((row) => row.values)).toEqual([
      { Województwo: 'łódzkie', Ulica: POLISH, Status: 'sprzedane' },
      { Województwo: 'śląskie', Ulica: 'Żółwia', Status: 'wolne' },
    ])
  })

  it('recognises Windows-1250 whose first Polish letter comes after a long ASCII start', async () => {
    const ascii = Array.from({ length: 5000 }, (_, index) => `P-${index};Warszawa`)
    const text = ['id;city', ...ascii, 'P-last;Łódź', ''].join('\r\n')
    const { reader, rows } = await read(iconv.encode(text, 'windows-1250'))
    expect(reader.encoding).toBe('windows-1250')
    expect(rows.at(-1)).toEqual({ row: 5002, values: { id: 'P-last', city: 'Łódź' } })
  })

  it('refuses a file that turns from UTF-8 into Windows-1250, naming the line', async () => {
    const rows = Array.from({ length: 5000 }, (_, index) => `P-${index};Kraków`)
    const bytes = Buffer.concat([
      Buffer.from(['id;city', ...rows, ''].join('\n'), 'utf8'),
      iconv.encode('P-x;Łódź\n', 'windows-1250'),
    ])
    const error = await readFailure(bytes)
    expect(error.code).toBe('csv_malformed')
    expect(error.details).toMatchObject({ line: 5002 })
    expect(error.message).toContain('Line 5002')
  })

  it('reads tab-separated files', async () => {
    const { reader, rows } = await read('id\tprice\tnote\nA\t100\tx;y,z\n')
    expect(reader.delimiter).toBe('\t')
    expect(rows[0]?.values).toEqual({ id: 'A', price: '100', note: 'x;y,z' })
  })

  it('detects the delimiter from lines that agree, not from the header alone', async () => {
    const { reader, rows } = await read('Cena, zł;Powierzchnia, m2\n"100,50";54\n200;60,5\n')
    expect(reader.delimiter).toBe(';')
    expect(reader.headers).toEqual(['Cena, zł', 'Powierzchnia, m2'])
    expect(rows[1]?.values).toEqual({ 'Cena, zł': '200', 'Powierzchnia, m2': '60,5' })
  })

  it('reads quoted values holding the delimiter, doubled quotes and line breaks', async () => {
    const text = 'id;name;note\r\n1;"a;b";"He said ""hi"""\r\n2;"two\r\nlines";x\r\n3;plain;y\r\n'
    const { rows } = await read(text)
    expect(rows).toEqual([
      { row: 2, values: { id: '1', name: 'a;b', note: 'He said "hi"' } },
      { row: 3, values: { id: '2', name: 'two\r\nlines', note: 'x' } },
      // a value over two lines is still one spreadsheet row
      { row: 4, values: { id: '3', name: 'plain', note: 'y' } },
    ])
  })

  it('handles CRLF, mixed line endings, empty lines and a trailing empty line, keeping row numbers', async () => {
    const { rows } = await read('id;v\r\n1;a\r\n\r\n;\r\n2;b\n3;c\r\n\r\n')
    expect(rows).toEqual([
      { row: 2, values: { id: '1', v: 'a' } },
      { row: 5, values: { id: '2', v: 'b' } },
      { row: 6, values: { id: '3', v: 'c' } },
    ])
  })

  it('keeps every value as text: leading zeros, postal codes, decimals, spaces', async () => {
    const { rows } = await read('local;zip;area;price\n007;02-495;54,30; 1 000 \n')
    expect(rows[0]?.values).toEqual({ local: '007', zip: '02-495', area: '54,30', price: ' 1 000 ' })
  })

  it('trims header cells but keeps their text otherwise', async () => {
    const { reader, rows } = await read(' Cena m2 ; ID lokalu\t;Piętro\n1;2;3\n')
    expect(reader.headers).toEqual(['Cena m2', 'ID lokalu', 'Piętro'])
    expect(rows[0]?.values).toEqual({ 'Cena m2': '1', 'ID lokalu': '2', Piętro: '3' })
  })

  it('skips rows whose cells hold only spaces of any kind (no-break space, BOM)', async () => {
    const { rows } = await read('id;cena\n\u00a0;\ufeff\n \u3000; \nA-1;100\n')
    expect(rows).toEqual([{ row: 4, values: { id: 'A-1', cena: '100' } }])
  })

  it('fills missing trailing cells and ignores empty extra cells', async () => {
    const { reader, rows } = await read('a;b;c;;\n1;2\n3;4;5;;\n')
    expect(reader.headers).toEqual(['a', 'b', 'c'])
    expect(rows.map((row) => row.values)).toEqual([
      { a: '1', b: '2', c: '' },
      { a: '3', b: '4', c: '5' },
    ])
  })

  it('refuses a row with a value beyond the header columns', async () => {
    const error = await readFailure('a;b\n1;2\n3;Sienna 5;m. 7\n')
    expect(error.code).toBe('csv_malformed')
    expect(error.details).toMatchObject({ row: 3, column: 3 })
    expect(error.message).toContain('Row 3')
  })

  it('reports an unclosed quote with the line it opens on', async () => {
    const error = await readFailure('id;note\n1;"a\n2;b\n3;c\n')
    expect(error.code).toBe('csv_malformed')
    expect(error.details).toMatchObject({ row: 2, line: 2, reason: 'quote_not_closed' })
  })

  it('reports inconsistent quoting with its line', async () => {
    const closing = await readFailure('id;note\n1;ok\n2;"abc"def\n')
    expect(closing.code).toBe('csv_malformed')
    expect(closing.details).toMatchObject({ line: 3 })
    const opening = await readFailure('id;note\n1;Apartament "Słoneczny"\n')
    expect(opening.details).toMatchObject({ line: 2 })
  })

  it('returns the headers and no rows for a header-only file', async () => {
    const { reader, rows } = await read('id;price\r\n')
    expect(reader.headers).toEqual(['id', 'price'])
    expect(reader.headerRow).toBe(1)
    expect(rows).toEqual([])
  })

  it('refuses empty and duplicate header cells', async () => {
    const missing = await readFailure('id;;price\n1;2;3\n')
    expect(missing.code).toBe('header_missing')
    expect(missing.details).toMatchObject({ column: 2, columnName: 'B' })
    const duplicate = await readFailure('id;price;id\n1;2;3\n')
    expect(duplicate.code).toBe('duplicate_header')
    expect(duplicate.details).toMatchObject({ header: 'id', columns: [1, 3] })
  })

  it('treats a file of empty lines as empty', async () => {
    expect((await readFailure('\r\n\r\n;;\r\n')).code).toBe('file_empty')
  })

  it('keeps a __proto__ header as a plain key', async () => {
    const { rows } = await read('__proto__;id\nx;1\n')
    const values = rows[0]?.values ?? {}
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype)
    expect(Object.entries(values)).toEqual([
      ['__proto__', 'x'],
      ['id', '1'],
    ])
  })

  it('can iterate the rows again, reading the file anew', async () => {
    const reader = await open(await fixture('id\n1\n2\n'))
    const first = await collect(reader.rows)
    expect(await collect(reader.rows)).toEqual(first)
    expect(first).toHaveLength(2)
  })

  it('streams 100,000 rows', async () => {
    const header = 'source_investment_id;source_property_id;prop_no;prop_area;price_total;price_total_from;proj_zip'
    const lines = [header]
    for (let index = 0; index < 100_000; index += 1) {
      lines.push(`INV-${index % 40};P-${index};A/${index};54,30;654 321,12;2026-01-15;02-495`)
    }
    const path = await fixture(`${lines.join('\r\n')}\r\n`)
    const started = Date.now()
    const reader = await open(path)
    let count = 0
    let last: OfferFileRow | undefined
    for await (const row of reader.rows) {
      count += 1
      last = row
    }
    expect(count).toBe(100_000)
    expect(last).toEqual({
      row: 100_001,
      values: {
        source_investment_id: 'INV-39',
        source_property_id: 'P-99999',
        prop_no: 'A/99999',
        prop_area: '54,30',
        price_total: '654 321,12',
        price_total_from: '2026-01-15',
        proj_zip: '02-495',
      },
    })
    expect(Date.now() - started).toBeLessThan(15_000)
  })
})

describe('limits', () => {
  it('refuses an empty file', async () => {
    const error = await readFailure('')
    expect(error.code).toBe('file_empty')
  })

  it('refuses a file over maxBytes before reading it', async () => {
    const error = await readFailure('id;price\n1;2\n', undefined, { limits: { maxBytes: 10 } })
    expect(error.code).toBe('file_too_large')
    expect(error.details).toEqual({ size: 13, limit: 10 })
    expect(error.message).toContain('13 bytes')
  })

  it('stops at row maxRows + 1 and counts only non-empty rows', async () => {
    const path = await fixture('id\n1\n\n2\n3\n4\n5\n')
    const reader = await open(path, { limits: { maxRows: 3 } })
    const seen: number[] = []
    const error = await failure(
      (async () => {
        for await (const { row } of reader.rows) seen.push(row)
      })(),
    )
    expect(error.code).toBe('too_many_rows')
    expect(error.details).toEqual({ limit: 3, row: 6 })
    expect(seen).toEqual([2, 4, 5])
    const atLimit = await open(await fixture('id\n1\n\n2\n3\n'), { limits: { maxRows: 3 } })
    expect(await collect(atLimit.rows)).toHaveLength(3)
  })

  it('applies maxRows to XLSX too', async () => {
    const workbook = new ExcelJS.Workbook()
    const sheet = workbook.addWorksheet('Oferty')
    sheet.addRows([['id'], [1], [2], [3]])
    const path = join(dir, 'limit.xlsx')
    await workbook.xlsx.writeFile(path)
    const reader = await open(path, { limits: { maxRows: 2 } })
    expect((await failure(collect(reader.rows))).code).toBe('too_many_rows')
  })
})

describe('format recognition', () => {
  it('refuses a PDF, whatever its name', async () => {
    const error = await readFailure(Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n'), 'offers.csv')
    expect(error.code).toBe('unsupported_format')
    expect(error.message).toContain('PDF')
  })

  it('refuses random bytes', async () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7919 + 13) % 256))
    expect((await readFailure(bytes, 'offers.csv')).code).toBe('unsupported_format')
  })

  it('refuses a legacy .xls (an OLE file without encryption)', async () => {
    const ole = Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(1024),
      Buffer.from('Workbook', 'utf16le'),
      Buffer.alloc(1024),
    ])
    const error = await readFailure(ole, 'offers.xls')
    expect(error.code).toBe('unsupported_format')
    expect(error.message).toContain('.xls')
  })

  it('recognises a password-protected XLSX', async () => {
    const ole = Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(2000),
      Buffer.from('EncryptionInfo', 'utf16le'),
      Buffer.alloc(64),
      Buffer.from('EncryptedPackage', 'utf16le'),
      Buffer.alloc(2000),
    ])
    expect((await readFailure(ole, 'offers.xlsx')).code).toBe('xlsx_encrypted')
  })

  it('refuses HTML saved as .xls and UTF-16 text', async () => {
    expect((await readFailure('<html><table><tr><td>id</td></tr></table></html>', 'offers.xls')).code).toBe(
      'unsupported_format',
    )
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('id\tprice\r\n1\t2\r\n', 'utf16le')])
    expect((await readFailure(utf16, 'offers.txt')).code).toBe('unsupported_format')
  })

  it('refuses text named .xlsx as not a workbook (any case of the extension), instead of reading it as CSV', async () => {
    for (const name of ['offers.xlsx', 'OFFERS.XLSX']) {
      const error = await readFailure('id;v\n1;2\n', name)
      expect(error.code).toBe('unsupported_format')
      expect(error.message).toContain('is not an Excel workbook')
      expect(error.details).toEqual({ detected: 'not_xlsx' })
    }
    expect((await read('id;v\n1;2\n', 'offers.csv')).reader.format).toBe('csv')
    // a name without an extension, or another one, still leaves the content to decide
    expect((await read('id;v\n1;2\n', 'offers')).reader.format).toBe('csv')
    expect((await read('id;v\n1;2\n', 'offers.xlsx.txt')).reader.format).toBe('csv')
  })

  it('reads by content: an XLSX named .csv is an XLSX', async () => {
    const workbook = new ExcelJS.Workbook()
    workbook.addWorksheet('Oferty').addRows([['id'], ['A']])
    const path = join(dir, 'really-xlsx.csv')
    await workbook.xlsx.writeFile(path)
    const reader = await open(path)
    expect(reader.format).toBe('xlsx')
    expect(await collect(reader.rows)).toEqual([{ row: 2, values: { id: 'A' } }])
  })
})

describe('XLSX', () => {
  let path: string

  beforeAll(async () => {
    const workbook = new ExcelJS.Workbook()
    const sheet = workbook.addWorksheet('Oferty')
    sheet.addRow(['id', 'price', 'sum', 'date', 'date formula', 'flag', 'note', 'link', 'area', 'big', 'missing'])
    sheet.addRow([
      'A-1',
      123456.78,
      { formula: '0.1+0.2', result: 0.30000000000000004 },
      new Date(Date.UTC(2026, 0, 15)),
      { formula: 'D2+30', result: 46067 },
      true,
      { richText: [{ text: 'ul. ' }, { font: { bold: true }, text: 'Długa' }] },
      { text: 'strona', hyperlink: 'https://example.com' },
      54.3,
      1e21,
      { error: '#N/A' },
    ])
    sheet.getCell('D2').numFmt = 'dd.mm.yyyy'
    sheet.getCell('E2').numFmt = 'yyyy-mm-dd'
    // a number format with an escaped "m" is not a date format
    sheet.getCell('I2').numFmt = '0.00\\ \\m\\²'
    sheet.addRow([])
    sheet.addRow(['A-2', 0.30000000000000004, '', '', '', false, '007', '', '', 0.000001, ''])
    const second = workbook.addWorksheet('Ceny 2026')
    second.addRow(['ID lokalu', 'Cena'])
    second.addRow(['B-1', '02-495'])
    path = join(dir, 'offers.xlsx')
    await workbook.xlsx.writeFile(path)
  })

  it('reads the first sheet: text, numbers, dates, formulas, booleans, rich text, links and errors', async () => {
    const reader = await open(path)
    expect(reader).toMatchObject({ format: 'xlsx', sheet: 'Oferty', headerRow: 1 })
    expect(reader.encoding).toBeUndefined()
    expect(reader.headers).toHaveLength(11)
    const rows = await collect(reader.rows)
    expect(rows).toEqual([
      {
        row: 2,
        values: {
          id: 'A-1',
          price: '123456.78',
          sum: '0.3',
          date: '2026-01-15',
          'date formula': '2026-02-14',
          flag: 'true',
          note: 'ul. Długa',
          link: 'strona',
          area: '54.3',
          big: '1000000000000000000000',
          missing: '#N/A',
        },
      },
      {
        row: 4,
        values: {
          id: 'A-2',
          price: '0.3',
          sum: '',
          date: '',
          'date formula': '',
          flag: 'false',
          note: '007',
          link: '',
          area: '',
          big: '0.000001',
          missing: '',
        },
      },
    ])
  })

  it('reads a sheet chosen by name, ignoring case', async () => {
    const reader = await open(path, { sheet: 'ceny 2026' })
    expect(reader.sheet).toBe('Ceny 2026')
    expect(await collect(reader.rows)).toEqual([{ row: 2, values: { 'ID lokalu': 'B-1', Cena: '02-495' } }])
  })

  it('refuses an unknown sheet name, listing the sheets', async () => {
    const error = await failure(open(path, { sheet: 'Arkusz1' }))
    expect(error.code).toBe('sheet_not_found')
    expect(error.details).toEqual({ sheet: 'Arkusz1', available: ['Oferty', 'Ceny 2026'] })
  })

  it('reads a workbook written by the streaming writer, without shared strings', async () => {
    const target = join(dir, 'streamed.xlsx')
    const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: target, useSharedStrings: false })
    const sheet = writer.addWorksheet('Dane')
    sheet.addRow(['Tytuł zestawienia']).commit()
    sheet.addRow([]).commit()
    sheet.addRow(['id', 'cena']).commit()
    for (let index = 1; index <= 500; index += 1) sheet.addRow([`P-${index}`, index * 1000.1]).commit()
    sheet.commit()
    await writer.commit()
    // a title above the table is the first non-empty row, so it is the header; the file's own row numbers stay
    const reader = await open(target)
    expect(reader.headers).toEqual(['Tytuł zestawienia'])
    const rows = await collect(reader.rows)
    expect(rows[0]).toEqual({ row: 3, values: { 'Tytuł zestawienia': 'id' } })
    expect(rows.at(-1)).toEqual({ row: 503, values: { 'Tytuł zestawienia': 'P-500' } })
  })

  it('reads a hand-made minimal workbook with inline strings and an absolute part path', async () => {
    const sheetXml =
      '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
      '<row r="1"><c r="B1" t="inlineStr"><is><t>id</t></is></c><c r="C1" t="inlineStr"><is><t>cena</t></is></c></row>' +
      '<row r="2"><c r="B2" t="inlineStr"><is><t>X_x000D_1</t></is></c><c r="C2"><v>199.99</v></c>' +
      '<c r="E2" t="inlineStr"><is><t>note</t></is></c></row>' +
      '</sheetData></worksheet>'
    const file = minimalXlsx(sheetXml, { target: '/xl/worksheets/data.xml' })
    const { reader, rows } = await read(file, 'minimal.xlsx')
    expect(reader.headers).toEqual(['id', 'cena'])
    expect(rows).toEqual([{ row: 2, values: { id: 'X\r1', cena: '199.99' } }])
  })

  it('reads shared strings (rich runs joined, phonetic runs left out), styles, booleans, errors and unreferenced cells', async () => {
    const main = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    const sharedStrings =
      `<sst ${main} count="4" uniqueCount="4"><si><t>id</t></si><si><t>cena</t></si>` +
      '<si><r><t>ul. </t></r><r><rPr><b/></rPr><t>Żółkiewskiego</t></r><rPh sb="0" eb="1"><t>ZZ</t></rPh></si>' +
      '<si><t xml:space="preserve"> ą &amp; ę </t></si></sst>'
    const styles =
      `<styleSheet ${main}><numFmts count="2"><numFmt numFmtId="164" formatCode="dd\\.mm\\.yyyy"/>` +
      '<numFmt numFmtId="165" formatCode="0.00\\ \\m\\²"/></numFmts>' +
      '<cellXfs count="4"><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="14"/><xf numFmtId="165"/></cellXfs></styleSheet>'
    const sheetXml =
      `<worksheet ${main}><sheetData>` +
      '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c t="inlineStr"><is><t>ulica</t></is></c>' +
      '<c t="inlineStr"><is><t>od</t></is></c><c t="inlineStr"><is><t>do</t></is></c><c t="inlineStr"><is><t>pow</t></is></c>' +
      '<c t="inlineStr"><is><t>flaga</t></is></c><c t="inlineStr"><is><t>błąd</t></is></c></row>' +
      '<row><c t="s"><v>3</v></c><c><f>1+2</f><v>3.0000000000000004</v></c><c t="s"><v>2</v></c>' +
      '<c s="1"><v>46037</v></c><c s="2"><v>46067.5</v></c><c s="3"><v>54.3</v></c><c t="b"><v>1</v></c>' +
      '<c t="e"><f>1/0</f><v>#DIV/0!</v></c></row>' +
      '</sheetData></worksheet>'
    const file = minimalXlsx(sheetXml, {
      parts: [
        { path: 'sharedStrings.xml', type: 'sharedStrings', xml: sharedStrings },
        { path: 'styles.xml', type: 'styles', xml: styles },
      ],
    })
    const { reader, rows } = await read(file, 'shared.xlsx')
    expect(reader.headers).toEqual(['id', 'cena', 'ulica', 'od', 'do', 'pow', 'flaga', 'błąd'])
    expect(rows).toEqual([
      {
        row: 2,
        values: {
          id: ' ą & ę ',
          cena: '3',
          ulica: 'ul. Żółkiewskiego',
          od: '2026-01-15',
          do: '2026-02-14',
          pow: '54.3',
          flaga: 'true',
          błąd: '#DIV/0!',
        },
      },
    ])
  })

  it('reads a typed cell without a value as empty, never as the first shared string', async () => {
    const main = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    const file = minimalXlsx(
      `<worksheet ${main}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c>` +
        '<c r="C1" t="s"><v>2</v></c><c r="D1" t="s"><v>3</v></c></row>' +
        '<row r="2"><c r="A2" t="s"><v>4</v></c><c r="B2" t="s"/><c r="C2" t="e"><f>X()</f></c>' +
        '<c r="D2" t="b"><v></v></c></row></sheetData></worksheet>',
      {
        parts: [
          {
            path: 'sharedStrings.xml',
            type: 'sharedStrings',
            xml: `<sst ${main}><si><t>id</t></si><si><t>miasto</t></si><si><t>cena</t></si><si><t>flaga</t></si><si><t>A-1</t></si></sst>`,
          },
        ],
      },
    )
    const { rows } = await read(file, 'typed-empty.xlsx')
    expect(rows).toEqual([{ row: 2, values: { id: 'A-1', miasto: '', cena: '', flaga: '' } }])
  })

  it('refuses a cell that refers to a shared string the file does not have', async () => {
    const main = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    const file = minimalXlsx(
      `<worksheet ${main}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row>` +
        '<row r="2"><c r="A2" t="s"><v>7</v></c></row></sheetData></worksheet>',
      { parts: [{ path: 'sharedStrings.xml', type: 'sharedStrings', xml: `<sst ${main}><si><t>id</t></si></sst>` }] },
    )
    const error = await readFailure(file, 'missing-string.xlsx')
    expect(error.code).toBe('xlsx_corrupt')
    expect(error.message).toContain('shared string 7')
  })

  it('returns the headers and no rows for a header-only sheet, and refuses an empty sheet', async () => {
    const workbook = new ExcelJS.Workbook()
    workbook.addWorksheet('Pusty')
    workbook.addWorksheet('Nagłówek').addRow(['id', 'cena'])
    const target = join(dir, 'header-only.xlsx')
    await workbook.xlsx.writeFile(target)
    const reader = await open(target, { sheet: 'Nagłówek' })
    expect(reader.headers).toEqual(['id', 'cena'])
    expect(await collect(reader.rows)).toEqual([])
    expect((await failure(open(target))).code).toBe('file_empty')
  })

  it('refuses a truncated file', async () => {
    const target = join(dir, 'truncated.xlsx')
    const workbook = new ExcelJS.Workbook()
    workbook.addWorksheet('Oferty').addRows([['id'], ['A']])
    await workbook.xlsx.writeFile(target)
    await truncate(target, 3000)
    expect((await failure(open(target))).code).toBe('xlsx_corrupt')
  })

  it('refuses a ZIP without xl/workbook.xml, and names an OpenDocument spreadsheet', async () => {
    const other = zipArchive([{ name: 'offers.csv', data: Buffer.from('id\n1\n') }])
    expect((await readFailure(other, 'offers.xlsx')).code).toBe('xlsx_corrupt')
    const ods = zipArchive([
      { name: 'mimetype', data: Buffer.from('application/vnd.oasis.opendocument.spreadsheet') },
      { name: 'content.xml', data: Buffer.from('<office:document-content/>') },
    ])
    const error = await readFailure(ods, 'offers.ods')
    expect(error.code).toBe('unsupported_format')
    expect(error.message).toContain('.ods')
  })

  it('turns a damaged sheet into xlsx_corrupt', async () => {
    const sheetXml =
      '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
      '<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c></row><row r="2"><c r="A2"<<</sheetData>'
    expect((await readFailure(minimalXlsx(sheetXml), 'broken.xlsx')).code).toBe('xlsx_corrupt')
  })

  it('refuses a ZIP bomb by its declared sizes', async () => {
    const sheet = deflateRawSync(Buffer.from('<worksheet/>'))
    const bomb = minimalXlsx('', { sheet: { data: sheet, uncompressedSize: 400 * 1024 * 1024 } })
    const error = await readFailure(bomb, 'bomb.xlsx')
    expect(error.code).toBe('xlsx_zip_bomb')
    expect(error.details).toMatchObject({ entry: 'xl/worksheets/sheet1.xml' })
  })

  it('refuses parts that would unpack to more than 300 MB in total', async () => {
    const parts = Array.from({ length: 4 }, (_, index) => ({
      name: `xl/media/image${index}.png`,
      data: Buffer.alloc(16),
      compressedSize: 1024 * 1024,
      uncompressedSize: 100 * 1024 * 1024,
    }))
    const error = await readFailure(zipArchive(parts), 'big.xlsx')
    expect(error.code).toBe('xlsx_zip_bomb')
    expect(error.details).toMatchObject({ uncompressedBytes: 400 * 1024 * 1024 })
  })

  it('refuses a part that unpacks to more than its header declares', async () => {
    const header =
      '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>' +
      '<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c></row>'
    const content = Buffer.concat([Buffer.from(header), Buffer.alloc(20 * 1024 * 1024, 0x20)])
    const lying = minimalXlsx('', { sheet: { data: deflateRawSync(content), uncompressedSize: 4096 } })
    const error = await readFailure(lying, 'lying.xlsx')
    expect(error.code).toBe('xlsx_zip_bomb')
    expect(error.details).toMatchObject({ declaredBytes: 4096 })
  })
})

describe('cell values', () => {
  it('writes numbers in plain decimal notation without float artefacts', () => {
    expect(formatNumber(0.1 + 0.2)).toBe('0.3')
    expect(formatNumber(123456.78)).toBe('123456.78')
    expect(formatNumber(-0)).toBe('0')
    expect(formatNumber(1e21)).toBe('1000000000000000000000')
    expect(formatNumber(1.5e-7)).toBe('0.00000015')
    expect(formatNumber(-2.5e22)).toBe('-25000000000000000000000')
    expect(formatNumber(100000)).toBe('100000')
    expect(formatNumber(Number.NaN)).toBe('#NUM!')
  })

  it('tells date formats from number formats', () => {
    expect(isDateFormat('dd.mm.yyyy')).toBe(true)
    expect(isDateFormat('DD\\.MM\\.YYYY')).toBe(true)
    expect(isDateFormat('[$-415]d mmmm yyyy')).toBe(true)
    expect(isDateFormat('General')).toBe(false)
    expect(isDateFormat('#,##0.00\\ "zł"')).toBe(false)
    expect(isDateFormat('0.00\\ \\m\\²')).toBe(false)
    expect(isDateFormat('0.00 m²')).toBe(false)
    expect(isDateFormat('dd.mm.yyyy hh:mm:ss.000')).toBe(true)
    expect(isDateFormat('[h]:mm')).toBe(true)
    expect(isDateFormat('0.00E+00')).toBe(false)
    expect(isDateFormat(undefined)).toBe(false)
  })

  it('converts cell values to the text the validator expects', () => {
    expect(cellText(45_000, 'yyyy-mm-dd', false)).toBe('2023-03-15')
    expect(cellText(45_000 - 1462, 'yyyy-mm-dd', true)).toBe('2023-03-15')
    expect(cellText(new Date(Date.UTC(2026, 11, 31, 23, 59)), 'dd.mm.yyyy', false)).toBe('2026-12-31')
    expect(cellText({ formula: '1/0', result: Number.NaN }, undefined, false)).toBe('#NUM!')
    expect(cellText({ error: '#DIV/0!' }, undefined, false)).toBe('#DIV/0!')
    expect(cellText({ sharedFormula: 'A1', result: 'tekst' }, undefined, false)).toBe('tekst')
    expect(cellText(null, undefined, false)).toBe('')
  })
})

// ---------------------------------------------------------------------------------------------
// hand-made archives

interface ZipPart {
  name: string
  data: Buffer
  /** Declared sizes, when they should differ from the data (bombs, lies). */
  compressedSize?: number
  uncompressedSize?: number
  method?: 0 | 8
}

function zipArchive(parts: ZipPart[]): Buffer {
  const locals: Buffer[] = []
  const directory: Buffer[] = []
  let offset = 0
  for (const part of parts) {
    const name = Buffer.from(part.name)
    const method = part.method ?? (part.uncompressedSize === undefined ? 0 : 8)
    const compressedSize = part.compressedSize ?? part.data.length
    const uncompressedSize = part.uncompressedSize ?? part.data.length
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(method, 8)
    local.writeUInt32LE(compressedSize, 18)
    local.writeUInt32LE(uncompressedSize, 22)
    local.writeUInt16LE(name.length, 26)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(method, 10)
    central.writeUInt32LE(compressedSize, 20)
    central.writeUInt32LE(uncompressedSize, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, part.data)
    directory.push(central, name)
    offset += local.length + name.length + part.data.length
  }
  const directoryBytes = Buffer.concat(directory)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(parts.length, 8)
  end.writeUInt16LE(parts.length, 10)
  end.writeUInt32LE(directoryBytes.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, directoryBytes, end])
}

/** A workbook with one sheet "Oferty", written part by part. */
function minimalXlsx(
  sheetXml: string,
  options: {
    target?: string
    sheet?: { data: Buffer; uncompressedSize: number }
    /** Further workbook parts (shared strings, styles) with their relationship type. */
    parts?: Array<{ path: string; type: string; xml: string }>
  } = {},
): Buffer {
  const target = options.target ?? 'worksheets/sheet1.xml'
  const workbook =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ' +
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
    '<sheets><sheet name="Oferty" sheetId="1" r:id="rId1"/></sheets></workbook>'
  const rels =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" ' +
    `Target="${target}"/>` +
    (options.parts ?? [])
      .map(
        (part, i) =>
          `<Relationship Id="rIdP${i}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${part.type}" Target="${part.path}"/>`,
      )
      .join('') +
    '</Relationships>'
  const sheetPath = target.startsWith('/') ? target.slice(1) : `xl/${target}`
  const sheet: ZipPart = options.sheet
    ? { name: sheetPath, data: options.sheet.data, uncompressedSize: options.sheet.uncompressedSize }
    : { name: sheetPath, data: deflateRawSync(Buffer.from(sheetXml)), uncompressedSize: Buffer.byteLength(sheetXml) }
  return zipArchive([
    { name: 'xl/workbook.xml', data: Buffer.from(workbook) },
    { name: 'xl/_rels/workbook.xml.rels', data: Buffer.from(rels) },
    ...(options.parts ?? []).map((part) => ({
      name: `xl/${part.path}`,
      data: deflateRawSync(Buffer.from(part.xml)),
      uncompressedSize: Buffer.byteLength(part.xml),
    })),
    sheet,
  ])
}

describe('stored numbers', () => {
  it('gives the same text for a number stored as plain text as for the number itself', async () => {
    const texts = ['0', '7', '-3', '1234.5', '0.000001', '123456789012345', '1234567890123456', '-0', '0.1', '99.99']
    const main = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
    const cells = texts.map((text, i) => `<c r="${String.fromCharCode(65 + i)}2"><v>${text}</v></c>`).join('')
    const header = texts.map((_, i) => `<c r="${String.fromCharCode(65 + i)}1" t="inlineStr"><is><t>h${i}</t></is></c>`)
    const file = minimalXlsx(
      `<worksheet ${main}><sheetData><row r="1">${header.join('')}</row><row r="2">${cells}</row></sheetData></worksheet>`,
    )
    const { rows } = await read(file, 'numbers.xlsx')
    expect(Object.values(rows[0]?.values ?? {})).toEqual(texts.map((text) => formatNumber(Number(text))))
  })
})
