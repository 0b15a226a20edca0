/*
 * One run of a source: fetch (with limits and the address guard), skip when the bytes did not
 * change, preview through the offer import (the same validator and planner as an upload), check
 * the guards (limits, and the operator's decisions the file would undo: source-guards.ts), then either execute the import (the same writer, under the import's idempotency
 * key `source-run-<run id>`) or hold the run for a person. One instance runs a source at a time
 * (a database lock per source, as the publication's); a run found busy is not a run and leaves no
 * row. Every run is a row of source_runs and an audit entry; a failure raises an alert.
 */
import { createWriteStream } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import path from 'node:path'

import { type Actor, recordAudit } from '../host/audit/audit.js'
import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { keepLockAlive, newLockOwner, releaseLock, tryAcquireLock } from '../host/locks.js'
import { executeOfferImport } from '../imports/execution/execute-offer-import.js'
import { PREVIEW_RETENTION_MS } from '../imports/import-job-lifecycle.js'
import { getImportJob } from '../imports/import-job-view.js'
import { findImportJob } from '../imports/import-jobs-repository.js'
import { type PreviewBody, previewOfferImport } from '../imports/preview-offer-import.js'
import type { NetworkErrorExplanation } from '../host/http/network-errors.js'
import { readOfferFile } from '../imports/reading/read-offer-file.js'
import { warsawDate } from '../host/warsaw-day.js'
import type { ImportMode } from '../offers/validation/validate-offer-row.js'
import { DEFAULT_FETCH_LIMITS, fetchSourceFile, SourceFetchError } from './fetch-source.js'
import { alertFailedRun, alertHeldRun, alertStaleSource } from './source-alerts.js'
import { checkGuards, type GuardBreach } from './source-guards.js'
import { DEFAULT_GUARDS, type GuardLimits } from './source-settings.js'
import {
  findExecutionAuditId,
  findRun,
  findSource,
  insertRun,
  selectRuns,
  type SourceRow,
  type SourceRunRow,
  transitionRun,
  updateSource,
} from './sources-repository.js'

const LEASE_MS = 180_000
const ERRORS_KEPT = 20
const DAY_MS = 24 * 3600 * 1000

export type RunTrigger = 'schedule' | 'manual'

export interface RunFailure {
  code: string
  message: string
  /** A network failure as an operator reads it (see explainNetworkError). */
  network_code?: string
  message_pl?: string
  message_en?: string
}

export interface RunSummary {
  rows?: number
  valid_rows?: number
  errors_total?: number
  errors?: Array<{ row: number; field: string; code: string; message_pl?: string; message?: string }>
  skipped_rows?: number
  counts?: Record<string, number>
  archived_total?: number
  format?: string
  result?: Record<string, unknown>
}

export interface RunView {
  id: number
  source_id: number
  trigger: string
  started_at: string
  finished_at: string | null
  outcome: string
  http_status: number | null
  bytes: number | null
  content_sha256: string | null
  job_id: string | null
  summary: RunSummary
  guards: GuardBreach[]
  failure: RunFailure | null
  decided_by: { id: number | null; name: string } | null
  decided_at: string | null
}

export function runView(row: SourceRunRow): RunView {
  return {
    id: row.id,
    source_id: row.source_id,
    trigger: row.trigger,
    started_at: row.started_at,
    finished_at: row.finished_at,
    outcome: row.outcome,
    http_status: row.http_status,
    bytes: row.bytes,
    content_sha256: row.content_sha256,
    job_id: row.job_id,
    summary: JSON.parse(row.summary) as RunSummary,
    guards: JSON.parse(row.guards) as GuardBreach[],
    failure: row.failure ? (JSON.parse(row.failure) as RunFailure) : null,
    decided_by: row.decided_by_name === null ? null : { id: row.decided_by_user_id, name: row.decided_by_name },
    decided_at: row.decided_at,
  }
}

export function sourceLockName(id: number): string {
  return `source:${id}`
}

export function runIdempotencyKey(runId: number): string {
  return `source-run-${runId}`
}

