/*
 * SQL of the publication settings that live in tables: the developer entities (official columns
 * 1–28) and the location of an investment (columns 29–35) with its prospectus URL (column 58).
 */
import type { Updateable } from 'kysely'

import type { Executor } from '../../host/context.js'
import type { DeveloperRow, DevelopersTable, NewDeveloper } from '../../host/db/schema.js'

export type DeveloperUpdate = Updateable<DevelopersTable>

export interface InvestmentLocationRow {
  id: number
  title: string
  developer_id: number | null
  loc_voivodeship: string | null
  loc_powiat: string | null
  loc_gmina: string | null
  loc_city: string | null
  loc_street: string | null
  loc_building_no: string | null
  loc_postal_code: string | null
  prospectus_url: string | null
  modified_at: string
}

export type InvestmentLocationUpdate = Partial<
  Omit<InvestmentLocationRow, 'id' | 'title' | 'developer_id' | 'modified_at'>
> & { modified_at: string }

export async function findDeveloper(db: Executor, id: number): Promise<DeveloperRow | undefined> {
  return db.selectFrom('developers').selectAll().where('id', '=', id).executeTakeFirst()
}

/** `ids`: only these (the caller's scope, host/auth/scope.ts); undefined: every one. */
export async function selectDevelopers(db: Executor, ids?: readonly number[]): Promise<DeveloperRow[]> {
  if (ids !== undefined && ids.length === 0) return []
  let query = db.selectFrom('developers').selectAll()
  if (ids !== undefined) query = query.where('id', 'in', ids)
  return query.orderBy('id').execute()
}

export async function insertDeveloper(db: Executor, values: NewDeveloper): Promise<number> {
  const { id } = await db.insertInto('developers').values(values).returning('id').executeTakeFirstOrThrow()
  return id
}

export async function updateDeveloperRow(db: Executor, id: number, values: DeveloperUpdate): Promise<void> {
  await db.updateTable('developers').set(values).where('id', '=', id).execute()
}

export async function findInvestmentLocation(db: Executor, id: number): Promise<InvestmentLocationRow | undefined> {
  return db
    .selectFrom('investments')
    .select([
      'id',
      'title',
      'developer_id',
      'loc_voivodeship',
      'loc_powiat',
      'loc_gmina',
      'loc_city',
      'loc_street',
      'loc_building_no',
      'loc_postal_code',
      'prospectus_url',
      'modified_at',
    ])
    .where('id', '=', id)
    .executeTakeFirst()
}

export async function updateInvestmentLocationRow(
  db: Executor,
  id: number,
  values: InvestmentLocationUpdate,
): Promise<void> {
  await db.updateTable('investments').set(values).where('id', '=', id).execute()
}
