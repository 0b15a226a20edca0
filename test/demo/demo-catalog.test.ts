import { expect, it } from 'vitest'

import { seedDemoCatalog } from '../../src/demo/demo-catalog.js'
import type { HostContext } from '../../src/host/context.js'
import { describeEachDatabase } from '../helpers/test-app.js'

async function countRows(ctx: HostContext, table: 'offers' | 'price_history' | 'investments' | 'audit_log') {
  const row = await ctx.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

describeEachDatabase('demo catalog', (env) => {
  it('creates one developer, two published investments, one draft and the offers on the first run', async () => {
    const { ctx } = env()
    const result = await seedDemoCatalog(ctx)
    expect(result).toEqual({ created: true, developers: 1, investments: 3, offers: 24 })

    const investments = await ctx.db.selectFrom('investments').select(['id', 'source_id', 'host_status']).execute()
    expect(investments.filter((i) => i.host_status === 'publish').map((i) => i.source_id)).toEqual(
      expect.arrayContaining(['demo-zielone-tarasy', 'demo-nad-warta']),
    )
    expect(investments.filter((i) => i.host_status === 'publish')).toHaveLength(2)
    expect(investments.filter((i) => i.host_status === 'draft')).toHaveLength(1)

    const offers = await ctx.db.selectFrom('offers').select(['investment_id']).execute()
    for (const investment of investments.filter((i) => i.host_status === 'publish')) {
      expect(offers.some((o) => o.investment_id === investment.id)).toBe(true)
    }

    const audit = await ctx.db.selectFrom('audit_log').selectAll().where('action', '=', 'demo.seed').execute()
    expect(audit).toHaveLength(1)
    expect(audit[0]).toMatchObject({ actor_type: 'cli', outcome: 'success' })
    expect(JSON.parse(audit[0]?.details ?? '{}')).toMatchObject({ developers: 1, investments: 3, offers: 24 })
  })

  it('offers every sales status and keeps draft and archived offers out of the public set', async () => {
    const { ctx } = env()
    await seedDemoCatalog(ctx)
    const offers = await ctx.db.selectFrom('offers').select(['status', 'host_status', 'offer_kind']).execute()
    const published = offers.filter((o) => o.host_status === 'publish')
    for (const status of ['available', 'reserved', 'sold']) {
      expect(published.some((o) => o.status === status)).toBe(true)
    }
    expect(offers.filter((o) => o.host_status === 'draft')).toHaveLength(1)
    expect(offers.filter((o) => o.status === 'archived').map((o) => o.host_status)).toEqual(['private'])
    expect(offers.filter((o) => o.offer_kind === 'standalone_part')).toHaveLength(3)
  })

  it('keeps the total price consistent with the price per m² and the area', async () => {
    const { ctx } = env()
    await seedDemoCatalog(ctx)
    const offers = await ctx.db.selectFrom('offers').selectAll().execute()
    const withBoth = offers.filter((o) => o.price_total_cents !== null && o.price_m2_cents !== null && o.area !== null)
    expect(withBoth.length).toBeGreaterThan(15)
    for (const offer of withBoth) {
      expect(offer.price_total_cents, offer.code).toBe(Math.round(Number(offer.price_m2_cents) * Number(offer.area)))
    }
  })

  it('has a price history whose first record has no previous price and whose last one is the current price', async () => {
    const { ctx } = env()
    await seedDemoCatalog(ctx)
    const offers = await ctx.db.selectFrom('offers').selectAll().execute()
    const history = await ctx.db.selectFrom('price_history').selectAll().orderBy('id').execute()
    const priced = offers.filter((o) => o.price_total_cents !== null)
    expect(priced).toHaveLength(offers.length)

    for (const offer of priced) {
      const records = history.filter((h) => h.offer_id === offer.id)
      expect(records[0], offer.code).toMatchObject({ record_type: 'first', before_cents: null })
      const totals = records.filter((h) => h.price_type === 'total')
      expect(totals.at(-1)?.after_cents, offer.code).toBe(offer.price_total_cents)
      if (offer.price_m2_cents !== null) {
        expect(records.filter((h) => h.price_type === 'm2').at(-1)?.after_cents, offer.code).toBe(offer.price_m2_cents)
      }
    }

    const changes = history.filter((h) => h.record_type === 'change' && h.price_type === 'total')
    expect(changes.length).toBeGreaterThanOrEqual(5)
    for (const change of changes) {
      const first = history.find(
        (h) => h.offer_id === change.offer_id && h.price_type === 'total' && h.record_type === 'first',
      )
      expect(change.before_cents).toBe(first?.after_cents)
      expect(change.valid_from > (first?.valid_from ?? '')).toBe(true)
    }
  })

  it('does nothing when seeded again', async () => {
    const { ctx } = env()
    await seedDemoCatalog(ctx)
    const before = {
      offers: await countRows(ctx, 'offers'),
      history: await countRows(ctx, 'price_history'),
      investments: await countRows(ctx, 'investments'),
      audit: await countRows(ctx, 'audit_log'),
    }
    const again = await seedDemoCatalog(ctx)
    expect(again).toEqual({ created: false, developers: 1, investments: 3, offers: 24 })
    expect({
      offers: await countRows(ctx, 'offers'),
      history: await countRows(ctx, 'price_history'),
      investments: await countRows(ctx, 'investments'),
      audit: await countRows(ctx, 'audit_log'),
    }).toEqual(before)
  })
})
