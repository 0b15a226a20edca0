/*
 * A delivery never waits behind a long write (409 webhook_in_progress). On
 * PostgreSQL an import execution holds `LOCK TABLE offers IN SHARE ROW EXCLUSIVE MODE` for its
 * whole commit; here a transaction of the test takes the same lock, so that the hold is
 * deterministic. SQLite has one writer: an import executes on a worker thread while the service
 * keeps its writer idle (holdWriter), and a delivery waits its turn without blocking the readers.
 */
import { performance } from 'node:perf_hooks'

import type { Kysely } from 'kysely'
import pg from 'pg'
import { beforeAll, expect, it } from 'vitest'

import { holdWriter } from '../../src/host/db/sqlite-connections.js'
import { IMPORT_LOCK } from '../../src/imports/import-job-lifecycle.js'
import { LOCK_WAIT_MS, PG_DELIVERY_CONNECTIONS, webhookDeliverySemaphore } from '../../src/webhook/webhook-service.js'
import { rotateWebhookSecret } from '../../src/webhook/webhook-secret.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { deliver } from '../helpers/webhook.js'

const BASE = '/wp-json/dg/v2'

const offer = (source: string, total = '500000.00') => ({
  source_investment_id: 'LOCK-1',
  source_property_id: source,
  prop_type: 'mieszkanie',
  prop_area: '50.00',
  price_m2: '10000.00',
  price_total: total,
  price_total_from: '2026-05-01',
  price_m2_from: '2026-05-01',
})

/** A second PostgreSQL session in the suite's schema that holds the offers table as an import does. */
async function holdOffersTable(env: TestEnv): Promise<{ client: pg.Client; release(): Promise<void> }> {
  const { databaseUrl, pgSchema } = env.database.connection
  const client = new pg.Client({ connectionString: databaseUrl, options: `-c search_path=${pgSchema}` })
  await client.connect()
  await client.query('BEGIN')
  await client.query('LOCK TABLE offers IN SHARE ROW EXCLUSIVE MODE')
  return {
    client,
    release: async () => {
      await client.query('COMMIT')
      await client.end()
    },
  }
}