/** A refusal's body in both languages (the answer's `message` follows Accept-Language, Polish by default). */
export function bilingual(pl: string, en: string): { message: string; message_pl: string; message_en: string } {
  return { message: pl, message_pl: pl, message_en: en }
}

export function sourceNotFound(id: number): PluginError {
  return new PluginError('source_not_found', 404, bilingual(`Nie ma źródła nr ${id}.`, `No source ${id}.`))
}

/** Runs the source now; `busy` when another instance (or request) is running it. */
export async function runSource(
  ctx: HostContext,
  sourceId: number,
  trigger: RunTrigger,
  actor: Actor,
): Promise<{ busy: true } | { busy: false; run: RunView }> {
  const source = await findSource(ctx.db, sourceId)
  if (!source) throw sourceNotFound(sourceId)
  const owner = newLockOwner()
  const lock = await tryAcquireLock(ctx, sourceLockName(sourceId), owner, LEASE_MS)
  if (!lock.acquired) return { busy: true }
  const lease = keepLockAlive(ctx, sourceLockName(sourceId), owner, LEASE_MS)
  const dir = path.join(ctx.config.dataDir, 'sources')
  let runId: number | undefined
  const files: string[] = []
  try {
    // read again under the lock: the instance that held it may have changed the source's state
    const current = (await findSource(ctx.db, sourceId)) ?? source
    const now = ctx.now().toISOString()
    // under the lock no other run of this source is under way: one still `running` lost its process
    for (const interrupted of await selectRuns(ctx.db, { sourceId, outcome: 'running', limit: 20 }))
      await finish(ctx, interrupted.id, 'running', {
        outcome: 'failed',
        failure: JSON.stringify({ code: 'source_run_interrupted', message: 'the instance stopped during the run' }),
      })
    await updateSource(ctx.db, sourceId, { last_run_at: now })
    runId = await insertRun(ctx.db, {
      source_id: sourceId,
      trigger,
      started_at: now,
      finished_at: null,
      outcome: 'running',
      http_status: null,
      bytes: null,
      content_sha256: null,
      job_id: null,
      summary: '{}',
      guards: '[]',
      failure: null,
      decided_by_user_id: null,
      decided_by_name: null,
      decided_at: null,
    })
    await mkdir(dir, { recursive: true })
    await runSteps(ctx, current, runId, trigger, actor, dir, files)
  } catch (error) {
    if (runId === undefined) throw error
    ctx.log.error({ err: error, source: sourceId, run: runId }, 'source run failed')
    await finishFailed(ctx, source, runId, trigger, actor, {
      code: 'source_run_error',
      message: (error as Error).message.slice(0, 300),
    }).catch(() => undefined)
  } finally {
    lease.stop()
    await releaseLock(ctx.db, sourceLockName(sourceId), owner)
    for (const file of files) await rm(file, { force: true })
  }
  const run = await findRun(ctx.db, runId)
  if (!run) throw new Error('the run row vanished')
  return { busy: false, run: runView(run) }
}

