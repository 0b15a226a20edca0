/*
 * Reliability of the import commit: a process killed with SIGKILL
 * while it commits a large import leaves the catalog with the whole import or none of it, and the
 * job either `completed` (a retry with the same Idempotency-Key replays the stored result) or back
 * in `previewed` after a restart (executing it then writes exactly one set of offers and history).
 * Two concurrent executions of one job: one runs, the other is refused with 409.
 *
 * The import is executed by a child process (test/imports/fixtures-scripts/execute-import-child.ts)
 * on the suite's own SQLite file or PostgreSQL schema. The child announces every INSERT/UPDATE/
 * DELETE before it runs (`phase insert:offers 1`, ...), so the kill can be aimed at a moment of the
 * commit transaction instead of a wall-clock guess: the job turning `running` (polled from the
 * database), the first offers insert, the price history insert (after every offer is written) and
 * the lock release that immediately precedes COMMIT. A random delay is added to each.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes, randomInt } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { afterAll, beforeAll, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import type { HostContext } from '../../src/host/context.js'
import { openDatabase } from '../../src/host/db/database.js'
import { PluginError } from '../../src/host/errors.js'
import type { ImportResult } from '../../src/imports/execution/written-job.js'
import { executeOfferImport } from '../../src/imports/execution/execute-offer-import.js'
import { previewOfferImport } from '../../src/imports/preview-offer-import.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const CHILD_SCRIPT = fileURLToPath(new URL('./fixtures-scripts/execute-import-child.ts', import.meta.url))
const URL_IMPORT = '/wp-json/dg/v2/imports/offer'
/*
 * Large enough that the commit transaction takes seconds. Measured on an idle 2-CPU machine,
 * 60,000 rows committed in 6.7 s on SQLite and 13.5 s on PostgreSQL, but as every test previews,
 * commits and re-executes the file, a test then took up to 80 s on a machine busy with other
 * suites; 40,000 rows keep the commit at several seconds and a test well under a minute.
 */
const ROWS = 40_000
/** Margin for a machine busy with other suites; a test takes 15–40 s. */
const TEST_TIMEOUT_MS = 120_000

const MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID lokalu',
  prop_no: 'Numer',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  prop_rooms: 'Pokoje',
  prop_floor: 'Piętro',
  price_m2: 'Cena m2',
  price_total: 'Cena',
  price_total_from: 'Cena od',
  proj_city: 'Miasto',
}
const HEADER = 'Inwestycja;ID lokalu;Numer;Rodzaj;Status;Powierzchnia;Pokoje;Piętro;Cena m2;Cena;Cena od;Miasto'

function formatCents(cents: number): string {
  return `${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`
}

/** `rows` new offers of investment `investment`, each with a total and an m² price (2 history records). */
function writeCsv(file: string, investment: string, rows: number): void {
  const lines = [HEADER]
  for (let i = 1; i <= rows; i++) {
    const areaHundredths = 3000 + (i % 9000)
    const m2Cents = 900_000 + (i % 500) * 100
    const totalCents = Math.round((m2Cents * areaHundredths) / 100)
    lines.push(
      [
        investment,
        `L${i}`,
        `${investment}/${i}`,
        i % 10 === 0 ? 'dom' : 'mieszkanie',
        i % 3 === 0 ? 'rezerwacja' : 'wolne',
        formatCents(areaHundredths),
        String(1 + (i % 5)),
        String(i % 12),
        formatCents(m2Cents),
        formatCents(totalCents),
        '2026-10-01',
        'Poznań',
      ].join(';'),
    )
  }
  fs.writeFileSync(file, `${lines.join('\n')}\n`)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Child {
  process: ChildProcess
  lines: string[]
  /** Resolves with the first line starting with `prefix`; rejects if the child exits first. */
  waitFor(prefix: string): Promise<string>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  hasExited(): boolean
  stderr(): string
}

function startChild(env: TestEnv, jobId: string, key: string, appName: string): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD_SCRIPT], {
    cwd: ROOT,
    env: {
      ...process.env,
      DG_CHILD_CONNECTION: JSON.stringify(env.database.connection),
      DG_CHILD_JOB_ID: jobId,
      DG_CHILD_KEY: key,
      DG_CHILD_NOW: env.clock.now().toISOString(),
      DG_CHILD_DATA_DIR: env.database.dataDir,
      // lets the test see when the PostgreSQL backends of the dead child are gone
      PGAPPNAME: appName,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  let stderr = ''
  let done = false
  const waiters: Array<{ prefix: string; resolve: (line: string) => void; reject: (error: Error) => void }> = []
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    lines.push(line)
    for (const waiter of [...waiters]) {
      if (!line.startsWith(waiter.prefix)) continue
      waiters.splice(waiters.indexOf(waiter), 1)
      waiter.resolve(line)
    }
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    // 'close', not 'exit': every line the child printed has been read by then
    child.on('close', (code, signal) => {
      done = true
      for (const waiter of waiters.splice(0))
        waiter.reject(new Error(`child exited (${code ?? signal}) before "${waiter.prefix}"; stderr: ${stderr}`))
      resolve({ code, signal })
    })
  })
  return {
    process: child,
    lines,
    exited,
    hasExited: () => done,
    stderr: () => stderr,
    waitFor(prefix) {
      const seen = lines.find((line) => line.startsWith(prefix))
      if (seen !== undefined) return Promise.resolve(seen)
      if (done) return Promise.reject(new Error(`child exited before "${prefix}"; stderr: ${stderr}`))
      return new Promise((resolve, reject) => waiters.push({ prefix, resolve, reject }))
    },
  }
}

