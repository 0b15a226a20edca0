/*
 * A source's file must not undo what the operator decided in the panel unseen. Against a local
 * https server, day by day: a unit marked sold in the editor and still free in the file, a price
 * announced in the editor for a later day and replaced by the file's price of today, a price
 * corrected in the editor since the source's previous run, and a bulk price change the file would
 * reverse each hold the run ("Uruchom teraz" and the schedule alike) with the unit and its values
 * before → after on the run and in the alert, and nothing written until the operator applies it.
 * A file that agrees with those decisions, or one after the operator applied the source's values,
 * is applied with no hand.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'

import { runSource } from '../../src/sources/source-runs.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { type SourceFileServer, startSourceFileServer } from './source-file-server.js'

const V2 = '/wp-json/dg/v2'
const HEADER = 'Inwestycja;ID lokalu;Numer;Rodzaj;Status;Powierzchnia;Cena;Cena za m2;Miasto'
const MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID lokalu',
  prop_no: 'Numer',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  price_total: 'Cena',
  price_m2: 'Cena za m2',
  proj_city: 'Miasto',
}
const IDS = [1, 2, 3, 4, 5, 6]
/** Unit 3 costs 975 000 zł in every file; the others move by `step` złoty a day. */
const total = (step: number) => (i: number) => (i === 3 ? 975_000 : 900_000 + i * 25_000 + step)
const m2 = (zloty: number) => (zloty / 50).toFixed(2)
/** Złoty as the alerts write them: 1 010 000,00 zł. */
const pln = (zloty: number) => `${String(zloty).replace(/\B(?=(\d{3})+(?!\d))/g, ' ')},00 zł`

function sheet(price: (i: number) => number, status: (i: number) => string = () => 'wolne'): string {
  const rows = IDS.map((i) => `INV-D;${i};A/1.0${i};mieszkanie;${status(i)};50,00;${price(i)};${m2(price(i))};Kraków`)
  return `${HEADER}\n${rows.join('\n')}\n`
}

interface Flag {
  key: string
  unit?: string
  field: string
  before: unknown
  after: unknown
  before_from?: string
  after_from?: string
  changed_in?: string
  changed_by?: string
}
interface Run {
  id: number
  outcome: string
  guards: Array<{ guard: string; count: number; offers: Flag[] }>
}

