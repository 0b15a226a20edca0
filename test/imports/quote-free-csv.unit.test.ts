import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import iconv from 'iconv-lite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { FileReadError } from '../../src/imports/reading/file-errors.js'
import {
  type CsvRecord,
  detectCsvDialect,
  readCsvRecords,
  splitQuoteFreeRecords,
} from '../../src/imports/reading/read-csv.js'

/** csv-parse as the quoted path is told (read-csv.ts parserOptions): the reference. */
function csvParseRecords(text: string, delimiter: string): string[][] {
  return parse(text, {
    delimiter,
    quote: '"',
    escape: '"',
    record_delimiter: ['\r\n', '\n', '\r'],
    relax_column_count: true,
    skip_empty_lines: false,
  }) as string[][]
}

async function* texts(parts: readonly string[]): AsyncGenerator<string> {
  for (const part of parts) yield part
}

async function split(parts: readonly string[], delimiter: string): Promise<CsvRecord[]> {
  const records: CsvRecord[] = []
  for await (const batch of splitQuoteFreeRecords(texts(parts), delimiter)) records.push(...batch)
  return records
}

/** The text cut at the given places: the chunks a file arrives in. */
function cut(text: string, places: readonly number[]): string[] {
  const at = [...new Set(places.map((place) => place % (text.length + 1)))].sort((a, b) => a - b)
  const parts: string[] = []
  let from = 0
  for (const place of at) {
    parts.push(text.slice(from, place))
    from = place
  }
  parts.push(text.slice(from))
  return parts
}

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'quote-free-csv-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('a CSV without quotes', () => {
  it('gives the records csv-parse gives, however the text is cut into chunks', async () => {
    const character = fc.constantFrom('a', 'Ż', ' ', ';', ',', '\t', '\r', '\n', '1', '-', 'ł')
    await fc.assert(
      fc.asyncProperty(
        fc.array(character, { maxLength: 80 }).map((chars) => chars.join('')),
        fc.constantFrom(';', ',', '\t'),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (text, delimiter, places) => {
          const expected = csvParseRecords(text, delimiter)
          const records = await split(cut(text, places), delimiter)
          expect(records.map((record) => record.cells)).toEqual(expected)
          expect(records.map((record) => record.row)).toEqual(expected.map((_, index) => index + 1))
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('keeps a CR that ends one chunk and an LF that starts the next as one break', async () => {
    const records = await split(['a;b\r', '\nc;d\r', '', '\n', '\re'], ';')
    expect(records).toEqual([
      { row: 1, cells: ['a', 'b'] },
      { row: 2, cells: ['c', 'd'] },
      { row: 3, cells: [''] },
      { row: 4, cells: ['e'] },
    ])
  })

  it('refuses a record longer than a mebibyte, as the quoted path does', async () => {
    const long = 'x'.repeat(1024 * 1024 + 1)
    const error = await split(['id;name\n', `1;${long.slice(0, 500_000)}`, `${long}\n2;y\n`], ';').then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(FileReadError)
    expect(error).toMatchObject({ code: 'csv_malformed', details: { row: 2, reason: 'record_too_long' } })
  })

  it('is read from a file as the same file with one quoted value is read', async () => {
    const lines = ['ID;Miasto;Cena', 'A-1;Łódź;123 456,78', '', 'A-2;Kraków;99\r', 'A-3;;', 'A-4;Gdańsk;1']
    const plain = lines.join('\r\n')
    const quoted = plain.replace('Kraków', '"Kraków"')
    const rows = async (content: Buffer) => {
      const path = join(dir, `${Math.random().toString(36).slice(2)}.csv`)
      await writeFile(path, content)
      const dialect = await detectCsvDialect(path)
      const records: CsvRecord[] = []
      for await (const record of readCsvRecords(path, dialect)) records.push(record)
      return { dialect, records }
    }
    for (const encode of [(text: string) => Buffer.from(text), (text: string) => iconv.encode(text, 'windows-1250')]) {
      const fast = await rows(encode(plain))
      const reference = await rows(encode(quoted))
      expect(fast.dialect.quotes).toBe(false)
      expect(reference.dialect.quotes).toBe(true)
      expect(fast.records).toEqual(reference.records)
      expect(fast.records[3]).toEqual({ row: 4, cells: ['A-2', 'Kraków', '99'] })
      expect(fast.records).toHaveLength(7)
    }
  })
})
