/*
 * The header row of an offer file and its first data rows, read as the preview reads them (the same
 * format recognition, header search and cell texts), so that a client can offer the column
 * assignment before the preview. A large file is read on a worker thread
 * (read-file-headers-worker.ts): a workbook's shared strings are read whole before its first row.
 */
import { startSiblingWorker } from '../../host/worker-thread.js'
import { type FileErrorCode, FileReadError } from './file-errors.js'
import { type FileLimits, readOfferFile } from './read-offer-file.js'

/** Data rows returned with the headers: enough to recognise a column by its values. */
export const SAMPLE_ROWS = 3

export interface ReadFileHeadersArgs {
  path: string
  fileName: string
  sheet?: string
  limits: FileLimits
}

export interface FileHeaders {
  format: 'csv' | 'xlsx'
  /** Header texts in column order, as a mapping names them. */
  headers: string[]
  /** The row number of the header row, as a spreadsheet shows it. */
  header_row: number
  /** XLSX only: the sheet read, and every worksheet of the workbook in tab order. */
  sheet?: string
  sheets?: string[]
  /** The first data rows, each as its cells in `headers` order ('' for an empty cell). */
  sample_rows: string[][]
}

export async function readFileHeaders(args: ReadFileHeadersArgs): Promise<FileHeaders> {
  const reader = await readOfferFile(args)
  const samples: string[][] = []
  try {
    for await (const batch of reader.cellBatches) {
      for (const { cells } of batch) {
        if (samples.length === SAMPLE_ROWS) break
        samples.push(cells)
      }
      if (samples.length === SAMPLE_ROWS) break
    }
  } catch (error) {
    // a row the reader refuses further down is the preview's to report, row by row; the header
    // row was read, and it is what an assignment needs
    if (!(error instanceof FileReadError)) throw error
  }
  return {
    format: reader.format,
    headers: reader.headers,
    header_row: reader.headerRow,
    ...(reader.sheet === undefined ? {} : { sheet: reader.sheet }),
    ...(reader.sheets === undefined ? {} : { sheets: reader.sheets }),
    sample_rows: samples,
  }
}

/** What the worker posts back: the headers, or the reader's refusal as plain data. */
export type HeadersWorkerMessage =
  | { kind: 'headers'; headers: FileHeaders }
  | { kind: 'file_error'; code: FileErrorCode; message: string; details?: Record<string, unknown> }
  | { kind: 'failed'; message: string }

/** `readFileHeaders` on a thread of its own, which ends with the answer. */
export async function readFileHeadersOnWorker(args: ReadFileHeadersArgs): Promise<FileHeaders> {
  const worker = startSiblingWorker(import.meta.url, { workerData: args })
  try {
    const message = await new Promise<HeadersWorkerMessage>((resolve, reject) => {
      worker.once('message', resolve)
      worker.once('error', reject)
      worker.once('exit', (code) => reject(new Error(`the file header worker stopped early (exit code ${code})`)))
    })
    if (message.kind === 'headers') return message.headers
    if (message.kind === 'file_error') throw new FileReadError(message.code, message.message, message.details)
    throw new Error(`reading the file's headers failed: ${message.message}`)
  } finally {
    worker.removeAllListeners()
    await worker.terminate()
  }
}
