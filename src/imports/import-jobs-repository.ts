import type { Insertable, Selectable, Updateable } from 'kysely'

import type { Executor } from '../host/context.js'
import type { ImportJobsTable } from '../host/db/schema.js'

export type ImportJobRow = Selectable<ImportJobsTable>

export async function insertImportJob(db: Executor, job: Insertable<ImportJobsTable>): Promise<void> {
  await db.insertInto('import_jobs').values(job).execute()
}

export async function insertJobItemChunks(
  db: Executor,
  jobId: string,
  chunks: ReadonlyArray<{ seq: number; action: string; payload: string }>,
): Promise<void> {
  for (let i = 0; i < chunks.length; i += 50) {
    const part = chunks
      .slice(i, i + 50)
      .map((c) => ({ job_id: jobId, seq: c.seq, row: null, action: c.action, offer_key: '', payload: c.payload }))
    if (part.length > 0) await db.insertInto('import_job_items').values(part).execute()
  }
}

export async function deleteJobItems(db: Executor, jobId: string): Promise<void> {
  await db.deleteFrom('import_job_items').where('job_id', '=', jobId).execute()
}

export async function deleteImportJob(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('import_job_items').where('job_id', '=', id).execute()
  await db.deleteFrom('import_jobs').where('id', '=', id).execute()
}

export async function findImportJob(db: Executor, id: string): Promise<ImportJobRow | undefined> {
  return db.selectFrom('import_jobs').selectAll().where('id', '=', id).executeTakeFirst()
}

export async function findJobByIdempotencyKey(db: Executor, key: string): Promise<ImportJobRow | undefined> {
  return db.selectFrom('import_jobs').selectAll().where('idempotency_key', '=', key).executeTakeFirst()
}

/** Stored chunks `fromSeq`…`toSeq` in order; `writesOnly` skips the chunks that are all `unchanged`. */
export async function selectJobItemChunks(
  db: Executor,
  jobId: string,
  range: { fromSeq: number; toSeq: number; writesOnly?: boolean },
): Promise<string[]> {
  let query = db
    .selectFrom('import_job_items')
    .select('payload')
    .where('job_id', '=', jobId)
    .where('seq', '>=', range.fromSeq)
    .where('seq', '<=', range.toSeq)
  if (range.writesOnly) query = query.where('action', '!=', 'u')
  const rows = await query.orderBy('seq').execute()
  return rows.map((r) => r.payload)
}

export async function countJobItemChunks(db: Executor, jobId: string): Promise<number> {
  const row = await db
    .selectFrom('import_job_items')
    .select((eb) => eb.fn.max('seq').as('last'))
    .where('job_id', '=', jobId)
    .executeTakeFirst()
  return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1
}

/** Conditional transition: only applies when the job is still in `fromStatus`; returns whether it did. */
export async function transitionJob(
  db: Executor,
  id: string,
  fromStatus: string,
  set: Updateable<ImportJobsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('import_jobs')
    .set(set)
    .where('id', '=', id)
    .where('status', '=', fromStatus)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}

export async function updateImportJobOfRun(
  db: Executor,
  id: string,
  runToken: string,
  set: Updateable<ImportJobsTable>,
): Promise<void> {
  await db.updateTable('import_jobs').set(set).where('id', '=', id).where('run_token', '=', runToken).execute()
}

export async function deleteExpiredJobs(db: Executor, nowIso: string): Promise<number> {
  const result = await db
    .deleteFrom('import_jobs')
    .where('expires_at', '<', nowIso)
    .where('status', 'not in', ['running', 'recovery_required'])
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

export async function selectRunningJobs(db: Executor): Promise<ImportJobRow[]> {
  return db.selectFrom('import_jobs').selectAll().where('status', '=', 'running').execute()
}

/**
 * The designation of the stored offers and the title of the stored investments that operations
 * name, so that a preview says "A/1 in Osiedle Zielone" beside the file's source ids.
 */
export async function selectOperationNames(
  db: Executor,
  offerIds: readonly number[],
  investmentIds: readonly number[],
): Promise<{ offers: Map<number, string>; investments: Map<number, string> }> {
  const offers = new Map<number, string>()
  const investments = new Map<number, string>()
  for (let i = 0; i < offerIds.length; i += 500) {
    const part = offerIds.slice(i, i + 500)
    for (const row of await db.selectFrom('offers').select(['id', 'code']).where('id', 'in', part).execute())
      offers.set(row.id, row.code)
  }
  for (let i = 0; i < investmentIds.length; i += 500) {
    const part = investmentIds.slice(i, i + 500)
    for (const row of await db.selectFrom('investments').select(['id', 'title']).where('id', 'in', part).execute())
      investments.set(row.id, row.title)
  }
  return { offers, investments }
}
