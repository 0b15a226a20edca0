/*
 * Scheduled sources against a local https server serving a price list changed day by day: the
 * first day and a normal day are applied with no hand, an unchanged file is skipped, a price typo
 * ×10, half the rows vanishing and too many invalid rows are each held (nothing written, an alert)
 * and decided over REST, an unreachable source and a redirect to a private address fail loudly
 * once a day, a file unchanged for days raises its alert, and two instances racing one source
 * apply it once. The token header reaches the source and never comes back.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'

import { buildApp } from '../../src/app.js'
import { openDatabase } from '../../src/host/db/database.js'
import { runSource } from '../../src/sources/source-runs.js'
import { isDue } from '../../src/sources/source-schedule.js'
import { findSource } from '../../src/sources/sources-repository.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'
import { type SourceFileServer, SOURCE_HEADER, SOURCE_MAPPING, startSourceFileServer } from './source-file-server.js'

const V2 = '/wp-json/dg/v2'
const TOKEN = 'Bearer tajny-token-crm-123'
const MAPPING = SOURCE_MAPPING
const HEADER = SOURCE_HEADER

/** Ten flats; `price(i)` their total prices in złoty. */
function priceList(price: (i: number) => number, ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], broken: number[] = []): string {
  const rows = ids.map((i) =>
    broken.includes(i)
      ? `INV-A;${i};A/${i};mieszkanie;wolne;pięćdziesiąt;2;1;${price(i)};2026-05-01;Poznań`
      : `INV-A;${i};A/${i};mieszkanie;wolne;50,00;2;1;${price(i)};2026-05-01;Poznań`,
  )
  return `${HEADER}\n${rows.join('\n')}\n`
}
const base = (i: number) => 500_000 + i * 1000

