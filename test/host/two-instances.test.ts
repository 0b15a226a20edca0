/*
 * Two instances of the service on one PostgreSQL database and one shared data folder, as the
 * documented deployment of N stateless instances behind a reverse proxy runs them. Each instance
 * is a child process (test/webhook/fixtures/serve-for-test.ts) with its own connection pool. Shown:
 * the catalog rate limit is one counter for both (120 a minute per user and IP in total), a
 * webhook event raced to both is executed once, an import executed on both runs once, a
 * publication on one blocks one on the other and the daily run publishes once, and both serve the
 * published files byte for byte alike. PostgreSQL only: SQLite is one instance by design.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { loadConfig } from '../../src/config.js'
import { setUpDemo } from '../../src/demo/demo-setup.js'
import { openDatabase } from '../../src/host/db/database.js'
import { runScheduledPublication } from '../../src/publication/publication-schedule.js'
import { updatePublicationSettings } from '../../src/publication/settings/publication-settings.js'
import { getWebhookSecret } from '../../src/webhook/webhook-secret.js'
import { openTestDatabase, PG_TEST_URL, type TestDatabase } from '../helpers/databases.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { deliveryHeaders, WEBHOOK_URL } from '../helpers/webhook.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const SERVER_SCRIPT = fileURLToPath(new URL('../webhook/fixtures/serve-for-test.ts', import.meta.url))
const V2 = '/wp-json/dg/v2'

interface Instance {
  process: ChildProcess
  origin: string
  exited: Promise<unknown>
}

async function startInstance(database: TestDatabase): Promise<Instance> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT], {
    cwd: ROOT,
    env: {
      ...process.env,
      DG_CHILD_CONNECTION: JSON.stringify(database.connection),
      DG_CHILD_DATA_DIR: database.dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise((resolve) => child.on('exit', resolve))
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      const match = /^port (\d+)$/.exec(line)
      if (match) resolve(Number(match[1]))
    })
    void exited.then(() => reject(new Error(`instance exited; stderr: ${stderr}`)))
  })
  return { process: child, origin: `http://127.0.0.1:${port}`, exited }
}

async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (!instance || instance.process.exitCode !== null) return
  instance.process.kill('SIGTERM')
  const timer = setTimeout(() => instance.process.kill('SIGKILL'), 5000)
  await instance.exited
  clearTimeout(timer)
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(!PG_TEST_URL)('two instances on one PostgreSQL database [postgres]', () => {
  let database: TestDatabase
  let a: Instance | undefined
  let b: Instance | undefined
  let admin: TestUser
  let reader: TestUser
  let secret: string
  let ctx: Awaited<ReturnType<typeof buildApp>>['ctx']
  let closeLocal: () => Promise<void>

  beforeAll(async () => {
    database = await openTestDatabase('postgres')
    const config = loadConfig({ DG_ENV: 'test', DG_LOG_LEVEL: 'silent', DG_DATA_DIR: database.dataDir })
    const local = await buildApp({ config, database: database.handle })
    ctx = local.ctx
    closeLocal = () => local.close()
    await setUpDemo(ctx)
    admin = await createTestUser(ctx, 'administrator')
    reader = await createTestUser(ctx, 'dg_catalog_reader')
    secret = (await getWebhookSecret(ctx))?.secret ?? ''
    await updatePublicationSettings(ctx, { public_base_url: 'https://ceny.example.pl/dane-gov' }, { type: 'cli' })
    ;[a, b] = await Promise.all([startInstance(database), startInstance(database)])
  }, 120_000)

  afterAll(async () => {
    await Promise.all([stopInstance(a), stopInstance(b)])
    await closeLocal?.()
    await database?.cleanup()
  })

  const at = (instance: Instance | undefined) => (instance as Instance).origin

  it('shares the catalog rate limit: 120 a minute in total for one user and IP across both', async () => {
    // a fixed one-minute window: start well inside one, so the whole burst is counted together
    while (new Date().getSeconds() > 40) await sleep(500)
    const statuses: number[] = []
    await Promise.all(
      Array.from({ length: 130 }, async (_, i) => {
        const response = await fetch(`${at(i % 2 === 0 ? a : b)}${V2}/catalog`, {
          headers: { authorization: reader.authorization },
        })
        statuses.push(response.status)
        await response.arrayBuffer()
      }),
    )
    expect(statuses.filter((s) => s === 200)).toHaveLength(120)
    expect(statuses.filter((s) => s === 429)).toHaveLength(10)
  })

  it('executes a webhook event raced to both instances once', async () => {
    const offer = await ctx.db
      .selectFrom('offers')
      .innerJoin('investments', 'investments.id', 'offers.investment_id')
      .select([
        'offers.id',
        'offers.source_property_id',
        'offers.area',
        'offers.price_m2_cents',
        'investments.source_id',
      ])
      .where('offers.property_type', '=', 'mieszkanie')
      .where('offers.price_m2_cents', 'is not', null)
      .orderBy('offers.id')
      .executeTakeFirstOrThrow()
    const before = await ctx.db
      .selectFrom('price_history')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('offer_id', '=', offer.id)
      .executeTakeFirstOrThrow()
    // a consistent new price: per m² 100 zł more, the total following it
    const m2 = Number(offer.price_m2_cents) + 10_000
    const total = Math.round(m2 * Number(offer.area))
    const body = JSON.stringify({
      source_investment_id: offer.source_id,
      source_property_id: offer.source_property_id,
      price_m2: (m2 / 100).toFixed(2),
      price_total: (total / 100).toFixed(2),
    })
    const send = (instance: Instance | undefined) =>
      fetch(`${at(instance)}${WEBHOOK_URL}`, {
        method: 'POST',
        headers: deliveryHeaders({ body, key: 'race-two-instances-1', secret }),
        body,
      })
    const answers = await Promise.all([send(a), send(b)])
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<Record<string, unknown>>
    const outcomes = answers.map((r, i) =>
      r.status === 202 ? 'accepted' : r.status === 200 && bodies[i]?.replayed ? 'replayed' : String(bodies[i]?.error),
    )
    expect(outcomes).toContain('accepted')
    expect(outcomes.filter((o) => o === 'accepted')).toHaveLength(1)
    for (const outcome of outcomes) expect(['accepted', 'replayed', 'webhook_in_progress']).toContain(outcome)
    const after = await ctx.db
      .selectFrom('price_history')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('offer_id', '=', offer.id)
      .executeTakeFirstOrThrow()
    // one change record for the total and one for the price per m², written once
    expect(Number(after.n) - Number(before.n)).toBe(2)
    const again = await send(a)
    expect(again.status).toBe(200)
    const final = await ctx.db
      .selectFrom('price_history')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('offer_id', '=', offer.id)
      .executeTakeFirstOrThrow()
    expect(Number(final.n)).toBe(Number(after.n))
  })

  it('runs an import executed on both instances once; the other answers 409', async () => {
    const investment = await ctx.db
      .selectFrom('investments')
      .select('source_id')
      .where('host_status', '=', 'publish')
      .executeTakeFirstOrThrow()
    const rows = Array.from({ length: 200 }, (_, i) => `${investment.source_id};TWO-${i};mieszkanie;${400000 + i}.00`)
    const file = Buffer.from(`inv;id;typ;cena\n${rows.join('\n')}\n`, 'utf8')
    const form = multipart(
      {
        mode: 'patch',
        mapping: JSON.stringify({
          source_investment_id: 'inv',
          source_property_id: 'id',
          prop_type: 'typ',
          price_total: 'cena',
        }),
      },
      { name: 'oferty.csv', content: file, type: 'text/csv' },
    )
    const preview = await fetch(`${at(a)}${V2}/imports/offer`, {
      method: 'POST',
      headers: { ...form.headers, authorization: admin.authorization },
      body: form.payload,
    })
    expect(preview.status).toBe(200)
    const { id } = (await preview.json()) as { id: string }
    const execute = (instance: Instance | undefined, key: string) =>
      fetch(`${at(instance)}${V2}/imports/offer`, {
        method: 'POST',
        headers: {
          authorization: admin.authorization,
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': key,
        },
        body: `job_id=${id}&confirm_archiving=false`,
      })
    const answers = await Promise.all([execute(a, 'two-instances-a'), execute(b, 'two-instances-b')])
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<Record<string, any>>
    const done = answers.map((r) => r.status)
    expect(done.sort()).toEqual([200, 409])
    const refused = bodies.find((body) => body.error)
    expect(['import_pending', 'import_conflict']).toContain(refused?.error)
    const created = await ctx.db
      .selectFrom('offers')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('source_property_id', 'like', 'TWO-%')
      .executeTakeFirstOrThrow()
    expect(Number(created.n)).toBe(200)
  })

  it('lets one publication run at a time across both, publishes the daily run once, and serves the files alike', async () => {
    const publish = (instance: Instance | undefined) =>
      fetch(`${at(instance)}${V2}/publications`, {
        method: 'POST',
        headers: { authorization: admin.authorization, 'content-type': 'application/json' },
        body: '{}',
      })
    const answers = await Promise.all([publish(a), publish(b)])
    const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<Record<string, unknown>>
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409])
    expect(bodies.find((body) => body.error)?.error).toBe('publication_in_progress')

    // the daily job of two instances: one publishes, the other finds the lock taken or the day done
    const second = await buildApp({
      config: loadConfig({ DG_ENV: 'test', DG_LOG_LEVEL: 'silent', DG_DATA_DIR: database.dataDir }),
      database: openDatabase(database.connection),
    })
    try {
      const outcomes = await Promise.all([runScheduledPublication(ctx), runScheduledPublication(second.ctx)])
      expect(outcomes.filter((o) => o === 'published')).toHaveLength(1)
      expect(outcomes.filter((o) => o === 'busy' || o === 'skipped')).toHaveLength(1)
    } finally {
      await second.close()
    }
    const scheduled = await ctx.db
      .selectFrom('publications')
      .select('id')
      .where('trigger', '=', 'schedule')
      .where('status', '=', 'published')
      .execute()
    expect(scheduled).toHaveLength(1)

    for (const name of ['dataset.xml', 'dataset.md5']) {
      const [fromA, fromB] = await Promise.all(
        [a, b].map(async (instance) =>
          Buffer.from(await (await fetch(`${at(instance)}/dane-gov/${name}`)).arrayBuffer()),
        ),
      )
      expect(fromA?.length).toBeGreaterThan(0)
      expect(fromA?.equals(fromB as Buffer)).toBe(true)
    }
  })

  it('refuses, on both, a password revoked through one, after each has served it', async () => {
    const website = await createTestUser(ctx, 'dg_catalog_reader')
    const catalog = (instance: Instance | undefined) =>
      fetch(`${at(instance)}${V2}/catalog`, { headers: { authorization: website.authorization } })
    for (const instance of [a, b, a, b]) expect((await catalog(instance)).status).toBe(200)
    const revoked = await fetch(`${at(a)}${V2}/users/${website.id}/application-passwords/${website.appPasswordUuid}`, {
      method: 'DELETE',
      headers: { authorization: admin.authorization },
    })
    expect(revoked.status).toBe(200)
    expect((await catalog(b)).status).toBe(401)
    expect((await catalog(a)).status).toBe(401)
  })
})
