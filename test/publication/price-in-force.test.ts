/*
 * "The price in force on day D" as a lawyer and a harvester read it, with a clock moved over
 * several days: a price entered ahead is an announcement until its date (panel, history, catalog,
 * file), and becomes the price of the file, the catalog and the website on its date without any
 * write; every file passes the invariants as it is written, whatever produced it; column 42 is
 * computed or refused; a change dated before the first price is refused; offered units never
 * drop out of the file unseen.
 */
import fs from 'node:fs/promises'

import { parse } from 'csv-parse/sync'
import fc from 'fast-check'
import { beforeAll, describe, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { nextAnnounced, priceInForce } from '../../src/offers/price-in-force.js'
import { readDailyOffers } from '../../src/publication/daily-file/collect-daily-input.js'
import { OFFICIAL_COLUMN_INDEX, OFFICIAL_HEADER_LINE } from '../../src/publication/daily-file/official-columns.js'
import { runScheduledPublication } from '../../src/publication/publication-schedule.js'
import { publicationStore } from '../../src/publication/publication-store.js'
import { publish } from '../../src/publication/publishing/publish.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'
const COL = OFFICIAL_COLUMN_INDEX
type Json = Record<string, any>

describeEachDatabase('the price in force on the day', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let reader: TestUser
  let investmentId: number

  const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: unknown, headers = {}) =>
    env.app.inject({
      method,
      url: `${API}${url}`,
      ...(payload === undefined ? {} : { payload: payload as Json }),
      headers: { authorization: admin.authorization, ...headers },
    })
  const catalog = (url: string) =>
    env.app.inject({ method: 'GET', url: `${API}/catalog${url}`, headers: { authorization: reader.authorization } })
  const at = (date: string) => env.clock.set(`${date}T10:00:00Z`)

  async function createFlat(fields: Json = {}): Promise<Json> {
    const created = await call('POST', '/offers', {
      investment_id: investmentId,
      prop_no: `P/${Math.random().toString(36).slice(2, 8)}`,
      prop_type: 'mieszkanie',
      property_status: 'available',
      prop_area: '100.00',
      prop_rooms: 3,
      price_m2: '5000.00',
      price_m2_from: '2026-11-01',
      price_total: '500000.00',
      price_total_from: '2026-11-01',
      ...fields,
    })
    expect(created.statusCode, created.body).toBe(201)
    return created.json()
  }

  const patch = (offer: Json, body: Json) =>
    call('PATCH', `/offers/${offer.id as number}`, body, { 'if-match': offer.version as string })

  /** The rows of the latest file of a day, by property code (column 37) or part designation (45). */
  async function fileOf(date: string): Promise<string[][]> {
    const manifest = await publicationStore(env.ctx).currentManifest()
    const entry = manifest?.days.filter((d) => d.date === date).at(-1)
    if (!entry) throw new Error(`no file of ${date}`)
    const csv = await fs.readFile(publicationStore(env.ctx).csvPath(entry.md5))
    return parse(csv, { delimiter: ';', from_line: 2 }) as string[][]
  }
  const rowOf = (rows: string[][], code: string) => rows.find((r) => r[COL.property_code] === code)

  beforeAll(async () => {
    env = getEnv()
    at('2026-11-28')
    await setUpDemo(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    investmentId = (
      await env.ctx.db
        .selectFrom('investments')
        .select('id')
        .where('host_status', '=', 'publish')
        .orderBy('id')
        .executeTakeFirstOrThrow()
    ).id
  })

  it('an announced price is shown as announced until its date, then is the price of the catalog and the file without a write', async () => {
    at('2026-11-28')
    const flat = await createFlat()
    const announced = await patch(flat, {
      price_total: '519000.00',
      price_m2: '5190.00',
      price_total_from: '2026-12-01',
      price_m2_from: '2026-12-01',
      reason: 'Cennik od grudnia',
    })
    expect(announced.statusCode, announced.body).toBe(200)

    // the editor: the stored price is the announcement, the price in force is the one before it
    const view = (await call('GET', `/offers/${flat.id}`)).json()
    expect(view.in_force).toMatchObject({
      day: '2026-11-28',
      price_total: {
        amount: '500000.00',
        from: '2026-11-01',
        announced: true,
        next: { amount: '519000.00', from: '2026-12-01' },
      },
      price_m2: {
        amount: '5000.00',
        from: '2026-11-01',
        announced: true,
        next: { amount: '5190.00', from: '2026-12-01' },
      },
    })
    const history = (await call('GET', `/offers/${flat.id}/price-history`)).json().items as Json[]
    expect(history.filter((i) => i.price_type === 'total').map((i) => [i.valid_from, i.announced])).toEqual([
      ['2026-11-01', false],
      ['2026-12-01', true],
    ])

    // the catalog (and so the website) shows the price in force; asked twice to fill its cache
    for (let i = 0; i < 2; i++) {
      const shown = (await catalog(`/properties/${flat.id}`)).json()
      expect(shown.offer).toMatchObject({ price_cents: 50_000_000, price_m2_cents: 500_000, price_date: '01.11.2026' })
      expect(shown.price).toMatchObject({ cents: 50_000_000, valid_from: '2026-11-01' })
    }

    // today's file carries the price in force, never the announced one
    const preflight = (await call('POST', '/publications/preflight', { date: '2026-11-28' })).json()
    expect(preflight.issues.filter((i: Json) => i.code.startsWith('invariant_'))).toEqual([])
    expect((await call('POST', '/publications', { date: '2026-11-28' })).statusCode).toBe(200)
    const today = rowOf(await fileOf('2026-11-28'), flat.prop_no)
    expect(today?.slice(COL.price_m2, COL.price_total_from + 1)).toEqual([
      '5000.00',
      '2026-11-01',
      '500000.00',
      '2026-11-01',
    ])

    // 30.11: still the old price; 01.12: the announced one, with no write in between
    at('2026-11-30')
    expect((await catalog(`/properties/${flat.id}`)).json().offer.price_cents).toBe(50_000_000)
    at('2026-12-01')
    const revision = (await env.ctx.db.selectFrom('catalog_state').select('revision').executeTakeFirstOrThrow())
      .revision
    expect((await catalog(`/properties/${flat.id}`)).json().offer).toMatchObject({
      price_cents: 51_900_000,
      price_date: '01.12.2026',
    })
    const list = (await catalog(`/properties?per_page=100`)).json() as Json[]
    expect(list.find((o) => o.id === flat.id)?.price_cents).toBe(51_900_000)
    const view2 = (await call('GET', `/offers/${flat.id}`)).json()
    expect(view2.in_force.price_total).toEqual({
      amount: '519000.00',
      from: '2026-12-01',
      announced: false,
      next: null,
    })
    expect((await runScheduledPublication(env.ctx, { force: true })).toString()).toBe('published')
    expect(rowOf(await fileOf('2026-12-01'), flat.prop_no)?.slice(COL.price_m2, COL.price_total_from + 1)).toEqual([
      '5190.00',
      '2026-12-01',
      '519000.00',
      '2026-12-01',
    ])
    expect((await env.ctx.db.selectFrom('catalog_state').select('revision').executeTakeFirstOrThrow()).revision).toBe(
      revision,
    )
  })

  it('lists filter and order by the price in force, not by an announced one: catalog, editor and export', async () => {
    at('2026-11-28')
    const tag = `PF${Math.random().toString(36).slice(2, 7)}`
    const cheap = await createFlat({
      prop_no: `${tag}/A`,
      source_property_id: `${tag}-A`,
      price_total: '512345.67',
      price_m2: '5123.46',
    })
    const dear = await createFlat({
      prop_no: `${tag}/B`,
      source_property_id: `${tag}-B`,
      price_total: '712345.67',
      price_m2: '7123.46',
    })
    const announced = await patch(cheap, {
      price_total: '912345.67',
      price_total_from: '2026-12-01',
      price_m2: '9123.46',
      price_m2_from: '2026-12-01',
      reason: 'Cennik od grudnia',
    })
    expect(announced.statusCode, announced.body).toBe(200)
    const ids = (items: Json[]) => items.map((o) => o.id as number)

    const listed = async () => ({
      // narrowed by a search (the match set), and over the whole catalog by a band no demo offer is in
      aboveSearch: ids((await catalog(`/properties?search=${tag}&price_min=60000000`)).json()),
      band: ids((await catalog(`/properties?price_min=51234567&price_max=51234567`)).json()),
      ordered: ids((await catalog(`/properties?search=${tag}&orderby=price&order=ASC`)).json()),
      editorAbove: ids((await call('GET', `/offers?search=${tag}&price_min=60000000`)).json()),
      editorOrdered: ids((await call('GET', `/offers?search=${tag}&orderby=price&order=asc`)).json()),
      exported: (await call('GET', `/offers/export?format=csv&search=${tag}&price_max=60000000`)).body,
    })

    // 28.11: the cheap flat costs 512 345,67 until 01.12 (asked twice: the second answer from the caches)
    for (let i = 0; i < 2; i++) {
      const now = await listed()
      expect(now.aboveSearch).toEqual([dear.id])
      expect(now.band).toEqual([cheap.id])
      expect(now.ordered).toEqual([cheap.id, dear.id])
      expect(now.editorAbove).toEqual([dear.id])
      expect(now.editorOrdered).toEqual([cheap.id, dear.id])
      expect(now.exported).toContain(`${tag}/A`)
      expect(now.exported).not.toContain(`${tag}/B`)
    }

    // 01.12, without a write: the announced price is the listed one
    at('2026-12-01')
    const then = await listed()
    expect(then.aboveSearch.sort()).toEqual([cheap.id, dear.id].sort())
    expect(then.band).toEqual([])
    expect(then.ordered).toEqual([dear.id, cheap.id])
    expect(then.editorAbove.sort()).toEqual([cheap.id, dear.id].sort())
    expect(then.editorOrdered).toEqual([dear.id, cheap.id])
    expect(then.exported).not.toContain(`${tag}/A`)
  })

  it('a change dated before a pending announcement leaves it announced, shown beside the new price, and in force on its date', async () => {
    at('2026-11-28')
    const flat = await createFlat()
    const announced = await patch(flat, {
      price_total: '519000.00',
      price_m2: '5190.00',
      price_total_from: '2026-12-01',
      price_m2_from: '2026-12-01',
      reason: 'Cennik od grudnia',
    })
    expect(announced.statusCode, announced.body).toBe(200)
    const changed = await patch(announced.json(), {
      price_total: '505000.00',
      price_m2: '5050.00',
      price_total_from: '2026-11-28',
      price_m2_from: '2026-11-28',
      reason: 'Promocja do końca miesiąca',
    })
    expect(changed.statusCode, changed.body).toBe(200)
    const view = (await call('GET', `/offers/${flat.id}`)).json()
    expect(view.in_force.price_total).toEqual({
      amount: '505000.00',
      from: '2026-11-28',
      announced: true,
      next: { amount: '519000.00', from: '2026-12-01' },
    })
    const listed = (await call('GET', `/offers?search=${encodeURIComponent(flat.prop_no as string)}`)).json() as Json[]
    expect(listed[0]?.in_force.price_total.next).toEqual({ amount: '519000.00', from: '2026-12-01' })
    expect((await catalog(`/properties/${flat.id}`)).json().offer.price_cents).toBe(50_500_000)
    at('2026-12-01')
    expect((await catalog(`/properties/${flat.id}`)).json().offer.price_cents).toBe(51_900_000)
    expect((await call('GET', `/offers/${flat.id}`)).json().in_force.price_total).toEqual({
      amount: '519000.00',
      from: '2026-12-01',
      announced: false,
      next: null,
    })
  })

  it('a bulk price change starts from the price in force on its date, not from a price announced after it', async () => {
    at('2026-11-28')
    const tag = `BP${Math.random().toString(36).slice(2, 7)}`
    const flat = await createFlat({ prop_no: `${tag}/A`, source_property_id: `${tag}-A` })
    const announced = await patch(flat, {
      price_total: '600000.00',
      price_total_from: '2026-12-01',
      price_m2: '6000.00',
      price_m2_from: '2026-12-01',
      reason: 'Cennik od grudnia',
    })
    expect(announced.statusCode, announced.body).toBe(200)
    const plan = async (validFrom: string) => {
      const planned = await call('POST', '/offers/price-change/preview', {
        offer_ids: [flat.id],
        percent: '10',
        rounding: 'zloty',
        valid_from: validFrom,
        reason: 'Waloryzacja',
      })
      expect(planned.statusCode, planned.body).toBe(200)
      return (planned.json().lines as Json[]).map((l) => [l.before_total, l.after_total])
    }
    expect(await plan('2026-11-29')).toEqual([['500000.00', '550000.00']])
    expect(await plan('2026-12-01')).toEqual([['600000.00', '660000.00']])
  })

  it('refuses, in the pipeline, a file with a price dated after its day or a combined price below the total, naming the day and the unit', async () => {
    at('2026-12-02')
    const row = (fields: Record<string, string>) => {
      const cells = new Array<string>(58).fill('X')
      cells[COL.developer_name] = 'Deweloper'
      cells[COL.loc_city] = 'Warszawa'
      cells[COL.property_type] = 'Lokal mieszkalny'
      for (const [key, value] of Object.entries(fields)) cells[COL[key as keyof typeof COL]] = value
      return cells.join(';')
    }
    const given = (line: string) => ({
      fileName: 'ceny-ofertowe-mieszkan-dewelopera-test-2026-12-02.csv',
      content: Buffer.from(`${OFFICIAL_HEADER_LINE}\n${line}\n`, 'utf8'),
      rows: 1,
    })
    const late = await publish(env.ctx, {
      date: '2026-12-02',
      trigger: 'report_import',
      actor: { type: 'cli' },
      csv: given(
        row({
          property_code: 'R/1',
          price_m2: '5000.00',
          price_m2_from: '2026-12-01',
          price_total: '500000.00',
          price_total_from: '2026-12-10',
        }),
      ),
    }).catch((error: unknown) => error)
    expect(late).toMatchObject({
      status: 422,
      extra: {
        issues: expect.arrayContaining([
          expect.objectContaining({
            code: 'invariant_price_date_after_day',
            details: expect.objectContaining({ day: '2026-12-02', unit: 'R/1', column: 41, valid_from: '2026-12-10' }),
          }),
        ]),
      },
    })
    const below = await publish(env.ctx, {
      date: '2026-12-02',
      trigger: 'report_import',
      actor: { type: 'cli' },
      csv: given(
        row({
          property_code: 'R/2',
          price_m2: '5000.00',
          price_m2_from: '2026-12-01',
          price_total: '500000.00',
          price_total_from: '2026-12-01',
          price_combined: '400000.00',
          price_combined_from: '2026-12-01',
        }),
      ),
    }).catch((error: unknown) => error)
    expect(below).toMatchObject({
      status: 422,
      extra: { issues: [expect.objectContaining({ code: 'invariant_combined_below_total' })] },
    })
    expect((below as { extra: { issues: Json[] } }).extra.issues[0]?.message).toMatch(/2026-12-02.*R\/2/)

    // a package price below the total written around the write path is never published: column 42
    // falls back to the derived price (here X: no part) and the package is named
    const flat = await createFlat()
    await env.ctx.db
      .updateTable('offers')
      .set({ price_combined_cents: 40_000_000, price_combined_from: '2026-11-01' })
      .where('id', '=', flat.id as number)
      .execute()
    const preflight = (await call('POST', '/publications/preflight', { date: '2026-12-02' })).json()
    expect(preflight.issues.filter((i: Json) => i.code === 'invariant_combined_below_total')).toEqual([])
    expect(
      (preflight.warnings as Json[]).find((w) => w.code === 'price_combined_package_held')?.details.offers,
    ).toEqual(expect.arrayContaining([{ id: flat.id, code: flat.prop_no, package_cents: 40_000_000, cents: null }]))
    await env.ctx.db
      .updateTable('offers')
      .set({ price_combined_cents: null, price_combined_from: null })
      .where('id', '=', flat.id as number)
      .execute()
  })

  it('column 42 is the total plus the parts as in force on the day; a package price holds until the total or a part changes after it, then is set aside and named', async () => {
    at('2026-12-03')
    const flat = await createFlat()
    const refused = await patch(flat, { price_combined: '450000.00', price_combined_from: '2026-12-03' })
    expect(refused.statusCode).toBe(422)
    expect(refused.body).toContain('combined_below_total')

    const withPart = await call(
      'POST',
      `/offers/${flat.id}/components`,
      {
        group: 'part',
        kind_label: 'Miejsce postojowe',
        designation: 'MP 99',
        price: '40000.00',
        price_from: '2026-12-03',
        version: flat.version,
      },
      { 'if-match': flat.version as string },
    )
    expect([200, 201], withPart.body).toContain(withPart.statusCode)
    // derived, not a warning: the file needs nothing stored
    const heldIds = (warnings: Json[]) =>
      ((warnings.find((w) => w.code === 'price_combined_package_held')?.details.offers ?? []) as Json[]).map(
        (o) => o.id,
      )
    let preflight = (await call('POST', '/publications/preflight', { date: '2026-12-03' })).json()
    expect(heldIds(preflight.warnings)).not.toContain(flat.id)
    expect((await call('POST', '/publications', { date: '2026-12-03' })).statusCode).toBe(200)
    let main = rowOf(await fileOf('2026-12-03'), flat.prop_no)
    expect(main?.slice(COL.price_combined, COL.price_combined_from + 1)).toEqual(['540000.00', '2026-12-03'])

    // a package price the operator sets holds while nothing changed after it
    let current = (await call('GET', `/offers/${flat.id}`)).json()
    const packaged = await patch(current, { price_combined: '530000.00', reason: 'Pakiet z miejscem postojowym' })
    expect(packaged.statusCode, packaged.body).toBe(200)
    expect(packaged.json().in_force.price_combined).toMatchObject({
      amount: '530000.00',
      from: '2026-12-03',
      source: 'package',
      held_package: null,
    })
    expect((await call('POST', '/publications', { date: '2026-12-03' })).statusCode).toBe(200)
    main = rowOf(await fileOf('2026-12-03'), flat.prop_no)
    expect(main?.slice(COL.price_combined, COL.price_combined_from + 1)).toEqual(['530000.00', '2026-12-03'])

    // the next day the total rises above the package: accepted (never blocked by a stale package),
    // column 42 is the new total plus the part, and the package is named until it is set again
    at('2026-12-04')
    current = (await call('GET', `/offers/${flat.id}`)).json()
    const raised = await patch(current, { price_total: '550000.00', price_m2: '5500.00' })
    expect(raised.statusCode, raised.body).toBe(200)
    expect(raised.json().in_force.price_combined).toMatchObject({
      amount: '590000.00',
      from: '2026-12-04',
      source: 'derived',
      held_package: { amount: '530000.00', from: '2026-12-03' },
    })
    preflight = (await call('POST', '/publications/preflight', { date: '2026-12-04' })).json()
    const held = (preflight.warnings as Json[]).find((w) => w.code === 'price_combined_package_held')
    expect(held?.details.offers).toEqual(
      expect.arrayContaining([{ id: flat.id, code: flat.prop_no, package_cents: 53_000_000, cents: 59_000_000 }]),
    )
    expect(held?.message).toMatch(/Cena z elementami dodatkowymi/)
    expect((await call('POST', '/publications', { date: '2026-12-04' })).statusCode).toBe(200)
    main = rowOf(await fileOf('2026-12-04'), flat.prop_no)
    expect(main?.slice(COL.price_total, COL.price_total_from + 1)).toEqual(['550000.00', '2026-12-04'])
    expect(main?.slice(COL.price_combined, COL.price_combined_from + 1)).toEqual(['590000.00', '2026-12-04'])
    // the file of 03.12 is what it was
    main = rowOf(await fileOf('2026-12-03'), flat.prop_no)
    expect(main?.slice(COL.price_combined, COL.price_combined_from + 1)).toEqual(['530000.00', '2026-12-03'])

    // a part's price change sets the package aside too; the part dated today moves column 42's date
    current = (await call('GET', `/offers/${flat.id}`)).json()
    const part = (current.components as Json[])[0] as Json
    const repackaged = await patch(current, { price_combined: '585000.00' })
    expect(repackaged.statusCode, repackaged.body).toBe(200)
    expect(repackaged.json().in_force.price_combined).toMatchObject({ amount: '585000.00', source: 'package' })
    current = repackaged.json()
    at('2026-12-05')
    const partRaised = await call(
      'PATCH',
      `/offers/${flat.id}/components/${part.id as number}`,
      { price: '45000.00', version: current.version },
      { 'if-match': current.version as string },
    )
    expect([200], partRaised.body).toContain(partRaised.statusCode)
    const view = (await call('GET', `/offers/${flat.id}`)).json()
    expect(view.in_force.price_combined).toMatchObject({
      amount: '595000.00',
      from: '2026-12-05',
      source: 'derived',
      held_package: { amount: '585000.00', from: '2026-12-04' },
    })
  })

  it('dates a record by the Warsaw day it was written: a price entered at 00:17 on 08.12 is recorded on 08.12, in both histories', async () => {
    env.clock.set('2026-12-07T23:17:00Z')
    const flat = await createFlat()
    const changed = await patch(flat, { price_total: '510000.00', price_m2: '5100.00' })
    expect(changed.statusCode, changed.body).toBe(200)
    const latest = (items: Json[]) => items.filter((i) => i.price_type === 'total').at(-1)
    const editorItems = (await call('GET', `/offers/${flat.id as number}/price-history`)).json().items as Json[]
    expect(latest(editorItems)).toMatchObject({ valid_from: '2026-12-08', recorded_at: '2026-12-08' })
    const catalogItems = (await catalog(`/properties/${flat.id as number}/price-history`)).json().items as Json[]
    expect(latest(catalogItems)).toMatchObject({ valid_from: '2026-12-08', recorded_at: '2026-12-08' })
  })

  it('refuses a plain price change dated before the first price record, in the editor and in an import plan; a correction may', async () => {
    // days after every file the other cases publish: the dates below are on no published day
    at('2027-03-20')
    const flat = await createFlat({ price_total_from: '2027-03-15', price_m2_from: '2027-03-15' })
    const early = await patch(flat, {
      price_total: '510000.00',
      price_m2: '5100.00',
      price_total_from: '2027-03-10',
      price_m2_from: '2027-03-10',
    })
    expect(early.statusCode).toBe(422)
    expect(early.body).toContain('price_before_first_record')
    expect(early.json().message ?? early.body).toBeTruthy()
    expect(early.body).toMatch(/wcześniejsza niż pierwsza zapisana cena/)
    const corrected = await patch(flat, {
      price_total: '510000.00',
      price_m2: '5100.00',
      price_total_from: '2027-03-10',
      price_m2_from: '2027-03-10',
      correction: true,
      reason: 'Błędna data pierwszej ceny',
    })
    expect(corrected.statusCode, corrected.body).toBe(200)

    // the same rule for a CRM's import (the planner the webhook shares)
    const { planOffers } = await import('../../src/offers/offer-planner.js')
    const { validateOfferRow } = await import('../../src/offers/validation/validate-offer-row.js')
    const sourced = await createFlat({
      source_property_id: 'FIRST-1',
      price_total_from: '2027-03-15',
      price_m2_from: '2027-03-15',
    })
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select('source_id')
      .where('id', '=', investmentId)
      .executeTakeFirstOrThrow()
    let sourceInvestment = investment.source_id
    if (sourceInvestment === null) {
      sourceInvestment = 'INV-FIRST'
      await env.ctx.db
        .updateTable('investments')
        .set({ source_id: sourceInvestment })
        .where('id', '=', investmentId)
        .execute()
    }
    const validated = validateOfferRow(
      {
        source_investment_id: sourceInvestment,
        source_property_id: 'FIRST-1',
        price_total: '520000.00',
        price_total_from: '2027-03-09',
        price_m2: '5200.00',
        price_m2_from: '2027-03-09',
      },
      { row: 2, mode: 'patch' },
    )
    expect(validated.errors).toEqual([])
    const plan = await planOffers(env.ctx.db, [{ row: 2, values: validated.values }], {
      mode: 'patch',
      today: '2027-03-20',
    })
    expect(plan.errors).toEqual([
      expect.objectContaining({ row: 2, field: 'price_total_from', code: 'price_before_first_record' }),
    ])
    expect(plan.operations.filter((op) => op.offerId === sourced.id)).toEqual([])
  })

  it('names every offered unit the file leaves out or shows without a price, in the preflight, the outcome and /status', async () => {
    at('2026-12-05')
    const m2Alone = await createFlat()
    const withdrawn = await patch(m2Alone, { price_m2: null })
    expect(withdrawn.statusCode, withdrawn.body).toBe(200)
    const draft = await createFlat()
    const hidden = await patch(draft, { host_status: 'draft' })
    expect(hidden.statusCode, hidden.body).toBe(200)

    const preflight = (await call('POST', '/publications/preflight', { date: '2026-12-05' })).json()
    const byCode = (code: string) => (preflight.warnings as Json[]).find((w) => w.code === code)
    expect(byCode('offer_price_m2_missing')?.details.offers).toEqual(
      expect.arrayContaining([{ id: m2Alone.id, code: m2Alone.prop_no }]),
    )
    expect(byCode('offer_price_m2_missing')?.message).toMatch(/38–39/)
    expect(byCode('offers_hidden_in_draft')?.details.offers).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: draft.id, code: draft.prop_no })]),
    )
    const published = await call('POST', '/publications', { date: '2026-12-05' })
    expect(published.statusCode).toBe(200)
    expect(published.json().gaps).toMatchObject({ offers_without_price_m2: 1, offers_hidden_in_draft: 1 })
    expect((await call('GET', '/status')).json().last_publication.gaps).toMatchObject({
      offers_without_price_m2: 1,
      offers_hidden_in_draft: 1,
    })
    expect(rowOf(await fileOf('2026-12-05'), m2Alone.prop_no)?.slice(COL.price_m2, COL.price_m2_from + 1)).toEqual([
      'X',
      'X',
    ])

    // published statuses that leave out units on sale
    at('2026-12-06')
    await updatePublicationSettings(env.ctx, { published_statuses: ['reserved'] }, { type: 'cli' })
    try {
      const narrowed = (await call('POST', '/publications/preflight', { date: '2026-12-06' })).json()
      const leftOut = (narrowed.warnings as Json[]).find((w) => w.code === 'offers_left_out_by_status')
      expect(leftOut?.details.count).toBeGreaterThan(5)
      expect(leftOut?.details.offers).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: m2Alone.id, status: 'available' })]),
      )
      // the operator is told where to fix it, by the field's Polish label, not its code
      expect(leftOut?.message).toMatch(/Oferty w pliku dnia/)
      expect(leftOut?.message).not.toMatch(/published_statuses/)
      // the available unit hidden as a draft is still named, although its status is not published
      const drafts = (narrowed.warnings as Json[]).find((w) => w.code === 'offers_hidden_in_draft')
      expect(drafts?.details.offers).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: draft.id, status: 'available' })]),
      )
      expect(drafts?.message).toMatch(/„Status publikacji” na „opublikowana”/)
    } finally {
      await updatePublicationSettings(env.ctx, { published_statuses: ['available', 'reserved'] }, { type: 'cli' })
    }
  })

  it('property: for generated histories of future, past and corrected records, the file of any day lists the latest record valid that day', async () => {
    at('2026-11-15')
    const developer = await env.ctx.db.selectFrom('developers').selectAll().orderBy('id').executeTakeFirstOrThrow()
    const dayNumber = (date: string) =>
      Math.round((Date.parse(`${date}T00:00:00Z`) - Date.UTC(2026, 9, 1)) / 86_400_000)
    const dayOf = (n: number) => new Date(Date.UTC(2026, 9, 1 + n)).toISOString().slice(0, 10)
    // a change dated on a published day before today is refused whatever else holds (closed-day.ts)
    const lastPublished = (
      await env.ctx.db
        .selectFrom('publications')
        .select((eb) => eb.fn.max<string>('publication_date').as('day'))
        .where('status', '=', 'published')
        .executeTakeFirstOrThrow()
    ).day
    const closed = (n: number) => dayOf(n) < '2026-11-15' && lastPublished !== null && dayOf(n) <= lastPublished
    const op = fc.record({
      m2: fc.integer({ min: 3000, max: 9000 }),
      day: fc.integer({ min: 0, max: 90 }),
      correction: fc.boolean(),
    })
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 60 }),
        fc.array(op, { minLength: 1, maxLength: 6 }),
        async (first, ops) => {
          let flat = await createFlat({
            price_m2: '4000.00',
            price_total: '400000.00',
            price_m2_from: dayOf(first),
            price_total_from: dayOf(first),
          })
          // the earliest recorded date: a correction may move it earlier, a plain change may not
          let earliest = first
          for (const o of ops) {
            const changed = await patch(flat, {
              price_m2: `${o.m2}.00`,
              price_total: `${o.m2 * 100}.00`,
              price_m2_from: dayOf(o.day),
              price_total_from: dayOf(o.day),
              ...(o.correction ? { correction: true } : {}),
            })
            if (o.day < earliest && !o.correction) {
              expect(changed.statusCode).toBe(422)
              expect(changed.body).toContain('price_before_first_record')
              continue
            }
            if (closed(o.day)) {
              expect(changed.statusCode).toBe(422)
              expect(changed.body).toContain('price_date_published')
              continue
            }
            expect([200], changed.body).toContain(changed.statusCode)
            flat = changed.json()
            // a correction that moves only the date leaves no record: the records say what is first
            const firstRecord = await env.ctx.db
              .selectFrom('price_history')
              .select((eb) => eb.fn.min<string>('valid_from').as('first'))
              .where('offer_id', '=', flat.id as number)
              .where('price_type', '=', 'total')
              .where('component_id', 'is', null)
              .executeTakeFirstOrThrow()
            earliest = dayNumber(firstRecord.first)
          }
          const history = await env.ctx.db
            .selectFrom('price_history')
            .select(['id', 'after_cents', 'valid_from'])
            .where('offer_id', '=', flat.id as number)
            .where('price_type', '=', 'total')
            .where('component_id', 'is', null)
            .execute()
          // everything written, in order: the history's records, then the offer's stored price (a
          // change of the date alone is written there without a history record)
          const stored = await env.ctx.db
            .selectFrom('offers')
            .select(['price_total_cents', 'price_total_from'])
            .where('id', '=', flat.id as number)
            .executeTakeFirstOrThrow()
          const records = [
            ...history,
            {
              id: Number.MAX_SAFE_INTEGER,
              after_cents: stored.price_total_cents,
              valid_from: stored.price_total_from ?? '',
            },
          ]
          for (const n of [0, 15, 30, 45, 59, 60, 61, 75, 90, ...ops.map((o) => o.day)]) {
            const day = dayOf(n)
            // the plain reading: the latest record whose date is on or before the day
            const plain = [...records]
              .filter((r) => r.valid_from <= day)
              .sort((a, b) => a.valid_from.localeCompare(b.valid_from) || a.id - b.id)
              .at(-1)
            let listed: { cents: number | null; from: string | null } | undefined
            for await (const offers of readDailyOffers(env.ctx, {
              day,
              developer,
              includeUnassigned: true,
              statuses: ['available', 'reserved'],
              inconsistent: [],
              untyped: [],
            })) {
              const own = offers.find((o) => o.id === flat.id)
              if (own) listed = { cents: own.priceTotalCents, from: own.priceTotalFrom }
            }
            expect(listed, day).toEqual(
              plain ? { cents: plain.after_cents, from: plain.valid_from } : { cents: null, from: null },
            )
          }
        },
      ),
      { numRuns: 8 },
    )
  }, 240_000)
})

