/*
 * What the catalog's lists keep between requests (values-at-revision.ts): totals, and which offers
 * a page holds, under the catalog revision or the listing revision (migration 0014), and the
 * warm-up a large write runs in its own transaction, before it commits, so that the lists it
 * changes do not all count again at once in the first second after (warmListingValues); it also
 * stores what it counted (migration 0016) for the other instances.
 */
import { performance } from 'node:perf_hooks'

import type { Executor, HostContext } from '../../host/context.js'
import type { DialectName } from '../../host/db/dialect.js'
import {
  countProperties,
  type OfferRecord,
  type Page,
  type PageOrder,
  type PropertyFilters,
  selectCatalogState,
  selectMatchingIds,
  selectPropertiesByIds,
  selectPropertyPage,
  selectPropertyPageIds,
} from '../catalog-repository.js'
import { anyTotalAnnouncedAfter } from '../../offers/offers-repository.js'
import { type ListingValueKind, replaceListingValues, selectListingValue } from './listing-values-repository.js'
import { valuesPerOwner } from './values-at-revision.js'

const FILTER_KEYS = [
  'investment',
  'status',
  'offerKind',
  'type',
  'rooms',
  'floor',
  'areaMin',
  'areaMax',
  'priceMin',
  'priceMax',
  'search',
  'modifiedAfter',
  'excludeId',
  'pricesOn',
] as const satisfies ReadonlyArray<keyof PropertyFilters>
const totalsOf = valuesPerOwner<number>()
const listingTotalsOf = valuesPerOwner<number>()
const listingPagesOf = valuesPerOwner<number[]>()
/** A match set is kept while it holds at most this many offers; a larger one is not kept (null). */
const MATCH_SET_MAX = 2_000
// at most 500 sets (a million ids, some 8 MB), whatever filters readers send
const matchSetsOf = valuesPerOwner<number[] | null>(500)
// whether a total is announced after a day: only a write (a new revision) can announce one
const announcementsOf = valuesPerOwner<boolean>(10)

/** The catalog revisions a request read (catalog-repository.ts `CatalogState`). */
export interface CatalogRevisions {
  revision: number
  listing: number
}

type FilterValues = Array<PropertyFilters[(typeof FILTER_KEYS)[number]] | null>

function filterValues(filters: PropertyFilters): FilterValues {
  return FILTER_KEYS.map((name) => filters[name] ?? null)
}

function filtersOf(values: FilterValues): PropertyFilters {
  const filters: Record<string, unknown> = {}
  FILTER_KEYS.forEach((name, i) => {
    if (values[i] !== null && values[i] !== undefined) filters[name] = values[i]
  })
  return filters as PropertyFilters
}

const totalKey = (filters: PropertyFilters) => JSON.stringify(filterValues(filters))
const pageKey = (filters: PropertyFilters, order: PageOrder, page: Page) =>
  JSON.stringify([filterValues(filters), order.by, order.direction, page.limit, page.offset])

/** Whether the filters name a price or modification time, which a price change moves. */
function byPriceOrTime(filters: PropertyFilters): boolean {
  return filters.priceMin !== undefined || filters.priceMax !== undefined || filters.modifiedAfter !== undefined
}

/** Whether which offers a page holds follows from the columns the listing revision watches. */
function pageFollowsListing(filters: PropertyFilters, order: PageOrder): boolean {
  return !byPriceOrTime(filters) && (order.by === 'title' || order.by === 'area')
}

/** The filters the listing revision watches: all but price and modification time. */
function listingFilters(filters: PropertyFilters): PropertyFilters {
  const {
    priceMin: _min,
    priceMax: _max,
    modifiedAfter: _after,
    pricesOn: _pricesOn,
    among: _among,
    ...watched
  } = filters
  return watched
}

/**
 * A value kept under the listing revision, as a large import on any instance stored it before it
 * committed (warmListingValues), else computed: after an import on another instance this instance's
 * lists would otherwise all count again at once.
 */
async function storedOrComputed<T>(
  ctx: HostContext,
  listingRevision: number,
  kind: ListingValueKind,
  key: string,
  compute: () => Promise<T>,
): Promise<T> {
  const stored = await selectListingValue(ctx.db, listingRevision, kind, key, ctx.now())
  return stored === undefined ? compute() : (stored as T)
}

