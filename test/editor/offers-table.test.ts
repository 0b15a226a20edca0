/*
 * The editor's offers table (GET {base_url}/offers) as the panel pages it: every filter with every
 * sort, in both directions, page by page, gives the offers and the total a plain reading of the
 * stored rows gives (prices and areas missing last whichever the direction, ties by id), and the
 * totals follow every write, whoever makes it (the API, an import, a manual SQL fix).
 */
import { beforeAll, expect, it } from 'vitest'

import type { OfferRow } from '../../src/host/db/schema.js'
import { createTestUser, type TestUser } from '../helpers/factories.js'
import { describeEachDatabase, type TestEnv } from '../helpers/test-app.js'

const API = '/wp-json/dg/v2'

type Row = Pick<
  OfferRow,
  | 'id'
  | 'investment_id'
  | 'source_property_id'
  | 'code'
  | 'title'
  | 'status'
  | 'host_status'
  | 'property_type'
  | 'rooms'
  | 'area'
  | 'price_total_cents'
  | 'modified_at'
>

type Filters = Record<string, string | number>

const ORDERS = ['id', 'price', 'area', 'code', 'modified'] as const

/** What the table must show: the stored rows filtered and ordered as the API documents. */
function expected(rows: Row[], filters: Filters, orderby: (typeof ORDERS)[number], order: 'asc' | 'desc'): number[] {
  const term = typeof filters.search === 'string' ? filters.search.toLowerCase() : undefined
  const kept = rows.filter(
    (r) =>
      (filters.investment === undefined || r.investment_id === filters.investment) &&
      (filters.status === undefined || r.status === filters.status) &&
      (filters.host_status === undefined || r.host_status === filters.host_status) &&
      (filters.rooms === undefined || r.rooms === filters.rooms) &&
      (filters.without_type === undefined || (r.property_type === '') === (filters.without_type === 'true')) &&
      (term === undefined ||
        [r.title, r.code, r.source_property_id ?? ''].some((text) => text.toLowerCase().includes(term))),
  )
  const key = (r: Row): number | string | null =>
    orderby === 'price'
      ? r.price_total_cents
      : orderby === 'area'
        ? r.area === null
          ? null
          : Number(r.area)
        : orderby === 'code'
          ? r.code
          : orderby === 'modified'
            ? r.modified_at
            : r.id
  const sign = order === 'asc' ? 1 : -1
  return kept
    .sort((a, b) => {
      const ka = key(a)
      const kb = key(b)
      if (ka !== kb) {
        if (ka === null) return 1
        if (kb === null) return -1
        return (ka < kb ? -1 : 1) * sign
      }
      return (a.id - b.id) * sign
    })
    .map((r) => r.id)
}

