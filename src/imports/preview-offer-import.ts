/*
 * The first step of an offer import: the rows are validated with the shared validator and planned
 * against the catalog in batches, and the plan is stored as the job's (never the offers; see
 * docs/decisions/import-two-steps.md). The rows come from a file (`previewOfferImport`) or from a
 * feature that made and validated them itself (`previewValidatedRows`: the bulk price change).
 */
import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { setImmediate as nextTurn } from 'node:timers/promises'

import { type Actor, recordAudit } from '../host/audit/audit.js'
import { actorScope } from '../host/auth/scope.js'
import type { HostContext } from '../host/context.js'
import { measured, recordImportPreview } from '../host/metrics.js'
import { warsawDate } from '../host/warsaw-day.js'
import { selectCatalogState } from '../catalog/catalog-repository.js'
import {
  createPlanner,
  type OfferPlan,
  type PlannedOperation,
  type PlanInput,
  PLANNER_VERSION,
} from '../offers/offer-planner.js'
import { selectInvestmentSourceIds } from '../offers/offers-repository.js'
import { rowError } from '../offers/validation/row-errors.js'
import type { ImportMode, RowError } from '../offers/validation/validate-offer-row.js'
import { fileErrorMessagePl, FileReadError } from './reading/file-errors.js'
import {
  deleteImportJob,
  deleteJobItems,
  insertImportJob,
  insertJobItemChunks,
  transitionJob,
} from './import-jobs-repository.js'
import { newJobId, PREVIEW_RETENTION_MS } from './import-job-lifecycle.js'
import { mappedMetaTypes, mapsCustomFields } from './import-mapping.js'
import { ChunkBuilder, PLAN_FORMAT } from './execution/stored-operations.js'
import { namesOf, operationView, type OperationView } from './planned-operation-view.js'
import {
  validateOfferFile,
  type ValidateOfferFileArgs,
  validateOfferFileOnWorker,
  type ValidationEvent,
} from './reading/validate-offer-file.js'

/** Operations returned inline by a preview; all of them are pageable through GET /imports/{id}. */
export const PREVIEW_OPERATIONS_SHOWN = 500
/** Rows validated before they are planned together: one catalog read per batch, bounded memory. */
const PLAN_BATCH_ROWS = 500
/** Stored chunks a preview writes at once (× 500 operations). */
const STORE_CHUNKS_AT_ONCE = 8

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

export interface PreviewArgs {
  actor: Actor
  operator: { userId: number | null; name: string }
  filePath: string
  fileName: string
  mode: ImportMode
  mapping: Record<string, string>
  sheet?: string | undefined
  onProgress?: (rowsRead: number) => void
}

/** What every preview is asked for, whatever its rows come from. */
type PreviewOrigin = Pick<PreviewArgs, 'actor' | 'operator' | 'fileName' | 'mode' | 'mapping' | 'onProgress'>

/**
 * Rows validated by their caller with the shared validator (`validateOfferRow`), in batches of
 * about `VALIDATED_BATCH_ROWS`: what a feature of this service writes through the import without
 * a file. `fileName`, `fileFormat` and `sha256` describe the rows as the file they stand for.
 */
export interface ValidatedRowsPreviewArgs extends Omit<PreviewOrigin, 'onProgress'> {
  fileFormat: string
  sha256: string
  batches: Iterable<Extract<ValidationEvent, { kind: 'batch' }>>
}

export interface PreviewBody {
  valid: boolean
  mode: ImportMode
  operations: OperationView[]
  operations_total: number
  counts: OfferPlan['counts']
  archive_scope: OfferPlan['archiveScope']
  errors: RowError[]
  errors_total: number
  rows: number
}

export const previewOfferImport = measured(previewImport, recordImportPreview)

async function previewImport(ctx: HostContext, args: PreviewArgs): Promise<{ id: string; preview: PreviewBody }> {
  const fileSha = await sha256File(args.filePath)
  return previewJob(ctx, args, { format: 'unknown', sha256: fileSha }, validatedFile(ctx, args))
}

export const previewValidatedRows = measured(previewRows, recordImportPreview)

async function previewRows(
  ctx: HostContext,
  args: ValidatedRowsPreviewArgs,
): Promise<{ id: string; preview: PreviewBody }> {
  const { batches } = args
  return previewJob(
    ctx,
    args,
    { format: args.fileFormat, sha256: args.sha256 },
    (async function* () {
      yield* batches
    })(),
  )
}

