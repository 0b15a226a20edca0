import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import ExcelJS from 'exceljs'
import { describe, expect, it } from 'vitest'

import { readOfferFile } from '../../src/imports/reading/read-offer-file.js'

describe('XLSX reading of Polish text in large sheets', () => {
  it('keeps every multi-byte letter intact whatever the chunk boundaries (shared and inline strings)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dg-xlsx-'))
    try {
      for (const useSharedStrings of [true, false]) {
        const file = path.join(dir, `polish-${useSharedStrings}.xlsx`)
        const writer = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings })
        const sheet = writer.addWorksheet('Cennik')
        sheet.addRow(['Ulica', 'Rodzaj']).commit()
        const rows = 100_000
        for (let i = 0; i < rows; i++)
          sheet.addRow([`Łąkowa żółć gęślą jaźń ${i}`, i % 2 ? 'garaż' : 'małopolskie']).commit()
        sheet.commit()
        await writer.commit()
        const reader = await readOfferFile({
          path: file,
          fileName: 'polish.xlsx',
          limits: { maxBytes: 50 * 1024 * 1024, maxRows: 100_000 },
        })
        let count = 0
        for await (const { values } of reader.rows) {
          expect(values.Ulica).toBe(`Łąkowa żółć gęślą jaźń ${count}`)
          expect(values.Rodzaj).toBe(count % 2 ? 'garaż' : 'małopolskie')
          count++
        }
        expect(count).toBe(rows)
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
