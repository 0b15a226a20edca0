/*
 * Two developer entities publishing over several days with a moved clock, read as the portal's
 * harvester and a lawyer would: each entity's own dataset page and notes, resource metadata that
 * never changes once published, versions of a day told apart, trial resources kept out of the
 * production dataset, every missed day of every entity reported, a report import that fills only
 * the day it can prove, and the audit of everything published (API, CLI, nightly alert).
 */
import fs from 'node:fs'

import { expect, it } from 'vitest'

import { checkAlertConditions } from '../../src/alerts/alert-rules.js'
import { runCli } from '../../src/cli/main.js'
import { setUpDemo } from '../../src/demo/demo-setup.js'
import { openDatabase } from '../../src/host/db/database.js'
import { auditPublications } from '../../src/publication/audit/publication-audit.js'
import { datasetOf, datasetStore } from '../../src/publication/daily-file/datasets.js'
import { datasetUrlFinding } from '../../src/publication/daily-file/dataset-resources.js'
import { DEVELOPER_NAME_MAX } from '../../src/publication/daily-file/harvester-xml.js'
import { OFFICIAL_COLUMN_INDEX } from '../../src/publication/daily-file/official-columns.js'
import { runScheduledPublication } from '../../src/publication/publication-schedule.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'
const HTTPS_BASE = 'https://ceny.example.pl/dane-gov'

const SECOND_DEVELOPER = {
  name: 'Nad Wartą Projekt Sp. z o.o.',
  legal_form: 'Sp. z o.o.',
  krs: '0000942937',
  nip: '9721307957',
  regon: '385967590',
  phone: '601887712',
  email: 'biuro@nadwarta.example.pl',
  website: 'https://nadwarta.example.pl',
  seat_voivodeship: 'wielkopolskie',
  seat_powiat: 'Poznań',
  seat_gmina: 'Poznań',
  seat_city: 'Poznań',
  seat_street: 'ul. Włodarska',
  seat_building_no: '15',
  seat_postal_code: '61-625',
  sales_voivodeship: 'wielkopolskie',
  sales_powiat: 'Poznań',
  sales_gmina: 'Poznań',
  sales_city: 'Poznań',
  sales_street: 'Garbary',
  sales_building_no: '53',
  sales_postal_code: '61-869',
  contact_method: 'telefon, e-mail',
}

/** The texts of the XML's resources, by data date (several for a day's versions). */
function resourceTexts(xml: string): { date: string; url: string; titlePl: string; descriptionPl: string }[] {
  return [...xml.matchAll(/<resource status="published">([\s\S]*?)<\/resource>/g)].map((m) => {
    const body = m[1] ?? ''
    const polish = [...body.matchAll(/<polish>([^<]*)<\/polish>/g)].map((p) => p[1] ?? '')
    return {
      date: /<dataDate>([^<]*)</.exec(body)?.[1] ?? '',
      url: /<url>([^<]*)</.exec(body)?.[1] ?? '',
      titlePl: polish[0] ?? '',
      descriptionPl: polish[1] ?? '',
    }
  })
}