/** Reads and validates the file, on a worker thread when it is large. */
async function* validatedFile(ctx: HostContext, args: PreviewArgs): AsyncGenerator<ValidationEvent> {
  const validation: ValidateOfferFileArgs = {
    path: args.filePath,
    fileName: args.fileName,
    ...(args.sheet ? { sheet: args.sheet } : {}),
    limits: { maxBytes: ctx.config.importMaxBytes, maxRows: ctx.config.importMaxRows },
    mapping: args.mapping,
    metaTypes: mappedMetaTypes(args.mapping, ctx.meta),
    mode: args.mode,
    maxErrors: ctx.config.importMaxErrors,
  }
  const onWorker = (await stat(args.filePath)).size >= ctx.config.importWorkerMinBytes
  if (onWorker) validation.storedInvestments = await selectInvestmentSourceIds(ctx.db)
  yield* onWorker ? validateOfferFileOnWorker(validation) : validateOfferFile(validation)
}

async function previewJob(
  ctx: HostContext,
  args: PreviewOrigin,
  file: { format: string; sha256: string },
  events: AsyncIterable<ValidationEvent>,
): Promise<{ id: string; preview: PreviewBody }> {
  const id = newJobId()
  const now = ctx.now()
  const today = warsawDate(now)
  const base = {
    id,
    type: 'offer',
    mode: args.mode,
    operator_user_id: args.operator.userId,
    operator_name: args.operator.name,
    file_name: args.fileName.slice(0, 255),
    mapping: JSON.stringify(args.mapping),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    expires_at: new Date(now.getTime() + PREVIEW_RETENTION_MS).toISOString(),
  }

  // the job exists from the start, as `previewing` (never executable), so that the plan is stored
  // as it is made instead of being held in memory; a preview that does not finish leaves a job
  // that cannot run and expires like any preview
  await insertImportJob(ctx.db, {
    ...base,
    status: 'previewing',
    file_sha256: file.sha256,
    file_format: file.format,
    counters: '{}',
    errors: '[]',
    archive_scope: JSON.stringify({ investments: [], total: 0 }),
    plan_digest: '',
    plan_format: PLAN_FORMAT,
    plan_revision: null,
    plan_today: today,
    plan_version: PLANNER_VERSION,
  })
  try {
    return await previewInto(ctx, args, id, today, file.format, events)
  } catch (error) {
    await deleteImportJob(ctx.db, id).catch(() => undefined)
    throw error
  }
}

