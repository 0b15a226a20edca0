import { sql } from 'kysely'
import { expect, it } from 'vitest'

import { recordAudit } from '../../../src/host/audit/audit.js'
import { describeEachDatabase } from '../../helpers/test-app.js'

const APPEND_ONLY = ['audit_log', 'price_history', 'status_history'] as const

describeEachDatabase('append-only tables', (env) => {
  async function fill(): Promise<void> {
    const { ctx } = env()
    const now = new Date().toISOString()
    await recordAudit(ctx, { actor: { type: 'cli' }, action: 'test.kept', outcome: 'success' })
    const investment = await ctx.db
      .insertInto('investments')
      .values({
        title: 'T',
        slug: 'append-only',
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
    const offer = await ctx.db
      .insertInto('offers')
      .values({
        investment_id: investment.id,
        source_property_id: 'AO1',
        offer_kind: 'property',
        property_type: 'mieszkanie',
        code: 'AO1',
        title: 'AO1',
        status: 'available',
        host_status: 'publish',
        custom_meta: '{}',
        gallery: '[]',
        created_at: now,
        modified_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    await ctx.db
      .insertInto('price_history')
      .values({
        offer_id: offer.id,
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
    await ctx.db
      .insertInto('status_history')
      .values({
        offer_id: offer.id,
        before_status: 'available',
        after_status: 'reserved',
        valid_from: '2026-01-02',
        recorded_at: now,
        reason: '',
      })
      .execute()
  }

  async function counts(): Promise<number[]> {
    const { ctx } = env()
    const out: number[] = []
    for (const table of APPEND_ONLY) {
      const row = await ctx.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      out.push(Number(row.n))
    }
    return out
  }

  it('refuse emptying them: DELETE everywhere, TRUNCATE (also by cascade) on PostgreSQL; the rows stay', async () => {
    const { ctx } = env()
    await fill()
    const before = await counts()
    expect(before.every((n) => n > 0)).toBe(true)
    for (const table of APPEND_ONLY) {
      await expect(ctx.db.deleteFrom(table).execute()).rejects.toThrow(/append-only/)
      if (ctx.caps.name === 'postgres') {
        await expect(sql.raw(`TRUNCATE ${table}`).execute(ctx.db)).rejects.toThrow(
          new RegExp(`${table} is append-only: TRUNCATE is refused`),
        )
      } else {
        // SQLite has no TRUNCATE statement at all: the nearest thing is DELETE without WHERE
        await expect(sql.raw(`TRUNCATE ${table}`).execute(ctx.db)).rejects.toThrow(/syntax error/)
      }
    }
    if (ctx.caps.name === 'postgres')
      await expect(sql.raw('TRUNCATE offers CASCADE').execute(ctx.db)).rejects.toThrow(/append-only/)
    expect(await counts()).toEqual(before)
  })
})
