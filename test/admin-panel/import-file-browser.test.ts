/*
 * The import panel says the file's own problem first, in Chromium without Polish locale data: an
 * empty CSV, a Word document, a PNG image; none of them is sent and none touches the saved column
 * assignment. Assignments to columns a file lacks are matched again by header name, and the
 * previous ones can be put back (then marked). An invalid preview does not claim "0 offers in the
 * file". An XLSX file's header row is read by the server, so its assignment is offered as a CSV's;
 * a CSV of another shape is then matched on its own, and the workbook gets its assignment back.
 * Screenshots in DG_PANEL_SCREENSHOTS.
 *
 * SQLite only: nothing here reaches storage beyond the import's preview, covered on both databases by
 * the import suites.
 */
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { chromiumPresent, type PanelSession, startPanel } from '../helpers/panel-browser.js'

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex')
// the start of a .docx: a zip whose first entries are the document's parts
const DOCX = Buffer.concat([
  Buffer.from([0x50, 0x4b, 0x03, 0x04]),
  Buffer.alloc(26),
  Buffer.from('[Content_Types].xml'),
  Buffer.alloc(200, 7),
  Buffer.from([0x50, 0x4b, 0x03, 0x04]),
  Buffer.alloc(26),
  Buffer.from('word/document.xml'),
  Buffer.alloc(100, 9),
])

const XLSX_HEADERS = [
  'Inwestycja',
  'ID lokalu',
  'Numer',
  'Rodzaj',
  'Status',
  'Powierzchnia',
  'Pokoje',
  'Piętro',
  'Cena m2',
  'Cena m2 od',
  'Cena',
  'Cena od',
  'Miasto',
]

