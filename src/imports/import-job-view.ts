/*
 * A job as GET /imports/{id} shows it: its status, counters and errors, and a page of its plan.
 */
import type { HostContext } from '../host/context.js'
import { HostError, PluginError } from '../host/errors.js'
import type { OfferPlan, PlannedOperation } from '../offers/offer-planner.js'
import type { RowError } from '../offers/validation/validate-offer-row.js'
import { findImportJob, selectJobItemChunks } from './import-jobs-repository.js'
import { storedResult } from './import-job-lifecycle.js'
import { chunkSizeOf, decodeChunk } from './execution/stored-operations.js'
import type { ImportResult } from './execution/written-job.js'
import { namesOf, operationView, type OperationView } from './planned-operation-view.js'

/** A row error as a job keeps it; jobs previewed by earlier releases have no `message_pl`/`message_en`. */
export type StoredRowError = Omit<RowError, 'message_pl' | 'message_en'> &
  Partial<Pick<RowError, 'message_pl' | 'message_en'>>

export interface JobView {
  id: string
  type: string
  mode: string
  status: string
  operator: { id: number | null; name: string }
  file: { name: string; format: string; sha256: string }
  counters: Record<string, number>
  created_at: string
  started_at: string | null
  finished_at: string | null
  expires_at: string
  result: ImportResult | null
  failure: string | null
  errors: StoredRowError[]
  archive_scope: OfferPlan['archiveScope']
  items: OperationView[]
  page: number
  per_page: number
  total_items: number
}

export async function getImportJob(ctx: HostContext, id: string, page: number, perPage: number): Promise<JobView> {
  const job = await findImportJob(ctx.db, id)
  if (!job || job.expires_at < ctx.now().toISOString())
    throw new PluginError('import_not_found', 404, { message: `No import job ${id} (unknown or expired).` })
  const counters = JSON.parse(job.counters) as Record<string, number>
  const total =
    job.status === 'invalid' || job.status === 'previewing'
      ? 0
      : (counters.create ?? 0) + (counters.update ?? 0) + (counters.unchanged ?? 0) + (counters.archive ?? 0)
  const totalPages = Math.max(1, Math.ceil(total / perPage))
  if (page > totalPages)
    throw new HostError(
      'rest_post_invalid_page_number',
      400,
      'The page number requested is larger than the number of pages available.',
    )
  const first = (page - 1) * perPage
  const chunkSize = chunkSizeOf(job.plan_format)
  const fromChunk = Math.floor(first / chunkSize)
  const toChunk = Math.floor((first + perPage - 1) / chunkSize)
  const ops: PlannedOperation[] = []
  // a preview still being made has only part of its plan stored: none of it is shown yet
  if (total > 0)
    for (const payload of await selectJobItemChunks(ctx.db, id, { fromSeq: fromChunk, toSeq: toChunk }))
      for (const op of decodeChunk(payload, job.plan_format)) ops.push(op)
  const offset = first - fromChunk * chunkSize
  const page_ = ops.slice(offset, offset + perPage)
  const names = await namesOf(ctx.db, page_)
  return {
    id: job.id,
    type: job.type,
    mode: job.mode,
    status: job.status,
    operator: { id: job.operator_user_id, name: job.operator_name },
    file: { name: job.file_name, format: job.file_format, sha256: job.file_sha256 },
    counters,
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    expires_at: job.expires_at,
    result: job.result ? storedResult(job) : null,
    failure: job.failure,
    // as stored: a job previewed before the errors had both texts has `message` (English) only
    errors: JSON.parse(job.errors) as StoredRowError[],
    archive_scope: JSON.parse(job.archive_scope) as OfferPlan['archiveScope'],
    items: page_.map((op) => operationView(op, names)),
    page,
    per_page: perPage,
    total_items: total,
  }
}