async function findMatchSet(db: Executor, dialect: DialectName, filters: PropertyFilters): Promise<number[] | null> {
  const ids = await selectMatchingIds(db, dialect, filters, MATCH_SET_MAX + 1)
  return ids.length > MATCH_SET_MAX ? null : ids
}

/**
 * `filters` with the day whose prices in force a price filter or order reads (`pricesOn`), set only
 * while some total is announced for a later day: otherwise the stored totals are those prices and
 * the list reads their indexed column, under the same keys as before.
 */
export async function withPricesDay<F extends PropertyFilters>(
  ctx: HostContext,
  filters: F,
  order: PageOrder,
  day: string,
  revisions: CatalogRevisions | undefined,
): Promise<F> {
  if (filters.priceMin === undefined && filters.priceMax === undefined && order.by !== 'price') return filters
  const check = () => anyTotalAnnouncedAfter(ctx.db, day)
  const announced =
    revisions === undefined ? await check() : await announcementsOf(ctx).once(revisions.revision, day, check)
  return announced ? { ...filters, pricesOn: day } : filters
}

/**
 * `filters`, narrowed to the offers their watched filters match (`among`) when those are few. A
 * search, or rooms with a status, matches the same offers whatever prices do, so that set is kept
 * under the listing revision; the list's price filter, its order by price or modification time
 * and its count then read those offers only, not the whole catalog once per price change (at
 * 120,000 offers on SQLite: a search with a price range took 70 ms to count and 140 ms to page, on
 * every request of a CRM's price stream). Lists whose total and page are both kept already (no
 * price filter, ordered by title or area) are left as they are.
 */
export async function narrowedFilters<F extends PropertyFilters>(
  ctx: HostContext,
  filters: F,
  order: PageOrder,
  revisions: CatalogRevisions | undefined,
): Promise<F> {
  if (revisions === undefined || pageFollowsListing(filters, order)) return filters
  const watched = listingFilters(filters)
  if (Object.values(watched).every((value) => value === undefined)) return filters
  const key = totalKey(watched)
  const among = await matchSetsOf(ctx).once(revisions.listing, key, () =>
    storedOrComputed(ctx, revisions.listing, 'm', key, () => findMatchSet(ctx.db, ctx.caps.name, watched)),
  )
  return among === null ? filters : { ...filters, among }
}

/**
 * The number of offers matching `filters`, counted once per filter set and catalog revision. A
 * filter set without a price or modification-time filter is counted once per listing revision,
 * which a price change leaves: a stream of price changes (a CRM's webhook) no longer makes every
 * list count again. Without revisions (the response cache turned off) it is counted every time.
 */
export async function countAtRevision(
  ctx: HostContext,
  filters: PropertyFilters,
  revisions: CatalogRevisions | undefined,
): Promise<number> {
  const count = () => countProperties(ctx.db, ctx.caps.name, filters)
  if (revisions === undefined) return count()
  const key = totalKey(filters)
  return byPriceOrTime(filters)
    ? totalsOf(ctx).once(revisions.revision, key, count)
    : listingTotalsOf(ctx).once(revisions.listing, key, () => storedOrComputed(ctx, revisions.listing, 't', key, count))
}

/**
 * A page's offers. Which offers a page ordered by title or area holds, without a price or
 * modification-time filter, follows only from the columns the listing revision watches: its ids
 * are kept under that revision and the offers read by id, as they are now (their prices
 * included). Matching and sorting is most of a page's cost on a large catalog (at 120,000 offers
 * on SQLite, 20-140 ms for a filter that matches a tenth of them), and a price change moves the
 * catalog revision of every list. Pages ordered by price or modification time, which a price
 * change reorders, are read whole every time.
 */
export async function pageAtRevision(
  ctx: HostContext,
  filters: PropertyFilters,
  order: PageOrder,
  page: Page,
  revisions: CatalogRevisions | undefined,
): Promise<OfferRecord[]> {
  if (revisions === undefined || !pageFollowsListing(filters, order))
    return selectPropertyPage(ctx.db, ctx.caps.name, filters, order, page)
  const key = pageKey(filters, order, page)
  const ids = await listingPagesOf(ctx).once(revisions.listing, key, () =>
    storedOrComputed(ctx, revisions.listing, 'p', key, () =>
      selectPropertyPageIds(ctx.db, ctx.caps.name, filters, order, page),
    ),
  )
  return selectPropertiesByIds(ctx.db, ctx.caps.name, filters, ids)
}

