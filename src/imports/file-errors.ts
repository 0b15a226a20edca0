/*
 * Errors of the offer-file readers. The codes are part of the import API (they reach the client in
 * the 4xx body and the job record), so they never change meaning; messages are for the operator
 * and say what to do, with the numbers involved.
 */

export const FILE_ERROR_CODES = [
  'file_empty',
  'file_too_large',
  'too_many_rows',
  'unsupported_format',
  'xlsx_corrupt',
  'xlsx_encrypted',
  'xlsx_zip_bomb',
  'sheet_not_found',
  'csv_malformed',
  'header_missing',
  'duplicate_header',
] as const
export type FileErrorCode = (typeof FILE_ERROR_CODES)[number]

export class FileReadError extends Error {
  override readonly name = 'FileReadError'
  readonly code: FileErrorCode
  /** Machine-readable facts behind the message (limits, sizes, row and line numbers, sheet names). */
  readonly details?: Readonly<Record<string, unknown>>

  constructor(code: FileErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    if (details !== undefined) this.details = details
  }
}

export function isFileReadError(error: unknown): error is FileReadError {
  return error instanceof FileReadError
}

/** `52428800` → `50 MB`, `1536` → `1.5 KB`: binary units, as file managers on Windows show them. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  const shown = unit === 0 ? String(value) : String(Number(value.toFixed(1)))
  return `${shown} ${units[unit] ?? 'bytes'}`
}