async function runSteps(
  ctx: HostContext,
  source: SourceRow,
  runId: number,
  trigger: RunTrigger,
  actor: Actor,
  dir: string,
  files: string[],
): Promise<void> {
  const download = path.join(dir, `run-${runId}.download`)
  files.push(download)
  let fetched
  try {
    fetched = await fetchSourceFile({
      url: source.url,
      headers: JSON.parse(source.headers) as Record<string, string>,
      privateHosts: JSON.parse(source.private_hosts) as string[],
      etag: source.etag,
      lastModified: source.last_modified,
      ca: source.ca_certificate ?? null,
      limits: { ...DEFAULT_FETCH_LIMITS, maxBytes: ctx.config.importMaxBytes },
      target: download,
    })
  } catch (error) {
    if (!(error instanceof SourceFetchError)) throw error
    await finishFailed(
      ctx,
      source,
      runId,
      trigger,
      actor,
      {
        code: error.code,
        message: error.message,
        ...networkTexts(error.details.network as NetworkErrorExplanation | null | undefined),
      },
      {
        http_status: typeof error.details.status === 'number' ? error.details.status : null,
      },
    )
    return
  }
  if (fetched.kind === 'not_modified' || fetched.sha256 === source.content_sha256) {
    await finish(ctx, runId, 'running', {
      outcome: 'unchanged',
      http_status: fetched.status,
      bytes: fetched.kind === 'fetched' ? fetched.bytes : null,
      content_sha256: fetched.kind === 'fetched' ? fetched.sha256 : source.content_sha256,
    })
    await auditRun(ctx, actor, source, runId, 'unchanged')
    await checkStale(ctx, source)
    return
  }

  const nowIso = ctx.now().toISOString()
  await updateSource(ctx.db, source.id, {
    etag: fetched.etag,
    last_modified: fetched.lastModified,
    content_sha256: fetched.sha256,
    changed_at: nowIso,
  })
  const fetchedColumns = { http_status: fetched.status, bytes: fetched.bytes, content_sha256: fetched.sha256 }
  const file = path.join(dir, `run-${runId}.${fetched.format}`)
  await rename(download, file)
  files.push(file)
  const mapping = JSON.parse(source.mapping) as Record<string, string>
  const previewArgs = {
    actor,
    operator: { userId: null, name: `źródło: ${source.name}`.slice(0, 60) },
    mode: source.mode as ImportMode,
    mapping,
    ...(source.sheet ? { sheet: source.sheet } : {}),
  }
  const first = await previewOfferImport(ctx, {
    ...previewArgs,
    filePath: file,
    fileName: `${source.name}.${fetched.format}`.slice(0, 200),
  })
  let preview: PreviewBody = first.preview
  let jobId: string = first.id
  let skipped = 0
  if (!preview.valid) {
    const fixable =
      preview.errors_total === preview.errors.length &&
      preview.errors.every((e) => e.row > 1 && e.field !== 'file') &&
      preview.errors.length > 0
    const rowsRefused = new Set(preview.errors.map((e) => e.row))
    const partial = fixable ? path.join(dir, `run-${runId}-valid-rows.csv`) : undefined
    let second: { id: string; preview: PreviewBody } | undefined
    if (partial && rowsRefused.size < preview.rows) {
      files.push(partial)
      await writeRowsExcept(file, source.sheet, rowsRefused, partial, ctx.config.importMaxBytes)
      second = await previewOfferImport(ctx, {
        ...previewArgs,
        sheet: undefined,
        filePath: partial,
        fileName: `${source.name} (poprawne wiersze).csv`.slice(0, 200),
      })
    }
    if (!second?.preview.valid) {
      await finish(ctx, runId, 'running', {
        outcome: 'invalid',
        ...fetchedColumns,
        job_id: first.id,
        summary: JSON.stringify(summaryOf(preview, 0)),
        failure: JSON.stringify({
          code: 'source_file_invalid',
          message: `${preview.errors_total} error(s); first: ${preview.errors[0]?.message_en ?? 'unknown'}`.slice(
            0,
            300,
          ),
        }),
      })
      await auditRun(ctx, actor, source, runId, 'invalid')
      await alertFailedRun(ctx, source, runId, {
        code: 'source_file_invalid',
        message: (preview.errors[0]?.message_pl ?? 'plik nie daje się wczytać').slice(0, 200),
      })
      return
    }
    skipped = preview.errors_total
    const refused = preview
    preview = { ...second.preview, rows: refused.rows, errors: refused.errors, errors_total: refused.errors_total }
    jobId = second.id
  }

  const limits = { ...DEFAULT_GUARDS, ...(JSON.parse(source.guards) as Partial<GuardLimits>) }
  const breaches = await checkGuards(
    ctx.db,
    limits,
    { jobId, rows: preview.rows, errorsTotal: preview.errors_total, archive: preview.counts.archive },
    {
      previousRows: source.applied_rows,
      appliedAfter: await lastAppliedExecution(ctx, source.id),
      today: warsawDate(ctx.now()),
    },
  )
  // a snapshot of part of the file would archive the offers of the refused rows: a person decides
  if (skipped > 0 && source.mode === 'snapshot' && !breaches.some((b) => b.guard === 'invalid_rows'))
    breaches.push({
      guard: 'invalid_rows',
      limit_pct: 0,
      actual_pct: Math.round((skipped / Math.max(preview.rows, 1)) * 1000) / 10,
      count: skipped,
      of: preview.rows,
      offers: [],
    })
  const summary = summaryOf(preview, skipped)
  await supersedeHeldRuns(ctx, source.id, runId)
  if (breaches.length > 0) {
    await finish(ctx, runId, 'running', {
      outcome: 'held',
      ...fetchedColumns,
      job_id: jobId,
      summary: JSON.stringify(summary),
      guards: JSON.stringify(breaches),
    })
    await auditRun(ctx, actor, source, runId, 'held', { guards: breaches.map((b) => b.guard) })
    await alertHeldRun(ctx, source, runId, preview.counts, breaches)
    return
  }
  try {
    const executed = await executeOfferImport(ctx, {
      actor,
      jobId,
      idempotencyKey: runIdempotencyKey(runId),
      confirmArchiving: true,
    })
    await finish(ctx, runId, 'running', {
      outcome: 'applied',
      ...fetchedColumns,
      job_id: jobId,
      summary: JSON.stringify({ ...summary, result: executed.result }),
    })
    await updateSource(ctx.db, source.id, { applied_rows: preview.rows })
    await auditRun(ctx, actor, source, runId, 'applied', { result: executed.result })
  } catch (error) {
    const code = error instanceof PluginError ? error.error : 'import_failed'
    await forgetFetchedFile(ctx, source.id)
    await finishFailed(
      ctx,
      source,
      runId,
      trigger,
      actor,
      { code: 'source_apply_failed', message: code },
      { ...fetchedColumns, job_id: jobId, summary: JSON.stringify(summary) },
    )
  }
}

