/*
 * The catalog's SQL. Every query joins the investment and keeps host status `publish` on both
 * the offer and its investment, so nothing unpublished can leak through any endpoint.
 */
import { type OrderByExpression, type RawBuilder, type Selection, type SelectQueryBuilder, sql } from 'kysely'

import type { Executor } from '../host/context.js'
import { compiledOnce } from '../host/db/compiled-once.js'
import { areaNumericSql, type DialectName, likeIgnoringCase } from '../host/db/dialect.js'
import type { Database } from '../host/db/schema.js'
import { totalPriceInForceSql } from '../offers/offers-repository.js'

export const PUBLISHED = 'publish'

export interface PropertyFilters {
  investment?: number | undefined
  status?: string | undefined
  offerKind?: string | undefined
  type?: string | undefined
  rooms?: number | undefined
  floor?: number | undefined
  areaMin?: string | undefined
  areaMax?: string | undefined
  priceMin?: number | undefined
  priceMax?: number | undefined
  search?: string | undefined
  modifiedAfter?: string | undefined
  excludeId?: number | undefined
  /**
   * The day whose prices in force the price filter and order read, set while some total is
   * announced for a later day (listing-cache.ts); otherwise the stored totals are those prices.
   */
  pricesOn?: string | undefined
  /** Only these offers: a match set listing-cache.ts keeps (never a request's parameter). */
  among?: readonly number[] | undefined
  /** Only offers of these investments: the caller's scope (host/auth/scope.ts), never a request's parameter. */
  investments?: readonly number[] | undefined
}

export type PropertyOrder = 'modified' | 'title' | 'price' | 'area'

export interface Page {
  limit: number
  offset: number
}

type OfferQuery = SelectQueryBuilder<Database, 'offers' | 'investments', object>

function escapeLike(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
}

/** Case-insensitive "contains". */
function containsText(dialect: DialectName, column: string, text: string) {
  return sql<boolean>`${sql.ref(column)} ${likeIgnoringCase(dialect)} ${escapeLike(text)} ESCAPE '\\'`
}

function publishedOffers(db: Executor): OfferQuery {
  return db
    .selectFrom('offers')
    .innerJoin('investments', 'investments.id', 'offers.investment_id')
    .where('offers.host_status', '=', PUBLISHED)
    .where('investments.host_status', '=', PUBLISHED)
}

type TotalExpression = RawBuilder<number | null>

const STORED_TOTAL: TotalExpression = sql.ref<number | null>('offers.price_total_cents')

/** The total price a list filters and orders by: the one in force on the list's day. */
function listedTotal(filters: PropertyFilters): TotalExpression {
  return filters.pricesOn === undefined ? STORED_TOTAL : totalPriceInForceSql('offers', filters.pricesOn)
}

/**
 * `total`: the expression the price filter reads, the listed total unless the caller knows which
 * offers it reads (splitByAnnouncement).
 */
function applyFilters(
  query: OfferQuery,
  dialect: DialectName,
  filters: PropertyFilters,
  total: TotalExpression = listedTotal(filters),
): OfferQuery {
  let q = query
  const area = sql<number>`${sql.raw(areaNumericSql(dialect, 'offers.area'))}`
  if (filters.investment !== undefined) q = q.where('offers.investment_id', '=', filters.investment)
  if (filters.investments !== undefined)
    q =
      filters.investments.length > 0
        ? q.where('offers.investment_id', 'in', filters.investments)
        : q.where(sql<boolean>`1 = 0`)
  if (filters.status !== undefined) q = q.where('offers.status', '=', filters.status)
  if (filters.offerKind !== undefined) q = q.where('offers.offer_kind', '=', filters.offerKind)
  if (filters.type !== undefined) q = q.where('offers.property_type', '=', filters.type)
  if (filters.rooms !== undefined) q = q.where('offers.rooms', '=', filters.rooms)
  if (filters.floor !== undefined) q = q.where('offers.floor', '=', filters.floor)
  if (filters.areaMin !== undefined) q = q.where(area, '>=', Number(filters.areaMin))
  if (filters.areaMax !== undefined) q = q.where(area, '<=', Number(filters.areaMax))
  if (filters.priceMin !== undefined) q = q.where(total, '>=', filters.priceMin)
  if (filters.priceMax !== undefined) q = q.where(total, '<=', filters.priceMax)
  if (filters.modifiedAfter !== undefined) q = q.where('offers.modified_at', '>', filters.modifiedAfter)
  if (filters.excludeId !== undefined) q = q.where('offers.id', '!=', filters.excludeId)
  if (filters.among !== undefined)
    q = filters.among.length > 0 ? q.where('offers.id', 'in', filters.among) : q.where(sql<boolean>`1 = 0`)
  if (filters.search) {
    const term = filters.search
    q = q.where((eb) =>
      eb.or([containsText(dialect, 'offers.title', term), containsText(dialect, 'offers.code', term)]),
    )
  }
  return q
}