describeEachDatabase('a source respects the operator’s decisions', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let server: SourceFileServer
  let sourceId: number

  const api = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, headers: object = {}) =>
    env.app.inject({
      method,
      url: `${V2}${url}`,
      headers: { authorization: admin.authorization, ...headers },
      ...(payload ? { payload } : {}),
    })
  /** "Uruchom teraz": the panel's button posts this. */
  const runNow = async () => {
    const response = await api('POST', `/sources/${sourceId}/run`)
    expect(response.statusCode, response.body).toBe(200)
    return response.json() as Run
  }
  const offer = async (propertyId: number) => {
    const row = await env.ctx.db
      .selectFrom('offers')
      .select(['id', 'status', 'price_total_cents', 'price_total_from'])
      .where('source_property_id', '=', String(propertyId))
      .executeTakeFirstOrThrow()
    return {
      id: Number(row.id),
      status: row.status,
      total: Number(row.price_total_cents) / 100,
      from: row.price_total_from,
    }
  }
  /** A change in the panel's editor, as the offer form sends it. */
  const edit = async (propertyId: number, body: object) => {
    const { id } = await offer(propertyId)
    const current = await api('GET', `/offers/${id}`)
    const changed = await api('PATCH', `/offers/${id}`, body, { 'if-match': current.json().version as string })
    expect(changed.statusCode, changed.body).toBe(200)
  }
  /** What a write leaves: price records, and executions of the import. */
  const writes = async () => {
    const history = await env.ctx.db
      .selectFrom('price_history')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()
    const executions = await env.ctx.db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('action', '=', 'import.execute')
      .executeTakeFirstOrThrow()
    return { history: Number(history.n), executions: Number(executions.n) }
  }
  const heldAlert = async (runId: number) => {
    const rows = await env.ctx.db.selectFrom('alerts').selectAll().where('cause', '=', 'source_held').execute()
    const alert = rows.find((row) => (JSON.parse(row.details) as { run_id: number }).run_id === runId)
    expect(alert, `an alert for run ${runId}`).toBeDefined()
    return alert!
  }
  const runPage = async (runId: number) => {
    const page = await api('GET', `/source-runs/${runId}`)
    expect(page.statusCode, page.body).toBe(200)
    return page.json() as { run: Run }
  }
  const nextDay = () => env.clock.advance(24 * 3600 * 1000)

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    server = await startSourceFileServer()
    server.content = sheet(total(0))
    const created = await api('POST', '/sources', {
      name: 'Cennik z CRM',
      url: `${server.origin}/prices.csv`,
      mapping: MAPPING,
      mode: 'patch',
      private_hosts: [`127.0.0.1:${server.port}`],
    })
    expect(created.statusCode, created.body).toBe(201)
    sourceId = created.json().id as number
  })
  afterAll(async () => {
    await server.close()
  })

  it('day 1: the first file is applied with no hand', async () => {
    const first = await runNow()
    expect(first.outcome, JSON.stringify(first)).toBe('applied')
    expect(first.guards).toEqual([])
    expect(await offer(3)).toMatchObject({ status: 'available', total: 975_000 })
  })

  it('a unit sold in the editor and still free in the file: held, nothing written; the corrected file applies', async () => {
    await edit(2, { property_status: 'sold' })
    nextDay()
    server.content = sheet(total(5_000))
    const before = await writes()
    const held = await runNow()
    expect(held.outcome, JSON.stringify(held)).toBe('held')
    expect(held.guards.map((g) => g.guard)).toEqual(['back_on_sale'])
    expect(held.guards[0]!.offers).toEqual([
      expect.objectContaining({
        key: 'INV-D/2',
        unit: 'A/1.02',
        field: 'property_status',
        before: 'sold',
        after: 'available',
      }),
    ])
    expect(await offer(2)).toMatchObject({ status: 'sold', total: total(0)(2) })
    expect(await offer(1)).toMatchObject({ total: total(0)(1) })
    expect(await writes()).toEqual(before)
    expect((await heldAlert(held.id)).message_pl).toContain('A/1.02: status sprzedane → wolne')
    expect((await runPage(held.id)).run.guards).toEqual(held.guards)
    expect((await api('POST', `/source-runs/${held.id}/reject`)).statusCode).toBe(200)

    // the CRM marks the unit sold too: the file agrees with the decision and is applied
    server.content = sheet(total(5_000), (i) => (i === 2 ? 'sprzedane' : 'wolne'))
    const agreed = await runNow()
    expect(agreed.outcome, JSON.stringify(agreed)).toBe('applied')
    expect(agreed.guards).toEqual([])
    expect(await offer(2)).toMatchObject({ status: 'sold', total: total(5_000)(2) })
  })

  it('a price announced in the editor for a later day, replaced by the file’s price of today: held; applied on the operator’s word', async () => {
    await edit(4, {
      price_total: '1000000.00',
      price_m2: '20000.00',
      price_total_from: '2026-12-01',
      price_m2_from: '2026-12-01',
      reason: 'Cennik od grudnia',
    })
    nextDay()
    server.content = sheet(total(10_000), (i) => (i === 2 ? 'sprzedane' : 'wolne'))
    const before = await writes()
    const held = await runNow()
    expect(held.outcome, JSON.stringify(held)).toBe('held')
    expect(held.guards.map((g) => g.guard)).toEqual(['announced_price'])
    expect(held.guards[0]!.count).toBe(1)
    expect(held.guards[0]!.offers).toEqual([
      expect.objectContaining({
        unit: 'A/1.04',
        field: 'price_total',
        before: '1000000.00',
        before_from: '2026-12-01',
        after: `${total(10_000)(4)}.00`,
        after_from: '2026-11-22',
      }),
      expect.objectContaining({ unit: 'A/1.04', field: 'price_m2', before: '20000.00', before_from: '2026-12-01' }),
    ])
    expect(await offer(4)).toMatchObject({ total: 1_000_000, from: '2026-12-01' })
    expect(await writes()).toEqual(before)
    expect((await heldAlert(held.id)).message_pl).toContain(
      `A/1.04: cena całkowita 1 000 000,00 zł od 01.12.2026 → ${pln(total(10_000)(4))} od 22.11.2026`,
    )

    const applied = await api('POST', `/source-runs/${held.id}/apply`)
    expect(applied.statusCode, applied.body).toBe(200)
    expect(applied.json()).toMatchObject({ outcome: 'applied', decided_by: { name: admin.login } })
    expect(await offer(4)).toMatchObject({ total: total(10_000)(4), from: '2026-11-22' })
    expect(await offer(1)).toMatchObject({ total: total(10_000)(1) })
    expect((await writes()).executions).toBe(before.executions + 1)
  })

  it('a price corrected in the editor since the previous run, overwritten by the file: held, nothing written', async () => {
    await edit(3, { price_total: '967395.00', price_m2: '19347.90', reason: 'Korekta ceny po negocjacjach' })
    nextDay()
    server.content = sheet(total(15_000), (i) => (i === 2 ? 'sprzedane' : 'wolne'))
    const before = await writes()
    const held = await runNow()
    expect(held.outcome, JSON.stringify(held)).toBe('held')
    expect(held.guards.map((g) => g.guard)).toEqual(['panel_change'])
    // unit 4 was changed in the editor too, but before the previous applied run: the source has seen it
    expect(held.guards[0]!.count).toBe(1)
    expect(held.guards[0]!.offers).toEqual([
      expect.objectContaining({
        unit: 'A/1.03',
        field: 'price_m2',
        before: '19347.90',
        after: '19500.00',
        changed_in: 'editor',
        changed_by: admin.login,
      }),
      expect.objectContaining({
        unit: 'A/1.03',
        field: 'price_total',
        before: '967395.00',
        after: '975000.00',
        changed_in: 'editor',
        changed_by: admin.login,
      }),
    ])
    expect(await offer(3)).toMatchObject({ total: 967_395 })
    expect(await offer(1)).toMatchObject({ total: total(10_000)(1) })
    expect(await writes()).toEqual(before)
    const alert = await heldAlert(held.id)
    expect(alert.message_pl).toContain('A/1.03: cena całkowita 967 395,00 zł → 975 000,00 zł (zmienione w edytorze')
    expect(alert.message_pl).toContain('nic nie zapisano')
    expect((await runPage(held.id)).run.guards).toEqual(held.guards)
    expect((await api('POST', `/source-runs/${held.id}/reject`)).statusCode).toBe(200)
    expect(await offer(3)).toMatchObject({ total: 967_395 })
  })

  it('a file with the corrected price is applied with no hand', async () => {
    server.content = sheet(
      (i) => (i === 3 ? 967_395 : total(15_000)(i)),
      (i) => (i === 2 ? 'sprzedane' : 'wolne'),
    )
    const agreed = await runNow()
    expect(agreed.outcome, JSON.stringify(agreed)).toBe('applied')
    expect(agreed.guards).toEqual([])
    expect(await offer(3)).toMatchObject({ total: 967_395 })
    expect(await offer(1)).toMatchObject({ total: total(15_000)(1) })
  })

  it('a bulk price change the file would reverse holds the scheduled run too', async () => {
    const { id } = await offer(5)
    const preview = await api('POST', '/offers/price-change/preview', {
      offer_ids: [id],
      percent: '-2',
      rounding: 'zloty',
      valid_from: '2026-11-23',
      reason: 'Promocja',
    })
    expect(preview.statusCode, preview.body).toBe(200)
    const executed = await api(
      'POST',
      '/offers/price-change/execute',
      { job_id: preview.json().job_id as string, reason: 'Promocja' },
      { 'idempotency-key': 'promocja-a105' },
    )
    expect(executed.statusCode, executed.body).toBe(200)
    const discounted = (await offer(5)).total
    expect(discounted).toBe(Math.round(total(15_000)(5) * 0.98))

    nextDay()
    server.content = sheet(
      (i) => (i === 3 ? 967_395 : total(20_000)(i)),
      (i) => (i === 2 ? 'sprzedane' : 'wolne'),
    )
    const ran = await runSource(env.ctx, sourceId, 'schedule', { type: 'scheduler' })
    if (ran.busy) throw new Error('the source is busy')
    expect(ran.run.outcome, JSON.stringify(ran.run)).toBe('held')
    expect(ran.run.guards.map((g) => g.guard)).toEqual(['panel_change'])
    expect(ran.run.guards[0]!.offers).toContainEqual(
      expect.objectContaining({
        unit: 'A/1.05',
        field: 'price_total',
        before: `${discounted}.00`,
        after: `${total(20_000)(5)}.00`,
        changed_in: 'bulk_price_change',
      }),
    )
    expect((await offer(5)).total).toBe(discounted)
    expect((await heldAlert(ran.run.id)).message_pl).toContain('zmienione zmianą cen wielu ofert')
  })
})
