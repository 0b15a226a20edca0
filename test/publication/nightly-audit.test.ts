/*
 * The nightly audit of everything published, over several nights with a moved clock and two
 * developer entities: a clean history raises no alert; a file of an earlier day changed on the
 * server, another dataset's file of another day deleted, a resource's title changed after it was
 * published and a resource dropped are each named — day and file — by the next night's alert, once
 * per dataset and night, and the harvester gets a documented 404 for the deleted file, never a 500.
 */
import fs from 'node:fs'
import path from 'node:path'

import { expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { auditPublications } from '../../src/publication/audit/publication-audit.js'
import { datasetOf, datasetStore } from '../../src/publication/daily-file/datasets.js'
import { md5Hex } from '../../src/publication/daily-file/harvester-xml.js'
import { runScheduledPublication } from '../../src/publication/publication-schedule.js'
import { type Manifest, MD5_NAME, XML_NAME } from '../../src/publication/publication-store.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'

const SECOND_DEVELOPER = {
  name: 'Nad Wartą Projekt Sp. z o.o.',
  legal_form: 'Sp. z o.o.',
  krs: '0000942937',
  nip: '9721307957',
  regon: '385967590',
  phone: '601887712',
  email: 'biuro@nadwarta.example.pl',
  website: 'https://nadwarta.example.pl',
  dataset_url: 'https://nadwarta.example.pl/ceny',
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

/** Each night's run at 00:30 in Warsaw (23:30 UTC of the day before, in November). */
const NIGHTS = ['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05'] as const

describeEachDatabase('the nightly audit of everything published', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let primaryId: number
  let secondId: number
  let nadWartaId: number

  const call = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: unknown, headers = {}) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
      headers: { authorization: admin.authorization, ...headers },
    })
  const auditAlerts = () =>
    env.ctx.db
      .selectFrom('alerts')
      .selectAll()
      .where('cause', '=', 'publication_audit')
      .orderBy('developer_id')
      .orderBy('id')
      .execute()
  const storeOf = async (developerId: number) => datasetStore(env.ctx, await datasetOf(env.ctx, developerId))
  const manifestOf = async (developerId: number) => (await (await storeOf(developerId)).currentManifest()) as Manifest
  const dayOf = async (developerId: number, date: string) => {
    const day = (await manifestOf(developerId)).days.find((d) => d.date === date)
    if (!day) throw new Error(`no file of ${date} in the dataset of ${developerId}`)
    return day
  }

  /** A flat's (or a house's) price changes during the day, so each day's file has bytes of its own. */
  const changePrice = async (investments: 'primary' | 'second', day: string) => {
    const offer = await env.ctx.db
      .selectFrom('offers')
      .select('id')
      .where('investment_id', investments === 'second' ? '=' : '!=', nadWartaId)
      .where('status', '=', 'available')
      .where('property_type', 'in', ['mieszkanie', 'dom'])
      .orderBy('id')
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
        price_m2_from: day,
        price_total_from: day,
        reason: 'Zmiana cennika',
      },
      { 'if-match': version },
    )
    expect(changed.statusCode, changed.body).toBe(200)
  }

  it('publishes five nights of two datasets and raises no audit alert on a clean history', async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    primaryId = (await env.ctx.db.selectFrom('developers').select('id').orderBy('id').executeTakeFirstOrThrow()).id
    const created = await call('POST', '/developers', SECOND_DEVELOPER)
    expect(created.statusCode, created.body).toBe(201)
    secondId = created.json().id
    nadWartaId = (
      await env.ctx.db
        .selectFrom('investments')
        .select('id')
        .where('source_id', '=', 'demo-nad-warta')
        .executeTakeFirstOrThrow()
    ).id
    await env.ctx.db.updateTable('investments').set({ developer_id: secondId }).where('id', '=', nadWartaId).execute()
    expect(
      (
        await call('PUT', '/publication/settings', {
          public_base_url: 'https://ceny.example.pl/dane-gov',
          confirm_url_change: true,
        })
      ).statusCode,
    ).toBe(200)
    expect(
      (await call('PUT', `/developers/${primaryId}`, { dataset_url: 'https://www.example.pl/ceny' })).statusCode,
    ).toBe(200)

    for (const [index, night] of NIGHTS.entries()) {
      if (index > 0) {
        env.clock.set(`${NIGHTS[index - 1]}T12:00:00Z`)
        await changePrice('primary', NIGHTS[index - 1] as string)
        await changePrice('second', NIGHTS[index - 1] as string)
      }
      env.clock.set(`${night}T23:30:00Z`)
      expect(await runScheduledPublication(env.ctx)).toBe('published')
    }
    // the nights of 2 to 6 November: every day of both datasets with a file of its own
    for (const id of [primaryId, secondId]) {
      const days = (await manifestOf(id)).days
      expect(days.map((d) => d.date)).toEqual(['2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05', '2026-11-06'])
      expect(new Set(days.map((d) => d.md5)).size).toBe(days.length)
    }
    expect(await auditAlerts()).toEqual([])
    const audit = (await call('GET', '/publication/audit')).json()
    expect(audit).toMatchObject({ valid: true, errors: 0 })
  })

  it('names a changed file, a deleted file, a changed title and a dropped resource of earlier days in the next night’s alert', async () => {
    // 2 November, primary dataset: a price in the stored file edited on the server
    const tampered = await dayOf(primaryId, '2026-11-02')
    const primaryStore = await storeOf(primaryId)
    const text = fs.readFileSync(primaryStore.csvPath(tampered.md5), 'utf8')
    const edited = text.replace(/;(\d+)\.(\d\d);/, (_m, zl: string, gr: string) => `;${Number(zl) - 1000}.${gr};`)
    expect(edited).not.toBe(text)
    fs.writeFileSync(primaryStore.csvPath(tampered.md5), edited)

    // 3 November, the second dataset: its stored file deleted
    const deleted = await dayOf(secondId, '2026-11-03')
    const secondStore = await storeOf(secondId)
    fs.rmSync(secondStore.csvPath(deleted.md5))
    // 5 November, the second dataset: its resource dropped from the record the next XML is built from
    const dropped = await dayOf(secondId, '2026-11-05')
    const secondManifest = await manifestOf(secondId)
    fs.writeFileSync(
      path.join(secondStore.versionDir(secondManifest.version), 'manifest.json'),
      JSON.stringify({ ...secondManifest, days: secondManifest.days.filter((d) => d.date !== dropped.date) }, null, 1),
    )

    // 4 November, primary dataset: the resource's Polish title rewritten in the XML and in the
    // record the next publication builds the XML from, checksums made to match
    const retitled = await dayOf(primaryId, '2026-11-04')
    const manifest = await manifestOf(primaryId)
    const dir = primaryStore.versionDir(manifest.version)
    const changedTitle = `Ceny ofertowe mieszkań ${retitled.date} (poprawione)`
    const xml = fs
      .readFileSync(path.join(dir, XML_NAME), 'utf8')
      .replace(`<polish>${retitled.title_pl}</polish>`, `<polish>${changedTitle}</polish>`)
    expect(xml).toContain(changedTitle)
    fs.writeFileSync(path.join(dir, XML_NAME), xml)
    fs.writeFileSync(path.join(dir, MD5_NAME), md5Hex(xml))
    const rewritten: Manifest = {
      ...manifest,
      xml_md5: md5Hex(xml),
      xml_bytes: Buffer.byteLength(xml),
      days: manifest.days.map((d) => (d.date === retitled.date ? { ...d, title_pl: changedTitle } : d)),
    }
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(rewritten, null, 1))

    // the harvester asking for the deleted file: a documented 404, not a 500
    const fetched = await env.app.inject({ url: new URL(deleted.url as string).pathname })
    expect(fetched.statusCode).toBe(404)
    expect(fetched.json().code).toBe('dg_published_file_missing')
    // the other files are still served
    expect((await env.app.inject({ url: new URL(tampered.url as string).pathname })).statusCode).toBe(200)

    // the audit on demand sees all three at once
    const now = (await call('GET', '/publication/audit')).json()
    expect(now.valid).toBe(false)
    const problems = now.datasets.flatMap((d: { problems: unknown[] }) => d.problems)
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'audit_file_checksum_mismatch',
          developer_id: primaryId,
          day: '2026-11-02',
          file: tampered.file_name,
        }),
        expect.objectContaining({
          code: 'audit_file_missing',
          developer_id: secondId,
          day: '2026-11-03',
          file: deleted.file_name,
        }),
        expect.objectContaining({
          code: 'audit_resource_title_changed',
          developer_id: primaryId,
          day: '2026-11-04',
          file: retitled.file_name,
          details: expect.objectContaining({ in: 'xml', listed: changedTitle, published: retitled.title_pl }),
        }),
        expect.objectContaining({
          code: 'audit_resource_title_changed',
          day: '2026-11-04',
          details: expect.objectContaining({ in: 'manifest' }),
        }),
        expect.objectContaining({ code: 'audit_resource_removed', developer_id: secondId, day: '2026-11-05' }),
      ]),
    )

    // the next night publishes 7 November and audits every day of every dataset
    env.clock.set('2026-11-06T23:30:00Z')
    expect(await runScheduledPublication(env.ctx)).toBe('published')
    const alerts = await auditAlerts()
    expect(alerts.map((a) => [a.developer_id, a.day])).toEqual([
      [primaryId, '2026-11-07'],
      [secondId, '2026-11-07'],
    ])
    const [primaryAlert, secondAlert] = alerts as [(typeof alerts)[number], (typeof alerts)[number]]
    expect(primaryAlert.severity).toBe('critical')
    // Polish and English, each naming the day and the file
    for (const message of [primaryAlert.message_pl, primaryAlert.message_en]) {
      expect(message).toContain('2026-11-02')
      expect(message).toContain(tampered.file_name)
      expect(message).toContain('2026-11-04')
      expect(message).toContain(retitled.file_name)
      expect(message).not.toContain(deleted.file_name)
    }
    expect(primaryAlert.message_pl).toMatch(
      /^Nocny audyt z 2026-11-07 wszystkich opublikowanych plików \(zbiór dewelopera [^)]+\) znalazł 3 błędy w plikach z dni 2026-11-02, 2026-11-04:\n/,
    )
    expect(primaryAlert.message_pl).toContain('zmienił się od publikacji')
    expect(primaryAlert.message_pl).toContain(`inny tytuł polski („${changedTitle}”)`)
    expect(primaryAlert.message_en).toContain('changed since it was published')
    expect(JSON.parse(primaryAlert.details ?? '{}')).toMatchObject({
      codes: expect.arrayContaining(['audit_file_checksum_mismatch', 'audit_resource_title_changed']),
      days: ['2026-11-02', '2026-11-04'],
    })
    // the resource dropped on the 5th stays out of the XML rebuilt tonight: the portal would delete it
    for (const message of [secondAlert.message_pl, secondAlert.message_en]) {
      expect(message).toContain('2026-11-03')
      expect(message).toContain(deleted.file_name)
      expect(message).toContain('2026-11-05')
      expect(message).toContain(dropped.file_name)
    }
    expect(JSON.parse(secondAlert.details ?? '{}').codes).toEqual(
      expect.arrayContaining(['audit_file_missing', 'audit_resource_removed']),
    )
    expect(secondAlert.message_pl).toContain('Brak pliku')
    expect(secondAlert.message_pl).toContain('dg_published_file_missing')

    // the same night run again (a second instance, a restart): no second alert
    expect(await runScheduledPublication(env.ctx, { force: true })).toBe('published')
    expect(await auditAlerts()).toHaveLength(2)
  })

  it('checks the rules of every file on demand, and at night those of the night’s files and of changed ones', async () => {
    // a file with its recorded checksum is read and hashed at night (its rows passed the same rules
    // when it was published); the changed one is checked in full: the same errors either way
    const nightly = await auditPublications(env.ctx, { rulesOnlyForDay: '2026-11-07' })
    const full = await auditPublications(env.ctx)
    const errors = (report: typeof full) =>
      report.datasets.flatMap((d) => d.problems.filter((p) => p.severity === 'error').map((p) => `${p.code} ${p.day}`))
    expect(errors(nightly).sort()).toEqual(errors(full).sort())
    // every file listed and present read in both: six days of the primary dataset; five of the
    // second's listed, one of them deleted
    expect(nightly.datasets.map((d) => d.files_checked)).toEqual([6, 4])
    expect(full.datasets.map((d) => d.files_checked)).toEqual([6, 4])
  })
})
