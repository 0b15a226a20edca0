/*
 * The half of a preview that needs no database: reading the file, mapping its columns to the
 * canonical fields and checking every row with the shared validator, in batches. A large file is
 * read and validated on a worker thread (validate-offer-file-worker.ts) while the main thread plans
 * and stores the batches already validated, so that a preview uses both cores of a small server:
 * parsing and validating cost about as much as planning against the catalog and storing the plan.
 */
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'

import type { PlanInput } from '../offers/offer-planner.js'
import { createOfferCellsValidator, type ImportMode, type RowError } from '../offers/validate-offer-row.js'
import { type FileErrorCode, FileReadError } from './file-errors.js'
import { type FileLimits, readOfferFile } from './read-offer-file.js'
import { decodeValues, encodeValues, type Stored } from './stored-operations.js'

export interface ValidateOfferFileArgs {
  path: string
  fileName: string
  sheet?: string
  limits: FileLimits
  /** Canonical field → column header. */
  mapping: Record<string, string>
  mode: ImportMode
  /** Most error objects handed over in all; the rest are only counted. */
  maxErrors: number
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
export const VALIDATED_BATCH_ROWS = 1000

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
  const missing: RowError[] = Object.entries(args.mapping)
    .filter(([, header]) => !reader.headers.includes(header))
    .map(([field, header]) => ({
      row: 1,
      field,
      code: 'missing_column',
      message: `${field}: the file has no column "${header}" (columns: ${reader.headers.slice(0, 30).join(', ')})`,
    }))
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

/** Validates mapped batches in file order; keeps the state across batches (duplicates, error cap). */
function createBatchValidator(
  args: Pick<ValidateOfferFileArgs, 'mapping' | 'mode' | 'maxErrors'>,
): (batch: MappedBatch) => Extract<ValidationEvent, { kind: 'batch' }> {
  const validate = createOfferCellsValidator(args.mode, Object.keys(args.mapping))
  let errorsHandedOver = 0
  return ({ rows, records }) => {
    const inputs: PlanInput[] = []
    const errors: RowError[] = []
    let errorsTotal = 0
    for (const { row, cells } of records) {
      const result = validate(cells, row)
      if (result.errors.length > 0) {
        errorsTotal += result.errors.length
        for (const error of result.errors) if (errorsHandedOver++ < args.maxErrors) errors.push(error)
        continue
      }
      inputs.push({ row, values: result.values })
    }
    return { kind: 'batch', rows, inputs, errors, errorsTotal }
  }
}

/** Reads and validates the file in this thread (see `readMappedBatches` for the errors it throws). */
export async function* validateOfferFile(args: ValidateOfferFileArgs): AsyncGenerator<ValidationEvent> {
  const validate = createBatchValidator(args)
  for await (const event of readMappedBatches(args)) yield event.kind === 'opened' ? event : validate(event)
}

// ---------------------------------------------------------------------------------------------
// On a worker thread

/** Batches the worker may validate ahead of the planner: bounds the memory a slow planner costs. */
const BATCHES_AHEAD = 4

/** What crosses the thread boundary: values as positional JSON, much cheaper to copy than objects. */
export type WorkerMessage =
  | Extract<ValidationEvent, { kind: 'opened' }>
  | { kind: 'batch'; rows: number; rowNumbers: number[]; values: string; errors: RowError[]; errorsTotal: number }
  | { kind: 'cells'; rows: number; rowNumbers: number[]; cells: string }
  | { kind: 'end' }
  | { kind: 'file_error'; code: FileErrorCode; message: string; details?: Record<string, unknown> }
  | { kind: 'failed'; message: string }

/** Sent by the main thread for every batch it takes, so that the worker may read one more. */
export const BATCH_TAKEN = 'taken'
export const WORKER_BATCHES_AHEAD = BATCHES_AHEAD

function encodeBatch(event: Extract<ValidationEvent, { kind: 'batch' }>): WorkerMessage {
  const rowNumbers: number[] = []
  const values: Stored[][] = []
  for (const input of event.inputs) {
    rowNumbers.push(input.row ?? 0)
    values.push(encodeValues(input.values))
  }
  return {
    kind: 'batch',
    rows: event.rows,
    rowNumbers,
    values: JSON.stringify(values),
    errors: event.errors,
    errorsTotal: event.errorsTotal,
  }
}

/**
 * What the worker does with a batch of a file of this format. Reading an XLSX sheet costs several
 * times what reading a CSV does, so for a workbook the worker only reads and the main thread
 * validates as well as plans; for a CSV the worker validates too. Either way the halves are
 * about even.
 */
function workerValidates(format: 'csv' | 'xlsx'): boolean {
  return format === 'csv'
}

/** The worker's loop: reads, validates or not (see `workerValidates`), hands each batch over. */
export async function* workerMessages(args: ValidateOfferFileArgs): AsyncGenerator<WorkerMessage> {
  const validate = createBatchValidator(args)
  let validates = true
  for await (const event of readMappedBatches(args)) {
    if (event.kind === 'opened') {
      validates = workerValidates(event.format)
      yield event
    } else if (validates) {
      yield encodeBatch(validate(event))
    } else {
      yield {
        kind: 'cells',
        rows: event.rows,
        rowNumbers: event.records.map((record) => record.row),
        cells: JSON.stringify(event.records.map((record) => record.cells)),
      }
    }
  }
}

function decodeCells(message: Extract<WorkerMessage, { kind: 'cells' }>): MappedBatch {
  const cells = JSON.parse(message.cells) as string[][]
  const records: MappedBatch['records'] = []
  for (let i = 0; i < cells.length; i++) records.push({ row: message.rowNumbers[i] ?? 0, cells: cells[i] as string[] })
  return { kind: 'cells', rows: message.rows, records }
}

function decodeBatch(message: Extract<WorkerMessage, { kind: 'batch' }>): ValidationEvent {
  const values = JSON.parse(message.values) as Stored[][]
  const inputs: PlanInput[] = []
  for (let i = 0; i < values.length; i++)
    inputs.push({ row: message.rowNumbers[i] ?? null, values: decodeValues(values[i] as Stored[]) })
  return { kind: 'batch', rows: message.rows, inputs, errors: message.errors, errorsTotal: message.errorsTotal }
}

/**
 * The worker's module beside this one: compiled JavaScript in a build; TypeScript when the service
 * runs from its sources (tests, benchmarks), which the worker loads after registering tsx itself.
 */
function startWorker(args: ValidateOfferFileArgs): Worker {
  const here = fileURLToPath(import.meta.url)
  if (!here.endsWith('.ts')) return new Worker(here.replace(/\.js$/, '-worker.js'), { workerData: args })
  const entry = pathToFileURL(here.replace(/\.ts$/, '-worker.ts')).href
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}) })`
  return new Worker(bootstrap, { eval: true, workerData: args })
}

/** The same events as `validateOfferFile`, from a worker thread; stopping the iteration stops it. */
export async function* validateOfferFileOnWorker(args: ValidateOfferFileArgs): AsyncGenerator<ValidationEvent> {
  const worker = startWorker(args)
  let validate: ((batch: MappedBatch) => ValidationEvent) | undefined
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
  try {
    for (;;) {
      while (arrived.length === 0) await new Promise<void>((resolve) => (wake = resolve))
      wake = undefined
      const message = arrived.shift() as WorkerMessage | { kind: 'crashed'; error: Error }
      switch (message.kind) {
        case 'opened':
          yield message
          break
        case 'batch':
          worker.postMessage(BATCH_TAKEN)
          yield decodeBatch(message)
          break
        case 'cells':
          worker.postMessage(BATCH_TAKEN)
          validate ??= createBatchValidator(args)
          yield validate(decodeCells(message))
          break
        case 'end':
          return
        case 'file_error':
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
  }
}
