/*
 * What every offer import job goes through, whichever step made it: its statuses, how long it is
 * kept, and the named lock its execution holds (see docs/decisions/import-two-steps.md).
 */
import { randomBytes } from 'node:crypto'

import type { HostContext } from '../host/context.js'
import { deleteExpiredJobs, type ImportJobRow } from './import-jobs-repository.js'
import type { ImportResult } from './execution/written-job.js'

/** A preview is kept 24 hours, a result 7 days; price history and audit entries stay. */
export const PREVIEW_RETENTION_MS = 24 * 3600 * 1000
export const RESULT_RETENTION_MS = 7 * 24 * 3600 * 1000
/** The named lock (host/locks.ts) an offer import execution holds from its start to its commit. */
export const IMPORT_LOCK = 'offer_import'

export type JobStatus =
  | 'previewing'
  | 'previewed'
  | 'invalid'
  | 'running'
  | 'completed'
  | 'failed'
  | 'stale'
  | 'recovery_required'
  | 'expired'

export function newJobId(): string {
  return randomBytes(16).toString('hex')
}

/** The result a completed job keeps. */
export function storedResult(job: ImportJobRow): ImportResult {
  return JSON.parse(job.result ?? '{}') as ImportResult
}

export async function removeExpiredImportJobs(ctx: HostContext): Promise<number> {
  return deleteExpiredJobs(ctx.db, ctx.now().toISOString())
}
