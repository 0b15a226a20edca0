/*
 * The header preview of an offer file (POST /imports/offer/headers): its format, header row and
 * first rows, so that a client offers the column assignment of a workbook as it does a CSV's,
 * before the preview. Nothing is written: no job, no audit entry (docs/integration/import.md).
 */
import { stat } from 'node:fs/promises'

import type { HostContext } from '../host/context.js'
import { PluginError } from '../host/errors.js'
import { fileErrorMessagePl, FileReadError } from './reading/file-errors.js'
import {
  type FileHeaders,
  readFileHeaders,
  type ReadFileHeadersArgs,
  readFileHeadersOnWorker,
} from './reading/read-file-headers.js'

export async function previewOfferFileHeaders(
  ctx: HostContext,
  file: { filePath: string; fileName: string; sheet?: string | undefined },
): Promise<FileHeaders> {
  const args: ReadFileHeadersArgs = {
    path: file.filePath,
    fileName: file.fileName,
    ...(file.sheet ? { sheet: file.sheet } : {}),
    limits: { maxBytes: ctx.config.importMaxBytes, maxRows: ctx.config.importMaxRows },
  }
  const onWorker = (await stat(file.filePath)).size >= ctx.config.importWorkerMinBytes
  try {
    return await (onWorker ? readFileHeadersOnWorker(args) : readFileHeaders(args))
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error
    // one stable code for a file whose header row cannot be read; `reason` is the reader's code,
    // the same a preview of this file reports
    throw new PluginError('import_file_unreadable', 422, {
      reason: error.code,
      message: error.message,
      message_en: error.message,
      message_pl: fileErrorMessagePl(error.code, error.details),
      ...(error.details ? { details: { ...error.details } } : {}),
    })
  }
}