async function jobStatus(ctx: HostContext, jobId: string): Promise<string | undefined> {
  return (await ctx.db.selectFrom('import_jobs').select('status').where('id', '=', jobId).executeTakeFirst())?.status
}

/** Polls the database (not the child's output) until the job is `running` or the import lock is taken. */
async function waitUntilRunning(ctx: HostContext, jobId: string, child: Child): Promise<void> {
  const deadline = Date.now() + 30_000
  for (;;) {
    const status = await jobStatus(ctx, jobId)
    const lock = await ctx.db.selectFrom('locks').select('owner').where('name', '=', 'offer_import').executeTakeFirst()
    if (status === 'running' || lock !== undefined || status === 'completed' || child.hasExited()) return
    if (Date.now() > deadline) throw new Error(`job never started; child output: ${child.lines.join(' | ')}`)
    await sleep(5)
  }
}

/** A PostgreSQL backend notices a dead client only when it next reads the socket; wait for it to go. */
async function waitForBackendsGone(ctx: HostContext, appName: string): Promise<void> {
  if (ctx.caps.name !== 'postgres') return
  const deadline = Date.now() + 30_000
  for (;;) {
    const { rows } = await sql<{
      n: number
    }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${appName}`.execute(ctx.db)
    if (rows[0]?.n === 0) return
    if (Date.now() > deadline) throw new Error(`backends of ${appName} still alive`)
    await sleep(20)
  }
}

interface CatalogState {
  investments: number
  offers: number
  /** Price history of those offers grouped by type, kind and run: `n` records over `offers` offers. */
  history: Array<{ price_type: string; record_type: string; run_id: number | null; n: number; offers: number }>
  successAudits: number[]
  job: { status: string; run_id: number | null; idempotency_key: string | null; result: string | null }
}

/** Aggregates only: comparing 120,000 history rows one by one would cost more than the import. */
async function catalogState(ctx: HostContext, investment: string, jobId: string): Promise<CatalogState> {
  const investments = await ctx.db.selectFrom('investments').select('id').where('source_id', '=', investment).execute()
  const ids = investments.map((i) => i.id)
  const offers =
    ids.length === 0
      ? 0
      : Number(
          (
            await ctx.db
              .selectFrom('offers')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('investment_id', 'in', ids)
              .executeTakeFirstOrThrow()
          ).n,
        )
  const history =
    ids.length === 0
      ? []
      : (
          await ctx.db
            .selectFrom('price_history')
            .innerJoin('offers', 'offers.id', 'price_history.offer_id')
            .select((eb) => [
              'price_history.price_type',
              'price_history.record_type',
              'price_history.run_id',
              eb.fn.countAll().as('n'),
              eb.fn.count('price_history.offer_id').distinct().as('offers'),
            ])
            .where('offers.investment_id', 'in', ids)
            .groupBy(['price_history.price_type', 'price_history.record_type', 'price_history.run_id'])
            .orderBy('price_history.price_type')
            .execute()
        ).map((h) => ({ ...h, n: Number(h.n), offers: Number(h.offers) }))
  const successAudits = await ctx.db
    .selectFrom('audit_log')
    .select('id')
    .where('action', '=', 'import.execute')
    .where('object_id', '=', jobId)
    .where('outcome', '=', 'success')
    .execute()
  const job = await ctx.db
    .selectFrom('import_jobs')
    .select(['status', 'run_id', 'idempotency_key', 'result'])
    .where('id', '=', jobId)
    .executeTakeFirstOrThrow()
  return { investments: investments.length, offers, history, successAudits: successAudits.map((a) => a.id), job }
}

/**
 * Names and definitions of the offer indexes and of the triggers on offers and price history, as the
 * database holds them: a large import drops and makes again both inside its transaction.
 */
async function indexesOfOffers(ctx: HostContext): Promise<string[]> {
  const { rows } =
    ctx.caps.name === 'sqlite'
      ? await sql<{ d: string }>`SELECT type || ' ' || name || ': ' || coalesce(sql, '') AS d FROM sqlite_master
          WHERE (type = 'index' AND tbl_name = 'offers')
             OR (type = 'trigger' AND tbl_name IN ('offers', 'price_history'))
          ORDER BY type, name`.execute(ctx.db)
      : await sql<{ d: string }>`SELECT 'index ' || indexname || ': ' || indexdef AS d FROM pg_indexes
          WHERE schemaname = current_schema() AND tablename = 'offers'
          UNION ALL
          SELECT 'trigger ' || t.tgname || ': ' || pg_get_triggerdef(t.oid) FROM pg_trigger t
          JOIN pg_class c ON c.oid = t.tgrelid
          WHERE c.relname IN ('offers', 'price_history') AND c.relnamespace = current_schema()::regnamespace
            AND NOT t.tgisinternal
          ORDER BY 1`.execute(ctx.db)
  return rows.map((row) => row.d)
}

/** The whole import is there exactly once: every offer with one `first` total and m² record, all of one run. */
function expectWholeImport(state: CatalogState, rows: number): void {
  expect(state.investments).toBe(1)
  expect(state.offers).toBe(rows)
  expect(state.job.status).toBe('completed')
  expect(state.successAudits).toHaveLength(1)
  const runId = state.successAudits[0]
  expect(state.job.run_id).toBe(runId)
  expect(state.history).toEqual([
    { price_type: 'm2', record_type: 'first', run_id: runId, n: rows, offers: rows },
    { price_type: 'total', record_type: 'first', run_id: runId, n: rows, offers: rows },
  ])
}

function expectNothing(state: CatalogState): void {
  expect(state.investments).toBe(0)
  expect(state.offers).toBe(0)
  expect(state.history).toEqual([])
  expect(state.successAudits).toEqual([])
  expect(state.job.status).not.toBe('completed')
}

interface KillPoint {
  name: string
  /** `running`: poll the database; otherwise a line prefix the child prints before that statement. */
  wait: string
  maxDelayMs: number
}

/*
 * In order of the execution: `running` is committed before the commit transaction opens; inside
 * it come the planning reads, the investment and offers inserts, the audit entry, the price
 * history inserts, the job's `completed` update and the lock release, then COMMIT. The last point
 * kills a child whose commit has returned, which must look exactly like a completed import.
 */
const KILL_POINTS: KillPoint[] = [
  { name: 'the job turning running (polled)', wait: 'running', maxDelayMs: 300 },
  { name: 'the first offers insert', wait: 'phase insert:offers 1', maxDelayMs: 300 },
  { name: 'the first price history insert', wait: 'phase insert:price_history 1', maxDelayMs: 100 },
  { name: 'the lock release just before COMMIT', wait: 'phase delete:locks 1', maxDelayMs: 15 },
  { name: 'the commit returning', wait: 'result ', maxDelayMs: 0 },
]

const observed: string[] = []

describeEachDatabase('offer import killed during its commit', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let run = 0

  let offerIndexes: string[] = []

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    offerIndexes = await indexesOfOffers(env.ctx)
    expect(offerIndexes.filter((d) => d.startsWith('index')).length).toBeGreaterThan(5)
    expect(offerIndexes.filter((d) => d.startsWith('trigger')).length).toBeGreaterThan(1)
  })

  afterAll(() => {
    if (observed.length > 0) process.stdout.write(`\n${observed.map((o) => `  ${o}`).join('\n')}\n`)
    observed.length = 0
  })

  /** Another instance of the service on the same database, as after a restart (runs recovery). */
  async function restart(): Promise<{ app: FastifyInstance; close(): Promise<void> }> {
    const handle = openDatabase(env.database.connection)
    const app = await buildApp({ config: env.config, database: handle, now: env.clock.now })
    await app.ready()
    return {
      app,
      close: async () => {
        await app.close()
        await handle.destroy()
      },
    }
  }

  const executeOverHttp = (app: FastifyInstance, jobId: string, key: string) =>
    app.inject({
      method: 'POST',
      url: URL_IMPORT,
      payload: `job_id=${jobId}`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': key,
        authorization: admin.authorization,
      },
    })

  async function preview(investment: string, rows: number): Promise<string> {
    const file = path.join(env.database.dataDir, `${investment}.csv`)
    writeCsv(file, investment, rows)
    const outcome = await previewOfferImport(env.ctx, {
      actor: { type: 'system' },
      operator: { userId: null, name: 'crash-test' },
      filePath: file,
      fileName: `${investment}.csv`,
      mode: 'patch',
      mapping: MAPPING,
    })
    fs.rmSync(file)
    expect(outcome.preview.valid).toBe(true)
    expect(outcome.preview.counts).toEqual({ create: rows, update: 0, unchanged: 0, archive: 0 })
    return outcome.id
  }

  for (const point of KILL_POINTS) {
    it(
      `holds all or nothing when killed at ${point.name} (+0–${point.maxDelayMs} ms), then replays or re-executes once`,
      async () => {
        const t0 = Date.now()
        run++
        const investment = `CRASH-${run}-${randomBytes(3).toString('hex')}`
        const jobId = await preview(investment, ROWS)
        const tPreview = Date.now()
        const key = `crash-${randomBytes(8).toString('hex')}`
        const appName = `dg-crash-${randomBytes(6).toString('hex')}`
        const child = startChild(env, jobId, key, appName)

        try {
          if (point.wait === 'running') await waitUntilRunning(env.ctx, jobId, child)
          else await child.waitFor(point.wait)
        } catch (error) {
          child.process.kill('SIGKILL')
          throw error
        }
        const tAim = Date.now()
        const delay = randomInt(point.maxDelayMs + 1)
        await sleep(delay)
        const returned = child.lines.some((line) => line.startsWith('result '))
        child.process.kill('SIGKILL')
        const exit = await child.exited
        expect(child.lines.filter((line) => line.startsWith('error '))).toEqual([])
        if (!returned) expect(exit.signal).toBe('SIGKILL')
        const lastStatement = child.lines.filter((line) => line.startsWith('phase ')).at(-1)
        await waitForBackendsGone(env.ctx, appName)

        if (env.dialect === 'postgres') {
          // On PostgreSQL recovery leaves a job alone while its lease lives (another instance may be
          // committing it), and the dead child's lease lasts 120 s. Rather than wait, let it run out.
          await env.ctx.db
            .updateTable('locks')
            .set({ expires_at: '2000-01-01T00:00:00.000Z' })
            .where('name', '=', 'offer_import')
            .execute()
        }
        const restarted = await restart()
        try {
          const ctx = restarted.app.ctx
          const after = await catalogState(ctx, investment, jobId)
          const outcome = after.offers === 0 ? 'rolled back' : 'completed'
          if (outcome === 'completed') expectWholeImport(after, ROWS)
          else expectNothing(after)
          // a large first import loads as a bulk load (indexes and revision triggers dropped and made
          // again in its transaction)
          expect(await indexesOfOffers(ctx)).toEqual(offerIndexes)
          if (returned) expect(outcome).toBe('completed')
          expect(await ctx.db.selectFrom('locks').selectAll().where('name', '=', 'offer_import').execute()).toEqual([])

          let result: ImportResult
          if (outcome === 'completed') {
            expect(after.job.idempotency_key).toBe(key)
            result = JSON.parse(after.job.result ?? '{}') as ImportResult
            expect(result).toEqual({
              status: 'completed',
              processed: ROWS,
              created: ROWS,
              updated: 0,
              archived: 0,
              run_id: after.job.run_id,
            })
          } else {
            // recovered by the restart: executable again, here under the key a client retry sends
            expect(after.job.status).toBe('previewed')
            expect(after.job.idempotency_key).toBeNull()
            const retried = await executeOverHttp(restarted.app, jobId, key)
            expect(retried.statusCode).toBe(200)
            expect(retried.json().replayed).toBeUndefined()
            result = retried.json().result
            expect(result).toMatchObject({ status: 'completed', processed: ROWS, created: ROWS })
            expectWholeImport(await catalogState(ctx, investment, jobId), ROWS)
          }
          // the same key once more replays the stored result and writes nothing
          const before = await catalogState(ctx, investment, jobId)
          const replay = await executeOverHttp(restarted.app, jobId, key)
          expect(replay.statusCode).toBe(200)
          expect(replay.json()).toEqual({ id: jobId, result, replayed: true })
          expect(await catalogState(ctx, investment, jobId)).toEqual(before)

          observed.push(
            `[${env.dialect}] killed ${tAim - tPreview + delay} ms after start, at ${point.name} +${delay} ms ` +
              `(last statement announced: ${lastStatement?.slice(6) ?? 'none'}): ${outcome}; ` +
              `test took ${Date.now() - t0} ms`,
          )
        } finally {
          await restarted.close()
        }
      },
      TEST_TIMEOUT_MS,
    )
  }

  /*
   * In-process races on one job. Every variant must end with exactly one execution that ran; the
   * others are refused with 409 (`import_pending` with Retry-After 5 while it runs, `import_conflict`
   * for another key), or, for the winner's own key arriving after the commit, a replay.
   */
  const RACES: Array<{ name: string; keys: string[]; secondInstance?: boolean }> = [
    { name: 'two different keys', keys: ['race-key-a', 'race-key-b'] },
    { name: 'the same key twice', keys: ['race-key-same', 'race-key-same'] },
    { name: 'three calls, two of them with one key', keys: ['race-key-x', 'race-key-x', 'race-key-y'] },
    { name: 'two instances on the same database', keys: ['race-key-one', 'race-key-two'], secondInstance: true },
  ]
  for (const race of RACES) {
    it(`runs one of concurrent executions of a job (${race.name}) and refuses the others with 409`, async () => {
      const rows = 2_000
      run++
      const investment = `RACE-${run}-${randomBytes(3).toString('hex')}`
      const jobId = await preview(investment, rows)
      const suffix = randomBytes(4).toString('hex')
      const keys = race.keys.map((k) => `${k}-${suffix}`)
      const second = race.secondInstance ? await restart() : undefined
      try {
        const contexts = keys.map((_, i) => (second && i % 2 === 1 ? second.app.ctx : env.ctx))
        const settled = await Promise.allSettled(
          keys.map((key, i) =>
            executeOfferImport(contexts[i] as HostContext, {
              actor: { type: 'system' },
              jobId,
              idempotencyKey: key,
              confirmArchiving: false,
            }),
          ),
        )
        const ran = settled.flatMap((s, i) => (s.status === 'fulfilled' && !s.value.replayed ? [i] : []))
        expect(ran).toHaveLength(1)
        const winner = ran[0] as number
        const won = settled[winner] as PromiseFulfilledResult<{ result: ImportResult }>
        expect(won.value.result).toMatchObject({ status: 'completed', processed: rows, created: rows })
        const seen: string[] = []
        settled.forEach((s, i) => {
          if (i === winner) return seen.push('completed')
          if (s.status === 'fulfilled') {
            // only the winner's own key may be answered from the stored result
            expect(keys[i]).toBe(keys[winner])
            expect(s.value).toEqual({ id: jobId, result: won.value.result, replayed: true })
            return seen.push('replayed')
          }
          const error: unknown = s.reason
          expect(error).toBeInstanceOf(PluginError)
          const refusal = error as PluginError
          expect(refusal.status).toBe(409)
          expect(['import_pending', 'import_conflict']).toContain(refusal.error)
          if (refusal.error === 'import_pending') expect(refusal.headers).toEqual({ 'Retry-After': 5 })
          return seen.push(refusal.error)
        })
        const state = await catalogState(env.ctx, investment, jobId)
        expectWholeImport(state, rows)
        expect(state.job.idempotency_key).toBe(keys[winner])
        // afterwards: the winner's key replays, another key is a conflict, and nothing is written again
        for (const key of new Set(keys)) {
          const again = executeOfferImport(env.ctx, {
            actor: { type: 'system' },
            jobId,
            idempotencyKey: key,
            confirmArchiving: false,
          })
          if (key === keys[winner]) await expect(again).resolves.toMatchObject({ replayed: true })
          else await expect(again).rejects.toMatchObject({ error: 'import_conflict', status: 409 })
        }
        expect(await catalogState(env.ctx, investment, jobId)).toEqual(state)
        observed.push(`[${env.dialect}] race, ${race.name}: ${seen.join(', ')}`)
      } finally {
        await second?.close()
      }
    })
  }
})