describeEachDatabase('each entity’s dataset over several days, the report import’s day and the audit', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let primaryId: number
  let secondId: number

  const call = (
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    url: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
      headers: { authorization: admin.authorization, ...headers },
    })
  const xmlOf = async (developerId: number) =>
    (
      await env.app.inject({
        url: developerId === primaryId ? '/dane-gov/dataset.xml' : `/dane-gov/d${developerId}/dataset.xml`,
      })
    ).body
  const publish = async (date: string, developerId?: number) => {
    const response = await call('POST', '/publications', {
      date,
      ...(developerId ? { developer_id: developerId } : {}),
    })
    expect(response.statusCode, response.body).toBe(200)
    return response.json()
  }
  const uploadReport = async (content: Buffer) => {
    const body = multipart({}, { name: 'raport.csv', content, type: 'text/csv' })
    const response = await env.app.inject({
      method: 'POST',
      url: `${API}/imports/report`,
      payload: body.payload,
      headers: { ...body.headers, authorization: admin.authorization },
    })
    expect(response.statusCode, response.body).toBe(200)
    return response.json()
  }
  const confirmReport = (fields: Record<string, string>) =>
    env.app.inject({
      method: 'POST',
      url: `${API}/imports/report`,
      payload: new URLSearchParams(fields).toString(),
      headers: { authorization: admin.authorization, 'content-type': 'application/x-www-form-urlencoded' },
    })

  it('keeps trial (http) resources out of the production dataset and warns while the <url> is missing', async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    primaryId = (await env.ctx.db.selectFrom('developers').select('id').orderBy('id').executeTakeFirstOrThrow()).id
    const created = await call('POST', '/developers', SECOND_DEVELOPER)
    expect(created.statusCode, created.body).toBe(201)
    secondId = created.json().id
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select('id')
      .where('source_id', '=', 'demo-nad-warta')
      .executeTakeFirstOrThrow()
    await env.ctx.db
      .updateTable('investments')
      .set({ developer_id: secondId })
      .where('id', '=', investment.id)
      .execute()

    // a local trial on the 19th
    env.clock.set('2026-11-19T10:00:00Z')
    expect(
      (await call('PUT', '/publication/settings', { public_base_url: 'http://127.0.0.1:8080/dane-gov' })).statusCode,
    ).toBe(200)
    const trial = await publish('2026-11-19')
    expect(trial.csv.url.startsWith('http://')).toBe(true)
    expect(trial.warnings.map((w: { code: string }) => w.code)).toContain('dataset_url_missing')
    const preflight = (await call('POST', '/publications/preflight', {})).json()
    expect(preflight.production_allowed).toBe(false)
    expect(preflight.warnings.find((w: { code: string }) => w.code === 'dataset_url_missing').message_pl).toMatch(
      /Adres strony z cenami/,
    )
    // in production the missing <url> blocks
    const developer = await env.ctx.db
      .selectFrom('developers')
      .selectAll()
      .where('id', '=', primaryId)
      .executeTakeFirstOrThrow()
    expect(datasetUrlFinding(developer, true).issue?.code).toBe('dataset_url_missing')

    // the switch to https: the trial's file never reaches the portal, and publishing works
    env.clock.set('2026-11-20T10:00:00Z')
    const moved = await call('PUT', '/publication/settings', { public_base_url: HTTPS_BASE, confirm_url_change: true })
    expect(moved.statusCode, moved.body).toBe(200)
    for (const id of [primaryId, secondId])
      expect(
        (
          await call('PUT', `/developers/${id}`, {
            dataset_url: id === primaryId ? 'https://www.example.pl/ceny' : 'https://nadwarta.example.pl/ceny',
          })
        ).statusCode,
      ).toBe(200)
    const first = await publish('2026-11-20')
    expect(first.warnings.map((w: { code: string }) => w.code)).toContain('trial_resources_left_out')
    const xml = await xmlOf(primaryId)
    expect(xml).not.toContain('<url>http://')
    expect(resourceTexts(xml).map((r) => r.date)).toEqual(['2026-11-20'])
    await publish('2026-11-20', secondId)
  })

  it('gives each entity its own page and notes (English only in English); the URL can change but not be removed', async () => {
    const refused = await call('PUT', `/developers/${secondId}`, {
      description_note_pl: 'Sprzedaż zakończona.',
      description_note_en: 'Sprzedaż zakończona.',
    })
    expect(refused.statusCode).toBe(422)
    expect(refused.json().issues[0]).toMatchObject({ field: 'description_note_en', code: 'note_not_english' })
    expect(
      (
        await call('PUT', `/developers/${secondId}`, {
          description_note_pl: 'Sprzedaż w inwestycji Nad Wartą zakończona.',
          description_note_en: 'Sales at Nad Wartą have ended.',
        })
      ).statusCode,
    ).toBe(200)
    expect(
      (await call('PUT', `/developers/${primaryId}`, { description_note_pl: 'Nowy etap od wiosny.' })).statusCode,
    ).toBe(200)

    const cleared = await call('PUT', `/developers/${primaryId}`, { dataset_url: null })
    expect(cleared.statusCode).toBe(422)
    expect(cleared.json().issues[0]).toMatchObject({ field: 'dataset_url', code: 'dataset_url_in_use' })
    expect(cleared.json().issues[0].message_pl).toMatch(/nie usunąć/)

    const tooLong = await call('PUT', `/developers/${secondId}`, { name: `Spółka ${'x'.repeat(285)}` })
    expect(tooLong.statusCode).toBe(422)
    expect(tooLong.json().issues[0]).toMatchObject({ field: 'name', code: 'name_too_long' })
    expect(tooLong.json().issues[0].message_pl).toContain(`${DEVELOPER_NAME_MAX} znaków`)

    env.clock.set('2026-11-21T10:00:00Z')
    await publish('2026-11-21')
    await publish('2026-11-21', secondId)
    const second = await xmlOf(secondId)
    expect(second).toContain('\t\t<url>https://nadwarta.example.pl/ceny</url>')
    expect(second).toMatch(/<polish>Zbiór danych zawiera[^<]*Sprzedaż w inwestycji Nad Wartą zakończona\.<\/polish>/)
    expect(second).toMatch(/<english>The dataset contains[^<]*Sales at Nad Wartą have ended\.<\/english>/)
    const primary = await xmlOf(primaryId)
    expect(primary).toContain('\t\t<url>https://www.example.pl/ceny</url>')
    expect(primary).not.toContain('Nad Wartą zakończona')
    expect(primary).not.toMatch(/<english>[^<]*Nowy etap od wiosny/)
  })

  it('never changes a published resource: a renamed developer, Last-Modified, versions of a day, the years in the title', async () => {
    const before = resourceTexts(await xmlOf(primaryId))
    const dayFile = before.find((r) => r.date === '2026-11-20')?.url as string
    const firstModified = (await env.app.inject({ url: new URL(dayFile).pathname })).headers['last-modified']

    expect(
      (await call('PUT', `/developers/${primaryId}`, { name: 'Przykładowy Deweloper Nowa Nazwa S.A.' })).statusCode,
    ).toBe(200)
    env.clock.set('2026-11-22T10:00:00Z')
    await publish('2026-11-22')
    // a price change during the day makes a second version of the 22nd
    const offer = await env.ctx.db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .select(['offers.id', 'offers.code'])
      .where((eb) =>
        eb.or([eb('investments.developer_id', 'is', null), eb('investments.developer_id', '=', primaryId)]),
      )
      .where('offers.status', '=', 'available')
      .where('offers.property_type', '=', 'mieszkanie')
      .orderBy('offers.id')
      .executeTakeFirstOrThrow()
    const current = await call('GET', `/offers/${offer.id}`)
    expect(current.statusCode, current.body).toBe(200)
    const { version, price_m2: m2, prop_area: area } = current.json()
    const newM2 = Number(m2) + 100
    const changed = await call(
      'PATCH',
      `/offers/${offer.id}`,
      {
        price_m2: newM2.toFixed(2),
        price_total: (Math.round(newM2 * Number(area) * 100) / 100).toFixed(2),
        price_m2_from: '2026-11-22',
        price_total_from: '2026-11-22',
        reason: 'Zmiana cennika',
      },
      { 'if-match': version },
    )
    expect(changed.statusCode, changed.body).toBe(200)
    env.clock.set('2026-11-22T14:00:00Z')
    const v2 = await publish('2026-11-22')
    expect(v2.csv.file_name).toMatch(/-v2\.csv$/)

    const after = resourceTexts(await xmlOf(primaryId))
    // the resources of the 20th and the 21st keep the name they were published with
    for (const date of ['2026-11-20', '2026-11-21']) {
      const then = before.find((r) => r.date === date)
      expect(after.find((r) => r.date === date)).toEqual(then)
      expect(then?.titlePl).toContain('Przykładowy Deweloper Sp. z o.o.')
    }
    const day22 = after.filter((r) => r.date === '2026-11-22')
    expect(day22).toHaveLength(2)
    expect(day22[0]?.titlePl).toBe('Ceny ofertowe mieszkań dewelopera Przykładowy Deweloper Nowa Nazwa S.A. 2026-11-22')
    expect(day22[1]?.titlePl).toBe(`${day22[0]?.titlePl} (wersja 2)`)
    expect(day22[1]?.descriptionPl).toMatch(/Wersja 2 z tego dnia zastępuje wcześniejsze wersje/)
    expect((await env.app.inject({ url: new URL(dayFile).pathname })).headers['last-modified']).toBe(firstModified)

    // the dataset title names the years of its files, never only the latest one
    expect(await xmlOf(primaryId)).toContain(
      '<polish>Ceny ofertowe mieszkań dewelopera Przykładowy Deweloper Nowa Nazwa S.A. w 2026 r.</polish>',
    )
    env.clock.set('2027-01-02T10:00:00Z')
    await publish('2027-01-02')
    expect(await xmlOf(primaryId)).toContain(
      '<polish>Ceny ofertowe mieszkań dewelopera Przykładowy Deweloper Nowa Nazwa S.A. w latach 2026–2027</polish>',
    )
  })

  it('reports every missed day of every entity, gaps between published days included', async () => {
    // the primary dataset has 20, 21, 22 and 2027-01-02; the second one 20 and 21
    const status = (await call('GET', '/status')).json()
    const second = status.datasets.find((d: { developer_id: number }) => d.developer_id === secondId)
    expect(second.missed_days[0]).toBe('2026-11-22')
    expect(second.missed_days).toContain('2027-01-01')
    const primary = status.datasets.find((d: { developer_id: number }) => d.developer_id === primaryId)
    expect(primary.missed_days[0]).toBe('2026-11-23')
    expect(primary.missed_days).not.toContain('2026-11-22')
    // the top level lists every entity's: the second company's 22nd too
    expect(status.missed_days).toContain('2026-11-22')
    expect(status.missed_days).toContain('2026-12-31')
  })

  it('fills by a report only a day it can prove: not before its price dates, not a published day, not another company', async () => {
    // the second company's own file of the 21st, as its report
    const served = resourceTexts(await xmlOf(secondId)).find((r) => r.date === '2026-11-21')?.url as string
    const report = (await env.app.inject({ url: new URL(served).pathname })).rawPayload
    const rows = report.toString('utf8').trimEnd().split('\n')
    const dates = rows
      .slice(1)
      .flatMap((line) => line.split(';').filter((cell) => /^\d{4}-\d{2}-\d{2}$/.test(cell)))
      .sort()
    const latest = dates.at(-1) as string
    expect(latest <= '2026-11-21').toBe(true)

    const previewed = await uploadReport(report)
    expect(previewed.preview.warnings.map((w: { code: string }) => w.code)).not.toContain('developer_mismatch')
    // a day before the latest price date: refused, naming the rows
    const early = await confirmReport({ job_id: previewed.id, confirm: 'true', date: '2020-01-01' })
    expect(early.statusCode).toBe(422)
    expect(early.json().error).toBe('report_dates_after_day')
    expect(early.json().issues[0].details.rows).toContain(2)
    expect(early.json().issues[0].message_pl).toMatch(/wiersze 2/)
    // each date with every row carrying it, counted once although a row holds it in several columns,
    // and no "…" after a list that is complete
    const carrying = (value: string) =>
      rows.slice(1).flatMap((line, i) => (line.split(';').includes(value) ? [i + 2] : []))
    for (const later of early.json().issues[0].details.dates as { value: string }[]) {
      expect(later).toEqual({ value: later.value, count: carrying(later.value).length, rows: carrying(later.value) })
    }
    expect(early.json().issues[0].message_pl).not.toContain('…')
    // a day the dataset already has: refused
    const published = await confirmReport({ job_id: previewed.id, confirm: 'true', date: '2026-11-21' })
    expect(published.statusCode).toBe(422)
    expect(published.json().error).toBe('report_day_published')
    // the missed 22nd: published in the second company's dataset
    const filled = await confirmReport({ job_id: previewed.id, confirm: 'true', date: '2026-11-22' })
    expect(filled.statusCode, filled.body).toBe(200)
    expect(filled.json().result).toMatchObject({ developer_id: secondId, date: '2026-11-22' })
    const status = (await call('GET', '/status')).json()
    expect(
      status.datasets.find((d: { developer_id: number }) => d.developer_id === secondId).missed_days,
    ).not.toContain('2026-11-22')

    // another company's name and KRS under this NIP: refused at preview and at confirmation, whatever
    // the confirmation says
    const foreign = [
      rows[0],
      ...rows.slice(1).map((line) => {
        const cells = line.split(';')
        cells[OFFICIAL_COLUMN_INDEX.developer_name] = 'Inna Spółka Sp. z o.o.'
        cells[OFFICIAL_COLUMN_INDEX.krs] = '0000111222'
        return cells.join(';')
      }),
    ].join('\n')
    const body = multipart({}, { name: 'raport.csv', content: Buffer.from(`${foreign}\n`, 'utf8'), type: 'text/csv' })
    const other = await env.app.inject({
      method: 'POST',
      url: `${API}/imports/report`,
      payload: body.payload,
      headers: { ...body.headers, authorization: admin.authorization },
    })
    expect(other.statusCode).toBe(422)
    const mismatches = other.json().preview.errors.filter((e: { code: string }) => e.code === 'developer_mismatch') as {
      message_pl: string
    }[]
    expect(mismatches.map((e) => e.message_pl).join(' ')).toContain('Inna Spółka Sp. z o.o.')
    expect(mismatches.map((e) => e.message_pl).join(' ')).toContain('0000111222')
    // the operator is told where the entity's data are corrected, never of a confirmation
    expect(mismatches[0]?.message_pl).toContain('Ustawienia → Deweloper')
    expect(mismatches[0]?.message_pl).not.toContain('confirm_developer_mismatch')
    const confirmed = await confirmReport({
      job_id: other.json().id,
      confirm: 'true',
      date: '2026-11-23',
      confirm_developer_mismatch: 'true',
    })
    expect(confirmed.statusCode).toBe(422)
    expect(confirmed.json().error).toBe('developer_mismatch')
    // the company's own report fills the 23rd (with another e-mail address: a file of its own)
    const own = await uploadReport(
      Buffer.from(
        [
          rows[0],
          ...rows.slice(1).map((line) => {
            const cells = line.split(';')
            cells[OFFICIAL_COLUMN_INDEX.email] = 'biuro@drugi-deweloper.example.pl'
            return cells.join(';')
          }),
        ].join('\n') + '\n',
        'utf8',
      ),
    )
    const filled23 = await confirmReport({ job_id: own.id, confirm: 'true', date: '2026-11-23' })
    expect(filled23.statusCode, filled23.body).toBe(200)
  })

  it('fills a missed day by a report only where it agrees with the files published after that day', async () => {
    const served = resourceTexts(await xmlOf(secondId)).find((r) => r.date === '2026-11-21')?.url as string
    const report = (await env.app.inject({ url: new URL(served).pathname })).rawPayload
    const rows = report.toString('utf8').trimEnd().split('\n')
    // the 25th is published after the missed 24th: it says which prices held on the 24th
    env.clock.set('2026-11-25T10:00:00Z')
    await publish('2026-11-25', secondId)
    const unitRow = rows.findIndex(
      (line, i) => i > 0 && /^\d+\.\d{2}$/.test(line.split(';')[OFFICIAL_COLUMN_INDEX.price_m2] ?? ''),
    )
    const cells = (rows[unitRow] as string).split(';')
    const unit = cells[OFFICIAL_COLUMN_INDEX.property_code] as string
    const m2 = Number(cells[OFFICIAL_COLUMN_INDEX.price_m2])
    cells[OFFICIAL_COLUMN_INDEX.price_m2] = (m2 - 100).toFixed(2)
    cells[OFFICIAL_COLUMN_INDEX.email] = 'raport@drugi-deweloper.example.pl'
    const altered = rows.map((line, i) => (i === unitRow ? cells.join(';') : line)).join('\n') + '\n'
    const previewed = await uploadReport(Buffer.from(altered, 'utf8'))
    const refused = await confirmReport({ job_id: previewed.id, confirm: 'true', date: '2026-11-24' })
    expect(refused.statusCode).toBe(422)
    expect(refused.json().error).toBe('report_contradicts_published')
    expect(refused.json().issues[0].message_pl).toContain(`${unit}: w raporcie ${(m2 - 100).toFixed(2)}`)
    expect(refused.json().issues[0].message_pl).toContain('w pliku z dnia 2026-11-25')
    // the same report with the prices the later file gives fills the day
    const agreeing = rows
      .map((line, i) => {
        if (i === 0) return line
        const row = line.split(';')
        row[OFFICIAL_COLUMN_INDEX.email] = 'raport@drugi-deweloper.example.pl'
        return row.join(';')
      })
      .join('\n')
    const again = await uploadReport(Buffer.from(`${agreeing}\n`, 'utf8'))
    const filled = await confirmReport({ job_id: again.id, confirm: 'true', date: '2026-11-24' })
    expect(filled.statusCode, filled.body).toBe(200)
  })

  it('audits everything published, lists each problem with its day and unit, and alerts on the nightly run', async () => {
    const clean = await call('GET', '/publication/audit')
    expect(clean.statusCode, clean.body).toBe(200)
    expect(clean.json()).toMatchObject({ valid: true, errors: 0 })
    const datasets = clean.json().datasets
    expect(datasets.map((d: { developer_id: number }) => d.developer_id)).toEqual([primaryId, secondId])
    expect(datasets[0].files_checked).toBe(datasets[0].resources)
    // 20, 21, 22 and 23, the 25th and the 24th filled by a report
    expect(datasets[1].files_checked).toBe(6)

    // the nightly run of 2027-01-03 audits everything published and raises nothing on clean files
    env.clock.set('2027-01-02T23:30:00Z')
    expect(await runScheduledPublication(env.ctx)).toBe('published')
    expect(
      await env.ctx.db.selectFrom('alerts').select('id').where('cause', '=', 'publication_audit').execute(),
    ).toEqual([])

    // a stored day file altered on disk: a price dated after its day, seen with its day and unit
    const dataset = await datasetOf(env.ctx, secondId)
    const store = datasetStore(env.ctx, dataset)
    const manifest = (await store.currentManifest()) as NonNullable<Awaited<ReturnType<typeof store.currentManifest>>>
    const day = manifest.days.find((d) => d.date === '2026-11-21') as (typeof manifest.days)[number]
    const original = fs.readFileSync(store.csvPath(day.md5), 'utf8').split('\n')
    const cells = (original[1] as string).split(';')
    cells[OFFICIAL_COLUMN_INDEX.price_total_from] = '2026-12-24'
    const unit = cells[OFFICIAL_COLUMN_INDEX.property_code]
    original[1] = cells.join(';')
    fs.writeFileSync(store.csvPath(day.md5), original.join('\n'))

    const found = (await call('GET', `/publication/audit?developer_id=${secondId}`)).json()
    expect(found.valid).toBe(false)
    const problems = found.datasets[0].problems
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'audit_file_checksum_mismatch', day: '2026-11-21', severity: 'error' }),
        expect.objectContaining({
          code: 'invariant_price_date_after_day',
          day: '2026-11-21',
          unit,
          line: 2,
          file: day.file_name,
        }),
      ]),
    )
    // one day only: the other days are not read (the 23rd's report gives another e-mail: other bytes)
    const oneDay = await auditPublications(env.ctx, { day: '2026-11-23', developerId: secondId })
    expect(oneDay.valid).toBe(true)
    expect(oneDay.datasets[0]?.files_checked).toBe(1)

    // dg audit: the same report, exit code 1 on an error
    let stdout = ''
    const code = await runCli(['audit', '--developer-id', String(secondId)], {
      config: env.config,
      io: { stdout: (t) => void (stdout += t), stderr: () => undefined },
      openDatabase: () => openDatabase(env.database.connection),
    })
    expect(code).toBe(1)
    expect(stdout).toContain('invariant_price_date_after_day')
    expect(stdout).toContain(`unit ${unit}`)
    expect(stdout).toContain('2026-11-21')

    // the alert of an audit with errors names each problem's day and file
    const audited = await auditPublications(env.ctx, { day: '2026-11-21', developerId: secondId })
    await checkAlertConditions(env.ctx, {
      auditedPublications: [
        {
          date: '2026-11-21',
          dataset: { id: secondId, name: SECOND_DEVELOPER.name },
          problems: audited.datasets.flatMap((d) => d.problems.filter((p) => p.severity === 'error')),
        },
      ],
    })
    const alert = await env.ctx.db
      .selectFrom('alerts')
      .selectAll()
      .where('cause', '=', 'publication_audit')
      .executeTakeFirstOrThrow()
    expect(alert.message_pl).toContain('Nocny audyt z 2026-11-21')
    expect(alert.message_pl).toContain(`2026-11-21 ${day.file_name}`)
    expect(alert.message_pl).toContain(unit as string)
  })
})
