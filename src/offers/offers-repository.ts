/*
 * SQL of the shared write path: reading the current catalog for planning, and writing offers,
 * investments and price history in the caller's transaction.
 */
import { CompiledQuery, type Insertable, type Kysely, type NotNull, sql, type Updateable } from 'kysely'

import type { Executor } from '../host/context.js'
import { type DialectName, dialectOf, insertRows, jsonArrayTextSql, jsonRowsSql } from '../host/db/dialect.js'
import type {
  InvestmentsTable,
  NewOffer,
  NewOfferComponent,
  NewPriceHistory,
  OfferComponentsTable,
  OfferRow,
  OfferUpdate,
  StatusHistoryTable,
} from '../host/db/schema.js'
import { COMPARED_COLUMNS } from './compared-values.js'
import type { StoredComponent } from './editor-operation.js'

export type InvestmentKeyRow = {
  id: number
  source_id: string | null
  loc_voivodeship: string | null
  loc_powiat: string | null
  loc_gmina: string | null
  loc_city: string | null
  loc_street: string | null
  loc_building_no: string | null
  loc_postal_code: string | null
}

const CHUNK = 500

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

export async function selectInvestmentsBySourceIds(
  db: Executor,
  sourceIds: readonly string[],
): Promise<InvestmentKeyRow[]> {
  const out: InvestmentKeyRow[] = []
  for (const part of chunks(sourceIds)) {
    out.push(
      ...(await db
        .selectFrom('investments')
        .select([
          'id',
          'source_id',
          'loc_voivodeship',
          'loc_powiat',
          'loc_gmina',
          'loc_city',
          'loc_street',
          'loc_building_no',
          'loc_postal_code',
        ])
        .where('source_id', 'in', part)
        .execute()),
    )
  }
  return out
}

/** The columns of an offer the planner reads: its ids, and the offer columns of COMPARED_COLUMNS. */
export type PlanOfferRow = Pick<
  OfferRow,
  | 'id'
  | 'investment_id'
  | 'source_property_id'
  | 'code'
  | 'property_type'
  | 'status'
  | 'area'
  | 'rooms'
  | 'floor'
  | 'price_m2_cents'
  | 'price_m2_from'
  | 'price_total_cents'
  | 'price_total_from'
  | 'price_combined_cents'
  | 'price_combined_from'
  | 'price_combined_variant'
  | 'price_combined_status'
>

/*
 * The offer's `comparedText` (compared-values.ts), made by the database as JSON.stringify makes it.
 * The type of an offer not qualified yet (stored as '') is null, as in the text of a row that sends
 * none: such a row leaves it as it is.
 */
const comparedValue = (column: (typeof COMPARED_COLUMNS)[number]) =>
  column === 'o.property_type' ? sql`nullif(${sql.ref(column)}, '')` : sql.ref(column)
const comparedJson = (db: Executor) => jsonArrayTextSql(dialectOf(db), COMPARED_COLUMNS.map(comparedValue))

/**
 * An offer as the planner reads it: what finds it, and its `comparedText` (which shows it unchanged
 * without more). The compared columns hold every offer column the planner compares field by field
 * (the first 14, in PlanOfferRow's order), so `row` is made from that text when it is needed: one
 * JSON.parse, a fraction of what the drivers take to build a 17-column row.
 */
export class PlanOffer {
  #row: PlanOfferRow | undefined

  constructor(
    readonly id: number,
    readonly investmentId: number,
    readonly sourcePropertyId: string | null,
    /** Its `comparedText`, with its investment's location. */
    readonly compared: string,
    /** Its `custom_meta` JSON, read only for a plan that writes custom fields. */
    readonly customMeta?: string,
  ) {}

