import { sql } from 'kysely'

import type { Executor } from '../host/context.js'
import { INVESTMENT_STATUSES_IN_DAILY_FILE } from '../offers/editor-operation.js'

/** `investments`: only these (a scoped user's, host/auth/scope.ts); undefined: every one. */
export async function countOffersByStatus(
  db: Executor,
  investments?: readonly number[],
): Promise<Array<{ status: string; count: number }>> {
  let query = db.selectFrom('offers')
  if (investments !== undefined)
    query = investments.length > 0 ? query.where('investment_id', 'in', investments) : query.where(sql<boolean>`1 = 0`)
  const rows = await query
    .select((eb) => ['status', eb.fn.countAll().as('n')])
    .groupBy('status')
    .orderBy('status')
    .execute()
  return rows.map((row) => ({ status: row.status, count: Number(row.n) }))
}

function investmentsAmong(db: Executor, investments: readonly number[] | undefined) {
  const query = db.selectFrom('investments')
  if (investments === undefined) return query
  return investments.length > 0 ? query.where('id', 'in', investments) : query.where(sql<boolean>`1 = 0`)
}

const LOCATION_COLUMNS = [
  'loc_voivodeship',
  'loc_powiat',
  'loc_gmina',
  'loc_city',
  'loc_street',
  'loc_building_no',
  'loc_postal_code',
] as const

/**
 * Investments in the official file (published, or awaiting their location after an import) whose
 * location (columns 29–35) or prospectus (58) is incomplete.
 */
export async function selectIncompleteInvestments(
  db: Executor,
  investments?: readonly number[],
): Promise<Array<{ id: number; title: string; location_missing: boolean; prospectus_missing: boolean }>> {
  const rows = await investmentsAmong(db, investments)
    .select(['id', 'title', 'prospectus_url', ...LOCATION_COLUMNS])
    .where('host_status', 'in', [...INVESTMENT_STATUSES_IN_DAILY_FILE])
    .where((eb) =>
      eb.or([
        ...LOCATION_COLUMNS.flatMap((column) => [eb(column, 'is', null), eb(column, '=', '')]),
        eb('prospectus_url', 'is', null),
        eb('prospectus_url', '=', ''),
      ]),
    )
    .orderBy('id')
    .execute()
  return rows.map((row) => ({
    id: Number(row.id),
    title: row.title,
    location_missing: LOCATION_COLUMNS.some((column) => !row[column]?.trim()),
    prospectus_missing: !row.prospectus_url?.trim(),
  }))
}

export async function countInvestments(
  db: Executor,
  investments?: readonly number[],
): Promise<{ total: number; published: number }> {
  const rows = await investmentsAmong(db, investments)
    .select((eb) => ['host_status', eb.fn.countAll().as('n')])
    .groupBy('host_status')
    .execute()
  let total = 0
  let published = 0
  for (const row of rows) {
    total += Number(row.n)
    if (row.host_status === 'publish') published += Number(row.n)
  }
  return { total, published }
}

/**
 * The statuses of an import that was executed, or whose execution was attempted: a preview nobody
 * executed (previewed, invalid, expired) changed nothing and is no import to an operator.
 */
export const EXECUTED_IMPORT_STATUSES = ['running', 'completed', 'failed', 'stale', 'recovery_required'] as const

/** The latest executed (or failed) imports, newest first; `operatorId`: only that user's. */
export async function selectRecentImportJobs(db: Executor, limit: number, operatorId?: number) {
  let query = db.selectFrom('import_jobs')
  if (operatorId !== undefined) query = query.where('operator_user_id', '=', operatorId)
  return query
    .select([
      'id',
      'type',
      'mode',
      'status',
      'operator_name',
      'file_name',
      'file_format',
      'counters',
      'result',
      'created_at',
      'finished_at',
    ])
    .where('status', 'in', [...EXECUTED_IMPORT_STATUSES])
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute()
}

/** The publications of one day, newest first. */
export async function selectPublicationsOfDay(db: Executor, day: string) {
  return db.selectFrom('publications').selectAll().where('publication_date', '=', day).orderBy('id', 'desc').execute()
}
