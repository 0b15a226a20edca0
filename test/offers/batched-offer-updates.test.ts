/*
 * An import updates its offers in batched statements (updateOffers: one UPDATE per 500 offers that
 * set the same columns), the webhook and the editor one offer at a time. Both must store the same:
 * the same offers and the same price history, whatever mix of columns the rows change.
 */
import { beforeAll, expect, it } from 'vitest'

import { recordAudit } from '../../src/host/audit/audit.js'
import type { DialectName } from '../../src/host/db/dialect.js'
import { planOffers, type PlanInput } from '../../src/offers/offer-planner.js'
import { createPlanWriter } from '../../src/offers/offer-writer.js'
import { type ImportMode, validateRows } from '../../src/offers/validation/validate-offer-row.js'
import { seedCatalog } from '../helpers/imports.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const TODAY = '2026-11-20'
const COUNT = 1_200

function seedRow(investment: string, i: number): Record<string, string> {
  return {
    source_investment_id: investment,
    source_property_id: `L-${i}`,
    prop_type: i % 9 === 0 ? 'dom' : 'mieszkanie',
    property_status: 'wolne',
    prop_area: '50,00',
    prop_rooms: String(1 + (i % 4)),
    prop_floor: String((i % 7) - 1),
    ...prices(10_000 + i, '2026-05-01'),
  }
}

/** A price per m² and its total for 50 m², both from `from`. */
function prices(m2: number, from: string): Record<string, string> {
  return { price_m2: String(m2), price_m2_from: from, price_total: String(m2 * 50), price_total_from: from }
}

/** Rows that change different columns: prices (dated anew, or the same day: a correction), status, rooms, code, type. */
function changedRow(investment: string, i: number): Record<string, string> {
  const row: Record<string, string> = { source_investment_id: investment, source_property_id: `L-${i}` }
  switch (i % 6) {
    case 0:
      return { ...row, ...prices(10_100 + i, '2026-11-01') }
    case 1:
      return { ...row, ...prices(10_007 + i, '2026-05-01'), property_status: 'zarezerwowane' }
    case 2:
      return { ...row, prop_rooms: String(2 + (i % 3)), prop_floor: '3' }
    case 3:
      return { ...row, prop_no: `X/${i}`, prop_type: 'mieszkanie' }
    case 4:
      return { ...row, property_status: 'sprzedane' }
    default:
      // a row that repeats the stored values: unchanged
      return seedRow(investment, i)
  }
}

function inputsOf(rows: Array<Record<string, string>>, mode: ImportMode): PlanInput[] {
  const results = validateRows(rows, { mode, firstRow: 2 })
  expect(results.flatMap((result) => result.errors)).toEqual([])
  // every sixth offer also gets custom fields (merged into the stored custom_meta text)
  return results.map((result, i) => ({
    row: 2 + i,
    values:
      i % 6 === 2
        ? { ...result.values, meta: { view: `morze ${i}`, floors: i % 5, lift: i % 2 === 0 } }
        : result.values,
  }))
}

describeEachDatabase('batched offer updates of an import', (getEnv) => {
  let env: TestEnv

  beforeAll(async () => {
    env = getEnv()
    const seed = [
      ...Array.from({ length: COUNT }, (_, i) => seedRow('BATCHED', i)),
      ...Array.from({ length: COUNT }, (_, i) => seedRow('ONE-BY-ONE', i)),
    ]
    await seedCatalog(
      env,
      await planOffers(env.ctx.db, inputsOf(seed, 'patch'), { mode: 'patch', today: TODAY }),
      TODAY,
    )
  })

  /** Plans `rows` of one investment and writes them, batched (as an import) or one offer at a time. */
  async function write(investment: string, rows: Array<Record<string, string>>, mode: ImportMode, batched: boolean) {
    const plan = await planOffers(env.ctx.db, inputsOf(rows, mode), { mode, today: TODAY })
    expect(plan.errors).toEqual([])
    // a snapshot names one investment's offers; the other investment is not archived
    const operations = plan.operations.filter((op) => op.sourceInvestmentId === investment)
    return env.ctx.db.transaction().execute(async (trx) => {
      const runId = await recordAudit(
        env.ctx,
        { actor: { type: 'system' }, action: 'test.write', outcome: 'success', details: {} },
        trx,
      )
      const writer = createPlanWriter(trx, {
        now: env.clock.now(),
        today: TODAY,
        runId,
        ...(batched ? { bulk: env.dialect as DialectName } : {}),
      })
      // in parts, as an import applies its stored chunks
      for (let at = 0; at < operations.length; at += 700) await writer.apply(operations.slice(at, at + 700))
      return writer.counts
    })
  }

  async function stored(investment: string) {
    const offers = await env.ctx.db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .selectAll('offers')
      .where('investments.source_id', '=', investment)
      .orderBy('offers.source_property_id')
      .execute()
    const history = await env.ctx.db
      .selectFrom('price_history')
      .innerJoin('offers', 'offers.id', 'price_history.offer_id')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .select([
        'offers.source_property_id',
        'price_history.price_type',
        'price_history.record_type',
        'price_history.before_cents',
        'price_history.after_cents',
        'price_history.valid_from',
        'price_history.recorded_at',
        'price_history.correction',
        'price_history.reason',
      ])
      .where('investments.source_id', '=', investment)
      .orderBy('offers.source_property_id')
      .orderBy('price_history.id')
      .execute()
    return {
      offers: offers.map(({ id: _id, investment_id: _inv, ...rest }) => rest),
      history,
    }
  }

  it('stores the same offers and price history as one UPDATE per offer (patch, then a snapshot that archives)', async () => {
    const patchOf = (investment: string) => Array.from({ length: COUNT }, (_, i) => changedRow(investment, i))
    env.clock.advance(60_000)
    const batched = await write('BATCHED', patchOf('BATCHED'), 'patch', true)
    const single = await write('ONE-BY-ONE', patchOf('ONE-BY-ONE'), 'patch', false)
    expect(batched).toEqual(single)
    expect(batched.updated).toBeGreaterThan(COUNT / 2)

    // a snapshot of one investment without every seventh offer: those are archived
    const snapshotOf = (investment: string) =>
      Array.from({ length: COUNT }, (_, i) => i)
        .filter((i) => i % 7 !== 0)
        .map((i) => ({ ...seedRow(investment, i), ...prices(11_000 + i, '2026-11-15') }))
    env.clock.advance(60_000)
    const batchedSnapshot = await write('BATCHED', snapshotOf('BATCHED'), 'snapshot', true)
    const singleSnapshot = await write('ONE-BY-ONE', snapshotOf('ONE-BY-ONE'), 'snapshot', false)
    expect(batchedSnapshot).toEqual(singleSnapshot)
    expect(batchedSnapshot.archived).toBeGreaterThan(0)

    const a = await stored('BATCHED')
    const b = await stored('ONE-BY-ONE')
    expect(a.offers).toHaveLength(COUNT)
    expect(a.offers).toEqual(b.offers)
    expect(a.offers.filter((offer) => JSON.parse(offer.custom_meta).view?.startsWith('morze')).length).toBeGreaterThan(
      100,
    )
    expect(a.history).toEqual(b.history)
    expect(a.history.some((record) => record.record_type === 'withdrawal')).toBe(true)
    expect(a.history.some((record) => record.record_type === 'correction')).toBe(true)
  })
})