describe('the rule itself', () => {
  it('property: equals a plain reading of the latest record valid on the day, the stored price counting as the last written', () => {
    const record = fc.record({
      afterCents: fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: null }),
      validFrom: fc.integer({ min: 0, max: 40 }).map((n) => `2026-11-${String(1 + (n % 30)).padStart(2, '0')}`),
    })
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 30 }), (list, d) => {
        const records = list.map((r, id) => ({ ...r, id }))
        const day = `2026-11-${String(d).padStart(2, '0')}`
        // the stored price is what the last write left (the writer's behaviour)
        const last = records.at(-1) as (typeof records)[number]
        const stored = { cents: last.afterCents, from: last.afterCents === null ? null : last.validFrom }
        const plain = records
          .filter((r) => r.validFrom <= day)
          .sort((a, b) => a.validFrom.localeCompare(b.validFrom) || a.id - b.id)
          .at(-1)
        const expected =
          plain && plain.afterCents !== null
            ? { cents: plain.afterCents, from: plain.validFrom }
            : { cents: null, from: null }
        expect(priceInForce(records, stored, day)).toEqual(expected)
      }),
      { numRuns: 500 },
    )
  })

  it('property: the next announced price is the plain reading of the earliest record after the day, and becomes the price in force on its date', () => {
    const record = fc.record({
      afterCents: fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: null }),
      validFrom: fc.integer({ min: 0, max: 40 }).map((n) => `2026-11-${String(1 + (n % 30)).padStart(2, '0')}`),
    })
    fc.assert(
      fc.property(fc.array(record, { minLength: 1, maxLength: 12 }), fc.integer({ min: 1, max: 29 }), (list, d) => {
        const records = list.map((r, id) => ({ ...r, id }))
        const day = `2026-11-${String(d).padStart(2, '0')}`
        const last = records.at(-1) as (typeof records)[number]
        const stored = { cents: last.afterCents, from: last.afterCents === null ? null : last.validFrom }
        const later = records.filter((r) => r.validFrom > day)
        const first = later.map((r) => r.validFrom).sort()[0]
        const plain = later.filter((r) => r.validFrom === first).at(-1)
        const next = nextAnnounced(records, stored, day)
        expect(next).toEqual(plain ? { cents: plain.afterCents, from: plain.validFrom } : null)
        if (next?.cents != null) expect(priceInForce(records, stored, next.from as string)).toEqual(next)
      }),
      { numRuns: 500 },
    )
  })

  it('reads a stored price without its date as stored and undated, whatever the records say, so the file refuses it instead of showing X', () => {
    const records = [{ id: 1, afterCents: 1_000_000, validFrom: '2026-10-01' }]
    const undated = { cents: 1_200_000, from: null }
    expect(priceInForce([], undated, '2026-11-20')).toEqual(undated)
    expect(priceInForce(records, undated, '2026-11-20')).toEqual(undated)
    expect(priceInForce(records, undated, '2026-09-01')).toEqual(undated)
  })
})
