/*
 * The half of a preview that needs no database: reading the file, mapping its columns to the
 * canonical fields and checking every row with the shared validator, in batches. A large file is
 * read and validated on a worker thread (validate-offer-file-worker.ts) while the main thread plans
 * and stores the batches already validated, so that a preview uses both cores of a small server.
 * Whenever the main thread has taken every batch the worker sent, the worker hands the next one
 * over unvalidated and the main thread validates it (see `validateOfferFileOnWorker`); duplicate
 * keys, which only the whole file shows, are found on the main thread, in file order, whichever
 * thread checked the rows.
 */
import type { Worker } from 'node:worker_threads'

import { startSiblingWorker } from '../../host/worker-thread.js'
import type { MetaType } from '../../host/meta/meta-registry.js'
import { comparedText, sentChangeSet } from '../../offers/compared-values.js'
import type { PlanInput } from '../../offers/offer-planner.js'
import { fieldError } from '../../offers/validation/row-errors.js'
import {
  createOfferCellsChecker,
  duplicateKeyError,
  type ImportMode,
  type NormalizedOfferValues,
  type RowError,
  splitOfferKey,
} from '../../offers/validation/validate-offer-row.js'
import { type FileErrorCode, FileReadError } from './file-errors.js'
import { type FileLimits, readOfferFile } from './read-offer-file.js'
import { decodeValues, encodeValues, type Stored } from '../execution/stored-operations.js'

export interface ValidateOfferFileArgs {
  path: string
  fileName: string
  sheet?: string
  limits: FileLimits
  /** Canonical field (or `meta:<key>`) → column header. */
  mapping: Record<string, string>
  /** The registered type of each custom field the mapping fills (plain data: it crosses to the worker). */
  metaTypes?: Record<string, MetaType>
  mode: ImportMode
  /** Most error objects handed over in all; the rest are only counted. */
  maxErrors: number
  /**
   * The source ids of the investments in the catalog, when known: only their rows can be
   * unchanged, so only theirs get a compared text from the worker (see `encodeChecked`).
   */
  storedInvestments?: string[]
}

export type ValidationEvent =
  | {
      kind: 'opened'
      format: 'csv' | 'xlsx'
      /** One `missing_column` error per mapped header the file lacks; when any, no batch follows. */
      missing: RowError[]
    }
  | {
      kind: 'batch'
      /** Data rows read so far, this batch included. */
      rows: number
      /** The rows of this batch the validator accepted, in file order. */
      inputs: PlanInput[]
      /** The problems of this batch's rows, as long as fewer than `maxErrors` were handed over. */
      errors: RowError[]
      /** How many problems this batch's rows have, handed over or not. */
      errorsTotal: number
    }

/** Rows read per batch: the preview plans in batches of about this size too. */
export const VALIDATED_BATCH_ROWS = 500

/** Rows as read, before validation: each row's cells in the order of the mapping's fields. */
export interface MappedBatch {
  kind: 'cells'
  rows: number
  records: Array<{ row: number; cells: string[] }>
}

/**
 * Reads the file and maps its columns, without validating. Throws `FileReadError` for a file that
 * cannot be read (before or after the `opened` event: a row limit or a malformed line is found on
 * the way).
 */
async function* readMappedBatches(
  args: ValidateOfferFileArgs,
): AsyncGenerator<Extract<ValidationEvent, { kind: 'opened' }> | MappedBatch> {
  const reader = await readOfferFile({
    path: args.path,
    fileName: args.fileName,
    ...(args.sheet ? { sheet: args.sheet } : {}),
    limits: args.limits,
  })
  const headers = reader.headers.slice(0, 30).join(', ')
  const missing: RowError[] = Object.entries(args.mapping)
    .filter(([, header]) => !reader.headers.includes(header))
    .map(([field, header]) =>
      fieldError(
        1,
        field,
        'missing_column',
        `the file has no column "${header}" (columns: ${headers})`,
        `w pliku nie ma kolumny „${header}” (kolumny pliku: ${headers})`,
      ),
    )
  yield { kind: 'opened', format: reader.format, missing }
  if (missing.length > 0) return

  const columns = Object.keys(args.mapping).map((field) => reader.headers.indexOf(args.mapping[field] as string))
  let rows = 0
  let records: MappedBatch['records'] = []
  for await (const fileRows of reader.cellBatches) {
    for (const { row, cells } of fileRows) {
      rows++
      const mapped: string[] = new Array<string>(columns.length)
      for (let i = 0; i < columns.length; i++) mapped[i] = cells[columns[i] as number] as string
      records.push({ row, cells: mapped })
      if (records.length >= VALIDATED_BATCH_ROWS) {
        yield { kind: 'cells', rows, records }
        records = []
      }
    }
  }
  yield { kind: 'cells', rows, records }
}