/**
 * The number of `offers` matching `filters`. While some total is announced for a later day
 * (`pricesOn`), a price range tested on each offer's price in force read every offer the other
 * filters match from the table (the covering indexes hold the stored total, not its date). So the
 * range is counted on the stored totals, from those indexes, and corrected by the few announced
 * offers (found through their index, migration 0025): less those whose stored total is in the
 * range, plus those whose price in force is.
 */
function countMatching(offers: OfferQuery, dialect: DialectName, filters: PropertyFilters) {
  const count = (query: OfferQuery) => query.select((eb) => eb.fn.countAll<number>().as('n'))
  const day = filters.pricesOn
  if (day === undefined || (filters.priceMin === undefined && filters.priceMax === undefined))
    return sql<number>`${count(applyFilters(offers, dialect, filters))}`
  const announced = offers.where('offers.price_total_from', '>', day)
  const stored = count(applyFilters(offers, dialect, filters, STORED_TOTAL))
  const announcedStored = count(applyFilters(announced, dialect, filters, STORED_TOTAL))
  const announcedInForce = count(applyFilters(announced, dialect, filters, totalPriceInForceSql('offers', day)))
  return sql<number>`(${stored} - ${announcedStored} + ${announcedInForce})`
}

/**
 * The join to investments makes every counted offer look up its investment: 12 ms of 120,000
 * offers on SQLite, 27 ms with a price range, against 4-7 ms answered from the offers' covering
 * indexes alone. So while no investment that is not published holds a published offer (one
 * index probe per such investment), the offers are counted alone; otherwise with the join as
 * before. One statement, so the check and the count read one snapshot.
 */
export async function countProperties(db: Executor, dialect: DialectName, filters: PropertyFilters): Promise<number> {
  const joined = countMatching(publishedOffers(db), dialect, filters)
  // the filters name only offers' columns, so they apply to the offers without the join too
  const offersAlone = db.selectFrom('offers').where('offers.host_status', '=', PUBLISHED) as unknown as OfferQuery
  const alone = countMatching(offersAlone, dialect, filters)
  const hiddenOffers = db
    .selectFrom('investments')
    .select(sql<number>`1`.as('hidden'))
    .where('investments.host_status', '!=', PUBLISHED)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('offers')
          .select(sql<number>`1`.as('published'))
          .whereRef('offers.investment_id', '=', 'investments.id')
          .where('offers.host_status', '=', PUBLISHED),
      ),
    )
  const row = await db
    .selectNoFrom(sql<number>`CASE WHEN EXISTS ${hiddenOffers} THEN ${joined} ELSE ${alone} END`.as('total'))
    .executeTakeFirstOrThrow()
  return Number(row.total)
}

const OFFER_COLUMNS = [
  'offers.id',
  'offers.investment_id',
  'offers.offer_kind',
  'offers.property_type',
  'offers.code',
  'offers.title',
  'offers.status',
  'offers.area',
  'offers.rooms',
  'offers.floor',
  'offers.building',
  'offers.price_total_cents',
  'offers.price_total_from',
  'offers.price_m2_cents',
  'offers.price_m2_from',
  'offers.variant',
  'offers.thumbnail_id',
  'offers.gallery',
  'offers.custom_meta',
  'offers.modified_at',
  'investments.slug as investment_slug',
  'investments.title as investment_title',
  'investments.developer_id',
] as const

