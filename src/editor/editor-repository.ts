/*
 * SQL of the catalog editor: the administrator's lists and reads of investments and offers in
 * every host status (the catalog's own queries show `publish` only), and the investment writes.
 * Offers are written by the shared write path (src/offers), never here.
 */
import { type Insertable, type Selectable, type SelectQueryBuilder, sql, type Updateable } from 'kysely'

import type { Executor } from '../host/context.js'
import { areaNumericSql, type DialectName, likeIgnoringCase, lockedForUpdate } from '../host/db/dialect.js'
import type { AttachmentsTable, Database, InvestmentRow, InvestmentsTable, NewInvestment } from '../host/db/schema.js'
import { anyTotalAnnouncedAfter, totalPriceInForceSql } from '../offers/offers-repository.js'

export interface Page {
  limit: number
  offset: number
}

function escapeLike(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`
}

/** Case-insensitive "contains". */
function containsText(dialect: DialectName, column: string, text: string) {
  return sql<boolean>`${sql.ref(column)} ${likeIgnoringCase(dialect)} ${escapeLike(text)} ESCAPE '\\'`
}

// ---------------------------------------------------------------------------------------------
// offers

export interface OfferFilters {
  investment?: number | undefined
  /** Only offers of these investments: the caller's scope (host/auth/scope.ts), never a request's parameter. */
  investments?: readonly number[] | undefined
  status?: string | undefined
  hostStatus?: string | undefined
  offerKind?: string | undefined
  type?: string | undefined
  /** Offers not qualified yet (`property_type` = ''). */
  withoutType?: boolean | undefined
  rooms?: number | undefined
  floor?: number | undefined
  areaMin?: string | undefined
  areaMax?: string | undefined
  priceMin?: number | undefined
  priceMax?: number | undefined
  search?: string | undefined
  modifiedAfter?: string | undefined
  /**
   * The day whose prices in force the price filter and order read, set while some total is
   * announced for a later day (pricesDayOf); otherwise the stored totals are those prices.
   */
  pricesOn?: string | undefined
}

/** The total price a list filters and orders by: the one in force on the list's day. */
export function listedTotal(table: string, filters: OfferFilters) {
  return filters.pricesOn === undefined
    ? sql.ref<number | null>(`${table}.price_total_cents`)
    : totalPriceInForceSql(table, filters.pricesOn)
}

/** `pricesOn` for a list read on `day`: the day itself while a total is announced after it. */
export async function pricesDayOf(
  db: Executor,
  filters: OfferFilters,
  orderBy: string | undefined,
  day: string,
): Promise<string | undefined> {
  if (filters.priceMin === undefined && filters.priceMax === undefined && orderBy !== 'price') return undefined
  return (await anyTotalAnnouncedAfter(db, day)) ? day : undefined
}

export type OfferOrder = 'modified' | 'title' | 'code' | 'price' | 'area' | 'id'

type OfferQuery = SelectQueryBuilder<Database, 'offers', object>

function filteredOffers(db: Executor, dialect: DialectName, filters: OfferFilters): OfferQuery {
  let q: OfferQuery = db.selectFrom('offers')
  const area = sql<number>`${sql.raw(areaNumericSql(dialect))}`
  if (filters.investment !== undefined) q = q.where('offers.investment_id', '=', filters.investment)
  if (filters.investments !== undefined)
    q =
      filters.investments.length > 0
        ? q.where('offers.investment_id', 'in', filters.investments)
        : q.where(sql<boolean>`1 = 0`)
  if (filters.status !== undefined) q = q.where('offers.status', '=', filters.status)
  if (filters.hostStatus !== undefined) q = q.where('offers.host_status', '=', filters.hostStatus)
  if (filters.offerKind !== undefined) q = q.where('offers.offer_kind', '=', filters.offerKind)
  if (filters.type !== undefined) q = q.where('offers.property_type', '=', filters.type)
  if (filters.withoutType === true) q = q.where('offers.property_type', '=', '')
  if (filters.withoutType === false) q = q.where('offers.property_type', '!=', '')
  if (filters.rooms !== undefined) q = q.where('offers.rooms', '=', filters.rooms)
  if (filters.floor !== undefined) q = q.where('offers.floor', '=', filters.floor)
  if (filters.areaMin !== undefined) q = q.where(area, '>=', Number(filters.areaMin))
  if (filters.areaMax !== undefined) q = q.where(area, '<=', Number(filters.areaMax))
  if (filters.priceMin !== undefined) q = q.where(listedTotal('offers', filters), '>=', filters.priceMin)
  if (filters.priceMax !== undefined) q = q.where(listedTotal('offers', filters), '<=', filters.priceMax)
  if (filters.modifiedAfter !== undefined) q = q.where('offers.modified_at', '>', filters.modifiedAfter)
  if (filters.search) {
    const term = filters.search
    q = q.where((eb) =>
      eb.or([
        containsText(dialect, 'offers.title', term),
        containsText(dialect, 'offers.code', term),
        containsText(dialect, 'offers.source_property_id', term),
      ]),
    )
  }
  return q
}

export async function countOffers(db: Executor, dialect: DialectName, filters: OfferFilters): Promise<number> {
  const row = await filteredOffers(db, dialect, filters)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow()
  return Number(row.total)
}

/**
 * The ids of a page of offers, in order (the rows are read as a write reads them). Offers without
 * a price (or area) come last whichever the direction. That order is read as two index walks, the
 * offers with a value and then those without: `ORDER BY price DESC NULLS LAST` is the reverse of
 * no index on PostgreSQL (its indexes keep NULLs last ascending, so first descending), which then
 * sorted every offer for each page; SQLite walks its index either way.
 */
export async function selectOfferPage(
  db: Executor,
  dialect: DialectName,
  filters: OfferFilters,
  order: { by: OfferOrder; direction: 'asc' | 'desc' },
  page: Page,
): Promise<number[]> {
  const dir = order.direction
  if (order.by === 'price' || order.by === 'area') {
    const key = order.by === 'price' ? listedTotal('offers', filters) : sql.raw(areaNumericSql(dialect))
    const valued = await filteredOffers(db, dialect, filters)
      .select('offers.id')
      .where(key, 'is not', null)
      .orderBy(key, dir)
      .orderBy('offers.id', dir)
      .limit(page.limit)
      .offset(page.offset)
      .execute()
    const ids = valued.map((row) => row.id)
    if (ids.length === page.limit) return ids
    // the page reaches the offers without a value: from their first one, or past as many of them
    // as the offset goes beyond the offers with one
    let skip = 0
    if (ids.length === 0 && page.offset > 0) {
      const row = await filteredOffers(db, dialect, filters)
        .where(key, 'is not', null)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      skip = Math.max(0, page.offset - Number(row.n))
    }
    const rest = await filteredOffers(db, dialect, filters)
      .select('offers.id')
      .where(key, 'is', null)
      .orderBy('offers.id', dir)
      .limit(page.limit - ids.length)
      .offset(skip)
      .execute()
    return [...ids, ...rest.map((row) => row.id)]
  }
  let q = filteredOffers(db, dialect, filters).select('offers.id')
  switch (order.by) {
    case 'title':
      q = q.orderBy('offers.title', dir)
      break
    case 'code':
      q = q.orderBy('offers.code', dir)
      break
    case 'id':
      break
    default:
      q = q.orderBy('offers.modified_at', dir)
  }
  const rows = await q.orderBy('offers.id', dir).limit(page.limit).offset(page.offset).execute()
  return rows.map((row) => row.id)
}

export async function selectInvestmentTitles(
  db: Executor,
  ids: readonly number[],
): Promise<Map<number, { title: string; source_id: string | null }>> {
  if (ids.length === 0) return new Map()
  const rows = await db.selectFrom('investments').select(['id', 'title', 'source_id']).where('id', 'in', ids).execute()
  return new Map(rows.map((row) => [row.id, { title: row.title, source_id: row.source_id }]))
}

export async function selectOfferPriceHistory(db: Executor, offerId: number) {
  return db
    .selectFrom('price_history')
    .leftJoin('offer_components', 'offer_components.id', 'price_history.component_id')
    .select([
      'price_history.id',
      'price_history.component_id',
      'price_history.price_type',
      'price_history.record_type',
      'price_history.before_cents',
      'price_history.after_cents',
      'price_history.valid_from',
      'price_history.recorded_at',
      'price_history.reason',
      'price_history.correction',
      'price_history.run_id',
      'offer_components.kind_label as component_label',
      'offer_components.designation as component_designation',
    ])
    .where('price_history.offer_id', '=', offerId)
    .orderBy('price_history.valid_from')
    .orderBy('price_history.id')
    .execute()
}

/** The channel that wrote each history run: the audit entry of the run (`import.execute`, `editor.…`). */
export async function selectRunActions(db: Executor, runIds: readonly number[]): Promise<Map<number, string>> {
  if (runIds.length === 0) return new Map()
  const rows = await db.selectFrom('audit_log').select(['id', 'action']).where('id', 'in', runIds).execute()
  return new Map(rows.map((row) => [row.id, row.action]))
}

// ---------------------------------------------------------------------------------------------
// investments

export interface InvestmentFilters {
  search?: string | undefined
  hostStatus?: string | undefined
  developerId?: number | undefined
  /** Only these investments: the caller's scope (host/auth/scope.ts), never a request's parameter. */
  ids?: readonly number[] | undefined
}

function filteredInvestments(db: Executor, dialect: DialectName, filters: InvestmentFilters) {
  let q = db.selectFrom('investments')
  if (filters.ids !== undefined)
    q = filters.ids.length > 0 ? q.where('investments.id', 'in', filters.ids) : q.where(sql<boolean>`1 = 0`)
  if (filters.hostStatus !== undefined) q = q.where('investments.host_status', '=', filters.hostStatus)
  if (filters.developerId !== undefined) q = q.where('investments.developer_id', '=', filters.developerId)
  if (filters.search) {
    const term = filters.search
    q = q.where((eb) =>
      eb.or([
        containsText(dialect, 'investments.title', term),
        containsText(dialect, 'investments.source_id', term),
        containsText(dialect, 'investments.loc_city', term),
      ]),
    )
  }
  return q
}

export async function countInvestments(
  db: Executor,
  dialect: DialectName,
  filters: InvestmentFilters,
): Promise<number> {
  const row = await filteredInvestments(db, dialect, filters)
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow()
  return Number(row.total)
}

export async function selectInvestmentPage(
  db: Executor,
  dialect: DialectName,
  filters: InvestmentFilters,
  page: Page,
): Promise<InvestmentRow[]> {
  return filteredInvestments(db, dialect, filters)
    .selectAll('investments')
    .orderBy('investments.title')
    .orderBy('investments.id')
    .limit(page.limit)
    .offset(page.offset)
    .execute()
}

export async function selectInvestment(db: Executor, id: number): Promise<InvestmentRow | undefined> {
  return db.selectFrom('investments').selectAll().where('id', '=', id).executeTakeFirst()
}

/**
 * The investment, locked until the transaction ends on PostgreSQL, so that two writes cannot both
 * pass the version check (SQLite's transactions already take the single writer in turn).
 */
export async function selectInvestmentForUpdate(
  db: Executor,
  dialect: DialectName,
  id: number,
): Promise<InvestmentRow | undefined> {
  const query = db.selectFrom('investments').selectAll().where('id', '=', id)
  return lockedForUpdate(query, dialect).executeTakeFirst()
}

/** Offers per investment, by host status: `publish` and the total. */
export async function countOffersByInvestment(
  db: Executor,
  investmentIds: readonly number[],
): Promise<Map<number, { total: number; published: number }>> {
  if (investmentIds.length === 0) return new Map()
  const rows = await db
    .selectFrom('offers')
    .select([
      'investment_id',
      (eb) => eb.fn.countAll<number>().as('total'),
      (eb) => eb.fn.sum<number>(eb.case().when('host_status', '=', 'publish').then(1).else(0).end()).as('published'),
    ])
    .where('investment_id', 'in', investmentIds)
    .groupBy('investment_id')
    .execute()
  return new Map(
    rows.map((row) => [row.investment_id, { total: Number(row.total), published: Number(row.published ?? 0) }]),
  )
}

export async function investmentSourceIdTaken(db: Executor, sourceId: string, exceptId?: number): Promise<boolean> {
  let q = db.selectFrom('investments').select('id').where('source_id', '=', sourceId)
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId)
  return (await q.executeTakeFirst()) !== undefined
}

export async function developerExists(db: Executor, id: number): Promise<boolean> {
  return (await db.selectFrom('developers').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
}

export async function insertInvestmentRow(db: Executor, row: NewInvestment): Promise<number> {
  return (await db.insertInto('investments').values(row).returning('id').executeTakeFirstOrThrow()).id
}

export async function updateInvestmentRow(
  db: Executor,
  id: number,
  values: Updateable<InvestmentsTable>,
): Promise<void> {
  await db.updateTable('investments').set(values).where('id', '=', id).execute()
}

export async function countOffersOfInvestment(db: Executor, id: number): Promise<number> {
  const row = await db
    .selectFrom('offers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('investment_id', '=', id)
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

/** Removes an investment without offers, with the attachments that belong to it. */
export async function deleteInvestmentRow(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('attachments').where('investment_id', '=', id).execute()
  await db.deleteFrom('investments').where('id', '=', id).execute()
}

// ---------------------------------------------------------------------------------------------
// media (attachments)

export type AttachmentRow = Selectable<AttachmentsTable>

export interface MediaOwner {
  offerId?: number
  investmentId?: number
}

export async function selectAttachmentsOfOwner(db: Executor, owner: MediaOwner): Promise<AttachmentRow[]> {
  let q = db.selectFrom('attachments').selectAll()
  if (owner.offerId !== undefined) q = q.where('offer_id', '=', owner.offerId)
  if (owner.investmentId !== undefined) q = q.where('investment_id', '=', owner.investmentId)
  return q.orderBy('kind').orderBy('position').orderBy('id').execute()
}

export async function selectAttachment(db: Executor, id: number): Promise<AttachmentRow | undefined> {
  return db.selectFrom('attachments').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function selectAttachmentsById(db: Executor, ids: readonly number[]): Promise<AttachmentRow[]> {
  if (ids.length === 0) return []
  return db.selectFrom('attachments').selectAll().where('id', 'in', ids).execute()
}

/** The attachment a served file belongs to (its URL ends with the file's name). */
export async function selectAttachmentByFile(db: Executor, file: string): Promise<AttachmentRow | undefined> {
  return db.selectFrom('attachments').selectAll().where('url', 'like', `%/${file}`).executeTakeFirst()
}

export async function nextAttachmentPosition(db: Executor, owner: MediaOwner, kind: string): Promise<number> {
  let q = db
    .selectFrom('attachments')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('kind', '=', kind)
  if (owner.offerId !== undefined) q = q.where('offer_id', '=', owner.offerId)
  if (owner.investmentId !== undefined) q = q.where('investment_id', '=', owner.investmentId)
  const row = await q.executeTakeFirst()
  return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1
}

export async function insertAttachment(db: Executor, row: Insertable<AttachmentsTable>): Promise<number> {
  return (await db.insertInto('attachments').values(row).returning('id').executeTakeFirstOrThrow()).id
}

export async function updateAttachment(db: Executor, id: number, values: Updateable<AttachmentsTable>): Promise<void> {
  await db.updateTable('attachments').set(values).where('id', '=', id).execute()
}

export async function deleteAttachment(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('attachments').where('id', '=', id).execute()
}

/** The offers and investments that show an attachment as their image or in their gallery. */
export async function selectMediaUsers(
  db: Executor,
  attachment: AttachmentRow,
): Promise<Array<{ type: 'offer' | 'investment'; id: number }>> {
  const users: Array<{ type: 'offer' | 'investment'; id: number }> = []
  const inGallery = (gallery: string) => {
    const ids: unknown = JSON.parse(gallery || '[]')
    return Array.isArray(ids) && ids.includes(attachment.id)
  }
  const uses = (row: { thumbnail_id: number | null; gallery: string }) =>
    row.thumbnail_id === attachment.id || inGallery(row.gallery)
  if (attachment.offer_id !== null) {
    const offer = await db
      .selectFrom('offers')
      .select(['id', 'thumbnail_id', 'gallery'])
      .where('id', '=', attachment.offer_id)
      .executeTakeFirst()
    if (offer && uses(offer)) users.push({ type: 'offer', id: offer.id })
  }
  if (attachment.investment_id !== null) {
    const investment = await db
      .selectFrom('investments')
      .select(['id', 'thumbnail_id', 'gallery'])
      .where('id', '=', attachment.investment_id)
      .executeTakeFirst()
    if (investment && uses(investment)) users.push({ type: 'investment', id: investment.id })
  }
  return users
}
