import { expect, it } from 'vitest'

import { migrateToLatest } from '../../../src/host/db/migrate.js'
import { describeEachDatabase } from '../../helpers/test-app.js'

describeEachDatabase('migrations', (env) => {
  it('are recorded once and a second run applies nothing', async () => {
    const { ctx } = env()
    expect(await migrateToLatest(ctx.db, ctx.caps.name)).toEqual([])
    const recorded = await ctx.db.introspection.getTables()
    const names = recorded.map((t) => t.name)
    for (const table of [
      'users',
      'app_passwords',
      'sessions',
      'password_resets',
      'options',
      'audit_log',
      'developers',
      'investments',
      'offers',
      'offer_components',
      'price_history',
      'attachments',
      'dg_migration',
    ]) {
      expect(names).toContain(table)
    }
  })

  it('keep source ids unique per investment and price history append-only', async () => {
    const { ctx } = env()
    const now = new Date().toISOString()
    const investment = await ctx.db
      .insertInto('investments')
      .values({
        title: 'T',
        slug: 't',
        content: '',
        excerpt: '',
        host_status: 'publish',
        visibility: 'public',
        custom_meta: '{}',
        gallery: '[]',
        documents: '[]',
        created_at: now,
        modified_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    const offer = {
      investment_id: investment.id,
      source_property_id: 'P1',
      offer_kind: 'property',
      property_type: 'mieszkanie',
      code: 'A1',
      title: 'A1',
      status: 'available',
      host_status: 'publish',
      custom_meta: '{}',
      gallery: '[]',
      created_at: now,
      modified_at: now,
    }
    const inserted = await ctx.db.insertInto('offers').values(offer).returning('id').executeTakeFirstOrThrow()
    await expect(ctx.db.insertInto('offers').values(offer).execute()).rejects.toThrow()
    await ctx.db
      .insertInto('price_history')
      .values({
        offer_id: inserted.id,
        price_type: 'total',
        record_type: 'first',
        before_cents: null,
        after_cents: 100_000_00,
        valid_from: '2026-01-01',
        recorded_at: now,
        reason: '',
        correction: 0,
      })
      .execute()
    await expect(ctx.db.updateTable('price_history').set({ after_cents: 1 }).execute()).rejects.toThrow(/append-only/)
    await expect(ctx.db.deleteFrom('price_history').execute()).rejects.toThrow(/append-only/)
    const money = await ctx.db.selectFrom('price_history').select('after_cents').executeTakeFirstOrThrow()
    expect(money.after_cents).toBe(100_000_00)
  })
})