export type OfferRecord = Selection<Database, 'offers' | 'investments', (typeof OFFER_COLUMNS)[number]>

export interface PageOrder {
  by: PropertyOrder
  direction: 'asc' | 'desc'
}

/** What a page is ordered by before the offer id; `total` is the price it orders by. */
function orderKey(dialect: DialectName, order: PageOrder, total: TotalExpression) {
  switch (order.by) {
    case 'title':
      return sql.ref<unknown>('offers.title')
    case 'price':
      return total
    case 'area':
      return sql<unknown>`${sql.raw(areaNumericSql(dialect, 'offers.area'))}`
    default:
      return sql.ref<unknown>('offers.modified_at')
  }
}

/** Orders `query` by `key` and then `id` the way a page of `order` is ordered. */
function sortedBy<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  key: OrderByExpression<DB, TB, O>,
  id: OrderByExpression<DB, TB, O>,
  order: PageOrder,
): SelectQueryBuilder<DB, TB, O> {
  const dir = order.direction
  // a missing price or area comes last in either direction
  const nullsLast = order.by === 'price' || order.by === 'area'
  return query
    .orderBy(key, (ob) => {
      const sorted = dir === 'asc' ? ob.asc() : ob.desc()
      return nullsLast ? sorted.nullsLast() : sorted
    })
    .orderBy(id, dir)
}

function orderedPage<O>(
  query: SelectQueryBuilder<Database, 'offers' | 'investments', O>,
  dialect: DialectName,
  filters: PropertyFilters,
  order: PageOrder,
  page: Page,
) {
  return sortedBy(query, orderKey(dialect, order, listedTotal(filters)), 'offers.id', order)
    .limit(page.limit)
    .offset(page.offset)
}

/**
 * A page while some total is announced for a later day (`pricesOn`), as its offer ids and the
 * values it is ordered by. An announced total's price in force is read from its history, which no
 * index orders: ordered or filtered by that price, a page sorted every offer its other filters
 * match (5,000 of 50,000 for a status and a number of rooms) and looked each announced one up. So
 * the offers whose stored total is in force (not announced after the day) are read in the price
 * indexes' order, the first `offset + limit` of them, and the few announced ones through their
 * index (migration 0025) with the price in force; the page is cut from both sorted together: the
 * same offers in the same order as one sort of them all.
 */
function pageSplitByAnnouncement(
  db: Executor,
  dialect: DialectName,
  filters: PropertyFilters,
  day: string,
  order: PageOrder,
  page: Page,
) {
  const inForce = totalPriceInForceSql('offers', day)
  const storedInForce = applyFilters(
    // not `IS NULL OR <= day`: SQLite tests an OR of a column against the whole row, twice as slow
    publishedOffers(db).where(sql<boolean>`(${sql.ref('offers.price_total_from')} > ${day}) IS NOT TRUE`),
    dialect,
    filters,
    STORED_TOTAL,
  )
  const stored = sortedBy(
    storedInForce.select(['offers.id', orderKey(dialect, order, STORED_TOTAL).as('sort_key')]),
    orderKey(dialect, order, STORED_TOTAL),
    'offers.id',
    order,
  ).limit(page.offset + page.limit)
  const announced = applyFilters(
    publishedOffers(db).where('offers.price_total_from', '>', day),
    dialect,
    filters,
    inForce,
  ).select(['offers.id', orderKey(dialect, order, inForce).as('sort_key')])
  const listed = db.selectFrom(stored.as('stored')).select(['stored.id', 'stored.sort_key']).unionAll(announced)
  return sortedBy(
    db.selectFrom(listed.as('listed')).select(['listed.id', 'listed.sort_key']),
    'listed.sort_key',
    'listed.id',
    order,
  )
    .limit(page.limit)
    .offset(page.offset)
}