describeEachDatabase('editor offers table', (getEnv) => {
  let env: TestEnv
  let admin: TestUser
  const investments: number[] = []

  const list = async (query: Filters & { page?: number }) => {
    const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))
    const response = await env.app.inject({
      method: 'GET',
      url: `${API}/offers?${search.toString()}`,
      headers: { authorization: admin.authorization },
    })
    expect(response.statusCode, response.body).toBe(200)
    return {
      ids: (response.json() as Array<{ id: number }>).map((offer) => offer.id),
      total: Number(response.headers['x-wp-total']),
      totalPages: Number(response.headers['x-wp-totalpages']),
    }
  }

  /** Every page of a filtered, sorted table, joined. */
  const allPages = async (query: Filters) => {
    const first = await list({ ...query, page: 1 })
    const ids = [...first.ids]
    for (let page = 2; page <= first.totalPages; page++) ids.push(...(await list({ ...query, page })).ids)
    return { ids, total: first.total }
  }

  const storedRows = async (): Promise<Row[]> =>
    env.ctx.db
      .selectFrom('offers')
      .select([
        'id',
        'investment_id',
        'source_property_id',
        'code',
        'title',
        'status',
        'host_status',
        'property_type',
        'rooms',
        'area',
        'price_total_cents',
        'modified_at',
      ])
      .execute()

  let sequence = 0
  const insertOffer = async (values: Partial<Row> = {}) => {
    const i = sequence++
    const modified = new Date(Date.parse('2026-11-01T00:00:00Z') + Math.floor(i / 3) * 60_000).toISOString()
    await env.ctx.db
      .insertInto('offers')
      .values({
        investment_id: investments[i % 2] as number,
        source_property_id: i % 11 === 0 ? null : i % 7 === 3 ? `src-qx-${i}` : `SRC-${i}`,
        offer_kind: 'property',
        property_type: i % 8 === 0 ? '' : 'mieszkanie',
        code: i % 7 === 2 ? `KQX${String(i).padStart(3, '0')}` : `K${String((i * 29) % 97).padStart(3, '0')}`,
        title: i % 7 === 1 ? `Lokal Qx ${i}` : `Mieszkanie ${i}`,
        status: ['available', 'reserved', 'sold'][i % 3] as string,
        area: i % 6 === 0 ? null : `${30 + ((i * 13) % 40)}.50`,
        rooms: 1 + (i % 4),
        floor: i % 5,
        price_total_cents: i % 5 === 0 ? null : 100_000_00 + ((i * 37) % 17) * 1_000_00,
        price_total_from: '2026-11-01',
        host_status: i % 9 === 0 ? 'draft' : 'publish',
        custom_meta: '{}',
        gallery: '[]',
        created_at: modified,
        modified_at: modified,
        ...values,
      })
      .execute()
  }

  beforeAll(async () => {
    env = getEnv()
    admin = await createTestUser(env.ctx, 'administrator')
    const now = new Date().toISOString()
    for (const n of [1, 2]) {
      const { id } = await env.ctx.db
        .insertInto('investments')
        .values({
          title: `Inwestycja ${n}`,
          slug: `inwestycja-${n}`,
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
      investments.push(id)
    }
    for (let i = 0; i < 60; i++) await insertOffer()
  })

  it('every filter with every sort, both directions, page by page: the stored offers in order, missing prices and areas last', async () => {
    const rows = await storedRows()
    const filterSets: Filters[] = [
      {},
      { status: 'available', rooms: 2 },
      { host_status: 'publish', status: 'available', rooms: 2 },
      { host_status: 'draft' },
      { without_type: 'true' },
      { without_type: 'false', status: 'sold' },
      { search: 'QX' },
      { search: 'qx', status: 'reserved' },
      { investment: investments[1] as number },
    ]
    for (const filters of filterSets) {
      for (const orderby of ORDERS) {
        for (const order of ['asc', 'desc'] as const) {
          const want = expected(rows, filters, orderby, order)
          expect(want.length, JSON.stringify(filters)).toBeGreaterThan(0)
          const got = await allPages({ ...filters, orderby, order: order.toUpperCase(), per_page: 7 })
          expect(got, `${JSON.stringify(filters)} by ${orderby} ${order}`).toEqual({ ids: want, total: want.length })
        }
      }
    }
  })

  it('a text search finds part of a title, a designation or a source id, in any letter case', async () => {
    const rows = await storedRows()
    const found = await allPages({ search: 'qX', per_page: 100 })
    const byTitle = rows.filter((r) => r.title.includes('Qx')).map((r) => r.id)
    const byCode = rows.filter((r) => r.code.includes('QX')).map((r) => r.id)
    const bySource = rows.filter((r) => r.source_property_id?.includes('qx')).map((r) => r.id)
    for (const group of [byTitle, byCode, bySource]) {
      expect(group.length).toBeGreaterThan(0)
      expect(found.ids).toEqual(expect.arrayContaining(group))
    }
    expect(found.total).toBe(new Set([...byTitle, ...byCode, ...bySource]).size)
    // the wildcards of LIKE are plain characters
    expect((await list({ search: 'K_0' })).total).toBe(0)
    expect((await list({ search: '%' })).total).toBe(0)
  })

  it('a filter first asked for at its last page, past its end, or matching nothing, gets its true total', async () => {
    const rows = await storedRows()
    const want = expected(rows, { search: 'lokal qx' }, 'id', 'desc')
    // a filter set no earlier request counted, asked for at its last page, which is short
    const perPage = 4
    expect(want.length).toBeGreaterThan(perPage)
    expect(want.length % perPage).not.toBe(0)
    const lastPage = Math.ceil(want.length / perPage)
    const last = await list({ search: 'lokal qx', per_page: perPage, page: lastPage })
    expect(last).toEqual({ ids: want.slice((lastPage - 1) * perPage), total: want.length, totalPages: lastPage })
    expect((await list({ search: 'lokal qx', per_page: perPage, page: 1 })).total).toBe(want.length)

    const beyond = await env.app.inject({
      method: 'GET',
      url: `${API}/offers?search=${encodeURIComponent('mieszkanie 1')}&per_page=50&page=9`,
      headers: { authorization: admin.authorization },
    })
    expect(beyond.statusCode).toBe(400)
    expect(beyond.json()).toMatchObject({ code: 'rest_post_invalid_page_number' })
    const wantMieszkanie = expected(rows, { search: 'mieszkanie 1' }, 'id', 'desc')
    expect((await list({ search: 'mieszkanie 1', per_page: 50, page: 1 })).total).toBe(wantMieszkanie.length)

    expect(await list({ search: 'no such offer 42' })).toEqual({ ids: [], total: 0, totalPages: 0 })
  })

  it('totals follow every write: the API, and a manual SQL fix alike; each set of filters keeps its own', async () => {
    const twoRooms = { status: 'available', rooms: 2, orderby: 'price' }
    const threeRooms = { status: 'available', rooms: 3, orderby: 'price' }
    const before2 = (await list(twoRooms)).total
    const before3 = (await list(threeRooms)).total
    expect((await list({ ...twoRooms, orderby: 'id', page: 1 })).total).toBe(before2)
    expect([before2, before3]).toEqual([5, 5])

    // written by hand, as a manual SQL fix would
    await insertOffer({ status: 'available', rooms: 2, title: 'Dopisana ręcznie Zz9' })
    expect((await list(twoRooms)).total).toBe(before2 + 1)
    expect((await list(threeRooms)).total).toBe(before3)
    expect((await list({ search: 'zZ9' })).total).toBe(1)

    const moved = await env.ctx.db
      .selectFrom('offers')
      .select('id')
      .where('status', '=', 'available')
      .where('rooms', '=', 3)
      .executeTakeFirstOrThrow()
    await env.ctx.db.updateTable('offers').set({ rooms: 2 }).where('id', '=', moved.id).execute()
    expect((await list(twoRooms)).total).toBe(before2 + 2)
    expect((await list(threeRooms)).total).toBe(before3 - 1)

    // through the API: archiving takes the offer out of the published ones
    const published = (await list({ host_status: 'publish', per_page: 1 })).total
    const read = await env.app.inject({
      method: 'GET',
      url: `${API}/offers/${moved.id}`,
      headers: { authorization: admin.authorization },
    })
    const archived = await env.app.inject({
      method: 'POST',
      url: `${API}/offers/${moved.id}/archive`,
      headers: { authorization: admin.authorization, 'if-match': read.headers.etag as string },
    })
    expect(archived.statusCode, archived.body).toBe(200)
    expect((await list({ host_status: 'publish', per_page: 1 })).total).toBe(published - 1)

    // a page past the end, after the total shrank, is refused as before
    const pages = (await list({ host_status: 'publish', per_page: 50 })).totalPages
    const beyond = await env.app.inject({
      method: 'GET',
      url: `${API}/offers?host_status=publish&per_page=50&page=${pages + 1}`,
      headers: { authorization: admin.authorization },
    })
    expect(beyond.statusCode).toBe(400)
  })
})
