import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { estimateDataRows } from '../../src/imports/reading/estimate-rows.js'

let dir: string
let sequence = 0

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'estimate-rows-'))
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function file(content: string | Buffer, name = 'offers.csv'): Promise<string> {
  sequence += 1
  const path = join(dir, `${sequence}-${name}`)
  await writeFile(path, content)
  return path
}

describe('estimateDataRows', () => {
  it('counts the lines of a CSV below its header, whatever the line breaks and the last line', async () => {
    expect(await estimateDataRows(await file('id;v\n1;2\n3;4\n'))).toBe(2)
    expect(await estimateDataRows(await file('id;v\r\n1;2\r\n3;4'))).toBe(2)
    expect(await estimateDataRows(await file('id;v\r1;2\r3;4\r'))).toBe(2)
    expect(await estimateDataRows(await file('id;v\n'))).toBe(0)
    const big = `id;v\n${Array.from({ length: 300_000 }, (_, i) => `${i};x`).join('\n')}\n`
    expect(await estimateDataRows(await file(big))).toBe(300_000)
  })

  it('counts the rows of the sheet an XLSX import reads, across the chunks the sheet is inflated in', async () => {
    const workbook = new ExcelJS.Workbook()
    workbook.addWorksheet('Opis').addRow(['not the price list'])
    const sheet = workbook.addWorksheet('Cennik')
    sheet.addRow(['id', 'price', 'note'])
    for (let i = 1; i <= 20_000; i++) sheet.addRow([`P-${i}`, i * 1000.5, 'a note long enough to make the XML large'])
    const path = join(dir, 'cennik.xlsx')
    await workbook.xlsx.writeFile(path)
    expect(await estimateDataRows(path, 'Cennik')).toBe(20_000)
    expect(await estimateDataRows(path)).toBe(0)
    expect(await estimateDataRows(path, 'cennik')).toBe(20_000)
  })

  it('gives no estimate for a file it cannot read so (the preview says why)', async () => {
    expect(await estimateDataRows(await file(Buffer.from('PK\u0003\u0004garbage'), 'broken.xlsx'))).toBeUndefined()
    expect(await estimateDataRows(join(dir, 'missing.csv'))).toBeUndefined()
    const workbook = new ExcelJS.Workbook()
    workbook.addWorksheet('Only').addRow(['id'])
    const path = join(dir, 'one-sheet.xlsx')
    await workbook.xlsx.writeFile(path)
    expect(await estimateDataRows(path, 'Absent')).toBeUndefined()
  })
})
