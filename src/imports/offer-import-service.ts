/*
 * Offer import in two steps (contract 4.3, 4.5, 2.6). Preview reads the file, validates every row
 * with the shared validator and plans against the catalog, writing only the job (never offers).
 * Execution, under an Idempotency-Key, re-plans from the previewed values inside one transaction
 * and commits only when the plan is unchanged; offers, price history, the audit entry, the job's
 * result and the lock release commit together, so a crash leaves either all of it or none.
 */
import { randomBytes } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { createHash } from 'node:crypto'

import type { Kysely } from 'kysely'

import { type Actor, recordAudit } from '../host/audit/audit.js'
import type { Executor, HostContext } from '../host/context.js'
import {
  analyzeSqlite,
  deferCatalogRevisionTriggers,
  deferSecondaryIndexes,
  lockCatalogRevision,
  lockOffersForWrite,
  refreshPlannerStatistics,
} from '../host/db/dialect.js'
import { connectionBehind } from '../host/db/database.js'
import type { Database } from '../host/db/schema.js'
import { HostError, PluginError } from '../host/errors.js'
import { isDeniedKey } from '../host/meta/exposure-rules.js'
import type { MetaRegistry, MetaType } from '../host/meta/meta-registry.js'
import { isLockOwnerAlive, keepLockAlive, newLockOwner, releaseLock, tryAcquireLock } from '../host/locks.js'
import { measured, recordImportExecution, recordImportPreview } from '../host/metrics.js'
import { warsawDate } from '../host/warsaw-day.js'
import { selectCatalogState } from '../catalog/catalog-repository.js'
import {
  keepListingValues,
  type ListingQueries,
  recentListingQueries,
  warmListingValues,
} from '../catalog/caching/listing-cache.js'
import { CANONICAL_FIELDS, isCanonicalField, isDwellingType } from '../offers/canonical-fields.js'
import { META_FIELD_PREFIX, type MetaScalar } from '../offers/validation/meta-values.js'
import {
  type Comparable,
  createPlanner,
  type OfferPlan,
  type PlannedOperation,
  type PlanInput,
  PLANNER_VERSION,
} from '../offers/offer-planner.js'
import type { PriceNote } from '../offers/editor-operation.js'
import { createPlanWriter } from '../offers/offer-writer.js'
import { countOffers, selectInvestmentSourceIds } from '../offers/offers-repository.js'
import { rowError } from '../offers/validation/row-errors.js'
import { type ImportMode, type NormalizedOfferValues, type RowError } from '../offers/validation/validate-offer-row.js'
import { fileErrorMessagePl, FileReadError } from './reading/file-errors.js'
import {
  countJobItemChunks,
  deleteExpiredJobs,
  deleteImportJob,
  deleteJobItems,
  findImportJob,
  findJobByIdempotencyKey,
  type ImportJobRow,
  insertImportJob,
  insertJobItemChunks,
  selectJobItemChunks,
  selectOperationNames,
  selectRunningJobs,
  transitionJob,
  updateImportJobOfRun,
} from './import-jobs-repository.js'
import { ChunkBuilder, chunkSizeOf, decodeChunk, PLAN_FORMAT } from './execution/stored-operations.js'
import { PlanChanged, writeJobOnWorker } from './execution/execute-import-thread.js'
import type { ImportResult, WrittenJob } from './execution/written-job.js'
import {
  validateOfferFile,
  type ValidateOfferFileArgs,
  validateOfferFileOnWorker,
} from './reading/validate-offer-file.js'