/** A row the rules refused: its errors (as long as the thread's share of the cap lasts) and their number. */
interface RefusedRow {
  row: number
  key: string | null
  errors: RowError[]
  count: number
}

/** A batch checked row by row, before the duplicate keys that only the whole file shows. */
interface CheckedBatch {
  rows: number
  accepted: Array<PlanInput & { row: number; key: string }>
  refused: RefusedRow[]
}

/** Checks mapped batches by the rules of one row; hands over at most `maxErrors` error objects. */
function createBatchChecker(
  args: Pick<ValidateOfferFileArgs, 'mapping' | 'mode' | 'maxErrors' | 'metaTypes'>,
): (batch: MappedBatch) => CheckedBatch {
  const check = createOfferCellsChecker(args.mode, Object.keys(args.mapping), args.metaTypes)
  let errorsHandedOver = 0
  return ({ rows, records }) => {
    const accepted: CheckedBatch['accepted'] = []
    const refused: RefusedRow[] = []
    for (const { row, cells } of records) {
      const result = check(cells, row)
      if (result.errors.length === 0) {
        accepted.push({ row, values: result.values, key: result.key as string })
        continue
      }
      const errors: RowError[] = []
      for (const error of result.errors) if (errorsHandedOver++ < args.maxErrors) errors.push(error)
      refused.push({ row, key: result.key, errors, count: result.errors.length })
    }
    return { rows, accepted, refused }
  }
}

/**
 * Settles checked batches in file order, whichever thread checked them: `duplicate_key` on the
 * second and later rows of a key (naming the row where it was first seen, which stays valid), and
 * the cap on the error objects handed over.
 */
function createBatchSettler(maxErrors: number): (batch: CheckedBatch) => Extract<ValidationEvent, { kind: 'batch' }> {
  const firstRows = new Map<string, number>()
  let errorsHandedOver = 0
  return ({ rows, accepted, refused }) => {
    const inputs: PlanInput[] = []
    const errors: RowError[] = []
    let errorsTotal = 0
    const handOver = (error: RowError) => {
      if (errorsHandedOver < maxErrors) {
        errors.push(error)
        errorsHandedOver++
      }
    }
    /** True when an earlier row had the key (this row then gets its duplicate_key error). */
    const repeated = (row: number, key: string) => {
      const first = firstRows.get(key)
      if (first === undefined) {
        firstRows.set(key, row)
        return false
      }
      errorsTotal++
      handOver(duplicateKeyError(row, key, first))
      return true
    }
    let a = 0
    let r = 0
    for (;;) {
      const next = accepted[a]
      const bad = refused[r]
      if (next !== undefined && (bad === undefined || next.row < bad.row)) {
        a++
        if (!repeated(next.row, next.key)) inputs.push(next)
        continue
      }
      if (bad === undefined) break
      r++
      for (const error of bad.errors) handOver(error)
      errorsTotal += bad.count
      if (bad.key !== null) repeated(bad.row, bad.key)
    }
    return { kind: 'batch', rows, inputs, errors, errorsTotal }
  }
}

/** Reads and validates the file in this thread (see `readMappedBatches` for the errors it throws). */
export async function* validateOfferFile(args: ValidateOfferFileArgs): AsyncGenerator<ValidationEvent> {
  const check = createBatchChecker(args)
  const settle = createBatchSettler(args.maxErrors)
  for await (const event of readMappedBatches(args)) yield event.kind === 'opened' ? event : settle(check(event))
}

// ---------------------------------------------------------------------------------------------
// On a worker thread

/** Batches the worker may validate ahead of the planner: bounds the memory a slow planner costs. */
const BATCHES_AHEAD = 4

/**
 * What crosses the thread boundary: each accepted row's values as positional JSON (encodeValues),
 * much cheaper to copy than objects, and the very text the stored plan keeps of a row the planner
 * passes through; or, for a batch the worker does not check, its cells.
 */