/** The lists answered under the current listing revision (structured-cloneable: a worker thread gets it). */
export interface ListingQueries {
  totals: string[]
  pages: string[]
  matchSets: string[]
}

/** Their totals and page ids after a write, under the listing revision that write made. */
export interface ListingValues {
  listingRevision: number
  totals: Array<[string, number]>
  pages: Array<[string, number[]]>
  matchSets: Array<[string, number[] | null]>
  /** Lists left to their first request (the time budget ran out). */
  skipped: number
}

/** The most recent lists are warmed first, at most this many of each kind. */
const WARM_UP_MAX_LISTS = 500

export function recentListingQueries(ctx: HostContext): ListingQueries {
  return {
    totals: listingTotalsOf(ctx).kept().keys.slice(-WARM_UP_MAX_LISTS).reverse(),
    pages: listingPagesOf(ctx).kept().keys.slice(-WARM_UP_MAX_LISTS).reverse(),
    matchSets: matchSetsOf(ctx).kept().keys.slice(-WARM_UP_MAX_LISTS).reverse(),
  }
}

/**
 * Counts and pages `queries` with `trx`, the transaction of a large write, after its writes and
 * before it commits: what it reads is what the commit makes visible, since every catalog write
 * waits for this transaction (SQLite's single writer; PostgreSQL's lock on the catalog revision,
 * lockCatalogRevision). Stops after `budgetMs`, which lengthens the write.
 */
export async function warmListingValues(
  trx: Executor,
  dialect: DialectName,
  queries: ListingQueries,
  budgetMs: number,
  storedAt: Date,
): Promise<ListingValues> {
  const started = performance.now()
  const { listing_revision: listingRevision } = await selectCatalogState(trx)
  const values: ListingValues = {
    listingRevision: Number(listingRevision),
    totals: [],
    pages: [],
    matchSets: [],
    skipped: 0,
  }
  const pending = queries.totals.length + queries.pages.length + queries.matchSets.length
  for (const key of queries.totals) {
    if (performance.now() - started > budgetMs) break
    values.totals.push([key, await countProperties(trx, dialect, filtersOf(JSON.parse(key) as FilterValues))])
  }
  for (const key of queries.pages) {
    if (performance.now() - started > budgetMs) break
    const [filters, by, direction, limit, offset] = JSON.parse(key) as [
      FilterValues,
      PageOrder['by'],
      PageOrder['direction'],
      number,
      number,
    ]
    const ids = await selectPropertyPageIds(trx, dialect, filtersOf(filters), { by, direction }, { limit, offset })
    values.pages.push([key, ids])
  }
  for (const key of queries.matchSets) {
    if (performance.now() - started > budgetMs) break
    values.matchSets.push([key, await findMatchSet(trx, dialect, filtersOf(JSON.parse(key) as FilterValues))])
  }
  values.skipped = pending - values.totals.length - values.pages.length - values.matchSets.length
  // for the other instances, committed or rolled back with the write
  await replaceListingValues(
    trx,
    values.listingRevision,
    [
      ...values.totals.map(([key, value]) => ({ kind: 't' as const, key, value })),
      ...values.pages.map(([key, value]) => ({ kind: 'p' as const, key, value })),
      ...values.matchSets.map(([key, value]) => ({ kind: 'm' as const, key, value })),
    ],
    storedAt,
  )
  return values
}

/** Keeps what warmListingValues computed, once its write committed. */
export function keepListingValues(ctx: HostContext, values: ListingValues): void {
  const totals = listingTotalsOf(ctx)
  for (const [key, total] of values.totals) totals.set(values.listingRevision, key, total)
  const pages = listingPagesOf(ctx)
  for (const [key, ids] of values.pages) pages.set(values.listingRevision, key, ids)
  const matchSets = matchSetsOf(ctx)
  for (const [key, ids] of values.matchSets) matchSets.set(values.listingRevision, key, ids)
}