  get row(): PlanOfferRow {
    if (this.#row !== undefined) return this.#row
    // the text comparedJson() wrote from typed columns, in COMPARED_COLUMNS' order: its shape is
    // known, and checking each value again would cost this path (read once per planned offer)
    const [
      code,
      propertyType,
      status,
      area,
      rooms,
      floor,
      priceM2Cents,
      priceM2From,
      priceTotalCents,
      priceTotalFrom,
      priceCombinedCents,
      priceCombinedFrom,
      priceCombinedVariant,
      priceCombinedStatus,
    ] = JSON.parse(this.compared) as ComparedOfferValues
    return (this.#row = {
      id: this.id,
      investment_id: this.investmentId,
      source_property_id: this.sourcePropertyId,
      code,
      // '' (not qualified yet) is null in the text
      property_type: propertyType ?? '',
      status,
      area,
      rooms,
      floor,
      price_m2_cents: priceM2Cents,
      price_m2_from: priceM2From,
      price_total_cents: priceTotalCents,
      price_total_from: priceTotalFrom,
      price_combined_cents: priceCombinedCents,
      price_combined_from: priceCombinedFrom,
      price_combined_variant: priceCombinedVariant,
      price_combined_status: priceCombinedStatus,
    })
  }
}

type Stored = string | number | null

/** The compared values of an offer as JSON: its 14 columns of PlanOfferRow, then its investment's location. */
type ComparedOfferValues = [
  code: string,
  propertyType: string | null,
  status: string,
  area: string | null,
  rooms: number | null,
  floor: number | null,
  priceM2Cents: number | null,
  priceM2From: string | null,
  priceTotalCents: number | null,
  priceTotalFrom: string | null,
  priceCombinedCents: number | null,
  priceCombinedFrom: string | null,
  priceCombinedVariant: string | null,
  priceCombinedStatus: string | null,
  ...location: Stored[],
]

/**
 * The share of an investment's offers a batch must name for all of them to be read at once (the
 * rest is read and dropped); from WHOLE_INVESTMENT_MIN_KEYS keys on. A file lists an investment's
 * offers together, so a batch of a large import usually names whole investments.
 */
const WHOLE_INVESTMENT_SHARE = 0.75
const WHOLE_INVESTMENT_MIN_KEYS = 100

/** How many offers the investments have of which the batch names at least WHOLE_INVESTMENT_MIN_KEYS. */
async function countOffersOfLargeShares(
  db: Executor,
  byInvestment: ReadonlyMap<number, ReadonlySet<string>>,
): Promise<Map<number, number>> {
  const large: number[] = []
  for (const [investmentId, ids] of byInvestment) if (ids.size >= WHOLE_INVESTMENT_MIN_KEYS) large.push(investmentId)
  const counts = new Map<number, number>()
  for (const part of chunks(large)) {
    const rows = await db
      .selectFrom('offers')
      .select((eb) => ['investment_id', eb.fn.countAll<number>().as('n')])
      .where('investment_id', 'in', part)
      .groupBy('investment_id')
      .execute()
    for (const row of rows) counts.set(row.investment_id, Number(row.n))
  }
  return counts
}

/** Only the offers named by (investment, source id): planning needs nothing else of the catalog. */
export async function selectPlanOffersByKeys(
  db: Executor,
  keys: ReadonlyArray<{ investmentId: number; sourcePropertyId: string }>,
  options: { customMeta?: boolean } = {},
): Promise<PlanOffer[]> {
  const byInvestment = new Map<number, Set<string>>()
  for (const key of keys) {
    let ids = byInvestment.get(key.investmentId)
    if (!ids) byInvestment.set(key.investmentId, (ids = new Set()))
    ids.add(key.sourcePropertyId)
  }
  const out: PlanOffer[] = []
  const query = db
    .selectFrom('offers as o')
    .innerJoin('investments as i', 'i.id', 'o.investment_id')
    .select(['o.id', 'o.investment_id', 'o.source_property_id', comparedJson(db).as('compared')])
    .$if(options.customMeta === true, (q) => q.select('o.custom_meta'))
  const offerCounts = await countOffersOfLargeShares(db, byInvestment)
  for (const [investmentId, ids] of byInvestment) {
    const count = offerCounts.get(investmentId)
    // one range scan of the investment costs less than looking up most of its offers one by one
    const whole = count !== undefined && ids.size >= count * WHOLE_INVESTMENT_SHARE
    for (const part of whole ? [undefined] : chunks([...ids])) {
      const rows = await (
        part === undefined
          ? query.where('o.investment_id', '=', investmentId)
          : query.where('o.investment_id', '=', investmentId).where('o.source_property_id', 'in', part)
      ).execute()
      for (const row of rows) {
        if (whole && (row.source_property_id === null || !ids.has(row.source_property_id))) continue
        out.push(new PlanOffer(row.id, row.investment_id, row.source_property_id, row.compared, row.custom_meta))
      }
    }
  }
  return out
}