describeEachDatabase('scheduled sources', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  let server: SourceFileServer
  let sourceId: number

  const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
    env.app.inject({
      method,
      url: `${V2}${url}`,
      headers: { authorization: admin.authorization },
      ...(payload ? { payload } : {}),
    })
  const run = async (id = sourceId) => {
    const response = await api('POST', `/sources/${id}/run`)
    expect(response.statusCode, response.body).toBe(200)
    return response.json() as {
      id: number
      outcome: string
      guards: Array<{ guard: string; offers: Array<{ key: string; before: unknown; after: unknown }> }>
      summary: Record<string, unknown>
      failure: { code: string } | null
      content_sha256: string | null
    }
  }
  const priceOf = async (propertyId: string) =>
    Number(
      (
        await env.ctx.db
          .selectFrom('offers')
          .select('price_total_cents')
          .where('source_property_id', '=', propertyId)
          .executeTakeFirstOrThrow()
      ).price_total_cents,
    )
  const activeOffers = async () =>
    Number(
      (
        await env.ctx.db
          .selectFrom('offers')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('status', '!=', 'archived')
          .executeTakeFirstOrThrow()
      ).n,
    )
  const alerts = async (cause: string) =>
    (await env.ctx.db.selectFrom('alerts').selectAll().where('cause', '=', cause).execute()).map((row) => ({
      ...row,
      details: JSON.parse(row.details) as Record<string, unknown>,
    }))
  const executions = async () =>
    Number(
      (
        await env.ctx.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('action', '=', 'import.execute')
          .where('outcome', '=', 'success')
          .executeTakeFirstOrThrow()
      ).n,
    )
  const nextDay = () => env.clock.advance(24 * 3600 * 1000)

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
    server = await startSourceFileServer()
  })
  afterAll(async () => {
    await server.close()
  })

  it('adds a source over REST: the token is stored, sent to the source, and never answered', async () => {
    server.content = priceList(base)
    const created = await api('POST', '/sources', {
      name: 'Cennik z arkusza',
      url: `${server.origin}/prices.csv`,
      headers: { Authorization: TOKEN },
      mapping: MAPPING,
      mode: 'snapshot',
      private_hosts: [`127.0.0.1:${server.port}`],
    })
    expect(created.statusCode, created.body).toBe(201)
    expect(created.body).not.toContain('tajny-token')
    const view = created.json()
    sourceId = view.id
    expect(view.header_names).toEqual(['Authorization'])
    expect(view.guards).toEqual({
      max_archived_pct: 30,
      max_price_change_pct: 20,
      max_invalid_pct: 10,
      max_shrink_pct: 30,
    })
    expect(view.schedule).toBeNull()
    const listed = await api('GET', '/sources')
    expect(listed.body).not.toContain('tajny-token')
    const audit = await env.ctx.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'source.create')
      .execute()
    expect(JSON.stringify(audit)).not.toContain('tajny-token')
  })

  it('refuses a source that is not https, with a stable code, writing nothing', async () => {
    const refused = await api('POST', '/sources', { name: 'x', url: 'http://example.com/a.csv', mapping: MAPPING })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().error).toBe('invalid_source')
    expect((await api('GET', '/sources')).json().sources).toHaveLength(1)
  })

  it('day 1: the first file is applied with no hand', async () => {
    const first = await run()
    expect(first.outcome, JSON.stringify(first)).toBe('applied')
    expect(first.guards).toEqual([])
    expect(await activeOffers()).toBe(10)
    expect(await priceOf('3')).toBe(base(3) * 100)
    const fetch = server.requests.at(-1)!
    expect(fetch.headers.authorization).toBe(TOKEN)
  })

  it('skips an unchanged file: by its ETag (304), and by its checksum when the server has no validators', async () => {
    const before = await executions()
    const viaEtag = await run()
    expect(viaEtag.outcome).toBe('unchanged')
    server.honourEtag = false
    const viaChecksum = await run()
    expect(viaChecksum.outcome).toBe('unchanged')
    expect(server.requests.at(-1)!.headers['if-none-match']).toBeDefined()
    expect(await executions()).toBe(before)
    server.honourEtag = true
  })

  it('day 2: a normal change (prices up 5%) is applied with no hand', async () => {
    nextDay()
    server.content = priceList((i) => Math.round(base(i) * 1.05))
    const day2 = await run()
    expect(day2.outcome).toBe('applied')
    expect(await priceOf('3')).toBe(Math.round(base(3) * 1.05) * 100)
  })

  it('day 3: a price typo ×10 is held (nothing written, one alert with the plan) and rejected over REST', async () => {
    nextDay()
    const before = await priceOf('4')
    server.content = priceList((i) => Math.round(base(i) * 1.05) * (i === 4 ? 10 : 1))
    const held = await run()
    expect(held.outcome).toBe('held')
    expect(held.guards.map((g) => g.guard)).toEqual(['price_change'])
    expect(held.guards[0]!.offers).toEqual([
      expect.objectContaining({ key: 'INV-A/4', field: 'price_total', before: (before / 100).toFixed(2) }),
    ])
    expect(await priceOf('4')).toBe(before)
    const raised = await alerts('source_held')
    expect(raised).toHaveLength(1)
    expect(raised[0]!.message_pl).toContain('Cennik z arkusza')
    expect(raised[0]!.details.run_id).toBe(held.id)

    const page = await api('GET', `/source-runs/${held.id}`)
    expect(page.statusCode, page.body).toBe(200)
    const items = page.json().plan.items as Array<{
      key: string
      before: Record<string, unknown>
      values: Record<string, unknown>
    }>
    expect(items.find((item) => item.key === 'INV-A/4')?.values.price_total).toBe(
      (Math.round(base(4) * 1.05) * 10).toFixed(2),
    )

    const rejected = await api('POST', `/source-runs/${held.id}/reject`)
    expect(rejected.statusCode).toBe(200)
    expect(rejected.json()).toMatchObject({ outcome: 'rejected', decided_by: { name: admin.login } })
    expect(await priceOf('4')).toBe(before)
    const again = await api('POST', `/source-runs/${held.id}/apply`)
    expect(again.statusCode).toBe(409)
    expect(again.json().error).toBe('source_run_not_held')
  })

  it('day 4: half the rows vanish: held by the archive and shrink guards, then applied once over REST', async () => {
    nextDay()
    server.content = priceList((i) => Math.round(base(i) * 1.05), [1, 2, 3, 4, 5])
    const held = await run()
    expect(held.outcome).toBe('held')
    expect(held.guards.map((g) => g.guard).sort()).toEqual(['archived', 'shrink'])
    expect(await activeOffers()).toBe(10)
    const executed = await executions()
    const [applied, replay] = await Promise.all([
      api('POST', `/source-runs/${held.id}/apply`),
      api('POST', `/source-runs/${held.id}/apply`),
    ])
    expect([applied.statusCode, replay.statusCode].sort()).toContain(200)
    const ok = [applied, replay].find((r) => r.statusCode === 200)!
    expect(ok.json()).toMatchObject({ outcome: 'applied', decided_by: { name: admin.login } })
    expect(await activeOffers()).toBe(5)
    expect(await executions()).toBe(executed + 1)
    const audit = await env.ctx.db
      .selectFrom('audit_log')
      .select('id')
      .where('action', '=', 'source.run.apply')
      .execute()
    expect(audit).toHaveLength(1)
  })

  it('day 5: too many invalid rows hold the run; the plan covers the valid rows only', async () => {
    nextDay()
    server.content = priceList((i) => Math.round(base(i) * 1.05), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [9, 10])
    const held = await run()
    expect(held.outcome, JSON.stringify(held)).toBe('held')
    expect(held.guards.map((g) => g.guard)).toContain('invalid_rows')
    expect(held.summary).toMatchObject({ rows: 10, errors_total: 2, skipped_rows: 2 })
    expect(await activeOffers()).toBe(5)
  })

  it('a held plan past its 24 hours is refused as stale, and the next run plans the same file again', async () => {
    const [held] = (await api('GET', `/source-runs?source_id=${sourceId}&outcome=held`)).json().runs as Array<{
      id: number
    }>
    nextDay()
    const refused = await api('POST', `/source-runs/${held!.id}/apply`)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error).toBe('source_run_stale')
    expect(await activeOffers()).toBe(5)
    const again = await run()
    expect(again.outcome).toBe('held')
    expect(again.id).toBeGreaterThan(held!.id)
  })

  it('an unreachable source fails loudly, once a day, and writes nothing', async () => {
    nextDay()
    const changed = await api('PATCH', `/sources/${sourceId}`, {
      url: 'https://127.0.0.1:1/prices.csv',
      private_hosts: ['127.0.0.1:1'],
    })
    expect(changed.statusCode, changed.body).toBe(200)
    const failed = await run()
    expect(failed.outcome).toBe('failed')
    expect(failed.failure?.code).toBe('source_unreachable')
    expect(failed.failure).toMatchObject({
      network_code: 'network_connection_refused',
      message_pl: expect.stringContaining('Serwer odrzucił połączenie'),
      message_en: expect.stringContaining('The server refused the connection'),
    })
    expect(await run().then((r) => r.outcome)).toBe('failed')
    const raised = await alerts('source_failed')
    expect(raised).toHaveLength(1)
    expect(raised[0]!.message_pl).toContain('Sprawdź, czy adres jest poprawny')
  })

  it('an HTTP error and a web page instead of a file fail with their own codes', async () => {
    await api('PATCH', `/sources/${sourceId}`, {
      url: `${server.origin}/missing`,
      private_hosts: [`127.0.0.1:${server.port}`],
    })
    expect((await run()).failure?.code).toBe('source_http_error')
    await api('PATCH', `/sources/${sourceId}`, { url: `${server.origin}/page` })
    expect((await run()).failure?.code).toBe('source_content_type')
  })

  it('a redirect to a private address not allowed is refused before it is fetched', async () => {
    server.redirectTo = `https://localhost:${server.port}/prices.csv`
    await api('PATCH', `/sources/${sourceId}`, { url: `${server.origin}/redirect` })
    const requests = server.requests.length
    const refused = await run()
    expect(refused.outcome).toBe('failed')
    expect(refused.failure?.code).toBe('source_private_address')
    expect(server.requests.slice(requests).map((r) => r.path)).toEqual(['/redirect'])
    server.redirectTo = 'https://169.254.169.254/latest/meta-data/'
    expect((await run()).failure?.code).toBe('source_private_address')
    // and the address itself, without the allowance, after DNS resolution
    await api('PATCH', `/sources/${sourceId}`, {
      url: `https://localhost:${server.port}/prices.csv`,
      private_hosts: [],
    })
    expect((await run()).failure?.code).toBe('source_private_address')
  })

  it('follows an allowed redirect to another origin without sending it the token', async () => {
    server.redirectTo = `https://localhost:${server.port}/prices.csv`
    // back from another origin (localhost): the token was removed with that move, so it is given again
    await api('PATCH', `/sources/${sourceId}`, {
      url: `${server.origin}/redirect`,
      headers: { Authorization: TOKEN },
      private_hosts: [`127.0.0.1:${server.port}`, `localhost:${server.port}`],
    })
    const requests = server.requests.length
    const followed = await run()
    expect(followed.failure).toBeNull()
    const sent = server.requests.slice(requests)
    expect(sent.map((r) => r.path)).toEqual(['/redirect', '/prices.csv'])
    expect(sent[0]!.headers.authorization).toBe(TOKEN)
    expect(sent[1]!.headers.authorization).toBeUndefined()
  })

  it('a file unchanged for the days the operator set raises its alert', async () => {
    await api('PATCH', `/sources/${sourceId}`, {
      url: `${server.origin}/prices.csv`,
      private_hosts: [`127.0.0.1:${server.port}`],
      stale_after_days: 2,
    })
    nextDay()
    server.content = priceList((i) => Math.round(base(i) * 1.05), [1, 2, 3, 4, 5])
    expect((await run()).outcome).toBe('applied')
    nextDay()
    expect((await run()).outcome).toBe('unchanged')
    expect(await alerts('source_stale')).toHaveLength(0)
    nextDay()
    expect((await run()).outcome).toBe('unchanged')
    const stale = await alerts('source_stale')
    expect(stale).toHaveLength(1)
    expect(stale[0]!.message_pl).toContain('nie zmienił się od 2 dni')
  })

  it('is due before the daily publication by default', async () => {
    const source = (await findSource(env.ctx.db, sourceId))!
    const at = (iso: string, lastRun: string) => isDue({ ...source, last_run_at: lastRun }, '30 0 * * *', new Date(iso))
    // 00:30 Warsaw = 23:30 UTC the day before in winter; due from 23:00 UTC
    expect(at('2026-11-27T22:59:00Z', '2026-11-27T00:00:00Z')).toBe(false)
    expect(at('2026-11-27T23:00:00Z', '2026-11-27T00:00:00Z')).toBe(true)
    expect(at('2026-11-27T23:10:00Z', '2026-11-27T23:00:30Z')).toBe(false)
  })

  it('two instances racing one source apply it once', async () => {
    const second = await buildApp({
      config: env.config,
      database: openDatabase(env.database.connection),
      now: env.clock.now,
    })
    try {
      nextDay()
      server.content = priceList((i) => Math.round(base(i) * 1.07), [1, 2, 3, 4, 5])
      const executed = await executions()
      const outcomes = await Promise.all([
        runSource(env.ctx, sourceId, 'schedule', { type: 'scheduler' }),
        runSource(second.ctx, sourceId, 'schedule', { type: 'scheduler' }),
        runSource(env.ctx, sourceId, 'schedule', { type: 'scheduler' }),
      ])
      const done = outcomes.map((o) => (o.busy ? 'busy' : o.run.outcome))
      expect(done.filter((o) => o === 'applied')).toHaveLength(1)
      expect(done.every((o) => o === 'applied' || o === 'busy' || o === 'unchanged')).toBe(true)
      expect(await executions()).toBe(executed + 1)
      expect(await priceOf('2')).toBe(Math.round(base(2) * 1.07) * 100)
    } finally {
      await second.close()
    }
  })

  it('lists every run with its outcome, newest first', async () => {
    const runs = (await api('GET', `/source-runs?source_id=${sourceId}&limit=200`)).json().runs as Array<{
      outcome: string
    }>
    const outcomes = new Set(runs.map((r) => r.outcome))
    for (const outcome of ['applied', 'unchanged', 'rejected', 'failed']) expect(outcomes).toContain(outcome)
  })

  it('deleting a source keeps its runs on record, and its held run can no longer be applied', async () => {
    nextDay()
    const created = await api('POST', '/sources', {
      name: 'Cennik do usunięcia',
      url: `${server.origin}/prices.csv`,
      mapping: MAPPING,
      private_hosts: [`127.0.0.1:${server.port}`],
    })
    expect(created.statusCode, created.body).toBe(201)
    const doomed = created.json().id as number
    const before = await priceOf('2')
    server.content = priceList((i) => base(i) * (i === 2 ? 10 : 1), [1, 2, 3, 4, 5])
    const held = await run(doomed)
    expect(held.outcome).toBe('held')
    expect((await api('DELETE', `/sources/${doomed}`)).json()).toEqual({ deleted: true })
    const refused = await api('POST', `/source-runs/${held.id}/apply`)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error).toBe('source_run_not_held')
    expect(await priceOf('2')).toBe(before)
    const kept = await api('GET', `/source-runs/${held.id}`)
    expect(kept.statusCode).toBe(200)
    expect(kept.json().run).toMatchObject({ outcome: 'superseded', failure: { code: 'source_deleted' } })
    expect((await api('GET', `/sources/${doomed}`)).statusCode).toBe(404)
  })
})
