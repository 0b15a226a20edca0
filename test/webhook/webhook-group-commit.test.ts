/*
 * Group commit of webhook deliveries (src/webhook/group-commit.ts, webhook-service.ts): deliveries
 * that arrive together share one transaction and one commit on SQLite, yet each is answered on its
 * own merits. A refused event (validation, planner, replay, conflict) undoes only its own writes;
 * an unexpected failure of one event rolls the batch back and the others run again without it;
 * no answer leaves before the commit that holds its event. On PostgreSQL every delivery is its own
 * transaction, and the same behaviour is checked there.
 */
import { randomBytes } from 'node:crypto'

import SqliteDatabase from 'better-sqlite3'
import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'

import { openDatabase } from '../../src/host/db/database.js'
import { GroupCommit } from '../../src/webhook/group-commit.js'
import { webhookBatchStats } from '../../src/webhook/webhook-service.js'
import { rotateWebhookSecret } from '../../src/webhook/webhook-secret.js'
import { grantProLicense } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { deliver } from '../helpers/webhook.js'

const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`

describe('GroupCommit', () => {
  it('batches what is submitted in one turn, queues what comes while a batch runs, and answers each item', async () => {
    const batches: number[][] = []
    let release: (() => void) | undefined
    const committer = new GroupCommit<number, string>(async (items) => {
      batches.push(items)
      if (items.includes(0)) await new Promise<void>((resolve) => (release = resolve))
      if (items.includes(13)) throw new Error('batch failed')
      return items.map((item) => `done ${item}`)
    }, 4)
    const first = [0, 1, 2].map((item) => committer.submit(item))
    await new Promise((resolve) => setImmediate(resolve))
    expect(batches).toEqual([[0, 1, 2]])
    // submitted while the first batch runs: they wait for it, then go in batches of at most 4
    const later = [10, 11, 12, 13, 14, 15].map((item) => committer.submit(item))
    expect(batches).toHaveLength(1)
    release?.()
    expect(await Promise.all(first)).toEqual(['done 0', 'done 1', 'done 2'])
    const settled = await Promise.allSettled(later)
    expect(batches).toEqual([
      [0, 1, 2],
      [10, 11, 12, 13],
      [14, 15],
    ])
    expect(settled.map((s) => s.status)).toEqual([
      'rejected',
      'rejected',
      'rejected',
      'rejected',
      'fulfilled',
      'fulfilled',
    ])
    expect(committer.stats).toEqual({ batches: 3, items: 9, largest: 4 })
  })
})

describeEachDatabase('webhook deliveries sharing a commit', (getEnv) => {
  let env: TestEnv
  let secret: string
  const investment = `GC-${randomBytes(3).toString('hex')}`
  const now = () => Math.floor(env.clock.now().getTime() / 1000)
  const send = (payload: Record<string, unknown>, key: string, nonce?: string) =>
    deliver(env.app, {
      body: JSON.stringify(payload),
      key,
      secret,
      timestamp: now(),
      ...(nonce ? { nonce } : {}),
    })
  const update = (property: string, m2Cents: number) => ({
    source_investment_id: investment,
    source_property_id: property,
    price_m2: money(m2Cents),
    price_total: money(m2Cents * 50),
  })
  const offer = (property: string) =>
    env.ctx.db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .select(['offers.id', 'offers.price_m2_cents', 'offers.price_total_cents'])
      .where('investments.source_id', '=', investment)
      .where('offers.source_property_id', '=', property)
      .executeTakeFirst()
  const historyOf = async (property: string) => {
    const found = await offer(property)
    if (!found) return []
    return env.ctx.db
      .selectFrom('price_history')
      .select(['price_type', 'after_cents', 'run_id'])
      .where('offer_id', '=', found.id)
      .orderBy('id')
      .execute()
  }
  const execution = (key: string) =>
    env.ctx.db
      .selectFrom('webhook_executions')
      .select(['status', 'run_id'])
      .where('idempotency_key', '=', key)
      .executeTakeFirst()

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    secret = (await rotateWebhookSecret(env.ctx, { type: 'cli' })).secret
    for (let i = 0; i < 12; i++) {
      const seeded = await send(
        {
          ...update(`S${i}`, 8_000_00),
          prop_type: 'mieszkanie',
          prop_area: '50.00',
          price_m2_from: '2026-01-01',
          price_total_from: '2026-01-01',
        },
        `gc-seed-${investment}-${i}`,
      )
      expect(seeded.statusCode, seeded.body).toBe(202)
    }
  })

  it('answers every delivery of a batch on its own; a refused event undoes only its own writes', async () => {
    const tag = randomBytes(3).toString('hex')
    const sharedNonce = `gc-nonce-${tag}-0123456789`
    const before = webhookBatchStats(env.ctx)
    const batchesBefore = before?.batches ?? 0
    const requests = [
      // 0–5: distinct price changes
      ...Array.from({ length: 6 }, (_, i) => send(update(`S${i}`, 9_000_00 + i), `gc-ok-${tag}-${i}`)),
      // 6: a lone total the stored price per m² and area contradict: claimed, then refused by the
      // planner (its savepoint is undone)
      send({ source_investment_id: investment, source_property_id: 'S11', price_total: '1.00' }, `gc-planner-${tag}`),
      // 7: refused by the validator
      send({ ...update('S6', 9_000_00), price_total: 'dużo' }, `gc-invalid-${tag}`),
      // 8, 9: one nonce used twice in the batch: one executes, the other is a replay
      send(update('S7', 9_100_00), `gc-nonce-a-${tag}`, sharedNonce),
      send(update('S8', 9_100_00), `gc-nonce-b-${tag}`, sharedNonce),
      // 10, 11: one event delivered twice: executed once, replayed once
      send(update('S9', 9_200_00), `gc-twice-${tag}`),
      send(update('S9', 9_200_00), `gc-twice-${tag}`),
      // 12, 13: one key with two bodies: one executes, the other is a conflict
      send(update('S10', 9_300_00), `gc-conflict-${tag}`),
      send(update('S10', 9_300_01), `gc-conflict-${tag}`),
    ]
    const responses = await Promise.all(requests)
    const statuses = responses.map((r) => r.statusCode)
    const errors = responses.map((r) => (r.json() as { error?: string }).error)

    if (env.dialect === 'sqlite') {
      // they really shared commits: fewer transactions than deliveries
      const after = webhookBatchStats(env.ctx)
      expect(after).toBeDefined()
      expect((after?.batches ?? 0) - batchesBefore).toBeLessThan(requests.length / 2)
    }

    expect(statuses.slice(0, 6)).toEqual([202, 202, 202, 202, 202, 202])
    for (let i = 0; i < 6; i++) {
      const history = await historyOf(`S${i}`)
      expect(history.map((h) => h.after_cents).sort((a, b) => Number(a) - Number(b))).toEqual([
        8_000_00,
        9_000_00 + i,
        8_000_00 * 50,
        (9_000_00 + i) * 50,
      ])
    }

    expect([statuses[6], errors[6]]).toEqual([422, 'webhook_import_failed'])
    expect(await offer('S11')).toMatchObject({ price_total_cents: 8_000_00 * 50 })
    expect(await execution(`gc-planner-${tag}`)).toBeUndefined()
    expect([statuses[7], errors[7]]).toEqual([422, 'validation_failed'])
    expect(await execution(`gc-invalid-${tag}`)).toBeUndefined()

    expect([statuses[8], statuses[9]].sort()).toEqual([202, 401])
    expect(errors.slice(8, 10)).toContain('replay')
    const replayed = statuses[8] === 401 ? 'S7' : 'S8'
    expect(await historyOf(replayed)).toHaveLength(2)

    expect([statuses[10], statuses[11]].sort()).toEqual([200, 202])
    expect(responses[10]?.json().result).toEqual(responses[11]?.json().result)
    expect(await historyOf('S9')).toHaveLength(4)

    expect([statuses[12], statuses[13]].sort()).toEqual([202, 409])
    expect(errors.slice(12, 14)).toContain('idempotency_body_conflict')
    expect(await historyOf('S10')).toHaveLength(4)

    // the refused events left their keys free: corrected, they execute
    const corrected = await send(update('S11', 8_000_00), `gc-planner-${tag}`)
    expect(corrected.statusCode, corrected.body).toBe(202)
    expect(await execution(`gc-planner-${tag}`)).toMatchObject({ status: 'completed' })
    expect(await historyOf('S11')).toHaveLength(2)
  })

  it('rolls the batch back when one event fails unexpectedly and executes the others in a new one', async () => {
    const tag = randomBytes(3).toString('hex')
    if (env.dialect === 'sqlite') {
      await sql
        .raw(
          `CREATE TRIGGER gc_boom BEFORE UPDATE ON offers WHEN NEW.source_property_id = 'S11' ` +
            `BEGIN SELECT RAISE(ABORT, 'boom'); END`,
        )
        .execute(env.ctx.db)
    } else {
      await sql
        .raw(
          `CREATE OR REPLACE FUNCTION gc_boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ` +
            `IF NEW.source_property_id = 'S11' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`,
        )
        .execute(env.ctx.db)
      await sql
        .raw(`CREATE TRIGGER gc_boom BEFORE UPDATE ON offers FOR EACH ROW EXECUTE FUNCTION gc_boom()`)
        .execute(env.ctx.db)
    }
    const boom = update('S11', 9_400_00)
    let responses
    try {
      responses = await Promise.all([
        ...[0, 1, 2].map((i) => send(update(`S${i}`, 9_600_00 + i), `gc-again-${tag}-${i}`)),
        send(boom, `gc-boom-${tag}`),
        ...[3, 4, 5].map((i) => send(update(`S${i}`, 9_600_00 + i), `gc-again-${tag}-${i}`)),
      ])
    } finally {
      await sql.raw('DROP TRIGGER gc_boom' + (env.dialect === 'postgres' ? ' ON offers' : '')).execute(env.ctx.db)
    }
    const statuses = responses.map((r) => r.statusCode)
    expect(statuses).toEqual([202, 202, 202, 503, 202, 202, 202])
    expect(responses[3]?.json().error).toBe('recovery_required')
    // the others were applied exactly once, by the run their answer names
    for (let i = 0; i < 6; i++) {
      const response = responses[i < 3 ? i : i + 1]
      const runId = (response?.json() as { result: { run_id: number } }).result.run_id
      const mine = (await historyOf(`S${i}`)).filter((h) => h.run_id === runId)
      expect(mine.map((h) => h.after_cents).sort((a, b) => Number(a) - Number(b))).toEqual([
        9_600_00 + i,
        (9_600_00 + i) * 50,
      ])
      expect(await execution(`gc-again-${tag}-${i}`)).toEqual({ status: 'completed', run_id: runId })
    }
    // the failed event left nothing: the offer is untouched and the retry executes it
    expect(await offer('S11')).toMatchObject({ price_m2_cents: 8_000_00 })
    expect(await execution(`gc-boom-${tag}`)).toBeUndefined()
    const retried = await send(boom, `gc-boom-${tag}`)
    expect(retried.statusCode).toBe(202)
    expect(await offer('S11')).toMatchObject({ price_m2_cents: 9_400_00 })
  })

  it('sends no answer before the commit that holds its event', async () => {
    const tag = randomBytes(3).toString('hex')
    const keys = Array.from({ length: 10 }, (_, i) => `gc-durable-${tag}-${i}`)
    // another connection to the same database sees only what is committed
    const connection = env.database.connection
    const file = connection.sqliteFile
    const reader = file ? new SqliteDatabase(file, { readonly: true }) : undefined
    const other = file ? undefined : openDatabase(connection)
    const seenAtAnswer: Array<string | undefined> = []
    try {
      const lookup = reader?.prepare('SELECT status FROM webhook_executions WHERE idempotency_key = ?')
      await Promise.all(
        keys.map((key, i) =>
          send(update(`S${i}`, 9_700_00 + i), key).then(async (response) => {
            expect(response.statusCode).toBe(202)
            // SQLite: read synchronously in the very callback that receives the answer
            seenAtAnswer[i] = lookup
              ? (lookup.get(key) as { status: string } | undefined)?.status
              : (
                  await other?.db
                    .selectFrom('webhook_executions')
                    .select('status')
                    .where('idempotency_key', '=', key)
                    .executeTakeFirst()
                )?.status
          }),
        ),
      )
    } finally {
      reader?.close()
      await other?.destroy()
    }
    expect(seenAtAnswer).toEqual(keys.map(() => 'completed'))
  })
})
