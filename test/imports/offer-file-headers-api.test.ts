/*
 * POST /imports/offer/headers: the header row of an XLSX or CSV file and its first rows, read as the
 * preview reads them, so the panel offers a workbook's column assignment as it does a CSV's. A file
 * that cannot be read answers 422 import_file_unreadable with the reader's code; nothing is written.
 */
import fs from 'node:fs/promises'
import path from 'node:path'

import ExcelJS from 'exceljs'
import iconv from 'iconv-lite'
import { beforeAll, expect, it } from 'vitest'

import type { AppConfig } from '../../src/config.js'
import type { HostContext } from '../../src/host/context.js'
import { PluginError } from '../../src/host/errors.js'
import { previewOfferFileHeaders } from '../../src/imports/offer-file-headers.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const URL_HEADERS = '/wp-json/dg/v2/imports/offer/headers'
const HEADERS = ['Inwestycja', 'ID lokalu', 'Numer', 'Status', 'Cena', 'Cena od']

async function workbook(): Promise<Buffer> {
  const book = new ExcelJS.Workbook()
  const offers = book.addWorksheet('Oferty')
  offers.addRow(HEADERS)
  for (let i = 1; i <= 5; i++)
    offers.addRow(['INV-X', `X-${i}`, `A/${i}`, 'wolne', 500_000 + i, new Date(Date.UTC(2026, 4, 1))])
  const notes = book.addWorksheet('Notatki')
  notes.addRow([])
  notes.addRow(['Kto', 'Co'])
  notes.addRow(['Anna', 'sprawdzić ceny'])
  return Buffer.from(await book.xlsx.writeBuffer())
}

describeEachDatabase('the header row of an offer file over HTTP', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let xlsx: Buffer
  const read = (file: { name: string; content: Buffer | string } | undefined, fields: Record<string, string> = {}) => {
    const body = multipart(fields, file)
    return env.app.inject({
      method: 'POST',
      url: URL_HEADERS,
      payload: body.payload,
      headers: { ...body.headers, authorization: admin.authorization },
    })
  }
  const counts = async () => ({
    jobs: (await env.ctx.db.selectFrom('import_jobs').select('id').execute()).length,
    audit: (await env.ctx.db.selectFrom('audit_log').select('id').execute()).length,
  })

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    xlsx = await workbook()
  })

  it("reads a workbook's header row, its sheets and its first rows, and writes nothing", async () => {
    const before = await counts()
    const answer = await read({ name: 'cennik.xlsx', content: xlsx })
    expect(answer.statusCode, answer.body).toBe(200)
    expect(answer.json()).toEqual({
      format: 'xlsx',
      headers: HEADERS,
      header_row: 1,
      sheet: 'Oferty',
      sheets: ['Oferty', 'Notatki'],
      sample_rows: [1, 2, 3].map((i) => ['INV-X', `X-${i}`, `A/${i}`, 'wolne', String(500_000 + i), '2026-05-01']),
    })
    expect(await counts()).toEqual(before)
    expect(await fs.readdir(path.join(env.ctx.config.dataDir, 'uploads'))).toEqual([])

    const notes = await read({ name: 'cennik.xlsx', content: xlsx }, { sheet: 'notatki' })
    expect(notes.statusCode, notes.body).toBe(200)
    expect(notes.json()).toMatchObject({ sheet: 'Notatki', headers: ['Kto', 'Co'], header_row: 2 })
  })

  it('reads a CSV in Windows-1250 as the preview does', async () => {
    const content = iconv.encode('Inwestycja;ID lokalu;Piętro;Miejscowość\nINV-Y;1;2;Łódź\n', 'win1250')
    const answer = await read({ name: 'cennik.csv', content })
    expect(answer.statusCode, answer.body).toBe(200)
    expect(answer.json()).toEqual({
      format: 'csv',
      headers: ['Inwestycja', 'ID lokalu', 'Piętro', 'Miejscowość'],
      header_row: 1,
      sample_rows: [['INV-Y', '1', '2', 'Łódź']],
    })
  })

  it('refuses a file whose header row cannot be read with 422 import_file_unreadable and its reason', async () => {
    const before = await counts()
    const cases: Array<[string, Buffer | string, string, Record<string, string>?]> = [
      ['obraz.xlsx', Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), 'unsupported_format'],
      ['zepsuty.xlsx', Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(200, 1)]), 'xlsx_corrupt'],
      ['pusty.csv', '\n\n', 'file_empty'],
      ['dwa.csv', 'Cena;Cena\n1;2\n', 'duplicate_header'],
      ['cennik.xlsx', xlsx, 'sheet_not_found', { sheet: 'Brak' }],
    ]
    for (const [name, content, reason, fields] of cases) {
      const answer = await read({ name, content }, fields)
      expect(answer.statusCode, `${name}: ${answer.body}`).toBe(422)
      const body = answer.json()
      expect(body).toMatchObject({ error: 'import_file_unreadable', reason })
      expect(body.message_pl, name).toMatch(/\S/)
    }
    expect(await counts()).toEqual(before)
    expect(await fs.readdir(path.join(env.ctx.config.dataDir, 'uploads'))).toEqual([])
  })

  it('needs a file, an administrator and the bulk import entitlement', async () => {
    const none = await read(undefined, { sheet: 'Oferty' })
    expect(none.statusCode).toBe(400)
    expect(none.json()).toMatchObject({ error: 'invalid_upload' })
    const json = await env.app.inject({
      method: 'POST',
      url: URL_HEADERS,
      payload: { file: 'x' },
      headers: { authorization: admin.authorization },
    })
    expect(json.statusCode).toBe(400)
    expect(json.json()).toMatchObject({ error: 'invalid_upload' })

    const reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    const body = multipart({}, { name: 'cennik.xlsx', content: xlsx })
    const refused = await env.app.inject({
      method: 'POST',
      url: URL_HEADERS,
      payload: body.payload,
      headers: { ...body.headers, authorization: reader.authorization },
    })
    expect(refused.statusCode).toBe(403)
    const anonymous = await env.app.inject({
      method: 'POST',
      url: URL_HEADERS,
      payload: body.payload,
      headers: body.headers,
    })
    expect(anonymous.statusCode).toBe(401)
  })

  it('reads a large file on a worker thread with the same answer', async () => {
    const withConfig = (change: Partial<AppConfig>): HostContext => ({
      ...env.ctx,
      config: { ...env.ctx.config, ...change },
    })
    const target = path.join(env.database.dataDir, `headers-${env.dialect}.xlsx`)
    await fs.writeFile(target, xlsx)
    const file = { filePath: target, fileName: 'cennik.xlsx' }
    const here = await previewOfferFileHeaders(withConfig({ importWorkerMinBytes: Number.MAX_SAFE_INTEGER }), file)
    const onWorker = await previewOfferFileHeaders(withConfig({ importWorkerMinBytes: 0 }), file)
    expect(onWorker).toEqual(here)
    const refusal = await previewOfferFileHeaders(withConfig({ importWorkerMinBytes: 0 }), {
      ...file,
      sheet: 'Brak',
    }).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(PluginError)
    expect(refusal).toMatchObject({
      error: 'import_file_unreadable',
      status: 422,
      extra: { reason: 'sheet_not_found' },
    })
  })
})
