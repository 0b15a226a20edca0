/*
 * The import panel says the file's own problem first, in Chromium without Polish locale data: an
 * empty CSV, a Word document, a PNG image; none of them is sent and none touches the saved column
 * assignment. Typed assignments survive a file with other headers (marked, not cleared). An invalid
 * preview does not claim "0 offers in the file". Screenshots in DG_PANEL_SCREENSHOTS.
 *
 * SQLite only: nothing here reaches storage beyond the import's preview, covered on both databases by
 * the import suites.
 */
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

  it('keeps typed assignments through a file with other headers, marking the missing ones', async () => {
    const { page } = panel
    await choose('inny.csv', Buffer.from('Budynek;Lokal;Kwota\nB1;1;100\n'), 'text/csv')
    await expect
      .poll(() => page.textContent('#import-form'))
      .toContain('przypisań do kolumn, których nie ma w tym pliku: 3')
    expect(await page.inputValue('#map-price_total')).toBe('Cena brutto')
    expect(await page.locator('#map-price_total.invalid').count()).toBe(1)
    await panel.shot('inne-naglowki')
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
})