export type WorkerMessage =
  | Extract<ValidationEvent, { kind: 'opened' }>
  | {
      kind: 'checked'
      rows: number
      rowNumbers: number[]
      keys: string[]
      /**
       * Each row's `comparedText` (null for a row of an investment not stored) and `sentChangeSet`
       * (compared-values.ts): the planner may plan the row without decoding it.
       */
      compared: Array<string | null>
      sent: number[]
      values: string[]
      refused: RefusedRow[]
    }
  | { kind: 'cells'; rows: number; rowNumbers: number[]; cells: string }
  | { kind: 'end' }
  | { kind: 'file_error'; code: FileErrorCode; message: string; details?: Record<string, unknown> }
  | { kind: 'failed'; message: string }

/** Sent by the main thread for every batch it takes, so that the worker may read one more. */
export const BATCH_TAKEN = 'taken'
export const WORKER_BATCHES_AHEAD = BATCHES_AHEAD

/** What the worker is asked to read: one message per file. */
export interface WorkerJob {
  kind: 'start'
  args: ValidateOfferFileArgs
  /** Hand every other batch over unchecked, however busy the main thread is (see `share`). */
  alternate: boolean
}

function encodeChecked(batch: CheckedBatch, storedInvestments: ReadonlySet<string> | undefined): WorkerMessage {
  const rowNumbers: number[] = []
  const keys: string[] = []
  const compared: Array<string | null> = []
  const sent: number[] = []
  const values: string[] = []
  for (const input of batch.accepted) {
    rowNumbers.push(input.row)
    keys.push(input.key)
    // a row of an investment the catalog does not have is new: its text would never be compared
    const stored = storedInvestments?.has(input.values.sourceInvestmentId as string) ?? true
    compared.push(stored ? comparedText(input.values) : null)
    sent.push(sentChangeSet(input.values))
    values.push(JSON.stringify(encodeValues(input.values)))
  }
  return { kind: 'checked', rows: batch.rows, rowNumbers, keys, compared, sent, values, refused: batch.refused }
}

function encodeCells(batch: MappedBatch): WorkerMessage {
  return {
    kind: 'cells',
    rows: batch.rows,
    rowNumbers: batch.records.map((record) => record.row),
    cells: JSON.stringify(batch.records.map((record) => record.cells)),
  }
}

/**
 * Whether the worker checks the batches of a file of this format. Reading an XLSX sheet costs
 * several times what reading a CSV does, so for a workbook the worker only reads and the main
 * thread checks as well as plans; for a CSV the worker checks every batch the main thread does
 * not ask for.
 */
function workerChecks(format: 'csv' | 'xlsx'): boolean {
  return format === 'csv'
}

/**
 * The worker's loop: reads, checks or not (see `workerChecks`), hands each batch over.
 * `handOverUnchecked` says whether the main thread asked for the next batch as it is.
 */
export async function* workerMessages(
  args: ValidateOfferFileArgs,
  handOverUnchecked: () => boolean = () => false,
): AsyncGenerator<WorkerMessage> {
  const check = createBatchChecker(args)
  const storedInvestments = args.storedInvestments && new Set(args.storedInvestments)
  let checks = true
  for await (const event of readMappedBatches(args)) {
    if (event.kind === 'opened') {
      checks = workerChecks(event.format)
      yield event
    } else if (checks && !handOverUnchecked()) {
      yield encodeChecked(check(event), storedInvestments)
    } else {
      yield encodeCells(event)
    }
  }
}

function decodeCells(message: Extract<WorkerMessage, { kind: 'cells' }>): MappedBatch {
  const cells = JSON.parse(message.cells) as string[][]
  const records: MappedBatch['records'] = []
  for (let i = 0; i < cells.length; i++) records.push({ row: message.rowNumbers[i] ?? 0, cells: cells[i] as string[] })
  return { kind: 'cells', rows: message.rows, records }
}

/**
 * A row the worker checked: its values stay the worker's text until something reads them, which
 * the planner does not for a row it plans from its compared text and sent fields (offer-planner.ts).
 */
class EncodedInput implements PlanInput {
  readonly sourceInvestmentId: string
  readonly sourcePropertyId: string
  #values: NormalizedOfferValues | undefined

  constructor(
    readonly row: number,
    readonly key: string,
    readonly compared: string | undefined,
    readonly sent: number,
    readonly storedValues: string,
  ) {
    // offerKey escapes `%` and `/` inside an id: a key without `%` is the two ids around its one `/`
    if (key.includes('%')) {
      const ids = splitOfferKey(key)
      if (ids === undefined) throw new Error(`the validation worker sent the malformed offer key ${key}`)
      this.sourceInvestmentId = ids.sourceInvestmentId
      this.sourcePropertyId = ids.sourcePropertyId
    } else {
      const slash = key.indexOf('/')
      this.sourceInvestmentId = key.slice(0, slash)
      this.sourcePropertyId = key.slice(slash + 1)
    }
  }

