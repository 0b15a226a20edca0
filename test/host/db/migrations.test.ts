import { sql } from 'kysely'
import pg from 'pg'
import { expect, it } from 'vitest'

import { migrateToLatest } from '../../../src/host/db/migrate.js'
import { openTestDatabase, PG_TEST_URL } from '../../helpers/databases.js'
import { describeEachDatabase } from '../../helpers/test-app.js'

describeEachDatabase('migrations', (env, dialect) => {
  it('are recorded once and a second run applies nothing', async () => {
    const { ctx } = env()
    expect(await migrateToLatest(ctx.db, ctx.caps.name)).toEqual([])
    // the tables of this database only (PostgreSQL: this schema), read from the catalog
    const { rows } =
      dialect === 'sqlite'
        ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(ctx.db)
        : await sql<{
            name: string
          }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(
            ctx.db,
          )
    const names = rows.map((t) => t.name)
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

  // several installations (test suites, tenants) in schemas of one database: dropping one while
  // another migrates must not fail the migration
  it.skipIf(dialect !== 'postgres')(
    'migrate a new schema while other schemas of the database are dropped',
    async () => {
      const churn = new pg.Client({ connectionString: PG_TEST_URL })
      await churn.connect()
      let stop = false
      const dropping = (async () => {
        for (let i = 0; !stop; i++) {
          const name = `dg_churn_${process.pid}_${i}`
          await churn.query(`CREATE SCHEMA ${name}`)
          await churn.query(`CREATE TABLE ${name}.t (id bigserial primary key, v text)`)
          await churn.query(`DROP SCHEMA ${name} CASCADE`)
        }
      })()
      try {
        for (let i = 0; i < 4; i++) {
          const database = await openTestDatabase('postgres')
          try {
            expect((await migrateToLatest(database.handle.db, 'postgres')).length).toBeGreaterThan(20)
          } finally {
            await database.cleanup()
          }
        }
      } finally {
        stop = true
        await dropping
        await churn.end()
      }
    },
    120_000,
  )
})