/** Every offer of the investments a snapshot names, just enough to find the ones it archives. */
export async function selectOfferKeysOfInvestments(
  db: Executor,
  investmentIds: readonly number[],
): Promise<Array<Pick<OfferRow, 'id' | 'investment_id' | 'source_property_id' | 'status'>>> {
  const out: Array<Pick<OfferRow, 'id' | 'investment_id' | 'source_property_id' | 'status'>> = []
  for (const part of chunks(investmentIds)) {
    const rows = await db
      .selectFrom('offers')
      .select(['id', 'investment_id', 'source_property_id', 'status'])
      .where('investment_id', 'in', part)
      .orderBy('id')
      .execute()
    for (const row of rows) out.push(row)
  }
  return out
}

/** The source ids of every investment that has one. */
export async function selectInvestmentSourceIds(db: Executor): Promise<string[]> {
  const rows = await db
    .selectFrom('investments')
    .select('source_id')
    .where('source_id', 'is not', null)
    .$narrowType<{ source_id: NotNull }>()
    .execute()
  return rows.map((row) => row.source_id)
}

export async function countOffers(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('offers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function insertInvestment(db: Executor, row: Insertable<InvestmentsTable>): Promise<number> {
  return (await db.insertInto('investments').values(row).returning('id').executeTakeFirstOrThrow()).id
}

export async function updateInvestmentLocation(
  db: Executor,
  id: number,
  values: Partial<InvestmentKeyRow>,
  modifiedAt: string,
): Promise<void> {
  await db
    .updateTable('investments')
    .set({ ...values, modified_at: modifiedAt })
    .where('id', '=', id)
    .execute()
}

/**
 * The id the next new offer gets on SQLite: above every id the table ever had (AUTOINCREMENT never
 * reuses one). Only SQLite's single writer, inside its write transaction, may number new offers
 * with it; `insertOffers` then takes rows that carry their `id`.
 */
export async function selectNextSqliteOfferId(db: Executor): Promise<number> {
  const { rows } = await sql<{ next: number }>`
    SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'offers'), 0),
               coalesce((SELECT max(id) FROM offers), 0)) + 1 AS next`.execute(db)
  return Number(rows[0]?.next ?? 1)
}

/**
 * Inserts offers and returns their ids with their keys, unless the rows carry their ids (then
 * nothing is returned). `bulk` names the dialect for the bulk path of large imports (see
 * `insertRows`); without it, Kysely's multi-row INSERT … RETURNING.
 */
export async function insertOffers(
  db: Executor,
  rows: readonly NewOffer[],
  bulk?: DialectName,
): Promise<Array<{ id: number; investment_id: number; source_property_id: string | null }>> {
  if (bulk !== undefined) {
    const first = rows[0]
    // rows that carry their ids (numbered by SQLite's single writer): the caller knows them already
    if (first?.id !== undefined && first.id !== null) {
      await insertRows(db as unknown as Kysely<never>, bulk, 'offers', rows)
      return []
    }
    return insertRows(db as unknown as Kysely<never>, bulk, 'offers', rows, {
      returning: ['id', 'investment_id', 'source_property_id'],
    })
  }
  const out: Array<{ id: number; investment_id: number; source_property_id: string | null }> = []
  for (const part of chunks(rows, 400)) {
    out.push(
      ...(await db
        .insertInto('offers')
        .values(part)
        .returning(['id', 'investment_id', 'source_property_id'])
        .execute()),
    )
  }
  return out
}

export async function updateOffer(db: Executor, id: number, values: OfferUpdate): Promise<void> {
  await db.updateTable('offers').set(values).where('id', '=', id).execute()
}

/** Offer columns a batched update may set (the id names the row). */
const UPDATABLE_OFFER_COLUMN = /^[a-z][a-z0-9_]*$/

/**
 * Updates many offers, each with its own values, in one statement per 500 offers that set the same
 * columns: the rows travel as one JSON parameter, which the database reads back as a table of the
 * offers' own column types (jsonRowsSql). One UPDATE
 * per offer made an import that updates 100,000 offers send 100,000 statements, each of which
 * also fired the catalog revision trigger (once per statement on PostgreSQL) and rewrote every
 * index entry of its offer: 374 s. Every offer must appear once (a later value of the same offer
 * would race its earlier one within the statement); the caller flushes before an offer repeats.
 */
export async function updateOffers(
  db: Executor,
  dialect: DialectName,
  updates: ReadonlyArray<{ id: number; set: OfferUpdate }>,
): Promise<void> {
  const shapes = new Map<string, Array<{ id: number; set: OfferUpdate }>>()
  for (const update of updates) {
    const columns = Object.keys(update.set).filter(
      (column) => (update.set as Record<string, unknown>)[column] !== undefined,
    )
    if (columns.length === 0) continue
    const key = columns.join(',')
    let group = shapes.get(key)
    if (!group) shapes.set(key, (group = []))
    group.push(update)
  }
  for (const [key, group] of shapes) {
    const columns = key.split(',')
    if (!columns.every((column) => UPDATABLE_OFFER_COLUMN.test(column) && column !== 'id'))
      throw new Error(`updateOffers: unexpected column in ${key}`)
    const text = updateOffersText(dialect, columns)
    for (const part of chunks(group)) {
      const json = JSON.stringify(
        part.map(({ id, set }) => {
          const row: Record<string, unknown> = { id }
          for (const column of columns) row[column] = (set as Record<string, unknown>)[column] ?? null
          return row
        }),
      )
      await db.executeQuery(CompiledQuery.raw(text, [json]))
    }
  }
}

function updateOffersText(dialect: DialectName, columns: readonly string[]): string {
  const set = columns.map((column) => `"${column}" = v."${column}"`).join(', ')
  const rows = jsonRowsSql(dialect, 'offers', ['id', ...columns])
  return `UPDATE "offers" SET ${set} FROM ${rows} AS v WHERE "offers".id = v.id`
}

export async function insertPriceHistory(
  db: Executor,
  rows: readonly NewPriceHistory[],
  bulk?: DialectName,
): Promise<void> {
  if (bulk !== undefined) {
    await insertRows(db as unknown as Kysely<never>, bulk, 'price_history', rows)
    return
  }
  for (const part of chunks(rows, 800)) await db.insertInto('price_history').values(part).execute()
}

/** Records of the status ledger (migration 0022): each change of an offer's status. */
export async function insertStatusHistory(
  db: Executor,
  rows: readonly Insertable<StatusHistoryTable>[],
): Promise<void> {
  for (const part of chunks(rows, 800)) await db.insertInto('status_history').values(part).execute()
}

/**
 * The `first` history records of the offers numbered `fromId`..`toId`, just created by this run:
 * one per price they have (total, m2, combined, in that order per offer), dated by the offer's own
 * valid-from date or `today`. Written by the database from the offers themselves, so that a
 * 100,000-offer import does not send its prices a second time (SQLite's bulk path, whose new
 * offers are numbered in one range; see selectNextSqliteOfferId).
 */
export async function insertFirstPricesOfNewOffers(
  db: Executor,
  args: { fromId: number; toId: number; recordedAt: string; today: string; runId: number },
): Promise<void> {
  const prices = `(SELECT o.id AS id, t.ord AS ord, t.price_type AS price_type,
            CASE t.ord WHEN 1 THEN o.price_total_cents WHEN 2 THEN o.price_m2_cents
                       ELSE o.price_combined_cents END AS after_cents,
            CASE t.ord WHEN 1 THEN o.price_total_from WHEN 2 THEN o.price_m2_from
                       ELSE o.price_combined_from END AS valid_from
     FROM "offers" o
     CROSS JOIN (SELECT 1 AS ord, 'total' AS price_type UNION ALL SELECT 2, 'm2'
                 UNION ALL SELECT 3, 'combined') t
     WHERE o.id BETWEEN ? AND ?)`
  await db.executeQuery(
    CompiledQuery.raw(
      `INSERT INTO "price_history" (offer_id, component_id, price_type, record_type, before_cents, after_cents,
                                    valid_from, recorded_at, reason, correction, run_id)
       SELECT id, NULL, price_type, 'first', NULL, after_cents, coalesce(valid_from, ?), ?, '', 0, ?
       FROM ${prices}
       WHERE after_cents IS NOT NULL
       ORDER BY id, ord`,
      [args.today, args.recordedAt, args.runId, args.fromId, args.toId],
    ),
  )
}

export interface LastPrice {
  offer_id: number
  price_type: string
  after_cents: number | null
  valid_from: string
}

/** The latest history record per offer and price type (total, m2, combined). */
export async function selectLastPrices(db: Executor, offerIds: readonly number[]): Promise<LastPrice[]> {
  const out: LastPrice[] = []
  for (const part of chunks(offerIds)) {
    const rows = await db
      .selectFrom('price_history')
      .select(['id', 'offer_id', 'price_type', 'after_cents', 'valid_from'])
      .where('offer_id', 'in', part)
      .where('component_id', 'is', null)
      .orderBy('id')
      .execute()
    const last = new Map<string, LastPrice>()
    for (const row of rows) last.set(`${row.offer_id}:${row.price_type}`, row)
    out.push(...last.values())
  }
  return out
}

/** An offer the editor names by id, as stored, with its components in their order. */
export interface EditorTarget {
  offer: OfferRow
  components: StoredComponent[]
  /** The offer's latest price-history record: a write that records a price changes it. */
  lastHistoryId: number | null
}

export async function selectEditorTargets(
  db: Executor,
  offerIds: readonly number[],
): Promise<Map<number, EditorTarget>> {
  const out = new Map<number, EditorTarget>()
  for (const part of chunks(offerIds)) {
    for (const offer of await db.selectFrom('offers').selectAll().where('id', 'in', part).execute())
      out.set(offer.id, { offer, components: [], lastHistoryId: null })
    const components = await db
      .selectFrom('offer_components')
      .select([
        'id',
        'offer_id',
        'position',
        'group_kind',
        'kind_label',
        'designation',
        'description',
        'price_cents',
        'price_from',
        'relation',
        'requirement',
        'variant',
        'legal_title',
      ])
      .where('offer_id', 'in', part)
      .orderBy('offer_id')
      .orderBy('position')
      .orderBy('id')
      .execute()
    for (const component of components) out.get(component.offer_id)?.components.push(component)
    for (const [offerId, id] of await selectLastHistoryIds(db, part)) {
      const target = out.get(offerId)
      if (target) target.lastHistoryId = id
    }
  }
  return out
}

/** The id of each offer's latest price-history record (offers without one are left out). */
export async function selectLastHistoryIds(db: Executor, offerIds: readonly number[]): Promise<Map<number, number>> {
  const out = new Map<number, number>()
  for (const part of chunks(offerIds)) {
    const rows = await db
      .selectFrom('price_history')
      .select(['offer_id', (eb) => eb.fn.max('id').as('last')])
      .where('offer_id', 'in', part)
      .groupBy('offer_id')
      .execute()
    for (const row of rows) out.set(row.offer_id, Number(row.last))
  }
  return out
}

/** The ids of the offers that already use these source ids in their investments. */
export async function selectOffersBySourceKeys(
  db: Executor,
  keys: ReadonlyArray<{ investmentId: number; sourcePropertyId: string }>,
): Promise<Array<{ id: number; investment_id: number; source_property_id: string | null }>> {
  const out: Array<{ id: number; investment_id: number; source_property_id: string | null }> = []
  for (const key of keys) {
    const row = await db
      .selectFrom('offers')
      .select(['id', 'investment_id', 'source_property_id'])
      .where('investment_id', '=', key.investmentId)
      .where('source_property_id', '=', key.sourcePropertyId)
      .executeTakeFirst()
    if (row) out.push(row)
  }
  return out
}

export async function insertOffer(db: Executor, row: NewOffer): Promise<number> {
  return (await db.insertInto('offers').values(row).returning('id').executeTakeFirstOrThrow()).id
}

export async function insertComponent(db: Executor, row: NewOfferComponent): Promise<number> {
  return (await db.insertInto('offer_components').values(row).returning('id').executeTakeFirstOrThrow()).id
}

export async function updateComponent(
  db: Executor,
  id: number,
  values: Updateable<OfferComponentsTable>,
): Promise<void> {
  await db.updateTable('offer_components').set(values).where('id', '=', id).execute()
}

export async function deleteComponent(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('offer_components').where('id', '=', id).execute()
}

/** The latest history record of each of these components' prices. */
export async function selectLastComponentPrices(
  db: Executor,
  componentIds: readonly number[],
): Promise<Map<number, LastPrice>> {
  const last = new Map<number, LastPrice>()
  for (const part of chunks(componentIds)) {
    const rows = await db
      .selectFrom('price_history')
      .select(['id', 'offer_id', 'component_id', 'price_type', 'after_cents', 'valid_from'])
      .where('component_id', 'in', part)
      .$narrowType<{ component_id: NotNull }>()
      .orderBy('id')
      .execute()
    for (const row of rows) last.set(row.component_id, row)
  }
  return last
}

/**
 * The price-history records of these offers dated on or before `day` (price-in-force.ts), and
 * their withdrawals dated later; all of them when `day` is undefined.
 */
export async function selectPriceRecordsUpTo(db: Executor, offerIds: readonly number[], day: string | undefined) {
  const out: Array<{
    id: number
    offer_id: number
    component_id: number | null
    price_type: string
    after_cents: number | null
    valid_from: string
  }> = []
  for (const part of chunks(offerIds)) {
    out.push(
      ...(await db
        .selectFrom('price_history')
        .select(['id', 'offer_id', 'component_id', 'price_type', 'after_cents', 'valid_from'])
        .where('offer_id', 'in', part)
        // a withdrawal dated after the day is read too: it tells a price stored empty (withdrawn
        // ahead) from one removed outside the write path, which is none on any day (price-in-force.ts)
        .$call((q) =>
          day === undefined ? q : q.where((eb) => eb.or([eb('valid_from', '<=', day), eb('after_cents', 'is', null)])),
        )
        .execute()),
    )
  }
  return out
}

/**
 * Per investment, the last day a dataset that may list its offers has published a file: its own
 * entity's dataset, and the publishing developer's, which also lists investments of no entity
 * (counting it for every investment only refuses more, never less). A price change dated on or
 * before that day, and before today, would alter what a published file said (closed-day.ts).
 */
export async function selectLastPublishedDays(
  db: Executor,
  investmentIds: readonly number[],
): Promise<Map<number, string>> {
  const out = new Map<number, string>()
  for (const part of chunks(investmentIds)) {
    const rows = await db
      .selectFrom('investments')
      .innerJoin('publications', (join) =>
        join
          .on('publications.status', '=', 'published')
          .on((eb) =>
            eb.or([
              eb('publications.developer_id', 'is', null),
              eb('publications.developer_id', '=', eb.ref('investments.developer_id')),
            ]),
          ),
      )
      .select(['investments.id', (eb) => eb.fn.max('publications.publication_date').as('last_day')])
      .where('investments.id', 'in', part)
      .groupBy('investments.id')
      .execute()
    for (const row of rows) if (row.last_day !== null) out.set(row.id, String(row.last_day))
  }
  return out
}

/**
 * The designations of parts and appurtenant rooms listed with units, and of standalone parts, in
 * these investments (offers not archived): a part belongs to one unit or is offered on its own.
 */
export async function selectPartDesignations(db: Executor, investmentIds: readonly number[]) {
  if (investmentIds.length === 0) return []
  const components = await db
    .selectFrom('offer_components')
    .innerJoin('offers', 'offers.id', 'offer_components.offer_id')
    .select([
      'offers.investment_id',
      'offers.id as offer_id',
      'offers.code as offer_code',
      'offer_components.id as component_id',
      'offer_components.designation',
    ])
    .where('offers.investment_id', 'in', [...investmentIds])
    .where('offers.status', '!=', 'archived')
    .where('offer_components.group_kind', 'in', ['part', 'appurtenant_room'])
    .where('offer_components.designation', 'is not', null)
    .execute()
  const standalone = await db
    .selectFrom('offers')
    .select(['investment_id', 'id as offer_id', 'code as offer_code'])
    .where('investment_id', 'in', [...investmentIds])
    .where('status', '!=', 'archived')
    .where('offer_kind', '=', 'standalone_part')
    .execute()
  return [
    ...components.map((c) => ({ ...c, designation: c.designation ?? '' })),
    ...standalone.map((o) => ({ ...o, component_id: null, designation: o.offer_code })),
  ]
}

/** The earliest "valid from" date of each offer-level price (total, m2, combined) of these offers. */
export async function selectFirstPriceDates(
  db: Executor,
  offerIds: readonly number[],
): Promise<Map<number, Map<string, string>>> {
  const out = new Map<number, Map<string, string>>()
  for (const part of chunks(offerIds)) {
    const rows = await db
      .selectFrom('price_history')
      .select(['offer_id', 'price_type', (eb) => eb.fn.min('valid_from').as('first_from')])
      .where('offer_id', 'in', part)
      .where('component_id', 'is', null)
      .groupBy(['offer_id', 'price_type'])
      .execute()
    for (const row of rows) {
      let byType = out.get(row.offer_id)
      if (!byType) out.set(row.offer_id, (byType = new Map<string, string>()))
      byType.set(row.price_type, String(row.first_from))
    }
  }
  return out
}

/**
 * The offer's total price in force on `day` as SQL, for a list's price filter and order: the stored
 * total, unless it is announced for a later day (price-in-force.ts), when the latest history record
 * of the total dated on or before `day` holds. `table` is the offers table's name or alias.
 */
export function totalPriceInForceSql(table: string, day: string) {
  const column = (name: string) => sql.ref(`${table}.${name}`)
  return sql<number | null>`CASE WHEN ${column('price_total_from')} > ${day} THEN (
    SELECT h.after_cents FROM price_history h
    WHERE h.offer_id = ${column('id')} AND h.price_type = 'total' AND h.component_id IS NULL AND h.valid_from <= ${day}
    ORDER BY h.valid_from DESC, h.id DESC LIMIT 1
  ) ELSE ${column('price_total_cents')} END`
}

/**
 * Whether any offer's total is announced for a day after `day`. While none is, the stored totals
 * are the prices in force and a list filters and orders by the indexed column itself.
 */
export async function anyTotalAnnouncedAfter(db: Executor, day: string): Promise<boolean> {
  const row = await db
    .selectFrom('offers')
    .select(sql<number>`1`.as('announced'))
    .where('price_total_from', '>', day)
    .limit(1)
    .executeTakeFirst()
  return row !== undefined
}