describeEachDatabase('webhook deliveries while an import holds the offers', (getEnv, dialect) => {
  let env: TestEnv
  let secret: string
  let reader: TestUser
  const send = (body: unknown, key: string) =>
    deliver(env.app, {
      body: JSON.stringify(body),
      key,
      secret,
      timestamp: Math.floor(env.clock.now().getTime() / 1000),
    })
  const read = () =>
    env.app.inject({ url: `${BASE}/catalog/properties?per_page=5`, headers: { authorization: reader.authorization } })
  const written = async (source: string, key: string) => ({
    offers: (await env.ctx.db.selectFrom('offers').select('id').where('source_property_id', '=', source).execute())
      .length,
    history: (
      await env.ctx.db
        .selectFrom('price_history')
        .innerJoin('offers', 'offers.id', 'price_history.offer_id')
        .select('price_history.id')
        .where('offers.source_property_id', '=', source)
        .execute()
    ).length,
    executions: (
      await env.ctx.db.selectFrom('webhook_executions').select('status').where('idempotency_key', '=', key).execute()
    ).length,
    audit: (
      await env.ctx.db
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', 'webhook.execute')
        .where('object_id', '=', key)
        .execute()
    ).length,
  })
  /** The import's named lock, as a running execution holds it (lease of two minutes). */
  const takeImportLock = () =>
    env.ctx.db
      .insertInto('locks')
      .values({
        name: IMPORT_LOCK,
        owner: 'elsewhere:1:0123456789abcdef',
        acquired_at: env.clock.now().toISOString(),
        expires_at: new Date(env.clock.now().getTime() + 120_000).toISOString(),
      })
      .execute()
  const dropImportLock = () => env.ctx.db.deleteFrom('locks').where('name', '=', IMPORT_LOCK).execute()

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    secret = (await rotateWebhookSecret(env.ctx, { type: 'cli' })).secret
    reader = await createTestUser(env.ctx, 'dg_catalog_reader')
    // the first use of an application password records it (a write); later reads only read
    expect((await read()).statusCode).toBe(200)
    // a catalog to read
    expect((await send(offer('SEED'), 'evt-lock-seed')).statusCode).toBe(202)
  })

  it.skipIf(dialect !== 'postgres')(
    'answers 409 webhook_in_progress with Retry-After at once while an import executes, writes nothing, and applies the retry once',
    async () => {
      await takeImportLock()
      const hold = await holdOffersTable(env)
      let started = performance.now()
      let refused
      try {
        refused = await send(offer('IMP-1'), 'evt-lock-import-1')
      } finally {
        const seconds = (performance.now() - started) / 1000
        // an import is not waited for at all: the table lock is tried without waiting
        expect(seconds).toBeLessThan(LOCK_WAIT_MS / 1000)
        await hold.release()
        await dropImportLock()
      }
      expect(refused.statusCode).toBe(409)
      expect(refused.json()).toMatchObject({ error: 'webhook_in_progress' })
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      expect(await written('IMP-1', 'evt-lock-import-1')).toEqual({ offers: 0, history: 0, executions: 0, audit: 0 })

      // the sender's retry: same key and body, a new nonce, after the import
      started = performance.now()
      const retried = await send(offer('IMP-1'), 'evt-lock-import-1')
      expect(retried.statusCode).toBe(202)
      const again = await send(offer('IMP-1'), 'evt-lock-import-1')
      expect(again.statusCode).toBe(200)
      expect(again.json()).toMatchObject({ replayed: true })
      expect(await written('IMP-1', 'evt-lock-import-1')).toEqual({ offers: 1, history: 2, executions: 1, audit: 1 })
    },
  )

  it.skipIf(dialect !== 'postgres')(
    'waits at most LOCK_WAIT_MS behind another long write, then answers 409 webhook_in_progress and writes nothing',
    async () => {
      const hold = await holdOffersTable(env)
      const started = performance.now()
      let refused
      try {
        refused = await send(offer('LONG-1'), 'evt-lock-long-1')
      } finally {
        await hold.release()
      }
      const seconds = (performance.now() - started) / 1000
      expect(seconds).toBeGreaterThanOrEqual(LOCK_WAIT_MS / 1000 - 0.2)
      expect(seconds).toBeLessThan(LOCK_WAIT_MS / 1000 + 3)
      expect(refused.statusCode).toBe(409)
      expect(refused.json().error).toBe('webhook_in_progress')
      expect(refused.headers['retry-after']).toBeDefined()
      expect(await written('LONG-1', 'evt-lock-long-1')).toEqual({ offers: 0, history: 0, executions: 0, audit: 0 })
      expect((await send(offer('LONG-1'), 'evt-lock-long-1')).statusCode).toBe(202)
      expect(await written('LONG-1', 'evt-lock-long-1')).toEqual({ offers: 1, history: 2, executions: 1, audit: 1 })
    },
  )

  it.skipIf(dialect !== 'postgres')(
    'keeps catalog reads answering 200 while several waiting deliveries are refused, holding at most PG_DELIVERY_CONNECTIONS connections',
    async () => {
      const { databaseUrl, pgSchema } = env.database.connection
      const observer = new pg.Client({ connectionString: databaseUrl })
      await observer.connect()
      const hold = await holdOffersTable(env)
      // sessions waiting for the offers table of this suite's schema: each holds a pool connection
      let waitingPeak = 0
      let busyPeak = 0
      let sampling = true
      const sampler = (async () => {
        while (sampling) {
          const { rows } = await observer.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_locks WHERE relation = to_regclass($1) AND NOT granted`,
            [`${pgSchema}.offers`],
          )
          waitingPeak = Math.max(waitingPeak, Number(rows[0]?.n ?? 0))
          const pool = env.database.handle.pool
          if (pool) busyPeak = Math.max(busyPeak, pool.totalCount - pool.idleCount)
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      })()
      const deliveries = 2 * PG_DELIVERY_CONNECTIONS + 1
      const started = performance.now()
      let outcomes: Array<{ status: number; error: string; retryAfter: unknown }> = []
      const reads: Array<{ status: number; ms: number }> = []
      try {
        const sent = Promise.all(
          Array.from({ length: deliveries }, (_, i) =>
            send(offer(`MANY-${i}`), `evt-lock-many-${i}`).then((r) => ({
              status: r.statusCode,
              error: (r.json() as { error: string }).error,
              retryAfter: r.headers['retry-after'],
            })),
          ),
        )
        // readers keep coming while the deliveries wait (below the catalog's rate limit)
        const reading = (async () => {
          for (let i = 0; i < 8; i++) {
            const batch = await Promise.all(
              Array.from({ length: 4 }, async () => {
                const at = performance.now()
                const response = await read()
                return { status: response.statusCode, ms: performance.now() - at }
              }),
            )
            reads.push(...batch)
            await new Promise((resolve) => setTimeout(resolve, 250))
          }
        })()
        ;[outcomes] = await Promise.all([sent, reading])
      } finally {
        await hold.release()
        sampling = false
        await sampler
        await observer.end()
      }
      const seconds = (performance.now() - started) / 1000
      for (const outcome of outcomes) {
        expect(outcome.status).toBe(409)
        expect(outcome.error).toBe('webhook_in_progress')
        expect(outcome.retryAfter).toBeDefined()
      }
      // turns of PG_DELIVERY_CONNECTIONS, each refused after LOCK_WAIT_MS
      expect(seconds).toBeLessThan((Math.ceil(deliveries / PG_DELIVERY_CONNECTIONS) * LOCK_WAIT_MS) / 1000 + 5)
      expect(reads).toHaveLength(32)
      for (const r of reads) expect(r.status).toBe(200)
      // reads never waited for a connection (the pool's connection timeout is 5 s)
      expect(Math.max(...reads.map((r) => r.ms))).toBeLessThan(2000)
      expect(waitingPeak).toBeGreaterThan(0)
      expect(waitingPeak).toBeLessThanOrEqual(PG_DELIVERY_CONNECTIONS)
      expect(webhookDeliverySemaphore(env.ctx).peak).toBeLessThanOrEqual(PG_DELIVERY_CONNECTIONS)
      expect(busyPeak).toBeLessThan(10)
      for (let i = 0; i < deliveries; i++)
        expect(await written(`MANY-${i}`, `evt-lock-many-${i}`)).toEqual({
          offers: 0,
          history: 0,
          executions: 0,
          audit: 0,
        })
      // once the write is gone, every retry applies
      for (let i = 0; i < deliveries; i++)
        expect((await send(offer(`MANY-${i}`), `evt-lock-many-${i}`)).statusCode).toBe(202)
    },
    60_000,
  )

  it.skipIf(dialect !== 'sqlite')(
    'SQLite: a delivery during an import on the worker thread waits for the writer without blocking readers, then applies once',
    async () => {
      let finishImport!: () => void
      const importDone = new Promise<void>((resolve) => (finishImport = resolve))
      let holding!: () => void
      const held = new Promise<void>((resolve) => (holding = resolve))
      // the import's execution keeps this process's writer idle, as writeJobOnWorker does
      const importing = holdWriter(env.ctx.db as unknown as Kysely<never>, async () => {
        holding()
        await importDone
      })
      await held
      const delivery = send(offer('SQ-1'), 'evt-lock-sqlite-1')
      let answered = false
      void delivery.then(() => (answered = true))
      // the readers use their own connection and keep answering
      for (let i = 0; i < 5; i++) {
        const at = performance.now()
        const response = await read()
        expect(response.statusCode).toBe(200)
        expect(performance.now() - at).toBeLessThan(2000)
      }
      expect(answered).toBe(false)
      expect(await written('SQ-1', 'evt-lock-sqlite-1')).toEqual({ offers: 0, history: 0, executions: 0, audit: 0 })
      finishImport()
      await importing
      const response = await delivery
      expect(response.statusCode).toBe(202)
      expect((await send(offer('SQ-1'), 'evt-lock-sqlite-1')).json()).toMatchObject({ replayed: true })
      expect(await written('SQ-1', 'evt-lock-sqlite-1')).toEqual({ offers: 1, history: 2, executions: 1, audit: 1 })
    },
  )
})
