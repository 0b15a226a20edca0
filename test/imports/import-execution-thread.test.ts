/*
 * A large execution must not stop the service: on SQLite it writes from a worker thread while the
 * reader connection keeps answering, on PostgreSQL the pool does. What a user notices: a catalog
 * request sent after the execution started is answered before the execution ends, another write
 * meanwhile waits its turn and succeeds, and a plan the catalog outdated is refused whole.
 */
import { sql } from 'kysely'
import { beforeAll, expect, it, vi } from 'vitest'

import { buildApp } from '../../src/app.js'
import { openDatabase } from '../../src/host/db/database.js'
import { createTestUser, grantProLicense, type TestUser } from '../helpers/factories.js'
import { multipart } from '../helpers/multipart.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const URL_IMPORT = '/wp-json/dg/v2/imports/offer'
const MAPPING = {
  source_investment_id: 'Inwestycja',
  source_property_id: 'ID lokalu',
  prop_no: 'Numer',
  prop_type: 'Rodzaj',
  property_status: 'Status',
  prop_area: 'Powierzchnia',
  price_total: 'Cena',
  price_total_from: 'Cena od',
  // a full location, so that the investments the file creates are published and listed at once
  proj_voivod: 'Województwo',
  proj_powiat: 'Powiat',
  proj_gmina: 'Gmina',
  proj_city: 'Miasto',
  proj_street: 'Ulica',
  proj_build_no: 'Numer budynku',
  proj_zip: 'Kod',
}
const HEADER =
  'Inwestycja;ID lokalu;Numer;Rodzaj;Status;Powierzchnia;Cena;Cena od;Województwo;Powiat;Gmina;Miasto;Ulica;Numer budynku;Kod'
const LOCATION = 'mazowieckie;Warszawa;Warszawa;Warszawa;Słoneczna;7;02-495'
/** Above the number of writes from which SQLite executes on a worker thread. */
const ROWS = 1_500

function csv(investment: string, from: number, count: number): string {
  const rows: string[] = []
  for (let i = from; i < from + count; i++)
    rows.push(`${investment};${i};${investment}/${i};mieszkanie;wolne;50,00;${500_000 + i};2026-05-01;${LOCATION}`)
  return `${HEADER}\n${rows.join('\n')}\n`
}

