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
import { createOfferRowsValidator, type ImportMode, type RowError } from '../offers/validate-offer-row.js'
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

/** Rows validated per batch: the preview plans in batches of this size too. */
export const VALIDATED_BATCH_ROWS = 1000

/**
 * Reads and validates the file in this thread. Throws `FileReadError` for a file that cannot be read
 * (before or after the `opened` event: a row limit or a malformed line is found on the way).
 */
export async function* validateOfferFile(args: ValidateOfferFileArgs): AsyncGenerator<ValidationEvent> {
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

  const validate = createOfferRowsValidator(args.mode)
  const fields = Object.keys(args.mapping)
  const columns = fields.map((field) => reader.headers.indexOf(args.mapping[field] as string))
  let rows = 0
  let errorsHandedOver = 0
  let inputs: PlanInput[] = []
  let errors: RowError[] = []
  let errorsTotal = 0
  for await (const fileRows of reader.cellBatches) {
    for (const { row, cells } of fileRows) {
      rows++
      const record: Record<string, unknown> = {}
      for (let i = 0; i < fields.length; i++) record[fields[i] as string] = cells[columns[i] as number]
      const result = validate(record, row)
      if (result.errors.length > 0) {
        errorsTotal += result.errors.length
        for (const error of result.errors) if (errorsHandedOver++ < args.maxErrors) errors.push(error)
        continue
      }
      inputs.push({ row, values: result.values })
      if (inputs.length >= VALIDATED_BATCH_ROWS) {
        yield { kind: 'batch', rows, inputs, errors, errorsTotal }
        inputs = []
        errors = []
        errorsTotal = 0
      }
    }
  }
  yield { kind: 'batch', rows, inputs, errors, errorsTotal }
}

// ---------------------------------------------------------------------------------------------
// On a worker thread

/** Batches the worker may validate ahead of the planner: bounds the memory a slow planner costs. */
const BATCHES_AHEAD = 4

/** What crosses the thread boundary: values as positional JSON, much cheaper to copy than objects. */
export type WorkerMessage =
  | Extract<ValidationEvent, { kind: 'opened' }>
  | { kind: 'batch'; rows: number; rowNumbers: number[]; values: string; errors: RowError[]; errorsTotal: number }
  | { kind: 'end' }
  | { kind: 'file_error'; code: FileErrorCode; message: string; details?: Record<string, unknown> }
  | { kind: 'failed'; message: string }

/** Sent by the main thread for every batch it takes, so that the worker may read one more. */
export const BATCH_TAKEN = 'taken'
export const WORKER_BATCHES_AHEAD = BATCHES_AHEAD

export function encodeBatch(event: Extract<ValidationEvent, { kind: 'batch' }>): WorkerMessage {
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
