/*
 * SQL of the shared write path: reading the current catalog for planning, and writing offers,
 * investments and price history in the caller's transaction.
 */
import type { Insertable } from 'kysely'

import type { Executor } from '../host/context.js'
import type { InvestmentsTable, NewOffer, NewPriceHistory, OfferRow, OfferUpdate } from '../host/db/schema.js'

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

export async function selectOffersOfInvestments(db: Executor, investmentIds: readonly number[]): Promise<OfferRow[]> {
  const out: OfferRow[] = []
  for (const part of chunks(investmentIds)) {
    out.push(...(await db.selectFrom('offers').selectAll().where('investment_id', 'in', part).orderBy('id').execute()))
  }
  return out
}

/** Only the offers named by (investment, source id): a patch needs nothing else of the catalog. */
export async function selectOffersByKeys(
  db: Executor,
  keys: ReadonlyArray<{ investmentId: number; sourcePropertyId: string }>,
): Promise<OfferRow[]> {
  const byInvestment = new Map<number, string[]>()
  for (const key of keys)
    byInvestment.set(key.investmentId, [...(byInvestment.get(key.investmentId) ?? []), key.sourcePropertyId])
  const out: OfferRow[] = []
  for (const [investmentId, ids] of byInvestment) {
    for (const part of chunks([...new Set(ids)])) {
      out.push(
        ...(await db
          .selectFrom('offers')
          .selectAll()
          .where('investment_id', '=', investmentId)
          .where('source_property_id', 'in', part)
          .execute()),
      )
    }
  }
  return out
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

export async function insertOffers(
  db: Executor,
  rows: readonly NewOffer[],
): Promise<Array<{ id: number; investment_id: number; source_property_id: string | null }>> {
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

export async function insertPriceHistory(db: Executor, rows: readonly NewPriceHistory[]): Promise<void> {
  for (const part of chunks(rows, 800)) await db.insertInto('price_history').values(part).execute()
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