export async function selectPropertyPage(
  db: Executor,
  dialect: DialectName,
  filters: PropertyFilters,
  order: PageOrder,
  page: Page,
): Promise<OfferRecord[]> {
  if (filters.pricesOn !== undefined) {
    const pageIds = pageSplitByAnnouncement(db, dialect, filters, filters.pricesOn, order, page)
    // one statement: the page and its offers' columns read from one snapshot
    return sortedBy(
      db
        .selectFrom(pageIds.as('page'))
        .innerJoin('offers', 'offers.id', 'page.id')
        .innerJoin('investments', 'investments.id', 'offers.investment_id')
        .select(OFFER_COLUMNS),
      'page.sort_key',
      'offers.id',
      order,
    ).execute()
  }
  return orderedPage(
    applyFilters(publishedOffers(db), dialect, filters).select(OFFER_COLUMNS),
    dialect,
    filters,
    order,
    page,
  ).execute()
}

/** The offer ids of a page, in its order: the sort carries ids only, not every column. */
export async function selectPropertyPageIds(
  db: Executor,
  dialect: DialectName,
  filters: PropertyFilters,
  order: PageOrder,
  page: Page,
): Promise<number[]> {
  const rows =
    filters.pricesOn !== undefined
      ? await pageSplitByAnnouncement(db, dialect, filters, filters.pricesOn, order, page).execute()
      : await orderedPage(
          applyFilters(publishedOffers(db), dialect, filters).select('offers.id'),
          dialect,
          filters,
          order,
          page,
        ).execute()
  return rows.map((row) => row.id)
}

/** The ids of up to `limit` offers matching `filters`, in no particular order. */
export async function selectMatchingIds(
  db: Executor,
  dialect: DialectName,
  filters: PropertyFilters,
  limit: number,
): Promise<number[]> {
  const rows = await applyFilters(publishedOffers(db), dialect, filters).select('offers.id').limit(limit).execute()
  return rows.map((row) => row.id)
}

/**
 * The offers `ids` names, in that order, read now: those no longer published or no longer matching
 * `filters` (written since the ids were read) are left out, never shown.
 */
export async function selectPropertiesByIds(
  db: Executor,
  dialect: DialectName,
  filters: PropertyFilters,
  ids: readonly number[],
): Promise<OfferRecord[]> {
  if (ids.length === 0) return []
  const rows = await applyFilters(publishedOffers(db), dialect, filters)
    .select(OFFER_COLUMNS)
    .where('offers.id', 'in', ids)
    .execute()
  const byId = new Map(rows.map((row) => [row.id, row]))
  return ids.map((id) => byId.get(id)).filter((row): row is OfferRecord => row !== undefined)
}

export async function selectPublishedProperty(db: Executor, id: number) {
  return publishedOffers(db)
    .select([
      ...OFFER_COLUMNS,
      'offers.price_combined_cents',
      'offers.price_combined_from',
      'offers.price_combined_variant',
    ])
    .where('offers.id', '=', id)
    .executeTakeFirst()
}

export async function selectComponentsOf(db: Executor, offerIds: readonly number[]) {
  if (offerIds.length === 0) return []
  return db
    .selectFrom('offer_components')
    .selectAll()
    .where('offer_id', 'in', offerIds)
    .orderBy('offer_id')
    .orderBy('position')
    .orderBy('id')
    .execute()
}

export async function selectAttachments(db: Executor, ids: readonly number[]) {
  if (ids.length === 0) return []
  return db.selectFrom('attachments').selectAll().where('id', 'in', ids).execute()
}

export async function selectAttachmentsOf(
  db: Executor,
  owner: { offerId?: number; investmentId?: number },
  kind: string,
) {
  let q = db.selectFrom('attachments').selectAll().where('kind', '=', kind)
  if (owner.offerId !== undefined) q = q.where('offer_id', '=', owner.offerId)
  if (owner.investmentId !== undefined) q = q.where('investment_id', '=', owner.investmentId)
  return q.orderBy('position').orderBy('id').execute()
}

