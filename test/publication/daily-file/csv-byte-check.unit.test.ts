/*
 * The byte rules a daily file must pass before it is published (csv-byte-check.ts): the file is
 * refused for a BOM, a header that is not the official one, invalid UTF-8, a record without 58
 * cells, an empty cell or broken quoting, whether it arrives whole or in pieces cut anywhere.
 * The checker replaced a full CSV parse (csv-parse) of the file; the property test keeps the old
 * parse as the reference and shows the checker refuses everything it refused.
 */
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'

import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

import { checkCsvBytes, CsvByteChecker } from '../../../src/publication/daily-file/csv-byte-check.js'
import { OFFICIAL_HEADER_LINE } from '../../../src/publication/daily-file/official-columns.js'

const GOLDEN_CSV = fileURLToPath(new URL('../../fixtures/golden/daily-2026-11-20.csv', import.meta.url))
const golden = fs.readFileSync(GOLDEN_CSV)

const codes = (issues: Array<{ code: string }>) => issues.map((i) => i.code)
const file = (...lines: string[]) => Buffer.from([OFFICIAL_HEADER_LINE, ...lines].join('\n') + '\n', 'utf8')
const row = (cells: string[]) => cells.join(';')
const cells58 = (fill = 'X') => new Array<string>(58).fill(fill)

/** Feeds the bytes in pieces of the given sizes (cycled), as the pipeline does while writing. */
function checkInPieces(bytes: Buffer, sizes: number[]): Array<{ code: string }> {
  const checker = new CsvByteChecker()
  let offset = 0
  for (let i = 0; offset < bytes.length; i++) {
    const size = Math.max(1, sizes[i % sizes.length] as number)
    checker.feed(bytes.subarray(offset, offset + size))
    offset += size
  }
  return checker.finish()
}

/** The check this replaced: a full parse with csv-parse, then the same rules on the records. */
function referenceRefuses(content: Buffer): boolean {
  if (content[0] === 0xef && content[1] === 0xbb && content[2] === 0xbf) return true
  const newline = content.indexOf(0x0a)
  if (content.subarray(0, newline === -1 ? content.length : newline).toString('utf8') !== OFFICIAL_HEADER_LINE)
    return true
  let records: string[][]
  try {
    records = parse(content, { delimiter: ';', relax_column_count: true })
  } catch {
    return true
  }
  return records.slice(1).some((record) => record.length !== 58 || record.some((cell) => cell === ''))
}

