import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../../src/demo/demo-setup.js'
import { readOfferFile } from '../../../src/imports/reading/read-offer-file.js'
import { releaseLock, tryAcquireLock } from '../../../src/host/locks.js'
import { setLicense } from '../../../src/licensing/license.js'
import { OFFICIAL_HEADER_LINE, OFFICIAL_HEADERS } from '../../../src/publication/daily-file/official-columns.js'
import { PUBLICATION_LOCK } from '../../../src/publication/publishing/publish.js'
import { convertReport } from '../../../src/publication/report/report-convert.js'
import { updatePublicationSettings } from '../../../src/publication/settings/publication-settings.js'
import { createTestUser, grantProLicense, type TestUser } from '../../helpers/factories.js'
import { multipart } from '../../helpers/multipart.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

const FIXTURES = path.join(import.meta.dirname, '../../fixtures/official')
const REAL_REPORT = fs.readFileSync(path.join(FIXTURES, 'real-report-example.xlsx'))
const OFFICIAL_TEMPLATE = fs.readFileSync(path.join(FIXTURES, 'Wcorcowy_zakres_danych_dotyczących_cen_mieszkań.csv'))
/** The NIP of the real report's developer; the tests publish as that developer. */
const REPORT_NIP = '9721307957'
/**
 * The entity with that NIP in the settings: the real report's company with the KRS of its first
 * rows (its later rows carry a spreadsheet fill-down series of KRS numbers).
 */
const ENTITY = { name: 'MWRW Sp. z o.o.', krs: '0000942937' }
/*
 * The template names two sample developers (NIPs 1234567890 and 9584736251); a report is
 * published under one developer's dataset only, with that entity's name and KRS, so the tests use
 * it with the publisher's.
 */
const TEMPLATE = Buffer.from(
  OFFICIAL_TEMPLATE.toString('utf8')
    .split('\n')
    .map((line, index) => {
      if (index === 0 || line === '') return line
      const cells = line.split(';')
      cells[0] = ENTITY.name
      cells[2] = ENTITY.krs
      cells[4] = REPORT_NIP
      return cells.join(';')
    })
    .join('\n'),
  'utf8',
)
const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'

/** The template's lines as cells (it has no quoted fields). */
const templateRows = (): string[][] =>
  TEMPLATE.toString('utf8')
    .trimEnd()
    .split('\n')
    .map((line) => line.split(';'))

const csvOf = (rows: string[][]): Buffer => Buffer.from(rows.map((row) => row.join(';')).join('\n') + '\n', 'utf8')