export async function selectDeveloper(db: Executor, id: number) {
  return db.selectFrom('developers').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function selectPriceHistory(db: Executor, offerId: number) {
  return db
    .selectFrom('price_history')
    .leftJoin('offer_components', 'offer_components.id', 'price_history.component_id')
    .select([
      'price_history.id',
      'price_history.price_type',
      'price_history.record_type',
      'price_history.before_cents',
      'price_history.after_cents',
      'price_history.valid_from',
      'price_history.recorded_at',
      'price_history.reason',
      'price_history.correction',
      'offer_components.kind_label as component_label',
      'offer_components.designation as component_designation',
    ])
    .where('price_history.offer_id', '=', offerId)
    .orderBy('price_history.valid_from')
    .orderBy('price_history.id')
    .execute()
}

export interface InvestmentFilters {
  search?: string | undefined
  /** Only these investments: the caller's scope (host/auth/scope.ts), never a request's parameter. */
  ids?: readonly number[] | undefined
}

function publishedInvestments(db: Executor, dialect: DialectName, filters: InvestmentFilters) {
  let q = db.selectFrom('investments').where('investments.host_status', '=', PUBLISHED)
  if (filters.ids !== undefined)
    q = filters.ids.length > 0 ? q.where('investments.id', 'in', filters.ids) : q.where(sql<boolean>`1 = 0`)
  if (filters.search) q = q.where(containsText(dialect, 'investments.title', filters.search))
  return q
}

export async function countInvestments(
  db: Executor,
  dialect: DialectName,
  filters: InvestmentFilters,
): Promise<number> {
  const row = await publishedInvestments(db, dialect, filters)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow()
  return Number(row.total)
}

export async function selectInvestmentPage(db: Executor, dialect: DialectName, filters: InvestmentFilters, page: Page) {
  return publishedInvestments(db, dialect, filters)
    .selectAll('investments')
    .orderBy('investments.title')
    .orderBy('investments.id')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
}

export async function selectPublishedInvestment(db: Executor, id: number) {
  return db
    .selectFrom('investments')
    .selectAll()
    .where('id', '=', id)
    .where('host_status', '=', PUBLISHED)
    .executeTakeFirst()
}

export async function countPublishedOffersByInvestment(
  db: Executor,
  investmentIds: readonly number[],
): Promise<Map<number, number>> {
  if (investmentIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('offers')
    .select(['investment_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('investment_id', 'in', investmentIds)
    .where('host_status', '=', PUBLISHED)
    .groupBy('investment_id')
    .execute()
  return new Map(rows.map((row) => [row.investment_id, Number(row.n)]))
}

const catalogStateQuery = compiledOnce((db: Executor) =>
  db.selectFrom('catalog_state').select(['revision', 'listing_revision', 'modified_at']).where('id', '=', 1),
)

/**
 * `revision`: bumped by every catalog write; `listing_revision`: only by writes that can change
 * which offers a list without a price or modification-time filter counts (migration 0014).
 */
export interface CatalogState {
  revision: number
  listing_revision: number
  modified_at: string
}

export async function selectCatalogState(db: Executor): Promise<CatalogState> {
  const [state] = await catalogStateQuery(db)
  if (!state) throw new Error('catalog_state has no row')
  return state
}

const catalogRequestStateQuery = compiledOnce((db: Executor) =>
  db
    .selectFrom('catalog_state')
    .innerJoin('credentials_state', 'credentials_state.id', 'catalog_state.id')
    .select([
      'catalog_state.revision',
      'catalog_state.listing_revision',
      'catalog_state.modified_at',
      'credentials_state.revision as credentials_revision',
    ])
    .where('catalog_state.id', '=', 1),
)

/** What a catalog request reads, with the credentials revision its password check is kept under. */
export interface CatalogRequestState extends CatalogState {
  credentials_revision: number
}

/**
 * The catalog revisions and the credentials revision in one statement: on SQLite each statement
 * outside a transaction opens a read transaction of its own (file locks), on PostgreSQL it is a
 * round trip, and these two rows are all a cached catalog answer reads.
 */
export async function selectCatalogRequestState(db: Executor): Promise<CatalogRequestState> {
  const [state] = await catalogRequestStateQuery(db)
  if (!state) throw new Error('catalog_state or credentials_state has no row')
  return state
}
