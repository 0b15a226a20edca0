/*
 * Reliability of exactly-once webhook execution: a server killed
 * with SIGKILL while it executes many distinct signed events leaves every event either fully
 * applied (its execution record `completed`, a retry answers 200 replayed with the stored result)
 * or not applied at all (a retry executes it: 202) — never half-applied, never applied twice.
 *
 * The service runs in a child process (test/webhook/fixtures/serve-for-test.ts) on the suite's own
 * SQLite file or PostgreSQL schema. Each round fires 150 distinct events (half create an offer,
 * half change the price of an offer seeded beforehand) over HTTP, 16 at a time, and kills the child
 * after a random number of answers plus a random delay, so that claims, transactions and commits
 * are in flight. The database is checked right after the kill; then another child is started on
 * the same database and every event is retried with the reference sender (same key and body, new
 * nonce, timestamp and signature) until it succeeds. That child is the next round's victim.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes, randomInt } from 'node:crypto'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

import { sql } from 'kysely'
import { afterAll, beforeAll, expect, it } from 'vitest'

import type { HostContext } from '../../src/host/context.js'
import { sendPropertyEvent, signedHeaders } from '../../src/webhook/sender.js'
import { rotateWebhookSecret } from '../../src/webhook/webhook-secret.js'
import { grantProLicense } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { deliver, WEBHOOK_URL } from '../helpers/webhook.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SERVER_SCRIPT = fileURLToPath(new URL('./fixtures/serve-for-test.ts', import.meta.url))
const EVENTS = 150
const SEEDED = EVENTS / 2
const CONCURRENCY = 16
const ROUND_TIMEOUT_MS = 60_000
/** Kill after this many answers (a random number in the range) and a further random delay. */
const KILL_POINTS = [
  { name: 'early', answers: [1, 8], maxDelayMs: 5 },
  { name: 'midway', answers: [20, 70], maxDelayMs: 10 },
  { name: 'late', answers: [80, 130], maxDelayMs: 3 },
] as const

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Server {
  process: ChildProcess
  url: string
  appName: string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stderr(): string
}

async function startServer(env: TestEnv): Promise<Server> {
  const appName = `dg-wh-crash-${randomBytes(6).toString('hex')}`
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT], {
    cwd: ROOT,
    env: {
      ...process.env,
      DG_CHILD_CONNECTION: JSON.stringify(env.database.connection),
      DG_CHILD_DATA_DIR: env.database.dataDir,
      // lets the test see when the PostgreSQL backends of a dead child are gone
      PGAPPNAME: appName,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const match = /^port (\d+)$/.exec(line)
      if (match) resolve(Number(match[1]))
    })
    void exited.then(({ code, signal }) => reject(new Error(`server exited (${code ?? signal}); stderr: ${stderr}`)))
  })
  return { process: child, url: `http://127.0.0.1:${port}${WEBHOOK_URL}`, appName, exited, stderr: () => stderr }
}

async function stopServer(server: Server): Promise<void> {
  if (server.process.exitCode !== null || server.process.signalCode !== null) return
  server.process.kill('SIGTERM')
  const timer = setTimeout(() => server.process.kill('SIGKILL'), 5000)
  await server.exited
  clearTimeout(timer)
}