describeEachDatabase('official report import', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  const url = '/wp-json/dg/v2/imports/report'

  const preview = (name: string, content: Buffer, type = 'text/csv', user: TestUser = admin) => {
    const body = multipart({}, { name, content, type })
    return env.app.inject({
      method: 'POST',
      url,
      payload: body.payload,
      headers: { ...body.headers, authorization: user.authorization },
    })
  }
  const confirm = (fields: Record<string, string>) =>
    env.app.inject({
      method: 'POST',
      url,
      payload: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: admin.authorization },
    })
  const catalogCounts = async () => {
    const count = async (table: 'offers' | 'investments' | 'price_history' | 'offer_components') =>
      Number(
        (
          await env.ctx.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const modified = await env.ctx.db
      .selectFrom('offers')
      .select((eb) => eb.fn.max('modified_at').as('m'))
      .executeTakeFirstOrThrow()
    return {
      offers: await count('offers'),
      investments: await count('investments'),
      history: await count('price_history'),
      components: await count('offer_components'),
      modified: modified.m,
    }
  }
  const convertedBytes = (csvPath: string) => fs.readFileSync(path.join(env.config.dataDir, csvPath))

  beforeAll(async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    await env.ctx.db.updateTable('developers').set({ nip: REPORT_NIP, name: ENTITY.name, krs: ENTITY.krs }).execute()
    admin = await createTestUser(env.ctx, 'administrator')
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
  })

  it('converts the real developer report (XLSX) to canonical CSV, naming the suspicious values', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dg-report-')), 'raport.xlsx')
    fs.writeFileSync(file, REAL_REPORT)
    const reader = await readOfferFile({
      path: file,
      fileName: 'raport.xlsx',
      limits: { maxBytes: env.config.importMaxBytes, maxRows: env.config.importMaxRows },
    })
    const converted = await convertReport(reader, { today: '2026-11-20', maxErrors: 100, developerNips: [REPORT_NIP] })
    fs.rmSync(path.dirname(file), { recursive: true, force: true })
    expect(converted).toMatchObject({ rowCount: 4, errors: [], errorsTotal: 0 })
    const codes = converted.warnings.map((w) => w.code)
    expect(codes).toEqual(
      expect.arrayContaining(['money_rounded', 'developer_data_inconsistent', 'investment_data_inconsistent']),
    )
    const warning = converted.warnings.map((w) => w.message_en ?? w.message).join(' ')
    // the fill-down series of the KRS number and the postal codes are named with their rows
    expect(warning).toContain('"0000942938" (row 4)')
    expect(warning).toContain('"61-628" (row 5)')
    expect(warning).toContain('"62-007" (row 5)')

    const bytes = converted.content as Buffer
    expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false)
    const lines = bytes.toString('utf8').split('\n')
    expect(lines[0]).toBe(OFFICIAL_HEADER_LINE)
    expect(lines).toHaveLength(6)
    expect(lines[5]).toBe('')
    for (const line of lines.slice(1, 5)) {
      expect(line.split(';')).toHaveLength(58)
      expect(line).not.toMatch(/;;|;$/)
    }
    // n.d. → X, the unrounded m² formula result → grosze, date cells → YYYY-MM-DD, money with two decimals
    expect(lines[1]).toBe(
      'MWRW Sp. z o.o.;Sp. z o.o.;0000942937;X;9721307957;385967590;601887712;mwrw2020@gmail.com;X;' +
        'https://www.mwrw.net;wielkopolskie;Poznań;Poznań;Poznań;ul. Włodarska;15;X;61-625;wielkopolskie;' +
        'poznański;Poznań;Poznań;Garbary;53;4;61-869;X;mail;wielkopolskie;poznański;Czerwonak;Kliny;Trakt;16F;' +
        '62-004;Lokal mieszkalny;1;9236.85;2025-12-01;1099000.00;2025-12-01;1099000.00;2025-12-01;X;X;X;X;X;X;X;X;' +
        // the right's "valid from" date without its value (column 53 empty) is not kept
        'własność;X;X;X;X;X;https://www.mwrw.net/kliny',
    )
    expect(codes).toContain('date_without_value')
  })

  it('refuses the real report under its NIP’s entity: its later rows carry another KRS, and nothing is kept', async () => {
    const before = await catalogCounts()
    const response = await preview('raport.xlsx', REAL_REPORT, XLSX_TYPE)
    expect(response.statusCode).toBe(422)
    const { id, preview: result } = response.json()
    expect(result).toMatchObject({ valid: false, csv_path: null, row_count: 4, format: 'xlsx' })
    // one error per KRS that is not the entity's, in column 3 at its first row, naming where to correct it
    expect(result.errors).toEqual([
      expect.objectContaining({ row: 4, column: 3, field: 'krs', code: 'developer_mismatch' }),
      expect.objectContaining({ row: 5, column: 3, field: 'krs', code: 'developer_mismatch' }),
    ])
    expect(result.errors[0].message_pl).toBe(
      `Wiersz 4, kolumna 3 („Nr KRS”): raport podaje 0000942938, a podmiot o NIP ${REPORT_NIP} ma w ustawieniach numer KRS ${ENTITY.krs}. ` +
        'Raport z danymi innej firmy nie zostanie opublikowany w zbiorze tego podmiotu: popraw raport albo dane dewelopera w panelu (Ustawienia → Deweloper, pole „Numer KRS”) i wczytaj raport ponownie.',
    )
    expect(result.errors[0].message).toBe(result.errors[0].message_pl)
    // its warnings are still told
    expect(result.warnings.map((w: { code: string }) => w.code)).toContain('developer_data_inconsistent')
    expect(fs.existsSync(path.join(env.config.dataDir, 'report-imports', `${id}.csv`))).toBe(false)
    expect(await catalogCounts()).toEqual(before)

    const job = await env.app.inject({
      url: `/wp-json/dg/v2/imports/${id}`,
      headers: { authorization: admin.authorization },
    })
    expect(job.statusCode).toBe(200)
    expect(job.json()).toMatchObject({ id, type: 'report', mode: 'report', status: 'invalid' })
  })

  it('previews the official template CSV as valid: date-times become dates, amounts get two decimals', async () => {
    const response = await preview('wzor.csv', TEMPLATE)
    expect(response.statusCode).toBe(200)
    const result = response.json().preview
    expect(result).toMatchObject({ valid: true, row_count: 10, errors: [], format: 'csv' })
    const lines = convertedBytes(result.csv_path).toString('utf8').trimEnd().split('\n')
    expect(lines[0]).toBe(OFFICIAL_HEADER_LINE)
    expect(lines).toHaveLength(11)
    expect(lines[1]).toContain(
      ';Lokal mieszkalny;A1;15000.00;2025-11-09;1500000.00;2025-11-09;X;X;Miejsce postojowe;MP1;',
    )
    expect(lines.join('\n')).not.toContain('16:00:00')
    // the template's sample REGONs fail their check digits: a warning, not an error
    expect(result.warnings.map((w: { code: string }) => w.code)).toEqual(expect.arrayContaining(['regon_checksum']))
  })

  it("refuses a report naming another developer's NIP: never published under this developer's dataset", async () => {
    const response = await preview('wzor.csv', OFFICIAL_TEMPLATE)
    expect(response.statusCode).toBe(422)
    const body = response.json()
    expect(body.error).toBe('import_invalid')
    const refused = body.preview.errors.filter((e: { code: string }) => e.code === 'other_developer')
    expect(refused.map((e: { row: number }) => e.row)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11])
    expect(refused[0]).toMatchObject({ field: 'nip', column: 5 })
    expect(refused[0].message).toContain(REPORT_NIP)
    expect(refused[0].message).toBe(refused[0].message_pl)
    expect(refused[0].message_en).toMatch(/none of the developer entities/)
    expect(refused[0].message_pl).toMatch(/^Wiersz 2, kolumna 5 \(„Nr NIP”\): raport podaje dewelopera o NIP/)
    // English on request, with both texts beside
    const body2 = multipart({}, { name: 'wzor.csv', content: OFFICIAL_TEMPLATE, type: 'text/csv' })
    const inEnglish = await env.app.inject({
      method: 'POST',
      url,
      payload: body2.payload,
      headers: { ...body2.headers, authorization: admin.authorization, 'accept-language': 'en' },
    })
    const first = inEnglish.json().preview.errors[0]
    expect(first.message).toBe(first.message_en)
    expect(first.message).toMatch(/^Row 2, column 5/)
    const confirmed = await confirm({ job_id: body.id, confirm: 'true', date: '2026-11-20' })
    expect(confirmed.statusCode).toBe(422)
    expect(await env.app.inject({ url: '/dane-gov/dataset.xml' }).then((r) => r.statusCode)).toBe(404)
  })

  it('confirms a report: it becomes the published file of the date, byte for byte, and offers stay untouched', async () => {
    const before = await catalogCounts()
    const previewed = (await preview('wzor.csv', TEMPLATE)).json()
    expect(previewed.preview).toMatchObject({ valid: true, row_count: 10 })
    const response = await confirm({ job_id: previewed.id, confirm: 'true', date: '2026-11-20' })
    expect(response.statusCode, response.body).toBe(200)
    const { id, result } = response.json()
    expect(id).toBe(previewed.id)
    expect(result).toMatchObject({
      status: 'published',
      date: '2026-11-20',
      trigger: 'report_import',
      record_count: 10,
    })
    expect(result.csv.file_name).toMatch(/^ceny-ofertowe-mieszkan-dewelopera-[a-z0-9-]+-2026-11-20\.csv$/)

    const served = await env.app.inject({ url: `/dane-gov/${result.csv.file_name}` })
    expect(served.statusCode).toBe(200)
    expect(served.headers['content-type']).toBe('text/csv; charset=utf-8')
    expect(served.rawPayload.equals(convertedBytes(previewed.preview.csv_path))).toBe(true)
    const xml = (await env.app.inject({ url: '/dane-gov/dataset.xml' })).body
    expect(xml).toContain(`<url>https://ceny.example.pl/dane-gov/${result.csv.file_name}</url>`)
    expect(xml).toContain('<dataDate>2026-11-20</dataDate>')
    expect(await catalogCounts()).toEqual(before)

    const job = await env.app.inject({
      url: `/wp-json/dg/v2/imports/${id}`,
      headers: { authorization: admin.authorization },
    })
    expect(job.json()).toMatchObject({ type: 'report', status: 'completed', result: { date: '2026-11-20' } })
    const publication = await env.ctx.db
      .selectFrom('publications')
      .selectAll()
      .where('trigger', '=', 'report_import')
      .where('status', '=', 'published')
      .executeTakeFirstOrThrow()
    expect(publication).toMatchObject({ publication_date: '2026-11-20', record_count: 10, csv_md5: result.csv.md5 })

    // the same confirmation again answers the stored outcome; another date needs a new preview
    const again = await confirm({ job_id: id, confirm: 'true', date: '2026-11-20' })
    expect(again.statusCode).toBe(200)
    expect(again.json()).toMatchObject({ replayed: true, result: { version: result.version } })
    const otherDate = await confirm({ job_id: id, confirm: 'true', date: '2026-11-21' })
    expect(otherDate.statusCode).toBe(409)
    expect(otherDate.json().error).toBe('import_conflict')
  })

  it('refuses another company’s name or KRS under the NIP’s entity, whatever the confirmation says', async () => {
    const other = templateRows().map((row, i) =>
      i === 3
        ? row.map((cell, column) => (column === 0 ? 'Inna Spółka Sp. z o.o.' : column === 2 ? '0000111222' : cell))
        : row,
    )
    const response = await preview('inna.csv', csvOf(other))
    expect(response.statusCode).toBe(422)
    const { id, error, preview: result } = response.json()
    expect(error).toBe('import_invalid')
    expect(result).toMatchObject({ valid: false, csv_path: null })
    expect(result.errors).toEqual([
      expect.objectContaining({ row: 4, column: 1, field: 'developer_name', code: 'developer_mismatch' }),
      expect.objectContaining({ row: 4, column: 3, field: 'krs', code: 'developer_mismatch' }),
    ])
    expect(result.errors[0].message_pl).toBe(
      `Wiersz 4, kolumna 1 („Nazwa dewelopera”): raport podaje „Inna Spółka Sp. z o.o.”, a podmiot o NIP ${REPORT_NIP} nazywa się w ustawieniach „${ENTITY.name}”. ` +
        'Raport z danymi innej firmy nie zostanie opublikowany w zbiorze tego podmiotu: popraw raport albo dane dewelopera w panelu (Ustawienia → Deweloper, pole „Nazwa”) i wczytaj raport ponownie.',
    )
    expect(result.errors[1].message_en).toContain('Settings → Developer, the field "KRS number"')

    // the former confirmation parameter is still accepted, and changes nothing
    const confirmed = await confirm({
      job_id: id,
      confirm: 'true',
      date: '2026-11-19',
      confirm_developer_mismatch: 'true',
    })
    expect(confirmed.statusCode).toBe(422)
    expect(confirmed.json()).toMatchObject({ error: 'developer_mismatch', id })
    expect(confirmed.json().issues.map((i: { code: string }) => i.code)).toEqual([
      'developer_mismatch',
      'developer_mismatch',
    ])
    expect(confirmed.json().issues[0]).toMatchObject({
      message_pl: result.errors[0].message_pl,
      details: { row: 4, column: 1, field: 'developer_name' },
    })

    // a job previewed when such a report was valid with a warning, kept before an upgrade: refused too
    const earlier = (await preview('wzor.csv', TEMPLATE)).json()
    const job = await env.ctx.db
      .selectFrom('import_jobs')
      .select(['mapping'])
      .where('id', '=', earlier.id)
      .executeTakeFirstOrThrow()
    const developer = await env.ctx.db.selectFrom('developers').select('id').orderBy('id').executeTakeFirstOrThrow()
    const mapping = {
      ...JSON.parse(job.mapping),
      identity_mismatch: {
        developer_id: developer.id,
        entity: { name: ENTITY.name, krs: ENTITY.krs },
        names: [{ value: 'Inna Spółka Sp. z o.o.', count: 1, rows: [4] }],
        krs: [],
      },
    }
    await env.ctx.db
      .updateTable('import_jobs')
      .set({ mapping: JSON.stringify(mapping) })
      .where('id', '=', earlier.id)
      .execute()
    const kept = await confirm({
      job_id: earlier.id,
      confirm: 'true',
      date: '2026-11-19',
      confirm_developer_mismatch: 'true',
    })
    expect(kept.statusCode).toBe(422)
    expect(kept.json().error).toBe('developer_mismatch')
    expect(kept.json().issues[0].message_pl).toMatch(
      /^Wiersz 4, kolumna 1 \(„Nazwa dewelopera”\): raport podaje „Inna Spółka/,
    )

    // nothing was published for that day
    const published = await env.ctx.db
      .selectFrom('publications')
      .select('id')
      .where('publication_date', '=', '2026-11-19')
      .execute()
    expect(published).toEqual([])
    expect((await env.app.inject({ url: '/dane-gov/dataset.xml' })).body).not.toContain('2026-11-19')
  })

  it('requires confirm=true: a missing or false confirmation is 422 report_confirmation_required', async () => {
    const { id } = (await preview('wzor.csv', TEMPLATE)).json()
    for (const fields of [
      { job_id: id, date: '2026-11-22' } as Record<string, string>,
      { job_id: id, confirm: 'false', date: '2026-11-22' },
    ]) {
      const response = await confirm(fields)
      expect(response.statusCode).toBe(422)
      expect(response.json()).toMatchObject({ error: 'report_confirmation_required', id })
    }
    const badDate = await confirm({ job_id: id, confirm: 'true', date: '2026-02-30' })
    expect(badDate.statusCode).toBe(400)
    expect(badDate.json().error).toBe('invalid_date')
  })

  it('answers 404 import_not_found for an unknown, a missing or an offer-import job', async () => {
    for (const fields of [
      { job_id: 'a'.repeat(32), confirm: 'true', date: '2026-11-22' } as Record<string, string>,
      { confirm: 'true', date: '2026-11-22' },
      { job_id: 'not-a-job', confirm: 'true', date: '2026-11-22' },
    ]) {
      const response = await confirm(fields)
      expect(response.statusCode).toBe(404)
      expect(response.json().error).toBe('import_not_found')
    }
    const offerJob = await env.app.inject({
      method: 'POST',
      url: '/wp-json/dg/v2/imports/offer',
      ...(() => {
        const body = multipart(
          { mode: 'patch', mapping: JSON.stringify({ source_investment_id: 'inv', source_property_id: 'id' }) },
          { name: 'o.csv', content: 'inv;id\nA;1\n' },
        )
        return { payload: body.payload, headers: { ...body.headers, authorization: admin.authorization } }
      })(),
    })
    const offerJobId = offerJob.json().id as string
    expect(offerJobId).toMatch(/^[0-9a-f]{32}$/)
    const response = await confirm({ job_id: offerJobId, confirm: 'true', date: '2026-11-22' })
    expect(response.statusCode).toBe(404)
    expect(response.json().error).toBe('import_not_found')
  })

  it('refuses a 57-column file and a file with an extra column, naming the columns', async () => {
    const rows = templateRows()
    const missing = await preview('57.csv', csvOf(rows.map((row) => row.slice(0, 57))))
    expect(missing.statusCode).toBe(422)
    const body = missing.json()
    expect(body).toMatchObject({ error: 'import_invalid', id: expect.stringMatching(/^[0-9a-f]{32}$/) })
    expect(body.preview).toMatchObject({ valid: false, csv_path: null })
    expect(body.preview.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ row: 1, column: 58, field: 'prospectus_url', code: 'missing_column' }),
        expect.objectContaining({ code: 'column_count' }),
      ]),
    )
    // an invalid preview cannot be confirmed
    const refused = await confirm({ job_id: body.id, confirm: 'true', date: '2026-11-22' })
    expect(refused.statusCode).toBe(422)
    expect(refused.json().error).toBe('import_invalid')

    const extra = await preview('59.csv', csvOf(rows.map((row, i) => [...row, i === 0 ? 'Cena m2 komórki' : '100'])))
    expect(extra.statusCode).toBe(422)
    expect(extra.json().preview.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'unexpected_column', message: expect.stringContaining('Cena m2 komórki') }),
      ]),
    )
  })

  it('tolerates header case and spacing, converts spreadsheet notations, and names every bad cell', async () => {
    const rows = templateRows()
    const header = OFFICIAL_HEADERS.map((h, i) => (i % 2 === 0 ? `${h.trim().toUpperCase()}  ` : ` ${h.trim()}`))
    const good = [...(rows[1] as string[])]
    good[37] = '15 000,5 zł' // column 38
    good[38] = '09.11.2025' // column 39
    good[2] = '942937' // KRS kept in a number cell
    good[3] = 'n.d.'
    const ok = await preview('ok.csv', csvOf([header, good]))
    expect(ok.statusCode).toBe(200)
    const line = convertedBytes(ok.json().preview.csv_path).toString('utf8').split('\n')[1] as string
    const cells = line.split(';')
    expect(cells[37]).toBe('15000.50')
    expect(cells[38]).toBe('2025-11-09')
    expect(cells[2]).toBe('0000942937')
    expect(cells[3]).toBe('X')

    const bad = [...(rows[1] as string[])]
    bad[37] = '1.234,56' // ambiguous thousands separator
    bad[38] = '2025-02-30'
    bad[45] = '34000'
    bad[46] = 'X' // a price without its date
    bad[4] = '123-456'
    bad[17] = '02776X'
    const refused = await preview('bad.csv', csvOf([rows[0] as string[], bad]))
    expect(refused.statusCode).toBe(422)
    const errors = refused.json().preview.errors as Array<{ row: number; column: number; code: string }>
    expect(errors.map((e) => [e.row, e.column, e.code])).toEqual(
      expect.arrayContaining([
        [2, 38, 'invalid_money'],
        [2, 39, 'invalid_date'],
        [2, 47, 'missing_price_date'],
        [2, 5, 'invalid_nip'],
        [2, 18, 'invalid_postal_code'],
      ]),
    )
  })

  it('warns, without refusing, about a report without rows and about dates after today', async () => {
    const response = await preview('empty.csv', Buffer.from(OFFICIAL_HEADER_LINE + '\n'))
    expect(response.statusCode).toBe(200)
    expect(response.json().preview).toMatchObject({
      valid: true,
      row_count: 0,
      warning: expect.stringContaining('no data rows'),
    })

    const rows = templateRows()
    const future = [...(rows[1] as string[])]
    future[38] = '2027-01-15 00:00:00' // the test clock is 2026-11-20
    const dated = await preview('future.csv', csvOf([rows[0] as string[], future]))
    expect(dated.statusCode).toBe(200)
    const result = dated.json().preview
    expect(result.valid).toBe(true)
    expect(result.warnings).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'date_in_future', rows: [2] })]),
    )
    expect(result.warning).toContain('later than today (2026-11-20)')
  })

  it('answers 409 while another publication holds the lock, and runs one of a report and a publication at once', async () => {
    env.clock.set('2026-11-24T10:00:00Z') // the 23rd by its report (a past day), the 24th by both
    const { id } = (await preview('wzor.csv', TEMPLATE)).json()
    const lock = await tryAcquireLock(env.ctx, PUBLICATION_LOCK, 'test-holder', 60_000)
    expect(lock.acquired).toBe(true)
    try {
      const response = await confirm({ job_id: id, confirm: 'true', date: '2026-11-23' })
      expect(response.statusCode).toBe(409)
      expect(response.json().error).toBe('publication_in_progress')
    } finally {
      await releaseLock(env.ctx.db, PUBLICATION_LOCK, 'test-holder')
    }

    const [report, publication] = await Promise.all([
      confirm({ job_id: id, confirm: 'true', date: '2026-11-24' }),
      env.app.inject({
        method: 'POST',
        url: '/wp-json/dg/v2/publications',
        payload: { date: '2026-11-24' },
        headers: { authorization: admin.authorization },
      }),
    ])
    expect([report.statusCode, publication.statusCode].sort()).toEqual([200, 409])
  })

  it('needs manage_options to preview and PRO with api_webhooks to confirm', async () => {
    const reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    expect((await preview('wzor.csv', TEMPLATE, 'text/csv', reader)).statusCode).toBe(403)
    await setLicense(env.ctx, {
      plan: 'pro',
      entitlements: ['bulk_import', 'publishing_gov'],
      validUntil: null,
      actor: { type: 'system' },
    })
    try {
      const previewed = await preview('wzor.csv', TEMPLATE)
      expect(previewed.statusCode).toBe(200)
      const response = await confirm({ job_id: previewed.json().id, confirm: 'true', date: '2026-11-25' })
      expect(response.statusCode).toBe(403)
      expect(response.json()).toEqual({ error: 'pro_feature_required', feature: 'api_webhooks' })
    } finally {
      await grantProLicense(env.ctx)
    }
  })
})