export const PREVIEW_RETENTION_MS = 24 * 3600 * 1000
export const RESULT_RETENTION_MS = 7 * 24 * 3600 * 1000
/** Operations returned inline by a preview; all of them are pageable through GET /imports/{id}. */
export const PREVIEW_OPERATIONS_SHOWN = 500
/** The named lock (host/locks.ts) an offer import execution holds from its start to its commit. */
export const IMPORT_LOCK = 'offer_import'
const LEASE_MS = 120_000
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{8,128}$/
/** Rows validated before they are planned together: one catalog read per batch, bounded memory. */
const PLAN_BATCH_ROWS = 500
/** Stored chunks read at once by an execution (× 500 operations). */
const CHUNKS_PER_READ = 4
/** Creates from which an execution that at least doubles the catalog loads it as a bulk load. */
const BULK_LOAD_MIN_CREATES = 5_000
/** Writes from which an execution bumps the catalog revision once (see deferCatalogRevisionTriggers). */
const BULK_TRIGGERS_MIN_WRITES = 1_000
/** Stored chunks a preview writes at once (× 500 operations). */
const STORE_CHUNKS_AT_ONCE = 8

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

function newJobId(): string {
  return randomBytes(16).toString('hex')
}

function centsToDecimal(cents: number): string {
  const abs = Math.abs(cents)
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`
}

/** Normalized values back in canonical field names, as shown to the operator. */
export function canonicalValues(values: NormalizedOfferValues): Record<string, string | number> {
  const out: Record<string, string | number> = {}
  const put = (field: string, value: string | number | undefined) => {
    if (value !== undefined) out[field] = value
  }
  put('source_investment_id', values.sourceInvestmentId)
  put('source_property_id', values.sourcePropertyId)
  put('prop_no', values.code)
  put('prop_type', values.propertyType)
  put('property_status', values.status)
  put('prop_area', values.area)
  put('prop_rooms', values.rooms)
  put('prop_floor', values.floor)
  put('price_m2', values.priceM2Cents === undefined ? undefined : centsToDecimal(values.priceM2Cents))
  put('price_m2_from', values.priceM2From)
  put('price_total', values.priceTotalCents === undefined ? undefined : centsToDecimal(values.priceTotalCents))
  put('price_total_from', values.priceTotalFrom)
  put('price_combined', values.priceCombinedCents === undefined ? undefined : centsToDecimal(values.priceCombinedCents))
  put('price_combined_from', values.priceCombinedFrom)
  put('price_combined_variant', values.priceCombinedVariant)
  put('price_combined_status', values.priceCombinedStatus)
  const loc = values.location ?? {}
  put('proj_voivod', loc.voivodeship)
  put('proj_powiat', loc.powiat)
  put('proj_gmina', loc.gmina)
  put('proj_city', loc.city)
  put('proj_street', loc.street)
  put('proj_build_no', loc.buildingNo)
  put('proj_local_no', loc.localNo)
  put('proj_zip', loc.postalCode)
  return out
}

function beforeView(before: Record<string, Comparable>): Record<string, Comparable> {
  const out: Record<string, Comparable> = {}
  for (const [field, value] of Object.entries(before)) {
    out[field] =
      typeof value === 'number' && (field === 'price_m2' || field === 'price_total' || field === 'price_combined')
        ? centsToDecimal(value)
        : value
  }
  return out
}

type OperationNames = Awaited<ReturnType<typeof selectOperationNames>>

/** The names the operations of a page show beside their source ids (see operationView). */
async function namesOf(db: Executor, ops: readonly PlannedOperation[]): Promise<OperationNames> {
  const offerIds = new Set<number>()
  const investmentIds = new Set<number>()
  for (const op of ops) {
    if (op.offerId !== null) offerIds.add(op.offerId)
    if (op.investmentId !== null) investmentIds.add(op.investmentId)
  }
  return selectOperationNames(db, [...offerIds], [...investmentIds])
}

/*
 * An operation as the preview shows it. Its designation is the file's (`prop_no`) or else the
 * stored offer's; its investment's title is the stored one, and a new investment is titled by its
 * source id (the import names it so).
 */
function operationView(op: PlannedOperation, names: OperationNames) {
  return {
    row: op.row,
    action: op.action,
    key: op.key,
    designation: op.values.code ?? (op.offerId === null ? null : (names.offers.get(op.offerId) ?? null)),
    investment_title:
      op.investmentId === null ? op.sourceInvestmentId : (names.investments.get(op.investmentId) ?? null),
    values: { ...canonicalValues(op.values), ...metaValues(op.values) },
    changes: op.changes,
    before: beforeView(op.before),
  }
}

/** The custom fields of the values by their mapping name (`meta:<key>`), as the preview shows them. */
function metaValues(values: NormalizedOfferValues): Record<string, MetaScalar> {
  const out: Record<string, MetaScalar> = {}
  for (const [key, value] of Object.entries(values.meta ?? {})) out[`${META_FIELD_PREFIX}${key}`] = value
  return out
}

/** Whether a mapping (as given, or as a job keeps it) fills custom fields. */
export function mapsCustomFields(mapping: Record<string, string> | string): boolean {
  const fields = typeof mapping === 'string' ? (JSON.parse(mapping) as Record<string, string>) : mapping
  return Object.keys(fields).some((field) => field.startsWith(META_FIELD_PREFIX))
}

/** The registered type of each custom field the mapping fills (what the file's validator needs). */
export function mappedMetaTypes(mapping: Record<string, string>, meta: MetaRegistry): Record<string, MetaType> {
  const types: Record<string, MetaType> = {}
  for (const field of Object.keys(mapping)) {
    if (!field.startsWith(META_FIELD_PREFIX)) continue
    const key = field.slice(META_FIELD_PREFIX.length)
    const registered = meta.get('dg_property', key)
    if (registered) types[key] = registered.type
  }
  return types
}

/**
 * The mapping of an import: canonical field → column header, and `meta:<key>` → column header for
 * an offer custom field registered by code or an extension (`meta`; contract 2.8). Keys nobody
 * registered, and keys the catalog never exposes, are refused like unknown fields.
 */
export function parseMapping(raw: unknown, meta?: MetaRegistry): Record<string, string> {
  let value = raw
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw)
    } catch {
      throw new PluginError('invalid_mapping', 400, {
        message: 'mapping must be a JSON object: canonical field name → column header',
      })
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new PluginError('invalid_mapping', 400, {
      message: 'mapping must be a JSON object: canonical field name → column header',
    })
  }
  const mapping: Record<string, string> = {}
  const problems: string[] = []
  for (const [field, header] of Object.entries(value)) {
    if (field.startsWith(META_FIELD_PREFIX)) {
      const key = field.slice(META_FIELD_PREFIX.length)
      if (!meta?.get('dg_property', key) || isDeniedKey(key)) {
        const registered = (meta?.list('dg_property') ?? []).map((m) => m.key).filter((k) => !isDeniedKey(k))
        problems.push(
          `"${field}" names no registered custom field of offers (registered: ${registered.length > 0 ? registered.join(', ') : 'none; see DG_EXTENSIONS'})`,
        )
        continue
      }
    } else if (!isCanonicalField(field)) {
      problems.push(
        `"${field}" is not a canonical field (known: ${CANONICAL_FIELDS.join(', ')}) nor a custom field (meta:<key>)`,
      )
      continue
    }
    if (typeof header !== 'string' || header.trim() === '') problems.push(`"${field}" must name a column header`)
    else mapping[field] = header
  }
  for (const required of ['source_investment_id', 'source_property_id']) {
    if (!(required in mapping)) problems.push(`"${required}" must be mapped`)
  }
  if (problems.length > 0) throw new PluginError('invalid_mapping', 400, { message: problems.join('; '), problems })
  return mapping
}

export function parseMode(raw: unknown): ImportMode {
  if (raw === undefined || raw === '' || raw === 'patch') return 'patch'
  if (raw === 'snapshot') return 'snapshot'
  throw new PluginError('invalid_mode', 400, { message: 'mode must be patch or snapshot' })
}

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

export interface PreviewBody {
  valid: boolean
  mode: ImportMode
  operations: Array<ReturnType<typeof operationView>>
  operations_total: number
  counts: OfferPlan['counts']
  archive_scope: OfferPlan['archiveScope']
  errors: RowError[]
  errors_total: number
  rows: number
}

export const previewOfferImport = measured(previewImport, recordImportPreview)

async function previewImport(ctx: HostContext, args: PreviewArgs): Promise<{ id: string; preview: PreviewBody }> {
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
  const fileSha = await sha256File(args.filePath)

  // the job exists from the start, as `previewing` (never executable), so that the plan is stored
  // as it is made instead of being held in memory; a preview that does not finish leaves a job
  // that cannot run and expires like any preview
  await insertImportJob(ctx.db, {
    ...base,
    status: 'previewing',
    file_sha256: fileSha,
    file_format: 'unknown',
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
    return await previewInto(ctx, args, id, today)
  } catch (error) {
    await deleteImportJob(ctx.db, id).catch(() => undefined)
    throw error
  }
}

async function previewInto(
  ctx: HostContext,
  args: PreviewArgs,
  id: string,
  today: string,
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
  let format = 'unknown'

  // the plan is made batch by batch as the file is read, and stored as encoded text; once a
  // row is refused, the rest of the file is still validated (every error is reported) but no
  // longer planned, since an invalid preview is never executed
  const planner = createPlanner(ctx.db, { mode: args.mode, today, customMeta: mapsCustomFields(args.mapping) })
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
  const validation: ValidateOfferFileArgs = {
    path: args.filePath,
    fileName: args.fileName,
    ...(args.sheet ? { sheet: args.sheet } : {}),
    limits: { maxBytes: ctx.config.importMaxBytes, maxRows: ctx.config.importMaxRows },
    mapping: args.mapping,
    metaTypes: mappedMetaTypes(args.mapping, ctx.meta),
    mode: args.mode,
    maxErrors,
  }
  const onWorker = (await stat(args.filePath)).size >= ctx.config.importWorkerMinBytes
  if (onWorker) validation.storedInvestments = await selectInvestmentSourceIds(ctx.db)
  let missingColumns = false
  try {
    for await (const event of onWorker ? validateOfferFileOnWorker(validation) : validateOfferFile(validation)) {
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

/** The stored operations of a job, a few chunks at a time, in plan order. */
async function* storedOperations(
  db: Kysely<Database>,
  job: Pick<ImportJobRow, 'id' | 'plan_format'>,
  options: { writesOnly: boolean },
): AsyncGenerator<PlannedOperation[]> {
  const chunks = await countJobItemChunks(db, job.id)
  for (let from = 0; from < chunks; from += CHUNKS_PER_READ) {
    const payloads = await selectJobItemChunks(db, job.id, {
      fromSeq: from,
      toSeq: from + CHUNKS_PER_READ - 1,
      writesOnly: options.writesOnly && job.plan_format >= 2,
    })
    const operations: PlannedOperation[] = []
    for (const payload of payloads) for (const op of decodeChunk(payload, job.plan_format)) operations.push(op)
    if (operations.length > 0) yield operations
  }
}

function storedResult(job: ImportJobRow): ImportResult {
  return JSON.parse(job.result ?? '{}') as ImportResult
}

const pending = () =>
  new PluginError(
    'import_pending',
    409,
    { message: 'An import is being executed; retry in a few seconds.' },
    { 'Retry-After': 5 },
  )

/**
 * A job left `running` by a process that died has not committed (completion commits with the
 * writes), so it goes back to `previewed` and can be executed again. A run counts as alive while
 * its lock lease lasts; on this machine a holder whose process is gone is dead at once (SQLite
 * files are shared only by processes of one host: `dg serve` and `dg import`, say).
 */
export async function recoverInterruptedImports(ctx: HostContext): Promise<number> {
  let recovered = 0
  const lock = await ctx.db.selectFrom('locks').selectAll().where('name', '=', IMPORT_LOCK).executeTakeFirst()
  const lockAlive = lock !== undefined && lock.expires_at >= ctx.now().toISOString() && isLockOwnerAlive(lock.owner)
  for (const job of await selectRunningJobs(ctx.db)) {
    if (lockAlive && lock.owner === job.run_token) continue
    await ctx.db.transaction().execute(async (trx) => {
      const reset = await transitionJob(trx, job.id, 'running', {
        status: 'previewed',
        idempotency_key: null,
        run_token: null,
        started_at: null,
        updated_at: ctx.now().toISOString(),
      })
      if (!reset) return
      if (job.run_token) await releaseLock(trx, IMPORT_LOCK, job.run_token)
      await recordAudit(
        ctx,
        {
          actor: { type: 'system' },
          action: 'import.recovered',
          objectType: 'import_job',
          objectId: job.id,
          outcome: 'success',
          details: { reason: 'execution interrupted before commit; nothing was written' },
        },
        trx,
      )
      recovered++
    })
  }
  // a lock whose holder died without a running job (crash before the job was marked) is removed
  if (lock && !lockAlive) await releaseLock(ctx.db, IMPORT_LOCK, lock.owner)
  return recovered
}

export interface ExecuteArgs {
  actor: Actor
  jobId: string
  idempotencyKey: string | undefined
  confirmArchiving: boolean
  /** Offers written so far of the plan's creates, updates and archives (`dg import` draws it). */
  onProgress?: (written: number, total: number) => void
  /** The operator's reason, kept on every price record of the run (a bulk price change). */
  note?: PriceNote
}

export const executeOfferImport = measured(executeImport, recordImportExecution)

async function executeImport(
  ctx: HostContext,
  args: ExecuteArgs,
): Promise<{ id: string; result: ImportResult; replayed: boolean }> {
  const key = args.idempotencyKey
  if (!key || !IDEMPOTENCY_KEY.test(key)) {
    throw new PluginError('invalid_idempotency_key', 400, {
      message: 'Send an Idempotency-Key header of 8–128 characters from A-Za-z0-9._:-',
    })
  }
  let job = await findImportJob(ctx.db, args.jobId)
  if (!job || job.expires_at < ctx.now().toISOString())
    throw new PluginError('import_not_found', 404, { message: `No import job ${args.jobId} (unknown or expired).` })

  if (job.status === 'running') {
    await recoverInterruptedImports(ctx)
    job = (await findImportJob(ctx.db, args.jobId)) ?? job
  }
  if (job.idempotency_key === key) {
    if (job.status === 'completed') return { id: job.id, result: storedResult(job), replayed: true }
    if (job.status === 'running') throw pending()
    if (job.status === 'recovery_required')
      throw new PluginError('import_recovery_required', 409, {
        message: 'The outcome of this execution could not be confirmed; check the job before retrying.',
      })
  }
  if (job.idempotency_key !== null && job.idempotency_key !== key) {
    throw new PluginError('import_conflict', 409, {
      message: 'This job was already executed under another Idempotency-Key.',
    })
  }
  const other = await findJobByIdempotencyKey(ctx.db, key)
  if (other && other.id !== job.id)
    throw new PluginError('import_conflict', 409, { message: 'This Idempotency-Key belongs to another import job.' })
  if (job.status === 'invalid')
    throw new PluginError('import_invalid', 422, {
      message: 'The preview of this job found errors; it cannot be executed.',
      id: job.id,
    })
  if (job.status === 'stale')
    throw new PluginError('import_conflict', 409, {
      message: 'The catalog changed since this preview; preview the file again.',
    })
  if (job.status === 'running') throw pending()
  if (job.status === 'previewing')
    throw new PluginError(
      'import_pending',
      409,
      { message: 'The preview of this job is still being made; retry in a few seconds.' },
      { 'Retry-After': 5 },
    )
  if (job.status !== 'previewed' && job.status !== 'failed')
    throw new PluginError('import_conflict', 409, { message: `The job is ${job.status} and cannot be executed.` })
  const scope = JSON.parse(job.archive_scope) as OfferPlan['archiveScope']
  if (scope.total > 0 && !args.confirmArchiving) {
    throw new PluginError('archiving_confirmation_required', 422, {
      message: `This snapshot archives ${scope.total} offer(s) missing from the file; send confirm_archiving=true after showing the scope to an operator.`,
      archive_scope: scope,
    })
  }

  const runToken = newLockOwner()
  let lock = await tryAcquireLock(ctx, IMPORT_LOCK, runToken, LEASE_MS)
  if (!lock.acquired) {
    // the holder may be a process of this machine that died: recover, then try once more
    await recoverInterruptedImports(ctx)
    lock = await tryAcquireLock(ctx, IMPORT_LOCK, runToken, LEASE_MS)
  }
  if (!lock.acquired) throw pending()
  const lease = keepLockAlive(ctx, IMPORT_LOCK, runToken, LEASE_MS)
  try {
    if (lock.staleOwner) await recoverInterruptedImports(ctx)
    const started = await transitionJob(ctx.db, job.id, job.status, {
      status: 'running',
      idempotency_key: key,
      run_token: runToken,
      started_at: ctx.now().toISOString(),
      updated_at: ctx.now().toISOString(),
    }).catch((error: unknown) => {
      // the unique index on idempotency_key: a concurrent request bound this key to another job
      ctx.log.info({ err: error }, 'idempotency key race')
      return false
    })
    if (!started) {
      await releaseLock(ctx.db, IMPORT_LOCK, runToken)
      const now = await findImportJob(ctx.db, job.id)
      if (now?.status === 'completed' && now.idempotency_key === key)
        return { id: job.id, result: storedResult(now), replayed: true }
      throw now?.idempotency_key === key || now?.status === 'running'
        ? pending()
        : new PluginError('import_conflict', 409, { message: 'This job or key is being used by another execution.' })
    }
    return await commitJob(ctx, job, args.actor, runToken, args.onProgress, args.note)
  } finally {
    lease.stop()
  }
}

/**
 * Plans the stored values again against the catalog as it is now, inside the execution's
 * transaction, and refuses when anything the preview decided or saw differs (the digest). A plan
 * previewed by a release that still took standalone parts from files (a type other than a flat's
 * or a house's) is refused too: previewed again, such a row is a row error.
 */
async function verifyPlan(db: Kysely<Database>, job: ImportJobRow, today: string): Promise<void> {
  const planner = createPlanner(db, { mode: job.mode as ImportMode, today, customMeta: mapsCustomFields(job.mapping) })
  for await (const operations of storedOperations(db, job, { writesOnly: false })) {
    const inputs: PlanInput[] = []
    for (const op of operations) {
      if (op.action === 'archive') continue
      const type: string | undefined = op.values.propertyType
      if (type !== undefined && !isDwellingType(type)) throw new PlanChanged()
      inputs.push({ row: op.row, values: op.values })
    }
    await planner.plan(inputs)
    if (planner.errors.length > 0) throw new PlanChanged()
  }
  const summary = await planner.finish()
  if (summary.digest !== job.plan_digest) throw new PlanChanged()
}

/** Above this many writes an execution runs on a worker thread (see commitJob). */
const WORKER_MIN_WRITES = 1_000

/**
 * Commits the job, or records why not. A large execution writes from a worker thread with its own
 * connection. On SQLite better-sqlite3 answers synchronously, so a transaction of seconds run here
 * would hold the event loop for all of it and no request would be answered (see holdWriter). On
 * PostgreSQL the database waits for the client most of that time: planning the stored rows again
 * (when the catalog changed since the preview) and building the inserts are JavaScript work, run
 * here between a catalog request's queries, so each of them waited behind it (bench:mixed, two
 * instances: requests of 300-600 ms in the execution's first second).
 */
async function commitJob(
  ctx: HostContext,
  job: ImportJobRow,
  actor: Actor,
  runToken: string,
  onProgress: ExecuteArgs['onProgress'],
  note: PriceNote | undefined,
): Promise<{ id: string; result: ImportResult; replayed: boolean }> {
  const counters = JSON.parse(job.counters) as Record<string, number>
  const writes = (counters.create ?? 0) + (counters.update ?? 0) + (counters.archive ?? 0)
  const connection = writes >= WORKER_MIN_WRITES ? connectionBehind(ctx.db) : undefined
  const warmUp = writes >= WORKER_MIN_WRITES ? recentListingQueries(ctx) : undefined
  let written: WrittenJob
  try {
    written = connection
      ? await writeJobOnWorker(ctx, connection, { job, actor, runToken, warmUp, note }, onProgress)
      : await writeJob(ctx, job, actor, runToken, onProgress, warmUp, note)
  } catch (error) {
    throw await settleFailedExecution(ctx, job, actor, runToken, error)
  }
  const { result, listing } = written
  if (listing) {
    keepListingValues(ctx, listing)
    ctx.log.info(
      {
        job: job.id,
        totals: listing.totals.length,
        pages: listing.pages.length,
        matchSets: listing.matchSets.length,
        skipped: listing.skipped,
      },
      'catalog lists counted again before the import committed',
    )
  }
  // committed; SQLite's statistics were refreshed in the transaction (writeJob)
  if (ctx.caps.name === 'postgres' && writes >= WORKER_MIN_WRITES) {
    await refreshPlannerStatistics(ctx.db, ctx.caps.name, 'after a large write', IMPORTED_TABLES).catch(
      (error: unknown) =>
        ctx.log.warn({ err: error, job: job.id }, 'planner statistics not refreshed after the import'),
    )
  }
  return { id: job.id, result, replayed: false }
}

/** The tables a large import grows, whose statistics the planner needs at once (PostgreSQL). */
const IMPORTED_TABLES = ['offers', 'offer_components', 'price_history'] as const

/** The most a large import spends, before it commits, counting again the lists readers asked for. */
const WARM_UP_BUDGET_MS = 2_000

/**
 * The execution's one transaction: offers, history, audit, the job's result and the lock release.
 * A large one also refreshes SQLite's planner statistics and counts again the lists `warmUp` names,
 * before it commits: readers then meet the imported offers with statistics that describe them and
 * with the totals of their lists known, instead of all counting a much larger catalog at once.
 */
export async function writeJob(
  ctx: Pick<HostContext, 'db' | 'caps' | 'now'>,
  job: ImportJobRow,
  actor: Actor,
  runToken: string,
  onProgress: ExecuteArgs['onProgress'],
  warmUp?: ListingQueries,
  note?: PriceNote,
): Promise<WrittenJob> {
  const now = ctx.now()
  const today = warsawDate(now)
  return await ctx.db.transaction().execute(async (trx) => {
    await lockOffersForWrite(trx as unknown as Kysely<never>, ctx.caps.name)
    const db = trx as unknown as Kysely<Database>
    // a catalog that has not changed since the preview gives the same plan: it is not made again
    const revision = await lockCatalogRevision(trx as unknown as Kysely<never>, ctx.caps.name)
    const unchangedCatalog =
      job.plan_format >= 2 &&
      job.plan_version === PLANNER_VERSION &&
      job.plan_revision !== null &&
      job.plan_revision === revision &&
      job.plan_today === today
    if (!unchangedCatalog) await verifyPlan(db, job, today)

    const planned = JSON.parse(job.counters) as Record<string, number>
    const expected = {
      processed: (planned.create ?? 0) + (planned.update ?? 0) + (planned.unchanged ?? 0),
      created: planned.create ?? 0,
      updated: planned.update ?? 0,
      archived: planned.archive ?? 0,
    }
    const runId = await recordAudit(
      ctx,
      {
        actor,
        action: 'import.execute',
        objectType: 'import_job',
        objectId: job.id,
        outcome: 'success',
        details: {
          mode: job.mode,
          file: job.file_name,
          ...expected,
          unchanged: planned.unchanged ?? 0,
          ...(note?.reason ? { reason: note.reason } : {}),
        },
      },
      trx,
    )
    const writer = createPlanWriter(trx, {
      now,
      today,
      runId,
      bulk: ctx.caps.name,
      customMeta: mapsCustomFields(job.mapping),
      ...(note?.reason ? { note } : {}),
    })
    // a file that creates most of the catalog is loaded as a bulk load (see deferSecondaryIndexes)
    const restoreIndexes =
      ctx.caps.name === 'sqlite' &&
      expected.created >= BULK_LOAD_MIN_CREATES &&
      expected.created >= (await countOffers(trx))
        ? await deferSecondaryIndexes(trx as unknown as Kysely<never>, ctx.caps.name, 'offers')
        : undefined
    // and a large one bumps the catalog revision once instead of once per row written
    const restoreTriggers =
      expected.created + expected.updated + expected.archived >= BULK_TRIGGERS_MIN_WRITES
        ? await deferCatalogRevisionTriggers(trx as unknown as Kysely<never>, ctx.caps.name, [
            'offers',
            'price_history',
          ])
        : undefined
    const writes = expected.created + expected.updated + expected.archived
    for await (const operations of storedOperations(db, job, { writesOnly: true })) {
      await writer.apply(operations)
      const { created, updated, archived } = writer.counts
      onProgress?.(created + updated + archived, writes)
    }
    await restoreIndexes?.()
    await restoreTriggers?.()
    const counts = writer.counts
    if (
      counts.created !== expected.created ||
      counts.updated !== expected.updated ||
      counts.archived !== expected.archived
    )
      throw new Error('the stored plan does not add up to its preview counts')
    const importResult: ImportResult = {
      status: 'completed',
      processed: expected.processed,
      created: counts.created,
      updated: counts.updated,
      archived: counts.archived,
      run_id: runId,
    }
    const finished = await transitionJob(trx, job.id, 'running', {
      status: 'completed',
      run_id: runId,
      result: JSON.stringify(importResult),
      finished_at: now.toISOString(),
      updated_at: now.toISOString(),
      expires_at: new Date(now.getTime() + RESULT_RETENTION_MS).toISOString(),
    })
    if (!finished) throw new Error('job left the running state during its own execution')
    await releaseLock(trx, IMPORT_LOCK, runToken)
    if (ctx.caps.name === 'sqlite' && writes >= BULK_TRIGGERS_MIN_WRITES)
      await analyzeSqlite(trx as unknown as Kysely<never>, 'after a large write')
    const listing = warmUp && (await warmListingValues(trx, ctx.caps.name, warmUp, WARM_UP_BUDGET_MS, ctx.now()))
    return listing ? { result: importResult, listing } : { result: importResult }
  })
}

/** What a failed execution leaves: the job failed or stale, the lock released, an audit entry. */
async function settleFailedExecution(
  ctx: HostContext,
  job: ImportJobRow,
  actor: Actor,
  runToken: string,
  error: unknown,
): Promise<PluginError> {
  const conflict = error instanceof PlanChanged
  try {
    await ctx.db.transaction().execute(async (trx) => {
      // only this run's own state: another run may have taken the job over meanwhile
      await updateImportJobOfRun(trx, job.id, runToken, {
        status: conflict ? 'stale' : 'failed',
        idempotency_key: null,
        run_token: null,
        failure: conflict ? 'The catalog changed since the preview.' : (error as Error).message.slice(0, 500),
        updated_at: ctx.now().toISOString(),
      })
      await releaseLock(trx, IMPORT_LOCK, runToken)
      await recordAudit(
        ctx,
        {
          actor,
          action: 'import.execute',
          objectType: 'import_job',
          objectId: job.id,
          outcome: 'failure',
          details: { reason: conflict ? 'import_conflict' : 'import_failed' },
        },
        trx,
      )
    })
  } catch (bookkeeping) {
    // the database is unreachable: whether the commit happened cannot be confirmed from here
    ctx.log.error({ err: bookkeeping, job: job.id }, 'import outcome cannot be confirmed')
    return new PluginError('import_recovery_required', 409, {
      message: 'The outcome of this execution could not be confirmed; the job will show it once the database answers.',
      id: job.id,
    })
  }
  if (conflict)
    return new PluginError('import_conflict', 409, {
      message: 'The catalog changed since the preview in a way that touches this plan; preview the file again.',
      id: job.id,
    })
  ctx.log.error({ err: error, job: job.id }, 'import execution failed')
  return new PluginError('import_failed', 422, {
    message: 'The import was rolled back; nothing was written.',
    id: job.id,
  })
}

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
  items: Array<ReturnType<typeof operationView>>
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
      'The page number requested is larger than the number of pages available.',
      400,
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

/** Retention (contract 3): previews after 24 hours, results after 7 days; history and audit stay. */
export async function removeExpiredImportJobs(ctx: HostContext): Promise<number> {
  return deleteExpiredJobs(ctx.db, ctx.now().toISOString())
}