describe('byte rules of the daily file', () => {
  it('accepts the golden file, whole or cut into pieces anywhere (inside characters too)', () => {
    expect(checkCsvBytes(golden)).toEqual([])
    for (const sizes of [[1], [2, 3], [7], [4096], [1, 1000, 13]]) expect(checkInPieces(golden, sizes)).toEqual([])
    expect(checkCsvBytes(file())).toEqual([])
  })

  it('accepts quoted cells holding separators, doubled quotes and line ends', () => {
    const quoted = cells58()
    quoted[0] = '"Dom; ""Pod Lipą"""'
    quoted[20] = '"ul. Długa\n5"'
    expect(checkCsvBytes(file(row(quoted), row(cells58())))).toEqual([])
  })

  it('refuses a BOM and a header that is not the official one byte for byte', () => {
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), file(row(cells58()))])
    expect(codes(checkCsvBytes(withBom))).toEqual(['csv_bom', 'csv_header_mismatch'])
    const trimmed = Buffer.from(golden.toString('utf8').replace('dewelopera ;', 'dewelopera;'), 'utf8')
    expect(codes(checkCsvBytes(trimmed))).toEqual(['csv_header_mismatch'])
    expect(codes(checkCsvBytes(Buffer.from('Nazwa dewelopera;Forma prawna\n')))).toEqual(['csv_header_mismatch'])
    expect(codes(checkCsvBytes(Buffer.alloc(0)))).toEqual(['csv_header_mismatch'])
  })

  it('refuses a row without 58 cells, naming the row', () => {
    const issues = checkCsvBytes(file(row(cells58()), row(cells58().slice(1)), row([...cells58(), 'X'])))
    expect(issues).toEqual([
      expect.objectContaining({ code: 'csv_column_count', message_en: 'Row 3 has 57 columns instead of 58.' }),
      expect.objectContaining({ code: 'csv_column_count', message_en: 'Row 4 has 59 columns instead of 58.' }),
    ])
    expect(codes(checkCsvBytes(file(row(cells58()), '')))).toEqual(['csv_column_count'])
  })

  it('refuses an empty cell anywhere in a row, quoted or not', () => {
    for (const index of [0, 30, 57]) {
      const cells = cells58()
      cells[index] = ''
      expect(codes(checkCsvBytes(file(row(cells)))), `cell ${index + 1}`).toEqual(['csv_empty_cell'])
      cells[index] = '""'
      expect(codes(checkCsvBytes(file(row(cells)))), `quoted cell ${index + 1}`).toEqual(['csv_empty_cell'])
    }
  })

  it('refuses broken quoting and a carriage return outside quotes', () => {
    const broken = (cell: string) => {
      const cells = cells58()
      cells[3] = cell
      return codes(checkCsvBytes(file(row(cells))))
    }
    expect(broken('ab"c')).toEqual(['csv_unparseable'])
    expect(broken('"abc"d')).toEqual(['csv_unparseable'])
    expect(broken('X\r')).toEqual(['csv_unparseable'])
    expect(codes(checkCsvBytes(Buffer.concat([file(), Buffer.from('"never closed')])))).toEqual(['csv_unparseable'])
    const crlf = Buffer.from(file(row(cells58())).toString('utf8').replaceAll('\n', '\r\n'), 'utf8')
    expect(codes(checkCsvBytes(crlf))).toEqual(['csv_header_mismatch', 'csv_unparseable'])
  })

  it('refuses bytes that are not UTF-8, also when a character is cut off at the end', () => {
    const latin2 = Buffer.concat([file(), Buffer.from([0x4c, 0xb3, 0xf3, 0x64, 0x9f, 0x3b]), Buffer.from('X\n')])
    expect(codes(checkCsvBytes(latin2))).toContain('csv_not_utf8')
    for (const sizes of [[1], [5]]) expect(codes(checkInPieces(latin2, sizes))).toContain('csv_not_utf8')
    const cut = Buffer.concat([golden, Buffer.from([0xc5])])
    expect(codes(checkCsvBytes(cut))).toContain('csv_not_utf8')
  })

  it('refuses every file the full CSV parse refused, whatever the pieces', () => {
    const cell = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('X', 'ą', '12.50', '2026-11-20') },
      { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom('a', 'ł', ';', '"', '\n', '\r', ' '), maxLength: 4 }) },
    )
    const record = fc.oneof(
      { weight: 4, arbitrary: fc.array(cell, { minLength: 58, maxLength: 58 }) },
      { weight: 1, arbitrary: fc.array(cell, { minLength: 56, maxLength: 60 }) },
    )
    const quote = (value: string) => `"${value.replaceAll('"', '""')}"`
    const content = fc
      .record({
        records: fc.array(
          fc.tuple(
            record,
            fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
            fc.constantFrom('\n', '\n', '\n', '\r\n', ''),
          ),
          { maxLength: 4 },
        ),
        bom: fc.boolean().map((b) => b && Math.random() < 0.1),
        sizes: fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 4 }),
      })
      .map(({ records, bom, sizes }) => {
        const body = records
          .map(([cells, quoted, end]) => cells.map((c, i) => (quoted[i] ? quote(c) : c)).join(';') + end)
          .join('')
        const text = `${bom ? '\ufeff' : ''}${OFFICIAL_HEADER_LINE}\n${body}`
        return { bytes: Buffer.from(text, 'utf8'), sizes }
      })
    fc.assert(
      fc.property(content, ({ bytes, sizes }) => {
        if (referenceRefuses(bytes)) {
          expect(checkCsvBytes(bytes)).not.toEqual([])
          expect(checkInPieces(bytes, sizes)).not.toEqual([])
        }
        expect(codes(checkInPieces(bytes, sizes))).toEqual(codes(checkCsvBytes(bytes)))
      }),
      { numRuns: 1000 },
    )
  })
})