describeEachDatabase('a large import execution beside other requests', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  const preview = async (content: string) => {
    const body = multipart({ mode: 'patch', mapping: JSON.stringify(MAPPING) }, { name: 'oferty.csv', content })
    const response = await env.app.inject({
      method: 'POST',
      url: URL_IMPORT,
      payload: body.payload,
      headers: { ...body.headers, authorization: admin.authorization },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().preview.errors).toEqual([])
    return response.json().id as string
  }
  const execute = (jobId: string, key: string) =>
    env.app.inject({
      method: 'POST',
      url: URL_IMPORT,
      payload: `job_id=${jobId}&confirm_archiving=false`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'idempotency-key': key,
        authorization: admin.authorization,
      },
    })
  const offersOf = async (investment: string) =>
    Number(
      (
        await env.ctx.db
          .selectFrom('offers')
          .innerJoin('investments', 'investments.id', 'offers.investment_id')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('investments.source_id', '=', investment)
          .executeTakeFirstOrThrow()
      ).n,
    )

  /** The number of offers the query planner's statistics hold. */
  const plannedOffers = async () => {
    const { rows } =
      env.dialect === 'postgres'
        ? await sql<{ n: number }>`SELECT reltuples AS n FROM pg_class
            WHERE oid = to_regclass(current_schema() || '.offers')`.execute(env.ctx.db)
        : await sql<{ n: string }>`SELECT substr(stat, 1, instr(stat, ' ') - 1) AS n FROM sqlite_stat1
            WHERE idx = 'offers_status_modified'`.execute(env.ctx.db)
    return Number(rows[0]?.n ?? 0)
  }

  beforeAll(async () => {
    env = getEnv()
    await grantProLicense(env.ctx)
    admin = await createTestUser(env.ctx, 'administrator')
  })

  it('answers the catalog while the execution writes, and lets another write wait its turn', async () => {
    const jobId = await preview(csv('INV-BIG', 1, ROWS))
    const finished: string[] = []
    const execution = execute(jobId, 'thread-key-1').then((response) => {
      finished.push('execution')
      return response
    })
    // timers run only when the event loop is free: a transaction holding it would be over by then
    const statusOf = async () =>
      (await env.ctx.db.selectFrom('import_jobs').select('status').where('id', '=', jobId).executeTakeFirstOrThrow())
        .status
    let seen = await statusOf()
    while (seen === 'previewed') {
      await new Promise((resolve) => setTimeout(resolve, 1))
      seen = await statusOf()
    }
    expect(seen).toBe('running')
    const catalog = env.app
      .inject({
        method: 'GET',
        url: '/wp-json/dg/v2/catalog/properties?per_page=5',
        headers: { authorization: admin.authorization },
      })
      .then((response) => {
        finished.push('catalog')
        return response
      })
    const otherWrite = createTestUser(env.ctx, 'dg_catalog_reader').then((user) => {
      finished.push('other write')
      return user
    })
    const [done, read, reader] = await Promise.all([execution, catalog, otherWrite])
    expect(read.statusCode).toBe(200)
    expect(finished.indexOf('catalog')).toBeLessThan(finished.indexOf('execution'))
    expect(reader.authorization).toMatch(/^Basic /)
    expect(done.statusCode).toBe(200)
    expect(done.json().result).toMatchObject({ status: 'completed', created: ROWS, updated: 0, archived: 0 })
    expect(await offersOf('INV-BIG')).toBe(ROWS)
    const history = await env.ctx.db
      .selectFrom('price_history')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('run_id', '=', done.json().result.run_id)
      .executeTakeFirstOrThrow()
    expect(Number(history.n)).toBe(ROWS)
    // the planner knows the offers are many now: the catalog's next lists are planned for them
    expect(await plannedOffers()).toBeGreaterThanOrEqual(ROWS)
    const lock = await env.ctx.db.selectFrom('locks').selectAll().where('name', '=', 'offer_import').execute()
    expect(lock).toEqual([])
    // the same key replays the stored result
    const replay = await execute(jobId, 'thread-key-1')
    expect(replay.statusCode).toBe(200)
    expect(replay.json().result).toEqual(done.json().result)
  })

  it('answers the lists readers asked before it with the imported offers at once, counted before it committed', async () => {
    const lists = [
      'per_page=5&orderby=title&order=DESC',
      'status=available&per_page=4&orderby=area&order=ASC',
      'search=INV-WARM&per_page=3&orderby=title&order=ASC',
      'status=available&rooms=2&per_page=5&orderby=title&order=ASC',
    ]
    const ask = (query: string) =>
      env.app.inject({
        method: 'GET',
        url: `/wp-json/dg/v2/catalog/properties?${query}`,
        headers: { authorization: admin.authorization },
      })
    for (const query of lists) expect((await ask(query)).statusCode).toBe(200)
    const announced = vi.spyOn(env.ctx.log, 'info')
    try {
      const done = await execute(await preview(csv('INV-WARM', 1, ROWS)), 'thread-key-warm')
      expect(done.statusCode).toBe(200)
      // the lists above were counted in the import's transaction, none left for later
      const warmed = announced.mock.calls.find(
        ([, message]) => message === 'catalog lists counted again before the import committed',
      )
      expect(warmed?.[0]).toMatchObject({ skipped: 0 })
      expect((warmed?.[0] as { totals: number }).totals).toBeGreaterThanOrEqual(lists.length)
      expect((warmed?.[0] as { pages: number }).pages).toBeGreaterThanOrEqual(lists.length)
    } finally {
      announced.mockRestore()
    }
    // what they answer now is the catalog with the import: totals and pages as counted afresh
    const published = () =>
      env.ctx.db
        .selectFrom('offers')
        .innerJoin('investments', 'investments.id', 'offers.investment_id')
        .where('offers.host_status', '=', 'publish')
        .where('investments.host_status', '=', 'publish')
    const expected = [
      await published().select('offers.id').orderBy('offers.title', 'desc').orderBy('offers.id', 'desc').execute(),
      await published()
        .select('offers.id')
        .where('offers.status', '=', 'available')
        .orderBy(sql`CAST(offers.area AS REAL)`)
        .orderBy('offers.id')
        .execute(),
      await published()
        .select('offers.id')
        .where('offers.title', 'like', '%INV-WARM%')
        .orderBy('offers.title')
        .orderBy('offers.id')
        .execute(),
      await published()
        .select('offers.id')
        .where('offers.status', '=', 'available')
        .where('offers.rooms', '=', 2)
        .orderBy('offers.title')
        .orderBy('offers.id')
        .execute(),
    ]
    expect(expected[2]?.length).toBe(ROWS)
    for (const [i, query] of lists.entries()) {
      const response = await ask(query)
      const perPage = Number(new URLSearchParams(query).get('per_page'))
      expect(response.headers['x-wp-total'], query).toBe(String(expected[i]?.length))
      expect(
        (response.json() as Array<{ id: number }>).map((offer) => offer.id),
        query,
      ).toEqual(expected[i]?.slice(0, perPage).map((row) => row.id))
    }
  })

  it('lets another instance answer the lists it counted before it committed, without counting them again', async () => {
    // a second instance on the same database, whose statements (and stored-value lookups) the test sees
    const connection = openDatabase(env.database.connection)
    const statements: string[] = []
    const lookups = new Set<unknown>()
    const found = { hits: 0, misses: 0 }
    const db = connection.db.withPlugin({
      transformQuery: (args) => {
        const text = JSON.stringify(args.node, (_key, value: unknown) =>
          typeof value === 'bigint' ? String(value) : value,
        )
        statements.push(text)
        if (args.node.kind === 'SelectQueryNode' && text.includes('"listing_values"')) lookups.add(args.queryId)
        return args.node
      },
      transformResult: async (args) => {
        if (lookups.has(args.queryId)) found[args.result.rows.length > 0 ? 'hits' : 'misses']++
        return args.result
      },
    })
    const other = await buildApp({
      config: env.config,
      database: { ...connection, db, destroy: () => connection.destroy() },
      // the two instances' clocks agree, as on one machine (stored values are used for minutes)
      now: env.clock.now,
    })
    await other.ready()
    try {
      const lists = [
        'per_page=5&orderby=title&order=ASC',
        'status=available&per_page=4&orderby=area&order=DESC',
        'search=INV-SHARED&per_page=3&orderby=price&order=DESC',
      ]
      const ask = (app: typeof other, query: string) =>
        app.inject({
          method: 'GET',
          url: `/wp-json/dg/v2/catalog/properties?${query}`,
          headers: { authorization: admin.authorization },
        })
      // both instances have answered the lists; the import runs on the first one
      for (const query of lists) {
        expect((await ask(env.app, query)).statusCode).toBe(200)
        expect((await ask(other, query)).statusCode).toBe(200)
      }
      const before = Number((await ask(other, lists[0] as string)).headers['x-wp-total'])
      expect((await execute(await preview(csv('INV-SHARED', 1, ROWS)), 'thread-key-shared')).statusCode).toBe(200)

      statements.length = 0
      found.hits = found.misses = 0
      for (const query of lists) {
        const there = await ask(other, query)
        const here = await ask(env.app, query)
        expect(there.statusCode, query).toBe(200)
        expect(there.headers['x-wp-total'], query).toBe(here.headers['x-wp-total'])
        expect(there.json(), query).toEqual(here.json())
      }
      expect(Number((await ask(other, lists[0] as string)).headers['x-wp-total'])).toBe(before + ROWS)
      expect(Number((await ask(other, lists[2] as string)).headers['x-wp-total'])).toBe(ROWS)
      // the other instance found every total, page and match set the import stored (three totals,
      // two title/area pages, one search match set), so it matched, sorted and counted nothing
      expect(found).toEqual({ hits: 6, misses: 0 })
      expect(statements.filter((statement) => /"count"|count\(/i.test(statement)).length).toBe(0)
    } finally {
      await other.close()
      await connection.destroy()
    }
  })

  it('refuses a large plan the catalog outdated, writes nothing of it and releases the lock', async () => {
    const outdated = await preview(csv('INV-OLD', 1, ROWS))
    // another import creates one of its offers first: the previewed create is now an update
    const first = await preview(csv('INV-OLD', 7, 1))
    expect((await execute(first, 'thread-key-2')).statusCode).toBe(200)
    const response = await execute(outdated, 'thread-key-3')
    expect(response.statusCode).toBe(409)
    expect(response.json().error).toBe('import_conflict')
    expect(await offersOf('INV-OLD')).toBe(1)
    const job = await env.ctx.db
      .selectFrom('import_jobs')
      .select(['status'])
      .where('id', '=', outdated)
      .executeTakeFirstOrThrow()
    expect(job.status).toBe('stale')
    expect(await env.ctx.db.selectFrom('locks').selectAll().where('name', '=', 'offer_import').execute()).toEqual([])
  })
})
