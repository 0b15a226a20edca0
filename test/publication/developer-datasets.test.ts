/*
 * One dataset per developer entity: a developer group sells one project through a
 * company of its own, so each entity publishes its own dataset — own extIdent, titles, XML, .md5,
 * public paths and publications — and its investments' offers go only into its file. Checked over
 * HTTP by the simulated harvester, on both databases.
 */
import fs from 'node:fs'
import type { AddressInfo } from 'node:net'

import { parse } from 'csv-parse/sync'
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { OFFICIAL_COLUMN_INDEX } from '../../src/publication/daily-file/official-columns.js'
import { runScheduledPublication } from '../../src/publication/publication-schedule.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { SimulatedHarvester } from '../helpers/portal/harvester-simulator.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const TEMPLATE = fs.readFileSync(
  new URL('../fixtures/official/Wcorcowy_zakres_danych_dotyczących_cen_mieszkań.csv', import.meta.url),
)
const PUBLIC_ORIGIN = 'https://ceny.example.pl'
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

describeEachDatabase('one dataset per developer entity', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let origin: string
  let harvester: SimulatedHarvester
  let primaryId: number
  let secondId: number
  let secondCodes: string[]

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as object }),
      headers: { authorization: admin.authorization },
    })
  const listedCodes = (csv: Buffer) =>
    (parse(csv, { delimiter: ';', from_line: 2 }) as string[][]).map((row) => row[OFFICIAL_COLUMN_INDEX.property_code])

  beforeAll(async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    await updatePublicationSettings(env.ctx, { public_base_url: `${PUBLIC_ORIGIN}/dane-gov` }, { type: 'cli' })
    primaryId = (await env.ctx.db.selectFrom('developers').select('id').orderBy('id').executeTakeFirstOrThrow()).id
    const created = await call('POST', '/developers', SECOND_DEVELOPER)
    expect(created.statusCode, created.body).toBe(201)
    secondId = created.json().id
    // the Poznań investment is sold by the second company
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
    secondCodes = (
      await env.ctx.db
        .selectFrom('offers')
        .select('code')
        .where('investment_id', '=', investment.id)
        .where('property_type', '=', 'dom')
        .execute()
    ).map((o) => o.code)
    expect(secondCodes.length).toBeGreaterThan(0)
    await env.app.listen({ port: 0, host: '127.0.0.1' })
    origin = `http://127.0.0.1:${(env.app.server.address() as AddressInfo).port}`
    harvester = new SimulatedHarvester({
      origins: { [PUBLIC_ORIGIN]: origin },
      templateHeader: TEMPLATE.subarray(0, TEMPLATE.indexOf(0x0a)),
    })
  })

  it('publishes each entity’s own dataset, with its own offers, extIdent, titles and paths', async () => {
    const first = await call('POST', '/publications', { date: '2026-11-20' })
    expect(first.statusCode, first.body).toBe(200)
    const second = await call('POST', '/publications', { date: '2026-11-20', developer_id: secondId })
    expect(second.statusCode, second.body).toBe(200)
    const a = first.json()
    const b = second.json()
    expect(a).toMatchObject({ developer_id: primaryId, xml: { url: `${PUBLIC_ORIGIN}/dane-gov/dataset.xml` } })
    expect(b).toMatchObject({
      developer_id: secondId,
      xml: { url: `${PUBLIC_ORIGIN}/dane-gov/d${secondId}/dataset.xml` },
    })
    expect(b.public_dataset_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(b.public_dataset_id).not.toBe(a.public_dataset_id)
    expect(b.csv.url.startsWith(`${PUBLIC_ORIGIN}/dane-gov/d${secondId}/`)).toBe(true)

    // each file passes the harvester's checks and holds only its entity's offers
    const harvestA = await harvester.harvest(a.xml.url)
    const harvestB = await harvester.harvest(b.xml.url)
    expect(harvestA.steps.filter((s) => !s.ok)).toEqual([])
    expect(harvestB.steps.filter((s) => !s.ok)).toEqual([])
    const codesA = listedCodes(harvestA.resources[0]?.body as Buffer)
    const codesB = listedCodes(harvestB.resources[0]?.body as Buffer)
    for (const code of secondCodes) {
      expect(codesB).toContain(code)
      expect(codesA).not.toContain(code)
    }
    const rowsB = parse(harvestB.resources[0]?.body as Buffer, { delimiter: ';', from_line: 2 }) as string[][]
    for (const row of rowsB) expect(row[OFFICIAL_COLUMN_INDEX.nip]).toBe(SECOND_DEVELOPER.nip)
    expect(harvestB.xml?.toString('utf8')).toContain(`dewelopera ${SECOND_DEVELOPER.name} w 2026 r.`)
    expect(harvestB.xml?.toString('utf8')).toContain(`<extIdent>${b.public_dataset_id}</extIdent>`)

    expect((await env.app.inject({ url: '/dane-gov/d999999/dataset.xml' })).statusCode).toBe(404)
    expect((await env.app.inject({ url: `/dane-gov/d${primaryId}/dataset.xml` })).statusCode).toBe(404)
  })

  it('publishes every dataset in the daily run and shows each in /status', async () => {
    env.clock.set('2026-11-21T00:30:00Z')
    expect(await runScheduledPublication(env.ctx)).toBe('published')
    const scheduled = await env.ctx.db
      .selectFrom('publications')
      .select(['developer_id'])
      .where('trigger', '=', 'schedule')
      .where('publication_date', '=', '2026-11-21')
      .where('status', '=', 'published')
      .execute()
    expect(scheduled.map((p) => p.developer_id).sort()).toEqual([null, secondId].sort())
    expect(await runScheduledPublication(env.ctx)).toBe('skipped')

    const status = (await call('GET', '/status')).json()
    expect(status.datasets.map((d: { developer_id: number }) => d.developer_id)).toEqual([primaryId, secondId])
    expect(status.datasets[1]).toMatchObject({
      developer_name: SECOND_DEVELOPER.name,
      nip: SECOND_DEVELOPER.nip,
      xml_url: `${PUBLIC_ORIGIN}/dane-gov/d${secondId}/dataset.xml`,
      last_publication: { date: '2026-11-21', trigger: 'schedule' },
    })
    expect(status.last_publication.date).toBe('2026-11-21')
    expect(status.public_dataset_id).toBe(status.datasets[0].public_dataset_id)

    const preflight = await call('POST', '/publications/preflight', { developer_id: secondId })
    expect(preflight.statusCode).toBe(200)
    expect((await call('POST', '/publications/preflight', { developer_id: 999999 })).statusCode).toBe(404)
  })

  it('publishes a report under the dataset of the developer entity it names, and refuses one naming none', async () => {
    env.clock.set('2026-11-22T10:00:00Z')
    // the second company's own file of the 21st, as a developer's report: published for the 22nd
    const served = await env.app.inject({ url: `/dane-gov/d${secondId}/dataset.xml` })
    const csvUrl = /<url>([^<]+\.csv)<\/url>/.exec(served.body)?.[1] as string
    const report = (await env.app.inject({ url: new URL(csvUrl).pathname })).rawPayload
    const upload = (content: Buffer) => {
      const body = multipart({}, { name: 'raport.csv', content, type: 'text/csv' })
      return env.app.inject({
        method: 'POST',
        url: `${API}/imports/report`,
        payload: body.payload,
        headers: { ...body.headers, authorization: admin.authorization },
      })
    }
    const previewed = await upload(report)
    expect(previewed.statusCode, previewed.body).toBe(200)
    const confirmed = await env.app.inject({
      method: 'POST',
      url: `${API}/imports/report`,
      payload: `job_id=${previewed.json().id}&confirm=true&date=2026-11-22`,
      headers: { authorization: admin.authorization, 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    expect(confirmed.json().result).toMatchObject({
      developer_id: secondId,
      xml: { url: `${PUBLIC_ORIGIN}/dane-gov/d${secondId}/dataset.xml` },
    })
    const primaryXml = (await env.app.inject({ url: '/dane-gov/dataset.xml' })).body
    expect(primaryXml).not.toContain('<dataDate>2026-11-22</dataDate>')

    const stranger = Buffer.from(
      report.toString('utf8').replaceAll(`;${SECOND_DEVELOPER.nip};`, ';5260250274;'),
      'utf8',
    )
    const refused = await upload(stranger)
    expect(refused.statusCode).toBe(422)
    expect(new Set(refused.json().preview.errors.map((e: { code: string }) => e.code))).toEqual(
      new Set(['other_developer']),
    )
  })
})
