/*
 * The catalog's list totals (X-WP-Total) without a price or modification-time filter are kept
 * under `catalog_state.listing_revision`, which database triggers bump in the writing transaction.
 * A write that can change which offers such a list counts and leaves it unbumped would show a
 * wrong total until the next such write; a price change that bumps it makes every list count
 * again (the load that saturated the service at 120,000 offers). Every column a list filters on is
 * changed here one at a time, on both databases.
 */
import { DummyDriver, Kysely, sql, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'

import { countProperties } from '../../../src/catalog/catalog-repository.js'
import { setUpDemo } from '../../../src/demo/demo-setup.js'
import type { Executor } from '../../../src/host/context.js'
import { LISTED_OFFER_COLUMNS } from '../../../src/host/db/migrations/0014-listing-revision.js'
import { describeEachDatabase, type TestEnv } from '../../helpers/test-app.js'

describeEachDatabase('the listing revision', (getEnv) => {
  let env: TestEnv
  let offerId: number
  let otherInvestment: number

  const revisions = async () => {
    const row = await env.ctx.db
      .selectFrom('catalog_state')
      .select(['revision', 'listing_revision'])
      .where('id', '=', 1)
      .executeTakeFirstOrThrow()
    return { revision: Number(row.revision), listing: Number(row.listing_revision) }
  }
  /** How each revision moved across `write`. */
  const across = async (write: () => Promise<unknown>) => {
    const before = await revisions()
    await write()
    const after = await revisions()
    return { revision: after.revision - before.revision, listing: after.listing - before.listing }
  }

  beforeAll(async () => {
    env = getEnv()
    await setUpDemo(env.ctx)
    const offer = await env.ctx.db
      .selectFrom('offers')
      .select(['id', 'investment_id'])
      .where('area', 'is not', null)
      .where('rooms', 'is not', null)
      .orderBy('id')
      .executeTakeFirstOrThrow()
    offerId = offer.id
    const other = await env.ctx.db
      .selectFrom('investments')
      .select('id')
      .where('id', '!=', offer.investment_id)
      .orderBy('id')
      .executeTakeFirstOrThrow()
    otherInvestment = other.id
  })

  const changed: Record<(typeof LISTED_OFFER_COLUMNS)[number], (row: Record<string, unknown>) => unknown> = {
    investment_id: () => otherInvestment,
    host_status: (row) => (row.host_status === 'publish' ? 'draft' : 'publish'),
    status: (row) => (row.status === 'sold' ? 'available' : 'sold'),
    offer_kind: (row) => `${String(row.offer_kind)}-x`,
    property_type: (row) => `${String(row.property_type)}-x`,
    rooms: (row) => Number(row.rooms) + 1,
    floor: (row) => Number(row.floor ?? 0) + 1,
    area: (row) => (row.area === '99.99' ? '98.99' : '99.99'),
    title: (row) => `${String(row.title)} x`,
    code: (row) => `${String(row.code)}-x`,
  }

  it('moves with a change of every column a list filters on, one at a time, and with offers added or removed', async () => {
    for (const column of LISTED_OFFER_COLUMNS) {
      const row = (await env.ctx.db
        .selectFrom('offers')
        .selectAll()
        .where('id', '=', offerId)
        .executeTakeFirstOrThrow()) as unknown as Record<string, unknown>
      const moved = await across(() =>
        env.ctx.db
          .updateTable('offers')
          .set({ [column]: changed[column](row) } as never)
          .where('id', '=', offerId)
          .execute(),
      )
      expect(moved, column).toEqual({ revision: 1, listing: 1 })
      // and back, as a second write
      await env.ctx.db
        .updateTable('offers')
        .set({ [column]: row[column] } as never)
        .where('id', '=', offerId)
        .execute()
    }
    const now = new Date().toISOString()
    let inserted = 0
    const added = await across(async () => {
      inserted = (
        await env.ctx.db
          .insertInto('offers')
          .values({
            investment_id: otherInvestment,
            source_property_id: 'listing-rev-1',
            offer_kind: 'property',
            property_type: 'mieszkanie',
            code: 'LR1',
            title: 'LR1',
            status: 'available',
            host_status: 'publish',
            custom_meta: '{}',
            gallery: '[]',
            created_at: now,
            modified_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id
    })
    expect(added.listing).toBe(1)
    const removed = await across(() => env.ctx.db.deleteFrom('offers').where('id', '=', inserted).execute())
    expect(removed.listing).toBe(1)
  })

  it('stays with a change of prices or modification time only, which bumps the catalog revision', async () => {
    const row = await env.ctx.db.selectFrom('offers').selectAll().where('id', '=', offerId).executeTakeFirstOrThrow()
    const moved = await across(() =>
      env.ctx.db
        .updateTable('offers')
        .set({
          price_total_cents: (row.price_total_cents ?? 0) + 100,
          price_m2_cents: (row.price_m2_cents ?? 0) + 1,
          modified_at: new Date().toISOString(),
        })
        .where('id', '=', offerId)
        .execute(),
    )
    expect(moved).toEqual({ revision: 1, listing: 0 })
    // an update that sets a listed column to the value it already has changes nothing listed either
    const same = await across(() =>
      env.ctx.db.updateTable('offers').set({ status: row.status }).where('id', '=', offerId).execute(),
    )
    expect(same.listing).toBe(0)
  })

  it('moves when one offer of a statement changes a listed column among many that change prices only', async () => {
    const ids = (await env.ctx.db.selectFrom('offers').select('id').orderBy('id').limit(10).execute()).map((r) => r.id)
    const target = ids[ids.length - 1] as number
    const moved = await across(() =>
      sql`UPDATE offers SET price_total_cents = COALESCE(price_total_cents, 0) + 1,
            status = CASE WHEN id = ${target} THEN 'reserved-x' ELSE status END
          WHERE id IN (${sql.join(ids)})`.execute(env.ctx.db),
    )
    // SQLite's triggers fire per row, PostgreSQL's per statement
    expect(moved.revision).toBeGreaterThanOrEqual(1)
    expect(moved.listing).toBeGreaterThanOrEqual(1)
    const pricesOnly = await across(() =>
      sql`UPDATE offers SET price_total_cents = COALESCE(price_total_cents, 0) + 1 WHERE id IN (${sql.join(ids)})`.execute(
        env.ctx.db,
      ),
    )
    expect(pricesOnly.revision).toBeGreaterThanOrEqual(1)
    expect(pricesOnly.listing).toBe(0)
  })

  it('moves when an investment is published or unpublished, not when its title changes', async () => {
    const investment = await env.ctx.db
      .selectFrom('investments')
      .select(['id', 'host_status', 'title'])
      .where('id', '=', otherInvestment)
      .executeTakeFirstOrThrow()
    const titled = await across(() =>
      env.ctx.db
        .updateTable('investments')
        .set({ title: `${investment.title} x` })
        .where('id', '=', investment.id)
        .execute(),
    )
    expect(titled).toEqual({ revision: 1, listing: 0 })
    const flipped = investment.host_status === 'publish' ? 'draft' : 'publish'
    const unpublished = await across(() =>
      env.ctx.db.updateTable('investments').set({ host_status: flipped }).where('id', '=', investment.id).execute(),
    )
    expect(unpublished.listing).toBe(1)
    const republished = await across(() =>
      env.ctx.db
        .updateTable('investments')
        .set({ host_status: investment.host_status })
        .where('id', '=', investment.id)
        .execute(),
    )
    expect(republished.listing).toBe(1)
  })
})

describe('the columns the listing revision watches', () => {
  it('include every column a catalog count filters on, prices and modification time apart', async () => {
    const statements: string[] = []
    const compileOnly = new Kysely<never>({
      dialect: {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new SqliteIntrospector(db),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      },
      log: (event) => {
        statements.push(event.query.sql)
      },
    })
    // every filter of GET /catalog/properties and of the related offers, at once
    await countProperties(compileOnly as unknown as Executor, 'sqlite', {
      investment: 1,
      status: 'available',
      offerKind: 'property',
      type: 'mieszkanie',
      rooms: 2,
      floor: 1,
      areaMin: '30.00',
      areaMax: '90.00',
      priceMin: 1,
      priceMax: 2,
      search: 'x',
      modifiedAfter: '2026-01-01T00:00:00.000Z',
      excludeId: 5,
    }).catch(() => undefined)
    const text = statements.join('\n')
    expect(text).toContain('price_total_cents')
    const offerColumns = new Set([...text.matchAll(/"?offers"?\."?(\w+)"?/g)].map((match) => match[1]))
    const watched = new Set<string>([...LISTED_OFFER_COLUMNS, 'id', 'price_total_cents', 'modified_at'])
    expect([...offerColumns].filter((column) => !watched.has(column as string))).toEqual([])
    const investmentColumns = new Set([...text.matchAll(/"?investments"?\."?(\w+)"?/g)].map((match) => match[1]))
    expect([...investmentColumns].sort()).toEqual(['host_status', 'id'])
  })
})