/** A PostgreSQL backend notices a dead client only when it next reads the socket; wait for it to go. */
async function waitForBackendsGone(ctx: HostContext, appName: string): Promise<void> {
  if (ctx.caps.name !== 'postgres') return
  const deadline = Date.now() + 20_000
  for (;;) {
    const { rows } = await sql<{
      n: number
    }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${appName}`.execute(ctx.db)
    if (rows[0]?.n === 0) return
    if (Date.now() > deadline) throw new Error(`backends of ${appName} still alive`)
    await sleep(20)
  }
}

/** Runs `work` over `items`, `concurrency` at a time. */
async function pool<T>(items: readonly T[], concurrency: number, work: (item: T, index: number) => Promise<void>) {
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++
        await work(items[index] as T, index)
      }
    }),
  )
}

const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`
const SEED = { total: 400_000_00, m2: 8_000_00 }
const offerBase = (investment: string) => ({
  source_investment_id: investment,
  prop_type: 'mieszkanie',
  prop_area: '50.00',
})

interface CrashEvent {
  key: string
  body: string
  property: string
  kind: 'create' | 'update'
  totalCents: number
  m2Cents: number
}

type FirstAttempt =
  | { kind: 'not_sent' }
  | { kind: 'network_error' }
  | { kind: 'answered'; status: number; body: { result?: unknown; error?: string } }

interface EventState {
  offer: { price_total_cents: number | null; price_m2_cents: number | null } | undefined
  history: Array<{ price_type: string; record_type: string; run_id: number | null }>
  /** Ids of the `webhook.execute` audit entries of the event's key (the run ids). */
  audits: number[]
  execution: { status: string; run_id: number | null; result: string | null } | undefined
}

const observed: string[] = []

describeEachDatabase('webhook server killed during executions', (getEnv) => {
  let env: TestEnv
  let secret: string
  /** The running child: killed by the next round, or stopped at the end. */
  let server: Server | undefined
  const investments = KILL_POINTS.map((_, round) => `CRASH-${round + 1}-${randomBytes(3).toString('hex')}`)

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    secret = (await rotateWebhookSecret(env.ctx, { type: 'cli' })).secret
    // the offers the update events change, seeded in-process (on the test clock) to save time
    for (const investment of investments) {
      await pool(
        Array.from({ length: SEEDED }, (_, i) => i),
        8,
        async (i) => {
          const seeded = await deliver(env.app, {
            body: JSON.stringify({
              ...offerBase(investment),
              source_property_id: `U${i}`,
              price_m2: money(SEED.m2),
              price_total: money(SEED.total),
              price_m2_from: '2026-01-01',
              price_total_from: '2026-01-01',
            }),
            key: `seed-${investment}-${i}`,
            secret,
            timestamp: Math.floor(env.clock.now().getTime() / 1000),
          })
          expect(seeded.statusCode, seeded.body).toBe(202)
        },
      )
    }
  }, 60_000)

  afterAll(async () => {
    if (server) await stopServer(server)
    if (observed.length > 0) process.stdout.write(`\nKills observed:\n${observed.map((o) => `  ${o}`).join('\n')}\n`)
    observed.length = 0
  })

  async function eventState(investment: string, event: CrashEvent): Promise<EventState> {
    const offer = await env.ctx.db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .select(['offers.id', 'offers.price_total_cents', 'offers.price_m2_cents'])
      .where('investments.source_id', '=', investment)
      .where('offers.source_property_id', '=', event.property)
      .executeTakeFirst()
    const audits = await env.ctx.db
      .selectFrom('audit_log')
      .select('id')
      .where('action', '=', 'webhook.execute')
      .where('object_id', '=', event.key)
      .execute()
    const execution = await env.ctx.db
      .selectFrom('webhook_executions')
      .select(['status', 'run_id', 'result'])
      .where('idempotency_key', '=', event.key)
      .executeTakeFirst()
    const history = offer
      ? await env.ctx.db
          .selectFrom('price_history')
          .select(['price_type', 'record_type', 'run_id'])
          .where('offer_id', '=', offer.id)
          .orderBy('id')
          .execute()
      : []
    return { offer, history, audits: audits.map((a) => a.id), execution }
  }

  /** The event is in the catalog exactly once, recorded by one run; returns that run's id. */
  function expectApplied(state: EventState, event: CrashEvent): number {
    const label = `${event.kind} ${event.key}`
    expect(state.offer, label).toMatchObject({ price_total_cents: event.totalCents, price_m2_cents: event.m2Cents })
    expect(state.audits, label).toHaveLength(1)
    const runId = state.audits[0] ?? -1
    expect(state.execution, label).toMatchObject({ status: 'completed', run_id: runId })
    const mine = state.history.filter((r) => r.run_id === runId)
    expect(mine.map((r) => r.price_type).sort(), label).toEqual(['m2', 'total'])
    // a create has only its own two `first` records; an update the seed's two, then its two
    expect(state.history, label).toHaveLength(event.kind === 'create' ? 2 : 4)
    for (const record of mine) expect(record.record_type, label).toBe(event.kind === 'create' ? 'first' : 'change')
    return runId
  }

  /** Nothing of the event is in the catalog: no offer (create) or the seeded one untouched (update). */
  function expectNotApplied(state: EventState, event: CrashEvent): void {
    const label = `${event.kind} ${event.key}`
    expect(state.execution?.status, label).not.toBe('completed')
    expect(state.audits, label).toEqual([])
    if (event.kind === 'create') {
      expect(state.offer, label).toBeUndefined()
      expect(state.history, label).toEqual([])
      return
    }
    expect(state.offer, label).toMatchObject({ price_total_cents: SEED.total, price_m2_cents: SEED.m2 })
    expect(state.history, label).toHaveLength(2)
  }

  for (const [round, point] of KILL_POINTS.entries()) {
    it(
      `applies every event exactly once when the server is killed ${point.name} (after ${point.answers[0]}–${point.answers[1]} answers + 0–${point.maxDelayMs} ms)`,
      async () => {
        const t0 = Date.now()
        const investment = investments[round] ?? ''
        const base = offerBase(investment)
        const events: CrashEvent[] = Array.from({ length: EVENTS }, (_, i) => {
          const kind = i % 2 === 0 ? 'create' : 'update'
          const m2Cents = (kind === 'create' ? 10_000_00 : 9_000_00) + i * 100
          const totalCents = m2Cents * 50
          const property = kind === 'create' ? `C${i}` : `U${Math.floor(i / 2)}`
          const key = `crash-${round + 1}-${i}-${randomBytes(4).toString('hex')}`
          const body = JSON.stringify({
            ...base,
            source_property_id: property,
            price_m2: money(m2Cents),
            price_total: money(totalCents),
            price_m2_from: '2026-06-01',
            price_total_from: '2026-06-01',
          })
          return { key, body, property, kind, totalCents, m2Cents }
        })

        const victim = server ?? (await startServer(env))
        server = undefined
        try {
          const tStarted = Date.now()

          // fire the events and kill the server after `killAfter` answers and `delay` ms
          const killAfter = randomInt(point.answers[0], point.answers[1] + 1)
          const delay = randomInt(point.maxDelayMs + 1)
          const first: FirstAttempt[] = events.map(() => ({ kind: 'not_sent' }))
          let answered = 0
          let dead = false
          let killed: Promise<unknown> | undefined
          await pool(events, CONCURRENCY, async (event, index) => {
            if (dead) return
            const body = Buffer.from(event.body)
            try {
              const response = await fetch(victim.url, {
                method: 'POST',
                headers: signedHeaders(secret, event.key, body, Date.now() / 1000),
                body,
              })
              first[index] = { kind: 'answered', status: response.status, body: (await response.json()) as never }
            } catch {
              first[index] = { kind: 'network_error' }
            }
            answered++
            if (answered >= killAfter && !killed) {
              killed = sleep(delay).then(() => {
                dead = true
                victim.process.kill('SIGKILL')
              })
            }
          })
          await killed
          const exit = await victim.exited
          expect(exit.signal).toBe('SIGKILL')
          const tKilled = Date.now()
          await waitForBackendsGone(env.ctx, victim.appName)

          // every answer the dead server gave was a first execution
          for (const [i, attempt] of first.entries()) {
            if (attempt.kind === 'answered') expect(attempt.status, `${events[i]?.key} ${victim.stderr()}`).toBe(202)
          }

          // right after the crash: each event is wholly applied (completed) or not at all
          const before = await Promise.all(events.map((event) => eventState(investment, event)))
          const running = await env.ctx.db
            .selectFrom('webhook_executions')
            .select('idempotency_key')
            .where('status', '=', 'running')
            .where('idempotency_key', 'like', `crash-${round + 1}-%`)
            .execute()
          const committed = new Set<string>()
          events.forEach((event, i) => {
            const state = before[i] as EventState
            if (state.execution?.status === 'completed') {
              committed.add(event.key)
              expectApplied(state, event)
            } else {
              expectNotApplied(state, event)
            }
            const attempt = first[i]
            // an answered 202 was committed before it was sent
            if (attempt?.kind === 'answered') expect(committed.has(event.key), event.key).toBe(true)
          })

          // The dead server's claims (`running` rows) hold a 30 s lease, during which a retry is
          // answered 409 webhook_in_progress with Retry-After (the sender would wait and retry). To
          // keep the test fast the leases are run out now instead of waited for; the takeover
          // path is the same as after 30 s.
          await env.ctx.db
            .updateTable('webhook_executions')
            .set({ lease_expires_at: '2000-01-01T00:00:00.000Z' })
            .where('status', '=', 'running')
            .execute()

          // restart on the same database and retry every event until it succeeds
          const restarted = await startServer(env)
          server = restarted
          const tRestarted = Date.now()
          const retries: Array<{ status: 200 | 202; replayed: boolean; result: unknown; statuses: string[] }> = []
          await pool(events, CONCURRENCY, async (event, index) => {
            const statuses: string[] = []
            const sent = await sendPropertyEvent({
              url: restarted.url,
              secret,
              idempotencyKey: event.key,
              payload: event.body,
              maxAttempts: 6,
              baseDelayMs: 50,
              sleep: async (ms) => {
                await sleep(Math.min(ms, 250))
              },
              onAttempt: (a) => statuses.push(`${a.status}${a.error ? ` ${a.error}` : ''}`),
            })
            retries[index] = { ...sent, statuses }
          })

          let replayed = 0
          let executed = 0
          let inProgress = 0
          const after = await Promise.all(events.map((event) => eventState(investment, event)))
          events.forEach((event, i) => {
            const retry = retries[i]
            const label = `${event.key}: ${retry?.statuses.join(', ')}`
            expect(retry, label).toBeDefined()
            if (!retry) return
            // only 409 webhook_in_progress may precede the success
            for (const status of retry.statuses.slice(0, -1)) expect(status, label).toBe('409 webhook_in_progress')
            inProgress += retry.statuses.length - 1
            if (committed.has(event.key)) {
              replayed++
              expect(retry.status, label).toBe(200)
              expect(retry.replayed, label).toBe(true)
              expect(JSON.stringify(retry.result), label).toBe(before[i]?.execution?.result)
              const attempt = first[i]
              if (attempt?.kind === 'answered') expect(retry.result, label).toEqual(attempt.body.result)
            } else {
              executed++
              expect(retry.status, label).toBe(202)
              expect(retry.replayed, label).toBe(false)
            }
            const runId = expectApplied(after[i] as EventState, event)
            expect(retry.result, label).toMatchObject({
              status: 'completed',
              processed: 1,
              created: event.kind === 'create' ? 1 : 0,
              updated: event.kind === 'update' ? 1 : 0,
              run_id: runId,
            })
          })
          // nothing else was written: the seeds plus one offer per create event
          const offers = await env.ctx.db
            .selectFrom('offers')
            .innerJoin('investments', 'investments.id', 'offers.investment_id')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('investments.source_id', '=', investment)
            .executeTakeFirstOrThrow()
          expect(Number(offers.n)).toBe(SEEDED + EVENTS / 2)

          // and once more: every event is now a replay that writes nothing
          const historyBefore = await env.ctx.db
            .selectFrom('price_history')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
          await pool(events, CONCURRENCY, async (event) => {
            const again = await sendPropertyEvent({
              url: restarted.url,
              secret,
              idempotencyKey: event.key,
              payload: event.body,
              maxAttempts: 1,
            })
            expect(again.status, event.key).toBe(200)
            expect(again.replayed, event.key).toBe(true)
          })
          const historyAfter = await env.ctx.db
            .selectFrom('price_history')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
          expect(Number(historyAfter.n)).toBe(Number(historyBefore.n))

          const count = (kind: FirstAttempt['kind']) => first.filter((a) => a.kind === kind).length
          observed.push(
            `[${env.dialect}] ${point.name}: killed after ${killAfter} answers + ${delay} ms; ` +
              `${count('answered')} answered 202, ${count('network_error')} cut off, ${count('not_sent')} not sent; ` +
              `at the crash ${committed.size} committed, ${running.length} claims running; ` +
              `after restart ${replayed} × 200 replayed, ${executed} × 202, ${inProgress} × 409 ` +
              `(start ${tStarted - t0} ms, fire+kill ${tKilled - tStarted} ms, restart ${tRestarted - tKilled} ms, ` +
              `total ${Date.now() - t0} ms)`,
          )
        } finally {
          if (victim.process.exitCode === null && victim.process.signalCode === null) victim.process.kill('SIGKILL')
        }
      },
      ROUND_TIMEOUT_MS,
    )
  }
})
