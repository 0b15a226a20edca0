/*
 * One published record, as a harvester and a lawyer read it over days with a moved clock: a day
 * whose file is published is never changed afterwards by any channel (editor, webhook, import),
 * a change dated today after today's file is a new version of today, both prices entered with
 * different dates must agree on the days between, and a part belongs to one unit or is offered on
 * its own, never both.
 */
import fs from 'node:fs/promises'

import { parse } from 'csv-parse/sync'
import { beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { OFFICIAL_COLUMN_INDEX } from '../../src/publication/daily-file/official-columns.js'
import { publicationStore } from '../../src/publication/publication-store.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { deliveryHeaders, WEBHOOK_URL } from '../helpers/webhook.js'

const API = '/wp-json/dg/v2'
const COL = OFFICIAL_COLUMN_INDEX
type Json = Record<string, any>

describeEachDatabase('one published record', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let webhookSecret: string
  let sourceInvestmentId: string

  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, headers = {}) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as Json }),
      headers: { authorization: admin.authorization, ...headers },
    })
  const at = (date: string) => env.clock.set(`${date}T10:00:00Z`)
  const offerByCode = async (code: string): Promise<Json> => {
    const row = await env.ctx.db
      .selectFrom('offers')
      .select('id')
      .where('code', '=', code)
      .where('source_property_id', 'like', 'ZT-%')
      .executeTakeFirstOrThrow()
    return (await call('GET', `/offers/${row.id}`)).json()
  }
  const patch = (offer: Json, body: Json) =>
    call('PATCH', `/offers/${offer.id as number}`, body, { 'if-match': offer.version as string })
  const publishDay = async (date: string) => {
    const published = await call('POST', '/publications', { date })
    expect(published.statusCode, published.body).toBe(200)
  }
  async function fileOf(date: string): Promise<string[][]> {
    const manifest = await publicationStore(env.ctx).currentManifest()
    const entries = manifest?.days.filter((d) => d.date === date) ?? []
    const entry = entries.at(-1)
    if (!entry) throw new Error(`no file of ${date}`)
    const csv = await fs.readFile(publicationStore(env.ctx).csvPath(entry.md5))
    return parse(csv, { delimiter: ';', from_line: 2 }) as string[][]
  }
  const rowOf = (rows: string[][], code: string) => rows.find((r) => r[COL.property_code] === code)
  const webhook = (body: Json, key: string) => {
    const payload = JSON.stringify(body)
    return env.app.inject({
      method: 'POST',
      url: WEBHOOK_URL,
      payload,
      headers: deliveryHeaders({
        body: payload,
        key,
        secret: webhookSecret,
        timestamp: Math.floor(env.clock.now().getTime() / 1000),
      }),
    })
  }

  beforeAll(async () => {
    env = getEnv()
    at('2026-11-01')
    const demo = await setUpDemo(env.ctx)
    webhookSecret = demo.webhook_secret
    admin = await createTestUser(env.ctx, 'administrator')
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    sourceInvestmentId = (
      await env.ctx.db
        .selectFrom('investments')
        .innerJoin('offers', 'offers.investment_id', 'investments.id')
        .select('investments.source_id')
        .where('offers.source_property_id', '=', 'ZT-A-1.02')
        .executeTakeFirstOrThrow()
    ).source_id as string
    await publishDay('2026-11-01')
    at('2026-11-02')
    await publishDay('2026-11-02')
  })

  it('a price dated back onto a published day: the editor refuses it at the field, an automated channel’s takes effect today with the date it sent kept in the reason', async () => {
    at('2026-11-02')
    const flat = await offerByCode('A/1.02')
    const historyBefore = (await call('GET', `/offers/${flat.id as number}/price-history`)).json().items as Json[]

    const editor = await patch(flat, {
      price_m2: '20000.00',
      price_total: '1282000.00',
      price_m2_from: '2026-10-15',
      price_total_from: '2026-10-15',
    })
    expect(editor.statusCode).toBe(422)
    const issues = editor.json().issues as Json[]
    expect(issues.map((i) => [i.field, i.code])).toEqual([
      ['price_total_from', 'price_date_published'],
      ['price_m2_from', 'price_date_published'],
    ])
    expect(issues[0]?.message).toMatch(
      /15\.10\.2026 jest objęty opublikowanymi już plikami.*02\.11\.2026.*Podaj datę od 02\.11\.2026/,
    )
    expect((await call('GET', `/offers/${flat.id as number}/price-history`)).json().items).toEqual(historyBefore)

    // an import preview shows the date the change will take
    const header = 'source_investment_id;source_property_id;price_m2;price_m2_from;price_total;price_total_from'
    const mapping = Object.fromEntries(header.split(';').map((name) => [name, name]))
    const file = multipart(
      { mode: 'patch', mapping: JSON.stringify(mapping) },
      {
        name: 'ceny.csv',
        content: `${header}\n${sourceInvestmentId};ZT-A-1.02;20000.00;2026-11-01;1282000.00;2026-11-01\n`,
      },
    )
    const preview = await call('POST', '/imports/offer', file.payload, file.headers)
    expect(preview.statusCode, preview.body).toBe(200)
    expect(preview.json().preview.operations[0].values).toMatchObject({
      price_m2_from: '2026-11-02',
      price_total_from: '2026-11-02',
    })

    const crm = await webhook(
      {
        source_investment_id: sourceInvestmentId,
        source_property_id: 'ZT-A-1.02',
        price_m2: '20000.00',
        price_m2_from: '2026-10-15',
        price_total: '1282000.00',
        price_total_from: '2026-10-15',
      },
      'backdated-1',
    )
    expect(crm.statusCode, crm.body).toBe(202)
    const history = (await call('GET', `/offers/${flat.id as number}/price-history`)).json().items as Json[]
    expect(history.filter((i) => i.price_type === 'm2').at(-1)).toMatchObject({
      valid_from: '2026-11-02',
      reason: expect.stringMatching(/2026-10-15.*opublikowany.*2026-11-02/),
    })

    // the first file of 02.11 and the file of 01.11 still say what they said; the new version of
    // 02.11 and the next day's file show the change from 02.11, never from 15.10
    const firstOfSecond = (await publicationStore(env.ctx).currentManifest())?.days.find((d) => d.date === '2026-11-02')
    await publishDay('2026-11-02')
    const served = async (md5: string) =>
      parse(await fs.readFile(publicationStore(env.ctx).csvPath(md5)), { delimiter: ';', from_line: 2 }) as string[][]
    expect(
      rowOf(await served(firstOfSecond?.md5 as string), 'A/1.02')?.slice(COL.price_m2, COL.price_m2_from + 1),
    ).toEqual(['21100.00', '2026-02-16'])
    expect(rowOf(await fileOf('2026-11-01'), 'A/1.02')?.slice(COL.price_m2, COL.price_m2_from + 1)).toEqual([
      '21100.00',
      '2026-02-16',
    ])
    at('2026-11-03')
    await publishDay('2026-11-03')
    for (const day of ['2026-11-02', '2026-11-03'])
      expect(rowOf(await fileOf(day), 'A/1.02')?.slice(COL.price_m2, COL.price_m2_from + 1)).toEqual([
        '20000.00',
        '2026-11-02',
      ])
  })

  it('a change dated today after today’s file is a new version of today; a missed day after the last published one stays open', async () => {
    at('2026-11-03')
    let flat = await offerByCode('A/1.02')
    const today = await patch(flat, { price_m2: '21000.00', price_total: '1346100.00' })
    expect(today.statusCode, today.body).toBe(200)
    await publishDay('2026-11-03')
    expect(rowOf(await fileOf('2026-11-03'), 'A/1.02')?.slice(COL.price_m2, COL.price_m2_from + 1)).toEqual([
      '21000.00',
      '2026-11-03',
    ])

    // 04.11 and 05.11 were never published: a change dated 05.11 entered on 06.11 changes no file
    at('2026-11-06')
    flat = await offerByCode('A/1.02')
    const missed = await patch(flat, {
      price_m2: '20900.00',
      price_total: '1339690.00',
      price_m2_from: '2026-11-05',
      price_total_from: '2026-11-05',
    })
    expect(missed.statusCode, missed.body).toBe(200)
    const onThird = await patch(missed.json(), {
      price_m2: '20800.00',
      price_total: '1333280.00',
      price_m2_from: '2026-11-03',
      price_total_from: '2026-11-03',
    })
    expect(onThird.statusCode).toBe(422)
    expect(onThird.json().issues[0].message).toMatch(/ostatni opublikowany dzień: 03\.11\.2026.*od 04\.11\.2026/)
  })

  it('both prices entered with different dates must agree on the days between them, at the field', async () => {
    at('2026-11-06')
    const flat = await offerByCode('A/0.01')
    const split = await patch(flat, {
      price_m2: '22000.00',
      price_total: '994400.00',
      price_m2_from: '2026-11-09',
      price_total_from: '2026-11-07',
    })
    expect(split.statusCode).toBe(422)
    expect(split.json().issues).toEqual([
      expect.objectContaining({ field: 'price_total_from', code: 'inconsistent_price_dates' }),
    ])
    expect(split.json().issues[0].message).toMatch(/od 07\.11\.2026 do dnia przed 09\.11\.2026.*tę samą datę/)
    const same = await patch(flat, {
      price_m2: '22000.00',
      price_total: '994400.00',
      price_m2_from: '2026-11-09',
      price_total_from: '2026-11-09',
    })
    expect(same.statusCode, same.body).toBe(200)
  })

  it('a part belongs to one unit or is offered on its own: never listed twice', async () => {
    at('2026-11-06')
    const other = await offerByCode('A/1.02')
    // KL 3 is listed with A/1.01
    const listedTwice = await call(
      'POST',
      `/offers/${other.id as number}/components`,
      { kind: 'storage_room', designation: 'KL 3', price: '18000.00' },
      { 'if-match': other.version as string },
    )
    expect(listedTwice.statusCode).toBe(422)
    expect(listedTwice.json().issues).toEqual([
      expect.objectContaining({ field: 'components[0].designation', code: 'part_already_listed' }),
    ])
    expect(listedTwice.json().issues[0].message).toMatch(/przypisane do lokalu A\/1\.01/)
    // MP 24 is offered on its own
    const standalone = await call(
      'POST',
      `/offers/${other.id as number}/components`,
      { kind: 'parking_space', designation: 'mp24', price: '85000.00' },
      { 'if-match': other.version as string },
    )
    expect(standalone.statusCode).toBe(422)
    expect(standalone.json().issues[0].message).toMatch(/oferowane osobno/)
    // and a standalone part cannot take the designation of a part listed with a unit
    const investmentId = other.investment_id as number
    const parking = await call('POST', '/offers', {
      investment_id: investmentId,
      prop_no: 'MP 12',
      prop_type: 'parking_space',
      offer_kind: 'standalone_part',
      price_total: '65000.00',
    })
    expect(parking.statusCode).toBe(422)
    expect(parking.json().issues).toEqual([expect.objectContaining({ field: 'prop_no', code: 'part_already_listed' })])
    // a new designation is fine
    const fresh = await call(
      'POST',
      `/offers/${other.id as number}/components`,
      { kind: 'storage_room', designation: 'KL 30', price: '15000.00' },
      { 'if-match': other.version as string },
    )
    expect(fresh.statusCode, fresh.body).toBe(201)

    // a part listed twice before this rule (written around the editor) is named before publishing
    const now = env.clock.now().toISOString()
    await env.ctx.db
      .insertInto('offer_components')
      .values({
        offer_id: other.id as number,
        position: 99,
        group_kind: 'part',
        kind_label: 'Miejsce postojowe',
        designation: 'MP 24',
        price_cents: 8_500_000,
        price_from: '2026-11-06',
        created_at: now,
        modified_at: now,
      })
      .execute()
    const preflight = (await call('POST', '/publications/preflight', { date: '2026-11-06' })).json()
    const twice = (preflight.warnings as Json[]).find((w) => w.code === 'part_listed_twice')
    expect(twice?.details.parts).toEqual([
      expect.objectContaining({ designation: 'MP 24', units: expect.arrayContaining(['MP 24', 'A/1.02']) }),
    ])
    expect(twice?.message).toMatch(/MP 24 \(.*A\/1\.02.*\)/)
  })

  it('every status change is a record of the status ledger, with the run and the reason, never rewritten', async () => {
    at('2026-11-07')
    const flat = await offerByCode('A/2.01')
    const sold = await patch(flat, { property_status: 'sold', reason: 'Umowa deweloperska podpisana' })
    expect(sold.statusCode, sold.body).toBe(200)
    const crm = await webhook(
      { source_investment_id: sourceInvestmentId, source_property_id: 'ZT-A-2.01', property_status: 'reserved' },
      'status-1',
    )
    expect(crm.statusCode, crm.body).toBe(202)
    const ledger = await env.ctx.db
      .selectFrom('status_history')
      .select(['before_status', 'after_status', 'valid_from', 'reason', 'run_id'])
      .where('offer_id', '=', flat.id as number)
      .orderBy('id')
      .execute()
    expect(ledger).toEqual([
      expect.objectContaining({
        before_status: 'available',
        after_status: 'sold',
        valid_from: '2026-11-07',
        reason: 'Umowa deweloperska podpisana',
      }),
      expect.objectContaining({
        before_status: 'sold',
        after_status: 'reserved',
        valid_from: '2026-11-07',
        reason: '',
      }),
    ])
    expect(ledger.every((record) => record.run_id !== null)).toBe(true)
    await expect(env.ctx.db.deleteFrom('status_history').execute()).rejects.toThrow(/append-only/)
  })
})