async function previewInto(
  ctx: HostContext,
  args: PreviewOrigin,
  id: string,
  today: string,
  initialFormat: string,
  events: AsyncIterable<ValidationEvent>,
): Promise<{ id: string; preview: PreviewBody }> {
  const maxErrors = ctx.config.importMaxErrors
  const errors: RowError[] = []
  let errorsTotal = 0
  const addError = (error: RowError) => {
    errorsTotal++
    if (errors.length < maxErrors) errors.push(error)
  }
  let rows = 0
  let validRows = 0
  let format = initialFormat

  // the plan is made batch by batch as the file is read, and stored as encoded text; once a
  // row is refused, the rest of the file is still validated (every error is reported) but no
  // longer planned, since an invalid preview is never executed
  const planner = createPlanner(ctx.db, {
    mode: args.mode,
    today,
    customMeta: mapsCustomFields(args.mapping),
    scope: await actorScope(ctx.db, args.actor),
  })
  const revisionBefore = (await selectCatalogState(ctx.db)).revision
  const stored = new ChunkBuilder()
  const shown: PlannedOperation[] = []
  let plannerErrorsSeen = 0
  let batch: PlanInput[] = []
  const keep = (op: PlannedOperation) => {
    stored.add(op)
    if (shown.length < PREVIEW_OPERATIONS_SHOWN) shown.push(op)
  }
  // the stored part of the plan and the rows read so far (GET /imports/{id} shows the progress)
  const storeChunks = async () => {
    const chunks = stored.take()
    if (chunks.length === 0) return
    await ctx.db.transaction().execute(async (trx) => {
      await insertJobItemChunks(trx, id, chunks)
      await transitionJob(trx, id, 'previewing', {
        counters: JSON.stringify({ rows, valid_rows: validRows, errors: errorsTotal }),
        updated_at: ctx.now().toISOString(),
      })
    })
  }
  // a row the validator refuses ends the planning (the file must be fixed anyway); a row the plan
  // refuses (a new offer without a type, a price that disagrees with the stored values) does not,
  // so that every such row is reported in one preview; an invalid plan is no longer stored
  let rowsRefused = false
  const planBatch = async () => {
    const inputs = batch
    batch = []
    if (rowsRefused || inputs.length === 0) return
    const operations = await planner.plan(inputs)
    for (; plannerErrorsSeen < planner.errors.length; plannerErrorsSeen++)
      addError(planner.errors[plannerErrorsSeen] as RowError)
    if (errorsTotal > 0) return
    for (const op of operations) keep(op)
    if (stored.ready >= STORE_CHUNKS_AT_ONCE) await storeChunks()
  }
  let missingColumns = false
  try {
    for await (const event of events) {
      if (event.kind === 'opened') {
        format = event.format
        for (const error of event.missing) addError(error)
        missingColumns = event.missing.length > 0
        continue
      }
      if (args.onProgress && Math.floor(event.rows / 1000) > Math.floor(rows / 1000)) args.onProgress(event.rows)
      rows = event.rows
      for (const error of event.errors) addError(error)
      errorsTotal += event.errorsTotal - event.errors.length
      validRows += event.inputs.length
      if (event.errorsTotal > 0) rowsRefused = true
      if (rowsRefused) continue
      for (const input of event.inputs) batch.push(input)
      if (batch.length >= PLAN_BATCH_ROWS) await planBatch()
      // a turn of the event loop per batch: on SQLite every await of the planner and the store
      // resolves at once (the driver answers synchronously), and the worker may have queued many
      // batches meanwhile, so without it the whole queue was planned before a request was read
      // (bench:soak: 1.2-1.4 s without an answer while a 100,000-row update was previewed)
      await nextTurn()
    }
    await planBatch()
    if (rows === 0 && !missingColumns)
      addError(
        rowError(1, 'file', 'file_empty', {
          en: 'The file has a header row but no data rows.',
          pl: 'Plik ma wiersz nagłówka, ale ani jednego wiersza z danymi.',
        }),
      )
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error
    // what is wrong with the file itself comes first and is always shown: after a thousand row
    // errors a `too_many_rows` was counted in errors_total but left out of the list
    errorsTotal++
    errors.unshift(
      rowError(0, 'file', error.code, { en: error.message, pl: fileErrorMessagePl(error.code, error.details) }),
    )
    if (errors.length > maxErrors) errors.pop()
  }
  args.onProgress?.(rows)

  const summary = errorsTotal === 0 ? await planner.finish() : undefined
  const valid = errorsTotal === 0 && summary !== undefined
  if (valid) for (const op of summary.archives) keep(op)
  stored.flush()
  // the plan holds for the revision it started from only if no write landed while it was made
  const revisionAfter = (await selectCatalogState(ctx.db)).revision
  const counts = summary?.counts ?? { create: 0, update: 0, unchanged: 0, archive: 0 }
  const scope = summary?.archiveScope ?? { investments: [], total: 0 }
  const counters = { rows, valid_rows: validRows, errors: errorsTotal, ...counts }

  if (valid) await storeChunks()
  await ctx.db.transaction().execute(async (trx) => {
    const finished = await transitionJob(trx, id, 'previewing', {
      status: valid ? 'previewed' : 'invalid',
      file_format: format,
      counters: JSON.stringify(counters),
      errors: JSON.stringify(errors),
      archive_scope: JSON.stringify(scope),
      plan_digest: summary?.digest ?? '',
      plan_revision: valid && revisionAfter === revisionBefore ? revisionBefore : null,
      updated_at: ctx.now().toISOString(),
    })
    if (!finished) throw new Error(`import job ${id} left the previewing state during its own preview`)
    // an invalid preview is never executed: the part of its plan stored before the first error goes
    if (!valid) await deleteJobItems(trx, id)
    await recordAudit(
      ctx,
      {
        actor: args.actor,
        action: 'import.preview',
        objectType: 'import_job',
        objectId: id,
        outcome: valid ? 'success' : 'refused',
        details: { file: args.fileName.slice(0, 255), mode: args.mode, ...counters },
      },
      trx,
    )
  })

  const names = valid ? await namesOf(ctx.db, shown) : { offers: new Map(), investments: new Map() }
  return {
    id,
    preview: {
      valid,
      mode: args.mode,
      operations: valid ? shown.map((op) => operationView(op, names)) : [],
      operations_total: valid ? stored.total : 0,
      counts,
      archive_scope: scope,
      errors,
      errors_total: errorsTotal,
      rows,
    },
  }
}
