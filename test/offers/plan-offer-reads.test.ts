/*
 * The planner reads the offers a batch names either one by one (by key) or, when the batch names
 * most of an investment's offers, the whole investment at once. Whichever way it read them, a
 * batch must be planned the same: the same operations, against the same offers, to the same digest.
 */
import { beforeAll, expect, it } from 'vitest'

import { createPlanner, type PlannedOperation, type PlanInput, planOffers } from '../../src/offers/offer-planner.js'
import { validateRows } from '../../src/offers/validation/validate-offer-row.js'
import { seedCatalog } from '../helpers/imports.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const TODAY = '2026-11-20'

function row(investment: string, id: number, total = 500_000): Record<string, string> {
  return {
    source_investment_id: investment,
    source_property_id: `L-${id}`,
    prop_type: 'mieszkanie',
    property_status: 'wolne',
    prop_area: '50,00',
    price_m2: String(total / 50),
    price_total: String(total),
    price_total_from: '2026-05-01',
  }
}

function inputsOf(rows: Array<Record<string, string>>): PlanInput[] {
  const results = validateRows(rows, { mode: 'patch', firstRow: 2 })
  expect(results.flatMap((result) => result.errors)).toEqual([])
  return results.map((result, i) => ({ row: 2 + i, values: result.values }))
}

describeEachDatabase('reading the offers a batch names', (getEnv) => {
  let env: TestEnv

  beforeAll(async () => {
    env = getEnv()
    // W-BIG: 150 offers, of which a batch below names 140; W-SMALL: 150 offers, of which it names 20
    const seedRows = [
      ...Array.from({ length: 150 }, (_, i) => row('W-BIG', i)),
      ...Array.from({ length: 150 }, (_, i) => row('W-SMALL', i)),
    ]
    const plan = await planOffers(env.ctx.db, inputsOf(seedRows), { mode: 'patch', today: TODAY })
    await seedCatalog(env, plan, TODAY)
  })

  const view = (op: PlannedOperation) => [op.row, op.key, op.action, op.changes.join(','), op.offerId, op.before]

  it('plans a batch that names most of an investment as it plans the same rows a few at a time', async () => {
    const rows = [
      // 140 of W-BIG's 150, every tenth with a new price, and three offers it does not have yet
      ...Array.from({ length: 140 }, (_, i) => row('W-BIG', i, i % 10 === 0 ? 600_000 : 500_000)),
      ...[1000, 1001, 1002].map((id) => row('W-BIG', id)),
      // 20 of W-SMALL's 150, two of them changed
      ...Array.from({ length: 20 }, (_, i) => row('W-SMALL', i * 7, i < 2 ? 550_000 : 500_000)),
    ]
    const inputs = inputsOf(rows)

    const whole = createPlanner(env.ctx.db, { mode: 'patch', today: TODAY })
    const atOnce = await whole.plan(inputs)
    const wholeSummary = await whole.finish()

    const piecewise = createPlanner(env.ctx.db, { mode: 'patch', today: TODAY })
    const inPieces: PlannedOperation[] = []
    for (let at = 0; at < inputs.length; at += 10) inPieces.push(...(await piecewise.plan(inputs.slice(at, at + 10))))
    const piecewiseSummary = await piecewise.finish()

    expect(atOnce.map(view)).toEqual(inPieces.map(view))
    expect(wholeSummary.digest).toBe(piecewiseSummary.digest)
    expect(wholeSummary.counts).toEqual({ create: 3, update: 16, unchanged: 144, archive: 0 })
    // the offers of W-BIG the batch does not name are read but not planned
    expect(atOnce.filter((op) => op.key.startsWith('W-BIG/')).map((op) => op.sourcePropertyId)).not.toContain('L-145')
    const existing = await env.ctx.db
      .selectFrom('offers')
      .select(['id', 'source_property_id'])
      .where('source_property_id', '=', 'L-130')
      .orderBy('id')
      .execute()
    const big = atOnce.find((op) => op.key === 'W-BIG/L-130')
    expect(existing.map((offer) => offer.id)).toContain(big?.offerId)
    expect(big?.action).toBe('update')
  })
})