  get values(): NormalizedOfferValues {
    return (this.#values ??= decodeValues(JSON.parse(this.storedValues) as Stored[]))
  }
}

function decodeChecked(message: Extract<WorkerMessage, { kind: 'checked' }>): CheckedBatch {
  const accepted: CheckedBatch['accepted'] = []
  for (let i = 0; i < message.values.length; i++)
    accepted.push(
      new EncodedInput(
        message.rowNumbers[i] as number,
        message.keys[i] as string,
        message.compared[i] ?? undefined,
        message.sent[i] as number,
        message.values[i] as string,
      ),
    )
  return { rows: message.rows, accepted, refused: message.refused }
}

function startWorker(): Worker {
  return startSiblingWorker(import.meta.url)
}

/*
 * A preview finds a worker already started when the previous one ended cleanly: starting one means
 * loading the reader's and the validator's modules, which costs as much as reading thousands of
 * rows. The spare is a fresh thread, started in the background as the last one ends (a worker that
 * read a large file holds tens of megabytes of garbage it has no reason to collect); it never holds
 * the process open, and ends after SPARE_WORKER_IDLE_MS without a preview. A second preview
 * running at the same time starts its own.
 */
const SPARE_WORKER_IDLE_MS = 60_000
let spare: { worker: Worker; timer: NodeJS.Timeout } | undefined

function takeWorker(): Worker {
  if (spare === undefined) return startWorker()
  const { worker, timer } = spare
  spare = undefined
  clearTimeout(timer)
  worker.removeAllListeners()
  worker.ref()
  return worker
}

function startSpareWorker(): void {
  if (spare !== undefined) return
  const worker = startWorker()
  worker.unref()
  const timer = setTimeout(() => forget(), SPARE_WORKER_IDLE_MS).unref()
  const forget = () => {
    if (spare?.worker !== worker) return
    spare = undefined
    clearTimeout(timer)
    worker.removeAllListeners()
    void worker.terminate()
  }
  worker.once('exit', forget)
  worker.once('error', forget)
  spare = { worker, timer }
}

/** The same events as `validateOfferFile`, from a worker thread; stopping the iteration stops it. */
export async function* validateOfferFileOnWorker(
  args: ValidateOfferFileArgs,
  options: {
    /**
     * When the main thread checks a batch of a CSV itself: when it has taken every batch the
     * worker sent, and would otherwise wait for the next (the default), or every other batch
     * (tests: both threads check part of the file, for certain).
     */
    share?: 'when-idle' | 'alternate'
  } = {},
): AsyncGenerator<ValidationEvent> {
  const worker = takeWorker()
  const check = createBatchChecker(args)
  const settle = createBatchSettler(args.maxErrors)
  const arrived: Array<WorkerMessage | { kind: 'crashed'; error: Error }> = []
  let wake: (() => void) | undefined
  const deliver = (message: WorkerMessage | { kind: 'crashed'; error: Error }) => {
    arrived.push(message)
    wake?.()
  }
  worker.on('message', (message: WorkerMessage) => deliver(message))
  worker.on('error', (error: Error) => deliver({ kind: 'crashed', error }))
  worker.on('exit', (code) =>
    deliver({ kind: 'crashed', error: new Error(`the file validation worker stopped early (exit code ${code})`) }),
  )
  const job: WorkerJob = { kind: 'start', args, alternate: options.share === 'alternate' }
  worker.postMessage(job)
  // a preview that ended otherwise (a crash, a database error) leaves no spare behind
  let finished = false
  try {
    for (;;) {
      while (arrived.length === 0) await new Promise<void>((resolve) => (wake = resolve))
      wake = undefined
      const message = arrived.shift() as WorkerMessage | { kind: 'crashed'; error: Error }
      switch (message.kind) {
        case 'opened':
          yield message
          break
        case 'checked':
          worker.postMessage(BATCH_TAKEN)
          yield settle(decodeChecked(message))
          break
        case 'cells':
          worker.postMessage(BATCH_TAKEN)
          yield settle(check(decodeCells(message)))
          break
        case 'end':
          finished = true
          return
        case 'file_error':
          finished = true
          throw new FileReadError(message.code, message.message, message.details)
        case 'failed':
          throw new Error(`file validation failed: ${message.message}`)
        case 'crashed':
          throw message.error
      }
    }
  } finally {
    worker.removeAllListeners()
    await worker.terminate()
    if (finished) startSpareWorker()
  }
}