/**
 * The audit entry of the execution of the source's latest applied run (the run id its price
 * records carry): what the panel changed after it, the source has never seen. 0 before the first.
 */
async function lastAppliedExecution(ctx: HostContext, sourceId: number): Promise<number> {
  const [last] = await selectRuns(ctx.db, { sourceId, outcome: 'applied', limit: 1 })
  if (!last) return 0
  const runId = (JSON.parse(last.summary) as RunSummary).result?.run_id
  if (typeof runId === 'number') return runId
  return last.job_id === null ? 0 : ((await findExecutionAuditId(ctx.db, last.job_id)) ?? 0)
}

/** The next run plans the file again even when its bytes are the same (this one's plan was never written). */
async function forgetFetchedFile(ctx: HostContext, sourceId: number): Promise<void> {
  await updateSource(ctx.db, sourceId, { etag: null, last_modified: null, content_sha256: null })
}

function summaryOf(preview: PreviewBody, skipped: number): RunSummary {
  return {
    rows: preview.rows,
    valid_rows: preview.rows - preview.errors_total,
    errors_total: preview.errors_total,
    errors: preview.errors.slice(0, ERRORS_KEPT).map((e) => ({
      row: e.row,
      field: e.field,
      code: e.code,
      message_pl: e.message_pl,
      message: e.message_en,
    })),
    skipped_rows: skipped,
    counts: preview.counts,
    archived_total: preview.archive_scope.total,
  }
}

