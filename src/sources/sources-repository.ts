/*
 * The SQL of scheduled sources and their runs. A held run is decided (applied or rejected) by a
 * conditional update on its outcome, so two operators (or two instances) cannot both decide it.
 */
import type { Insertable, Selectable, Updateable } from 'kysely'

import type { Executor } from '../host/context.js'
import type { SourceRunsTable, SourcesTable } from '../host/db/source-tables.js'

export type SourceRow = Selectable<SourcesTable>
export type SourceRunRow = Selectable<SourceRunsTable>

function normalizeSource(row: SourceRow): SourceRow {
  return {
    ...row,
    id: Number(row.id),
    enabled: Number(row.enabled),
    stale_after_days: Number(row.stale_after_days),
    applied_rows: row.applied_rows === null ? null : Number(row.applied_rows),
  }
}

function normalizeRun(row: SourceRunRow): SourceRunRow {
  return {
    ...row,
    id: Number(row.id),
    source_id: Number(row.source_id),
    http_status: row.http_status === null ? null : Number(row.http_status),
    bytes: row.bytes === null ? null : Number(row.bytes),
    decided_by_user_id: row.decided_by_user_id === null ? null : Number(row.decided_by_user_id),
  }
}

export async function insertSource(db: Executor, row: Insertable<SourcesTable>): Promise<number> {
  const inserted = await db.insertInto('sources').values(row).returning('id').executeTakeFirstOrThrow()
  return Number(inserted.id)
}

export async function updateSource(db: Executor, id: number, patch: Updateable<SourcesTable>): Promise<boolean> {
  const result = await db.updateTable('sources').set(patch).where('id', '=', id).executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function deleteSource(db: Executor, id: number): Promise<boolean> {
  const result = await db.deleteFrom('sources').where('id', '=', id).executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

export async function findSource(db: Executor, id: number): Promise<SourceRow | undefined> {
  const row = await db.selectFrom('sources').selectAll().where('id', '=', id).executeTakeFirst()
  return row && normalizeSource(row)
}

export async function selectSources(db: Executor): Promise<SourceRow[]> {
  return (await db.selectFrom('sources').selectAll().orderBy('id').execute()).map(normalizeSource)
}

export async function insertRun(db: Executor, row: Insertable<SourceRunsTable>): Promise<number> {
  const inserted = await db.insertInto('source_runs').values(row).returning('id').executeTakeFirstOrThrow()
  return Number(inserted.id)
}

/** Updates the run only while its outcome is `from`; whether it did. */
export async function transitionRun(
  db: Executor,
  id: number,
  from: string,
  patch: Updateable<SourceRunsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('source_runs')
    .set(patch)
    .where('id', '=', id)
    .where('outcome', '=', from)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function findRun(db: Executor, id: number): Promise<SourceRunRow | undefined> {
  const row = await db.selectFrom('source_runs').selectAll().where('id', '=', id).executeTakeFirst()
  return row && normalizeRun(row)
}

export async function selectRuns(
  db: Executor,
  filter: { sourceId?: number; outcome?: string; limit: number },
): Promise<SourceRunRow[]> {
  let query = db.selectFrom('source_runs').selectAll()
  if (filter.sourceId !== undefined) query = query.where('source_id', '=', filter.sourceId)
  if (filter.outcome !== undefined) query = query.where('outcome', '=', filter.outcome)
  return (await query.orderBy('id', 'desc').limit(filter.limit).execute()).map(normalizeRun)
}

/** The newest run of each source (what the sources' list and the dashboard show). */
export async function selectLatestRuns(db: Executor): Promise<Map<number, SourceRunRow>> {
  const rows = await db
    .selectFrom('source_runs')
    .selectAll()
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('source_runs')
        .select((e) => e.fn.max('id').as('id'))
        .groupBy('source_id'),
    )
    .execute()
  return new Map(rows.map((row) => [Number(row.source_id), normalizeRun(row)]))
}

export async function countHeldRuns(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('source_runs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('outcome', '=', 'held')
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

// ---------------------------------------------------------------------------------------------
// what the panel changed since a source's previous run (source-guards.ts)

/** The `import.execute` audit entry of an import job's execution (the run id its price records carry). */
export async function findExecutionAuditId(db: Executor, jobId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('audit_log')
    .select('id')
    .where('action', '=', 'import.execute')
    .where('object_type', '=', 'import_job')
    .where('object_id', '=', jobId)
    .where('outcome', '=', 'success')
    .orderBy('id', 'desc')
    .executeTakeFirst()
  return row ? Number(row.id) : undefined
}

export interface AuditFact {
  id: number
  action: string
  object_id: string | null
  occurred_at: string
  actor_name: string
  details: string | null
}

function auditFact(row: AuditFact): AuditFact {
  return { ...row, id: Number(row.id) }
}

/** The editor's successful writes of these offers recorded after the audit entry `afterId`. */
export async function selectEditorWritesAfter(
  db: Executor,
  offerIds: readonly number[],
  afterId: number,
): Promise<AuditFact[]> {
  if (offerIds.length === 0) return []
  const rows = await db
    .selectFrom('audit_log')
    .select(['id', 'action', 'object_id', 'occurred_at', 'actor_name', 'details'])
    .where('object_type', '=', 'offer')
    .where(
      'object_id',
      'in',
      offerIds.map((id) => String(id)),
    )
    .where('action', 'like', 'editor.offer.%')
    .where('outcome', '=', 'success')
    .where('id', '>', afterId)
    .execute()
  return rows.map(auditFact)
}

/** Offer-level price records of these offers written by a run after the audit entry `afterId`. */
export async function selectPriceRecordsAfter(
  db: Executor,
  offerIds: readonly number[],
  afterId: number,
): Promise<Array<{ offer_id: number; price_type: string; run_id: number }>> {
  if (offerIds.length === 0) return []
  const rows = await db
    .selectFrom('price_history')
    .select(['offer_id', 'price_type', 'run_id'])
    .where('offer_id', 'in', offerIds)
    .where('component_id', 'is', null)
    .where('run_id', '>', afterId)
    .execute()
  return rows.map((row) => ({ offer_id: Number(row.offer_id), price_type: row.price_type, run_id: Number(row.run_id) }))
}

export async function selectAuditFacts(db: Executor, ids: readonly number[]): Promise<AuditFact[]> {
  if (ids.length === 0) return []
  const rows = await db
    .selectFrom('audit_log')
    .select(['id', 'action', 'object_id', 'occurred_at', 'actor_name', 'details'])
    .where('id', 'in', ids)
    .execute()
  return rows.map(auditFact)
}

/** The designations (prop_no) of these offers, as the operator knows the units. */
export async function selectOfferCodes(db: Executor, offerIds: readonly number[]): Promise<Map<number, string>> {
  if (offerIds.length === 0) return new Map()
  const rows = await db.selectFrom('offers').select(['id', 'code']).where('id', 'in', offerIds).execute()
  return new Map(rows.map((row) => [Number(row.id), row.code]))
}