describe.skipIf(!chromiumPresent)('the import panel says the file’s own problem first [sqlite]', () => {
  let panel: PanelSession

  beforeAll(async () => {
    panel = await startPanel({ screenshotPrefix: 'import' })
    await panel.login()
  })
  afterAll(async () => {
    await panel?.close()
  })

  const choose = (name: string, buffer: Buffer, mimeType = 'application/octet-stream') =>
    panel.page.setInputFiles('#import-file', { name, mimeType, buffer })

  it('says an empty file is empty, a Word file and an image are not spreadsheets, and keeps the assignment', async () => {
    const { page } = panel
    await panel.go('import')
    await page.fill('#map-source_investment_id', 'Inwestycja')
    await page.fill('#map-source_property_id', 'ID lokalu')
    await page.fill('#map-price_total', 'Cena brutto')

    await choose('cennik.csv', Buffer.alloc(0), 'text/csv')
    await expect.poll(() => page.textContent('.file-problem')).toContain('jest pusty (0 bajtów)')
    await page.click('#run-preview')
    expect(await page.getAttribute('#import-form .alert-error', 'data-code')).toBe('file_empty')
    expect(await page.inputValue('#map-price_total')).toBe('Cena brutto')
    await panel.shot('pusty-plik')

    await choose('cennik.docx', DOCX)
    await expect.poll(() => page.textContent('.file-problem')).toContain('dokument Word (.docx)')
    await choose('cennik.png', PNG, 'image/png')
    await expect.poll(() => page.textContent('.file-problem')).toContain('obraz PNG')
    await panel.shot('obraz-zamiast-arkusza')
    expect(await page.inputValue('#map-source_investment_id')).toBe('Inwestycja')
    const jobs = await panel.env.ctx.db.selectFrom('import_jobs').select('id').execute()
    expect(jobs).toEqual([])
  })

  it('matches a file with other headers again, and puts the typed assignments back on request, marked', async () => {
    const { page } = panel
    await choose('inny.csv', Buffer.from('Budynek;Lokal;Kwota\nB1;1;100\n'), 'text/csv')
    await expect
      .poll(() => page.textContent('#header-status'))
      .toContain('poprzednie przypisanie wskazywało kolumny, których nie ma w tym pliku (3)')
    expect(await page.inputValue('#map-price_total')).toBe('')
    expect(await page.locator('#import-form input.invalid').count()).toBe(0)
    await panel.shot('inne-naglowki')
    await page.click('#restore-mapping')
    expect(await page.inputValue('#map-price_total')).toBe('Cena brutto')
    expect(await page.locator('#map-price_total.invalid').count()).toBe(1)
    expect(await page.locator('#restore-mapping').count()).toBe(0)
  })

  it('does not claim “0 offers in the file” beside the data rows of an invalid file', async () => {
    const { page } = panel
    await page.fill('#map-source_investment_id', 'Inwestycja')
    await page.fill('#map-source_property_id', 'ID')
    await page.fill('#map-price_total', 'Cena')
    await page.fill('#map-property_status', 'Status')
    for (const field of [
      'prop_type',
      'prop_area',
      'price_m2',
      'price_m2_from',
      'price_total_from',
      'proj_city',
      'prop_no',
      'prop_rooms',
      'prop_floor',
      'price_combined',
      'price_combined_from',
      'proj_voivod',
      'proj_zip',
    ])
      if (await page.locator(`#map-${field}`).count()) await page.fill(`#map-${field}`, '')
    const rows = ['Inwestycja;ID;Status;Cena', ...Array.from({ length: 5 }, (_, i) => `W-1;L-${i};nieznany;abc`)]
    await choose('bledny.csv', Buffer.from(rows.join('\n')), 'text/csv')
    await page.click('#run-preview')
    await page.locator('#import-preview').waitFor()
    const text = await page.textContent('#import-preview')
    expect(text).toContain('Wiersze danych5')
    expect(text).toContain('nie policzono (plik ma błędy)')
    await panel.shot('bledny-plik')
    expect(panel.problems).toEqual([])
  })

  it('offers an XLSX file’s assignment from its headers, and a CSV of another shape is not blocked', async () => {
    const { page } = panel
    const book = new ExcelJS.Workbook()
    const sheet = book.addWorksheet('Oferty')
    sheet.addRow(XLSX_HEADERS)
    sheet.addRow([
      'INV-X',
      'X-1',
      'A/1',
      'mieszkanie',
      'wolne',
      50,
      2,
      1,
      12000,
      '2026-05-01',
      600000,
      '2026-05-01',
      'Poznań',
    ])
    sheet.addRow([
      'INV-X',
      'X-2',
      'A/2',
      'dom',
      'wolne',
      60.5,
      3,
      0,
      12000,
      '2026-05-01',
      726000,
      '2026-05-01',
      'Poznań',
    ])
    book.addWorksheet('Notatki').addRow(['Uwagi'])
    const xlsx = Buffer.from(await book.xlsx.writeBuffer())
    const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'

    await choose('cennik.xlsx', xlsx, XLSX_TYPE)
    // the server reads the workbook (loading its reader the first time: over a second on a busy machine)
    await expect
      .poll(() => page.textContent('#header-status'), { timeout: 15_000 })
      .toContain(`XLSX — kolumny: ${XLSX_HEADERS.length}`)
    expect(await page.textContent('#import-form')).not.toContain('wpisz je ręcznie')
    const expected = {
      source_investment_id: 'Inwestycja',
      source_property_id: 'ID lokalu',
      prop_no: 'Numer',
      prop_type: 'Rodzaj',
      property_status: 'Status',
      prop_area: 'Powierzchnia',
      prop_rooms: 'Pokoje',
      prop_floor: 'Piętro',
      price_m2: 'Cena m2',
      price_m2_from: 'Cena m2 od',
      price_total: 'Cena',
      price_total_from: 'Cena od',
      proj_city: 'Miasto',
    }
    for (const [field, header] of Object.entries(expected))
      expect(await page.inputValue(`#map-${field}`), field).toBe(header)
    expect(await page.locator('#import-form input.invalid').count()).toBe(0)
    expect(
      await page.locator('#file-sheets option').evaluateAll((options) => options.map((o) => o.getAttribute('value'))),
    ).toEqual(['Oferty', 'Notatki'])
    await page.click('#run-preview')
    await page.locator('#run-import').waitFor()
    expect(await page.textContent('#preview-counts')).toContain('2')
    await panel.shot('xlsx-przypisanie')

    // a CSV of another shape: the workbook's assignment does not fit it, so it is matched on its own
    const csv = [
      'ID inwestycji;ID lokalu;Status;Cena całkowita;Cena od;Miejscowość',
      'INV-C;C-1;wolne;450000;2026-05-01;Gniezno',
    ]
    await choose('inny-cennik.csv', Buffer.from(csv.join('\n')), 'text/csv')
    await expect.poll(() => page.textContent('#header-status')).toContain('CSV — kolumny: 6')
    expect(await page.inputValue('#map-source_investment_id')).toBe('ID inwestycji')
    expect(await page.inputValue('#map-price_total')).toBe('Cena całkowita')
    expect(await page.inputValue('#map-prop_area')).toBe('')
    expect(await page.locator('#import-form input.invalid').count()).toBe(0)
    await page.click('#run-preview')
    await expect.poll(() => page.textContent('#import-preview'), { timeout: 15_000 }).toContain('Wiersze danych1')
    expect(await page.textContent('#import-form')).not.toContain('W pliku nie ma kolumn')
    await panel.shot('csv-innego-ksztaltu')

    // the workbook again: its shape's assignment is remembered
    await choose('cennik.xlsx', xlsx, XLSX_TYPE)
    await expect
      .poll(() => page.getAttribute('#header-status', 'data-assignment'), { timeout: 15_000 })
      .toBe('remembered')
    for (const [field, header] of Object.entries(expected))
      expect(await page.inputValue(`#map-${field}`), field).toBe(header)
    expect(panel.problems).toEqual([])
  })
})