/** Writes the file's rows except `refused` as a UTF-8 CSV (`;`, every value quoted). */
async function writeRowsExcept(
  file: string,
  sheet: string | null,
  refused: ReadonlySet<number>,
  target: string,
  maxBytes: number,
): Promise<void> {
  const reader = await readOfferFile({
    path: file,
    fileName: path.basename(file),
    ...(sheet ? { sheet } : {}),
    limits: { maxBytes, maxRows: Number.MAX_SAFE_INTEGER },
  })
  const quote = (value: string) => `"${value.replaceAll('"', '""')}"`
  const out = createWriteStream(target)
  out.write(`${reader.headers.map(quote).join(';')}\r\n`)
  for await (const row of reader.rows) {
    if (refused.has(row.row)) continue
    out.write(`${reader.headers.map((header) => quote(row.values[header] ?? '')).join(';')}\r\n`)
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
}

async function finish(
  ctx: HostContext,
  runId: number,
  from: string,
  patch: Parameters<typeof transitionRun>[3],
): Promise<void> {
  await transitionRun(ctx.db, runId, from, { ...patch, finished_at: ctx.now().toISOString() })
}

function networkTexts(network: NetworkErrorExplanation | null | undefined) {
  return network ? { network_code: network.code, message_pl: network.message_pl, message_en: network.message_en } : {}
}

async function finishFailed(
  ctx: HostContext,
  source: SourceRow,
  runId: number,
  _trigger: RunTrigger,
  actor: Actor,
  failure: RunFailure,
  extra: Parameters<typeof transitionRun>[3] = {},
): Promise<void> {
  await finish(ctx, runId, 'running', { ...extra, outcome: 'failed', failure: JSON.stringify(failure) })
  await auditRun(ctx, actor, source, runId, 'failed', { code: failure.code })
  await alertFailedRun(ctx, source, runId, failure)
}

async function auditRun(
  ctx: HostContext,
  actor: Actor,
  source: SourceRow,
  runId: number,
  outcome: string,
  details: Record<string, unknown> = {},
): Promise<void> {
  await recordAudit(ctx, {
    actor,
    action: 'source.run',
    objectType: 'source_run',
    objectId: runId,
    outcome: outcome === 'failed' || outcome === 'invalid' ? 'failure' : 'success',
    details: { source_id: source.id, source: source.name, outcome, ...details },
  })
}

/** A held run of the source whose plan a newer run replaces can no longer be applied. */
async function supersedeHeldRuns(ctx: HostContext, sourceId: number, newerRunId: number): Promise<void> {
  for (const held of await selectRuns(ctx.db, { sourceId, outcome: 'held', limit: 50 }))
    if (held.id !== newerRunId)
      await transitionRun(ctx.db, held.id, 'held', {
        outcome: 'superseded',
        failure: JSON.stringify({ code: 'source_run_superseded', message: `run ${newerRunId} replaced this plan` }),
      })
}

/** Raises the stale alert when the file has not changed for the source's number of days. */
export async function checkStale(ctx: HostContext, source: SourceRow): Promise<boolean> {
  if (source.changed_at === null) return false
  const days = Math.floor((ctx.now().getTime() - Date.parse(source.changed_at)) / DAY_MS)
  if (days < source.stale_after_days) return false
  await alertStaleSource(ctx, source, days)
  return true
}

export interface Decider {
  actor: Actor
  userId: number | null
  name: string
}

async function heldRun(ctx: HostContext, runId: number): Promise<SourceRunRow> {
  const run = await findRun(ctx.db, runId)
  if (!run)
    throw new PluginError(
      'source_run_not_found',
      404,
      bilingual(`Nie ma przebiegu nr ${runId}.`, `No source run ${runId}.`),
    )
  return run
}

/**
 * Applies a held run's plan: the import's own execution under the run's idempotency key, so a
 * second click, a second operator or a second instance replays instead of writing twice.
 */
export async function applyHeldRun(ctx: HostContext, runId: number, decider: Decider): Promise<RunView> {
  const run = await heldRun(ctx, runId)
  if (run.outcome === 'applied') return runView(run)
  if (run.outcome !== 'held' || run.job_id === null)
    throw new PluginError('source_run_not_held', 409, {
      ...bilingual(
        `Przebieg nr ${runId} nie czeka na decyzję; zastosować można tylko przebieg wstrzymany.`,
        `Run ${runId} is ${run.outcome}; only a held run can be applied.`,
      ),
      outcome: run.outcome,
    })
  let result
  try {
    result = (
      await executeOfferImport(ctx, {
        actor: decider.actor,
        jobId: run.job_id,
        idempotencyKey: runIdempotencyKey(runId),
        confirmArchiving: true,
      })
    ).result
  } catch (error) {
    if (
      error instanceof PluginError &&
      (error.error === 'import_conflict' || error.error === 'import_not_found' || error.error === 'import_invalid')
    ) {
      await forgetFetchedFile(ctx, run.source_id)
      await transitionRun(ctx.db, runId, 'held', {
        outcome: 'stale',
        failure: JSON.stringify({ code: 'source_run_stale', message: error.error }),
        decided_by_user_id: decider.userId,
        decided_by_name: decider.name,
        decided_at: ctx.now().toISOString(),
      })
      throw new PluginError(
        'source_run_stale',
        409,
        bilingual(
          'Katalog zmienił się od tego przebiegu albo jego plan wygasł; uruchom źródło ponownie.',
          'The catalog changed since this run was planned, or its plan expired; run the source again.',
        ),
      )
    }
    throw error
  }
  const summary = { ...(JSON.parse(run.summary) as RunSummary), result }
  const decided = await transitionRun(ctx.db, runId, 'held', {
    outcome: 'applied',
    summary: JSON.stringify(summary),
    decided_by_user_id: decider.userId,
    decided_by_name: decider.name,
    decided_at: ctx.now().toISOString(),
  })
  if (decided) {
    await updateSource(ctx.db, run.source_id, { applied_rows: summary.rows ?? null })
    await recordAudit(ctx, {
      actor: decider.actor,
      action: 'source.run.apply',
      objectType: 'source_run',
      objectId: runId,
      outcome: 'success',
      details: { source_id: run.source_id, result },
    })
  }
  return runView((await findRun(ctx.db, runId)) ?? run)
}

export async function rejectHeldRun(ctx: HostContext, runId: number, decider: Decider): Promise<RunView> {
  const run = await heldRun(ctx, runId)
  if (run.outcome === 'rejected') return runView(run)
  const rejected = await transitionRun(ctx.db, runId, 'held', {
    outcome: 'rejected',
    decided_by_user_id: decider.userId,
    decided_by_name: decider.name,
    decided_at: ctx.now().toISOString(),
  })
  if (!rejected)
    throw new PluginError('source_run_not_held', 409, {
      ...bilingual(
        `Przebieg nr ${runId} nie czeka na decyzję; odrzucić można tylko przebieg wstrzymany.`,
        `Run ${runId} is ${run.outcome}; only a held run can be rejected.`,
      ),
      outcome: run.outcome,
    })
  await recordAudit(ctx, {
    actor: decider.actor,
    action: 'source.run.reject',
    objectType: 'source_run',
    objectId: runId,
    outcome: 'success',
    details: { source_id: run.source_id },
  })
  return runView((await findRun(ctx.db, runId)) ?? run)
}

/**
 * A run with a page of its plan (before → after per offer), as the panel's run page shows it, and
 * how long the plan is kept: `state` none (the run made no plan: the file was not fetched, did not
 * change, or did not read), available (until `expires_at`) or expired (since `expires_at`, or the
 * plan is gone). The time is the import job's own, not a guess from the run's.
 */
export async function runWithPlan(ctx: HostContext, runId: number, page: number, perPage: number) {
  const run = await heldRun(ctx, runId)
  const view = runView(run)
  const empty = {
    items: [],
    page,
    per_page: perPage,
    total_items: 0,
    retention_hours: PREVIEW_RETENTION_MS / 3_600_000,
  }
  if (run.job_id === null)
    return { run: view, plan: { ...empty, available: false, state: 'none' as const, expires_at: null } }
  const stored = await findImportJob(ctx.db, run.job_id)
  const expiresAt = stored?.expires_at ?? null
  try {
    const job = await getImportJob(ctx, run.job_id, page, perPage)
    return {
      run: view,
      plan: {
        ...empty,
        items: job.items.filter((item) => item.action !== 'unchanged'),
        page: job.page,
        per_page: job.per_page,
        total_items: job.total_items,
        available: true,
        state: 'available' as const,
        expires_at: job.expires_at,
      },
    }
  } catch (error) {
    if (!(error instanceof PluginError) || error.error !== 'import_not_found') throw error
  }
  return { run: view, plan: { ...empty, available: false, state: 'expired' as const, expires_at: expiresAt } }
}
