/*
 * A week of a spreadsheet served from a local address, each day the source runs before the daily
 * publication: normal days are applied with no hand; the day half the rows vanish and the day of
 * a price typo ×10 are held and alerted, and that day's publication still goes ahead with the
 * catalog as it stood, so neither the typo nor the archiving ever reaches the price history or
 * the official file. A file with one invalid row in ten (within the 10% guard, patch mode) is
 * applied without that row.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'

import { setUpDemo } from '../../src/demo/demo-setup.js'
import { runScheduledPublication } from '../../src/publication/publication-schedule.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { runSource } from '../../src/sources/source-runs.js'
import { runDueSources } from '../../src/sources/source-schedule.js'
import { createSource } from '../../src/sources/source-service.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { type SourceFileServer, startSourceFileServer } from './source-file-server.js'

const HEADER = 'Inwestycja;ID lokalu;Numer;Rodzaj;Status;Powierzchnia;Cena;Cena od;Miasto'
const MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID lokalu',
  prop_no: 'Numer',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  price_total: 'Cena',
  price_total_from: 'Cena od',
  proj_city: 'Miasto',
}
const IDS = Array.from({ length: 20 }, (_, i) => i + 1)
function sheet(price: (i: number) => number, ids = IDS, broken: number[] = []): string {
  const rows = ids.map(
    (i) => `INV-W;${i};W/${i};mieszkanie;wolne;${broken.includes(i) ? 'dużo' : '55,5'};${price(i)};2026-05-01;Gdańsk`,
  )
  return `${HEADER}\n${rows.join('\n')}\n`
}
const price = (day: number) => (i: number) => 700_000 + i * 1000 + day * 500

describeEachDatabase('a week of a scheduled source', (getEnv) => {
  let env: TestEnv
  let server: SourceFileServer
  let sourceId: number
  beforeAll(async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    await updatePublicationSettings(env.ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    server = await startSourceFileServer()
    const source = await createSource(
      env.ctx,
      { type: 'cli' },
      {
        name: 'Arkusz tygodnia',
        url: `${server.origin}/prices.csv`,
        mapping: MAPPING,
        mode: 'snapshot',
        private_hosts: [`127.0.0.1:${server.port}`],
      },
    )
    sourceId = source.id
  })
  afterAll(async () => {
    await server.close()
  })

  const day = async (content: string) => {
    env.clock.advance(24 * 3600 * 1000)
    server.content = content
    const ran = await runSource(env.ctx, sourceId, 'schedule', { type: 'scheduler' })
    if (ran.busy) throw new Error('busy')
    const published = await runScheduledPublication(env.ctx)
    return { run: ran.run, published }
  }
  const histories = async () =>
    (
      await env.ctx.db
        .selectFrom('price_history')
        .innerJoin('offers', 'offers.id', 'price_history.offer_id')
        .innerJoin('investments', 'investments.id', 'offers.investment_id')
        .select(['offers.source_property_id as id', 'price_history.after_cents as cents'])
        .where('price_history.price_type', '=', 'total')
        .where('investments.source_id', '=', 'INV-W')
        .execute()
    ).map((row) => ({ id: row.id, cents: Number(row.cents) }))
  const active = async () =>
    Number(
      (
        await env.ctx.db
          .selectFrom('offers')
          .innerJoin('investments', 'investments.id', 'offers.investment_id')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('investments.source_id', '=', 'INV-W')
          .where('offers.status', '!=', 'archived')
          .executeTakeFirstOrThrow()
      ).n,
    )

  it('applies normal days, holds the bad ones, and publishes every day', async () => {
    const days = [
      await day(sheet(price(1))),
      await day(sheet(price(2))),
      // half the rows vanish
      await day(sheet(price(3), IDS.slice(0, 10))),
      // a price typo ×10 in one row
      await day(sheet((i) => price(4)(i) * (i === 7 ? 10 : 1))),
      await day(sheet(price(5))),
      await day(sheet(price(5))),
      await day(sheet(price(6))),
    ]
    expect(days.map((d) => d.run.outcome)).toEqual([
      'applied',
      'applied',
      'held',
      'held',
      'applied',
      'unchanged',
      'applied',
    ])
    expect(days.map((d) => d.published)).toEqual(Array(7).fill('published'))
    expect(days[2]!.run.guards.map((g) => g.guard).sort()).toEqual(['archived', 'shrink'])
    expect(days[3]!.run.guards.map((g) => g.guard)).toEqual(['price_change'])
    expect(await active()).toBe(20)
    const recorded = await histories()
    expect(recorded.some((h) => h.id === '7' && h.cents === price(4)(7) * 10 * 100)).toBe(false)
    expect(recorded.filter((h) => h.id === '7').map((h) => h.cents)).toContain(price(6)(7) * 100)
    const alerts = await env.ctx.db.selectFrom('alerts').select('cause').where('cause', '=', 'source_held').execute()
    expect(alerts).toHaveLength(2)
    // the held days' publications saw the catalog as it stood: 20 offers of INV-W
    const held = await env.ctx.db
      .selectFrom('publications')
      .select(['publication_date', 'record_count'])
      .where('status', '=', 'published')
      .orderBy('id')
      .execute()
    expect(held).toHaveLength(7)
    expect(held[2]!.record_count).toBe(held[1]!.record_count)
  })

  it('applies a patch-mode file with one invalid row in twenty without that row', async () => {
    const patch = await createSource(
      env.ctx,
      { type: 'cli' },
      {
        name: 'Arkusz zmian',
        url: `${server.origin}/prices.csv`,
        mapping: MAPPING,
        mode: 'patch',
        private_hosts: [`127.0.0.1:${server.port}`],
      },
    )
    server.content = sheet(price(8), IDS, [3])
    const ran = await runSource(env.ctx, patch.id, 'manual', { type: 'cli' })
    if (ran.busy) throw new Error('busy')
    expect(ran.run.outcome, JSON.stringify(ran.run)).toBe('applied')
    expect(ran.run.summary).toMatchObject({ rows: 20, errors_total: 1, skipped_rows: 1 })
    const prices = await env.ctx.db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .select(['offers.source_property_id', 'offers.price_total_cents'])
      .where('investments.source_id', '=', 'INV-W')
      .where('offers.source_property_id', 'in', ['3', '4'])
      .orderBy('offers.source_property_id')
      .execute()
    expect(prices.map((p) => Number(p.price_total_cents))).toEqual([price(6)(3) * 100, price(8)(4) * 100])
  })

  it('the schedule runs each due source once, 30 minutes before the publication', async () => {
    server.content = sheet(price(9))
    // 23:05 UTC is 00:05 in Warsaw: the default publication runs at 00:30, its sources from 00:00
    env.clock.set('2026-11-27T22:55:00Z')
    expect(await runDueSources(env.ctx)).toEqual({})
    env.clock.set('2026-11-27T23:05:00Z')
    expect(await runDueSources(env.ctx)).toEqual({ applied: 2 })
    env.clock.set('2026-11-27T23:20:00Z')
    expect(await runDueSources(env.ctx)).toEqual({})
  })
})
